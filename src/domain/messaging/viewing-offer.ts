/**
 * The assistant's viewings (CONTRACT §20, §10): which free slots a lead who asks to visit is
 * offered, how they read in a WhatsApp interactive list, how the lead's choice comes back, and
 * which listing the lead means. Pure functions; the job is jobs/tasks/assistant-reply.ts.
 *
 * A list row's id names the slot it offers, `viewing:<property id>:<start, Unix seconds>:<es|en>`, so the
 * lead's list reply (`interactive.list_reply.id`) says what to book without anything else being
 * stored; the booking checks it again (services/viewings/booking.ts), as it checks any request.
 */
import { localDate, WEEKDAYS, type Slot, type Weekday } from '../viewings/hours.ts';
import type { ReplyLanguage } from './assistant.ts';

/** Slots offered at most (WhatsApp's list allows 10 rows; three are easy to choose from). */
export const SLOTS_OFFERED = 3;
/** Days ahead the slots are looked for, today included. */
export const OFFER_DAYS = 7;
/** Minutes from now before the first slot offered: nobody can be at a listing in ten minutes. */
export const OFFER_NOTICE_MINUTES = 120;

/** WhatsApp's limits on an interactive list, characters. */
const LIMITS = { body: 1024, button: 20, sectionTitle: 24, rowTitle: 24, rowDescription: 72 } as const;

/** An interactive list message: the text, the button that opens the list, and its rows. */
export interface InteractiveList {
  body: string;
  button: string;
  section: string;
  rows: Array<{ id: string; title: string; description: string }>;
}

/** A slot chosen from a list: the listing, when the viewing starts (epoch ms), and the language the list was in. */
export interface SlotChoice {
  propertyId: number;
  startsAt: number;
  language: ReplyLanguage;
}

/** Slots offered on one named day are this far apart, ms. */
const SAME_DAY_GAP_MS = 2 * 60 * 60 * 1000;

const ROW_ID = /^viewing:([1-9]\d{0,14}):(\d{9,11}):(es|en)$/;

/** The id of the list row offering the slot starting at `start` (epoch ms) of listing `propertyId`, in a list in `language`. */
export const slotRowId = (propertyId: number, start: number, language: ReplyLanguage): string =>
  `viewing:${propertyId}:${Math.floor(start / 1000)}:${language}`;

/** The slot a list row's id names, or null for any other reply (another list, a forged id). */
export function readSlotChoice(rowId: string | null | undefined): SlotChoice | null {
  const match = rowId ? ROW_ID.exec(rowId) : null;
  return match ? { propertyId: Number(match[1]), startsAt: Number(match[2]) * 1000, language: match[3] as ReplyLanguage } : null;
}

const weekdayOfMs = (ms: number, zone: string): Weekday => WEEKDAYS[(new Date(`${localDate(ms, zone)}T00:00:00Z`).getUTCDay() + 6) % 7];

/**
 * Up to `count` of `free` (in time order) to offer: the first free slot of each day, days in
 * order, so that the lead has a choice of days; when the lead named a weekday, that day's
 * slots first, at least two hours apart; filled up with the next slots when there are fewer days.
 * @returns the slots in time order.
 */
export function pickSlots(free: readonly Slot[], zone: string, preferred: Weekday | null = null, count = SLOTS_OFFERED): Slot[] {
  const isPreferred = (s: Slot) => preferred !== null && weekdayOfMs(s.start, zone) === preferred;
  const ordered = [...free.filter(isPreferred), ...free.filter((s) => !isPreferred(s))];
  const chosen: Slot[] = [];
  for (const slot of ordered) {
    if (chosen.length >= count) break;
    const day = localDate(slot.start, zone);
    const sameDay = chosen.filter((c) => localDate(c.start, zone) === day);
    const apart = sameDay.every((c) => Math.abs(c.start - slot.start) >= SAME_DAY_GAP_MS);
    if (sameDay.length === 0 || (isPreferred(slot) && apart)) chosen.push(slot);
  }
  for (const slot of ordered) {
    if (chosen.length >= count) break;
    if (!chosen.includes(slot)) chosen.push(slot);
  }
  return chosen.sort((a, b) => a.start - b.start);
}

const LOCALE: Record<ReplyLanguage, string> = { es: 'es-ES', en: 'en-GB' };

function parts(ms: number, zone: string, language: ReplyLanguage, month: 'long' | 'short', weekday: 'long' | 'short') {
  const format = new Intl.DateTimeFormat(LOCALE[language], {
    timeZone: zone,
    weekday,
    day: 'numeric',
    month,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const p = Object.fromEntries(format.formatToParts(new Date(ms)).map((x) => [x.type, x.value])) as Record<string, string>;
  return { weekday: p.weekday, day: p.day, month: p.month.replace(/\.$/, ''), time: `${p.hour}:${p.minute}` };
}

const capital = (text: string) => text.charAt(0).toLocaleUpperCase() + text.slice(1);

/**
 * A time as a person reads it, in `zone`: "jueves 3 de diciembre, 10:30" / "Thursday 3 December, 10:30".
 */
export function slotInWords(ms: number, zone: string, language: ReplyLanguage): string {
  const p = parts(ms, zone, language, 'long', 'long');
  return language === 'es' ? `${p.weekday} ${p.day} de ${p.month}, ${p.time}` : `${p.weekday} ${p.day} ${p.month}, ${p.time}`;
}

/** A list row's title (WhatsApp allows 24 characters): "Jueves 3 dic, 10:30", "Thursday 3 Dec, 10:30". */
export function slotRowTitle(ms: number, zone: string, language: ReplyLanguage): string {
  for (const weekday of ['long', 'short'] as const) {
    const p = parts(ms, zone, language, 'short', weekday);
    const title = capital(`${p.weekday} ${p.day} ${p.month}, ${p.time}`);
    if (title.length <= LIMITS.rowTitle) return title;
  }
  return slotInWords(ms, zone, language).slice(0, LIMITS.rowTitle);
}

const TEXTS = {
  es: {
    offer: (listing: string) => `¡Claro! Estos son los próximos huecos libres para visitar ${listing}:`,
    taken: (listing: string) => `Vaya, ese hueco se acaba de ocupar. Estos son los siguientes libres para visitar ${listing}:`,
    passed: (listing: string) => `Ese horario ya ha pasado. Estos son los próximos libres para visitar ${listing}:`,
    gone: 'Ese inmueble ya no está disponible para visitas, así que le paso la conversación a un agente de la agencia, que te responderá lo antes posible.',
    choose: 'Elige uno en la lista y te lo reservo.',
    button: 'Ver horarios',
    section: 'Horarios libres',
    description: (minutes: number) => `Visita de ${minutes} minutos`,
    booked: (when: string, listing: string, agent: string | null) =>
      `¡Hecho! Tienes la visita a ${listing} reservada para el ${when}. ` +
      `${agent ? `${agent}, de la agencia,` : 'Un agente de la agencia'} te acompañará y te escribirá para cualquier detalle.`,
    noSlots: (listing: string) =>
      `Ahora mismo no tengo huecos libres para visitar ${listing} en los próximos días, así que le paso la conversación a un agente de la agencia, que te propondrá un momento lo antes posible.`,
    listing: (title: string | null, ref: string) => (title ? `«${title}» (ref. ${ref})` : `el inmueble con referencia ${ref}`),
    beyond: (n: number) => (n === 1 ? 'Solo te he enseñado un inmueble:' : `Solo te he enseñado ${n} inmuebles:`),
    several: 'Te he enseñado varios inmuebles:',
    which: (n: number) =>
      n === 1
        ? '¿Quieres visitar ese? Escríbeme «visitar el primero» o su referencia.'
        : `¿Cuál quieres visitar? Dime su número (${ORDINAL_WORDS.es.slice(0, Math.min(n, 3)).join(', ')}…) o su referencia.`,
  },
  en: {
    offer: (listing: string) => `Of course! These are the next free times to visit ${listing}:`,
    taken: (listing: string) => `Sorry, that time has just been taken. These are the next free times to visit ${listing}:`,
    passed: (listing: string) => `That time has already passed. These are the next free times to visit ${listing}:`,
    gone: 'That property is no longer available for viewings, so I am passing the conversation to an agent from the agency, who will answer you as soon as possible.',
    choose: 'Pick one from the list and I will book it for you.',
    button: 'See times',
    section: 'Free times',
    description: (minutes: number) => `A ${minutes}-minute viewing`,
    booked: (when: string, listing: string, agent: string | null) =>
      `Done! Your viewing of ${listing} is booked for ${when}. ` +
      `${agent ? `${agent}, from the agency,` : 'An agent from the agency'} will show you round and will write to you with any details.`,
    noSlots: (listing: string) =>
      `I have no free times to visit ${listing} in the next few days, so I am passing the conversation to an agent from the agency, who will suggest a time as soon as possible.`,
    listing: (title: string | null, ref: string) => (title ? `“${title}” (ref. ${ref})` : `the property with reference ${ref}`),
    beyond: (n: number) => (n === 1 ? 'I have only shown you one property:' : `I have only shown you ${n} properties:`),
    several: 'I have shown you several properties:',
    which: (n: number) =>
      n === 1
        ? 'Would you like to visit it? Write "visit the first one" or its reference.'
        : `Which one would you like to visit? Tell me its number (${ORDINAL_WORDS.en.slice(0, Math.min(n, 3)).join(', ')}…) or its reference.`,
  },
} as const;

/** How a lead may point at the listings of a list, as the question suggests it. */
const ORDINAL_WORDS: Record<ReplyLanguage, string[]> = {
  es: ['«el primero»', '«el segundo»', '«el tercero»'],
  en: ['"the first one"', '"the second one"', '"the third one"'],
};

/** A listing as the assistant names it to a lead. */
export interface OfferedListing {
  id: number;
  /** Its title in the lead's language, when it has one. */
  title: string | null;
  external_ref: string;
}

/**
 * The interactive list offering `slots` of `listing` (CONTRACT §20), in the lead's language and
 * the business's time zone: the text lists the times in words, each row is one time.
 * @param again why the lead's previous choice could not be booked, when it could not: taken meanwhile, or passed.
 */
export function offerList(
  listing: OfferedListing,
  slots: readonly Slot[],
  zone: string,
  language: ReplyLanguage,
  again: 'taken' | 'passed' | null = null,
): InteractiveList {
  const t = TEXTS[language];
  const name = t.listing(listing.title, listing.external_ref);
  const lines = slots.map((s) => `• ${slotInWords(s.start, zone, language)}`);
  const body = [again === null ? t.offer(name) : t[again](name), lines.join('\n'), t.choose].join('\n\n');
  return {
    body: body.length <= LIMITS.body ? body : body.slice(0, LIMITS.body - 1) + '…',
    button: t.button.slice(0, LIMITS.button),
    section: t.section.slice(0, LIMITS.sectionTitle),
    rows: slots.map((s) => ({
      id: slotRowId(listing.id, s.start, language),
      title: slotRowTitle(s.start, zone, language),
      description: t.description(Math.round((s.end - s.start) / 60_000)).slice(0, LIMITS.rowDescription),
    })),
  };
}

/** The confirmation of a booked viewing, with the agent's name when the console has one. */
export function bookedText(listing: OfferedListing, start: number, zone: string, language: ReplyLanguage, agent: string | null): string {
  const t = TEXTS[language];
  return t.booked(slotInWords(start, zone, language), t.listing(listing.title, listing.external_ref), agent);
}

/** The hand-off when the listing has no free slot in the next days. */
export function noSlotsText(listing: OfferedListing, language: ReplyLanguage): string {
  const t = TEXTS[language];
  return t.noSlots(t.listing(listing.title, listing.external_ref));
}

/**
 * The question asked when a lead points at a listing the assistant cannot tell
 * (domain/messaging/listing-pointer.ts): a position beyond those it listed ("el quinto" of three),
 * or "ese" when it listed several. It lists them again, numbered as before, and asks which.
 * @param listings those the assistant's last list showed, in its order.
 */
export function whichListingText(listings: readonly OfferedListing[], reason: 'beyond' | 'several', language: ReplyLanguage): string {
  const t = TEXTS[language];
  const lines = listings.map((l, i) => `${i + 1}. ${t.listing(l.title, l.external_ref)}`);
  return [reason === 'beyond' ? t.beyond(listings.length) : t.several, lines.join('\n'), t.which(listings.length)].join('\n\n');
}

/** The hand-off when the listing is no longer published (sold, withdrawn) by the time of the choice. */
export const goneText = (language: ReplyLanguage): string => TEXTS[language].gone;

/** An interactive list as stored on its outbound message (`messages.template`), and read back to send it. */
export const storedList = (list: InteractiveList): string => JSON.stringify(list);

/** The interactive list stored on a message, or null when it holds none. */
export function readStoredList(stored: string | null): InteractiveList | null {
  if (stored === null) return null;
  try {
    const value = JSON.parse(stored) as InteractiveList;
    return typeof value?.body === 'string' && Array.isArray(value.rows) ? value : null;
  } catch {
    return null;
  }
}

const WEEKDAY_WORDS: Array<[RegExp, Weekday]> = [
  [/\b(lunes|monday)\b/, 'mon'],
  [/\b(martes|tuesday)\b/, 'tue'],
  [/\b(miercoles|wednesday)\b/, 'wed'],
  [/\b(jueves|thursday)\b/, 'thu'],
  [/\b(viernes|friday)\b/, 'fri'],
  [/\b(sabado|saturday)\b/, 'sat'],
  [/\b(domingo|sunday)\b/, 'sun'],
];

/** The weekday a message names ("¿puedo verlo el jueves?" → `thu`), or null. */
export function namedWeekday(text: string | null): Weekday | null {
  if (!text) return null;
  const folded = text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
  return WEEKDAY_WORDS.find(([re]) => re.test(folded))?.[1] ?? null;
}

/**
 * The words of a message that may be a listing's reference: runs of letters, digits, `-`, `_`,
 * `/` and `.` of three characters or more with a digit ("Z-12", "REF123"), and `#12` (an inmo
 * id, kept with its `#`: a bare number is a day, an hour or a phone more often than a listing).
 * At most ten.
 */
export function referencesIn(text: string | null): string[] {
  if (!text) return [];
  const words = text.match(/#?[\p{L}\p{N}][\p{L}\p{N}\-_/.]*[\p{L}\p{N}]|#\p{N}/gu) ?? [];
  const refs = words.filter((w) => /\d/.test(w) && w.length <= 60 && (w.startsWith('#') ? /^#[1-9]\d{0,9}$/.test(w) : w.length >= 3));
  return [...new Set(refs)].slice(0, 10);
}

/**
 * The listing reference an inquiry's notes name, newest first: the website kit's "Ref. X",
 * a portal e-mail's "Referencia del anuncio: X", a viewing request's "Visita pedida al inmueble X".
 * @param notes note texts, oldest first.
 */
export function inquiryReferences(notes: readonly string[]): string[] {
  const found: string[] = [];
  const pattern = /(?:\bRef\.|Referencia del anuncio:|Visita pedida al inmueble)\s*([^\s«»()]+?)[.,;]?(?=\s|$)/g;
  for (const note of [...notes].reverse()) {
    for (const match of [...note.matchAll(pattern)].reverse()) if (!found.includes(match[1])) found.push(match[1]);
  }
  return found;
}
