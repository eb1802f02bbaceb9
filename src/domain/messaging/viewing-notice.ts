/**
 * What a lead is told about a viewing (CONTRACT §20), pure: the purposes, the words of the e-mail, the parameters of the WhatsApp template, and the
 * words of the page a one-click link shows.
 *
 * Every text is in the lead's language (es, en, fr, de, it: services/messaging/welcome.ts
 * `emailLanguage`), times in the business's time zone, the place as the listing's privacy allows
 * (CONTRACT §5): its address when public, its approximate address when approximate, and when
 * hidden a sentence saying the agent will send the meeting point. No code or id reaches the person.
 *
 * A valuation visit (CONTRACT §24) is told to the owner in words of its own: an agent comes to
 * value their home ({@link VALUATION_WORDS}), at its address whatever the listing's privacy (it is
 * the owner's own), and its links' page asks about that visit.
 */
import { DateTime } from 'luxon';
import type { ViewingKind } from '../viewings/status.ts';
import type { TemplatePurpose } from './templates.ts';
import { escape, oneLine } from './welcome-email.ts';

/** Why a lead is told: a viewing booked (or accepted), moved, cancelled, or coming up. */
export const NOTICE_PURPOSES = ['scheduled', 'rescheduled', 'cancelled', 'reminder'] as const;
export type NoticePurpose = (typeof NOTICE_PURPOSES)[number];

/** The template purpose of a notice of `purpose` about a viewing of `kind`: `viewing_<purpose>`, or `valuation_<purpose>` for an owner's valuation visit. */
export const templatePurposeOf = (purpose: NoticePurpose, kind: ViewingKind = 'visit'): TemplatePurpose =>
  kind === 'valuation' ? `valuation_${purpose}` : `viewing_${purpose}`;

/** Whether a notice asks the lead to confirm or cancel (its template has the two quick-reply buttons, its e-mail the two links). */
export const asksToConfirm = (purpose: NoticePurpose): boolean => purpose !== 'cancelled';

/** The quick-reply payloads of a notice's buttons, in the template's order ("Confirmar", "Cancelar"). */
export function buttonPayloads(viewingId: number): [string, string] {
  return [`viewing:${viewingId}:confirm`, `viewing:${viewingId}:cancel`];
}

/** A button reply's payload read back: the viewing and the action, or null when it is not a notice's. */
export function readButtonPayload(payload: string | null): { viewingId: number; action: 'confirm' | 'cancel' } | null {
  const match = /^viewing:(\d{1,15}):(confirm|cancel)$/.exec(payload ?? '');
  return match ? { viewingId: Number(match[1]), action: match[2] as 'confirm' | 'cancel' } : null;
}

/**
 * A button reply's text read as an answer when it carries no payload of ours (a template whose
 * buttons were given fixed payloads): "Confirmar"/"Cancelar" and their translations.
 */
export function readButtonText(text: string | null): 'confirm' | 'cancel' | null {
  const word = (text ?? '').trim().toLowerCase();
  if (['confirmar', 'confirm', 'confirmer', 'bestätigen', 'confermare', 'conferma'].includes(word)) return 'confirm';
  if (['cancelar', 'cancel', 'annuler', 'absagen', 'stornieren', 'annullare', 'annulla', 'disdire'].includes(word)) return 'cancel';
  return null;
}

/** Where the viewing is, as privacy allows (CONTRACT §5). */
export type NoticePlace = { kind: 'address'; text: string } | { kind: 'hidden' };

/**
 * The place of a listing as a notice may say it: the address (public), the approximate address
 * (approximate), each with its city; hidden, or no address stored: `hidden`.
 */
export function noticePlace(listing: {
  address_privacy: string;
  address: string | null;
  address_approximate: string | null;
  city: string | null;
}): NoticePlace {
  const street =
    listing.address_privacy === 'public' ? listing.address : listing.address_privacy === 'approximate' ? listing.address_approximate : null;
  if (!street?.trim()) return { kind: 'hidden' };
  const city = listing.city?.trim();
  const text = city && !street.toLowerCase().includes(city.toLowerCase()) ? `${street.trim()}, ${city}` : street.trim();
  return { kind: 'address', text: oneLine(text) };
}

/** What one language says. `{business}`, `{name}`, `{date}`, `{time}`, `{listing}` are filled in. */
interface Wording {
  subject: Record<NoticePurpose, string>;
  greeting: string;
  greetingNamed: string;
  body: Record<NoticePurpose, string>;
  place: string;
  hidden: string;
  ask: string;
  confirm: string;
  cancel: string;
  closing: string;
  unsubscribe: string;
  /** The listing when it has no title. */
  untitled: string;
}

/** What a valuation visit's notice says instead (the owner is at home; an agent comes to value it). */
type ValuationWording = Pick<Wording, 'subject' | 'body' | 'ask' | 'hidden'>;

const VALUATION_WORDS: Readonly<Record<string, ValuationWording>> = {
  es: {
    subject: {
      scheduled: 'Visita de valoración: {date} a las {time}',
      rescheduled: 'La visita de valoración cambia: {date} a las {time}',
      cancelled: 'Visita de valoración cancelada: {date} a las {time}',
      reminder: 'Recordatorio: visita de valoración del {date} a las {time}',
    },
    body: {
      scheduled: 'Hemos reservado la visita de valoración de tu vivienda el {date} a las {time}: un agente irá a verla.',
      rescheduled: 'La visita de valoración de tu vivienda cambia de hora: ahora es el {date} a las {time}.',
      cancelled:
        'La visita de valoración de tu vivienda del {date} a las {time} ha quedado cancelada. Si quieres otra fecha, contesta a este mensaje.',
      reminder: 'Te recordamos la visita de valoración de tu vivienda el {date} a las {time}.',
    },
    ask: '¿Te viene bien? Confírmala o cancélala con un clic:',
    hidden: 'Tu agente te llamará para confirmar la dirección.',
  },
  en: {
    subject: {
      scheduled: 'Valuation visit: {date} at {time}',
      rescheduled: 'Your valuation visit has moved: {date} at {time}',
      cancelled: 'Valuation visit cancelled: {date} at {time}',
      reminder: 'Reminder: valuation visit on {date} at {time}',
    },
    body: {
      scheduled: 'We have booked the valuation visit to your home on {date} at {time}: an agent will come to see it.',
      rescheduled: 'The valuation visit to your home has a new time: {date} at {time}.',
      cancelled:
        'The valuation visit to your home on {date} at {time} has been cancelled. If you would like another date, reply to this message.',
      reminder: 'This is a reminder of the valuation visit to your home on {date} at {time}.',
    },
    ask: 'Does this suit you? Confirm or cancel it with one click:',
    hidden: 'Your agent will call you to confirm the address.',
  },
  fr: {
    subject: {
      scheduled: 'Visite d’estimation : {date} à {time}',
      rescheduled: 'Votre visite d’estimation change : {date} à {time}',
      cancelled: 'Visite d’estimation annulée : {date} à {time}',
      reminder: 'Rappel : visite d’estimation du {date} à {time}',
    },
    body: {
      scheduled: 'Nous avons réservé la visite d’estimation de votre logement le {date} à {time} : un agent viendra le voir.',
      rescheduled: 'La visite d’estimation de votre logement change d’horaire : elle a lieu le {date} à {time}.',
      cancelled: 'La visite d’estimation de votre logement du {date} à {time} est annulée. Pour une autre date, répondez à ce message.',
      reminder: 'Nous vous rappelons la visite d’estimation de votre logement le {date} à {time}.',
    },
    ask: 'Cela vous convient ? Confirmez ou annulez-la en un clic :',
    hidden: 'Votre agent vous appellera pour confirmer l’adresse.',
  },
  de: {
    subject: {
      scheduled: 'Bewertungstermin: {date} um {time}',
      rescheduled: 'Ihr Bewertungstermin wurde verlegt: {date} um {time}',
      cancelled: 'Bewertungstermin abgesagt: {date} um {time}',
      reminder: 'Erinnerung: Bewertungstermin am {date} um {time}',
    },
    body: {
      scheduled:
        'Wir haben den Bewertungstermin für Ihre Immobilie am {date} um {time} Uhr eingetragen: Ein Makler kommt vorbei, um sie anzusehen.',
      rescheduled: 'Der Bewertungstermin für Ihre Immobilie wurde verlegt: jetzt am {date} um {time} Uhr.',
      cancelled:
        'Der Bewertungstermin für Ihre Immobilie am {date} um {time} Uhr wurde abgesagt. Wenn Sie einen anderen Termin möchten, antworten Sie auf diese Nachricht.',
      reminder: 'Wir erinnern Sie an den Bewertungstermin für Ihre Immobilie am {date} um {time} Uhr.',
    },
    ask: 'Passt Ihnen der Termin? Bestätigen oder sagen Sie ihn mit einem Klick ab:',
    hidden: 'Ihr Makler ruft Sie an, um die Adresse zu bestätigen.',
  },
  it: {
    subject: {
      scheduled: 'Visita di valutazione: {date} alle {time}',
      rescheduled: 'La visita di valutazione cambia: {date} alle {time}',
      cancelled: 'Visita di valutazione annullata: {date} alle {time}',
      reminder: 'Promemoria: visita di valutazione del {date} alle {time}',
    },
    body: {
      scheduled: 'Abbiamo prenotato la visita di valutazione della tua casa il {date} alle {time}: un agente verrà a vederla.',
      rescheduled: 'La visita di valutazione della tua casa cambia orario: ora è il {date} alle {time}.',
      cancelled:
        'La visita di valutazione della tua casa del {date} alle {time} è stata annullata. Se vuoi un’altra data, rispondi a questo messaggio.',
      reminder: 'Ti ricordiamo la visita di valutazione della tua casa il {date} alle {time}.',
    },
    ask: 'Ti va bene? Conferma o annulla con un clic:',
    hidden: 'Il tuo agente ti chiamerà per confermare l’indirizzo.',
  },
};

const WORDS: Readonly<Record<string, Wording>> = {
  es: {
    subject: {
      scheduled: 'Tu visita del {date} a las {time}',
      rescheduled: 'Tu visita cambia: {date} a las {time}',
      cancelled: 'Visita cancelada: {date} a las {time}',
      reminder: 'Recordatorio: tu visita del {date} a las {time}',
    },
    greeting: 'Hola:',
    greetingNamed: 'Hola, {name}:',
    body: {
      scheduled: 'Hemos reservado tu visita a {listing} el {date} a las {time}.',
      rescheduled: 'Tu visita a {listing} cambia de hora: ahora es el {date} a las {time}.',
      cancelled: 'Tu visita a {listing} del {date} a las {time} ha quedado cancelada. Si quieres otra fecha, contesta a este mensaje.',
      reminder: 'Te recordamos tu visita a {listing} el {date} a las {time}.',
    },
    place: 'Dirección: {place}',
    hidden: 'Tu agente te enviará el punto de encuentro.',
    ask: '¿Vienes? Confírmalo o cancela la visita con un clic:',
    confirm: 'Confirmar',
    cancel: 'Cancelar',
    closing: 'Un saludo,\n{business}',
    unsubscribe: 'Si no quieres recibir más mensajes de {business}, date de baja aquí:',
    untitled: 'el inmueble',
  },
  en: {
    subject: {
      scheduled: 'Your viewing on {date} at {time}',
      rescheduled: 'Your viewing has moved: {date} at {time}',
      cancelled: 'Viewing cancelled: {date} at {time}',
      reminder: 'Reminder: your viewing on {date} at {time}',
    },
    greeting: 'Hello,',
    greetingNamed: 'Hello {name},',
    body: {
      scheduled: 'We have booked your viewing of {listing} on {date} at {time}.',
      rescheduled: 'Your viewing of {listing} has a new time: {date} at {time}.',
      cancelled: 'Your viewing of {listing} on {date} at {time} has been cancelled. If you would like another date, reply to this message.',
      reminder: 'This is a reminder of your viewing of {listing} on {date} at {time}.',
    },
    place: 'Address: {place}',
    hidden: 'Your agent will send you the meeting point.',
    ask: 'Are you coming? Confirm or cancel the viewing with one click:',
    confirm: 'Confirm',
    cancel: 'Cancel',
    closing: 'Kind regards,\n{business}',
    unsubscribe: 'If you would rather not receive more messages from {business}, unsubscribe here:',
    untitled: 'the property',
  },
  fr: {
    subject: {
      scheduled: 'Votre visite du {date} à {time}',
      rescheduled: 'Votre visite change : {date} à {time}',
      cancelled: 'Visite annulée : {date} à {time}',
      reminder: 'Rappel : votre visite du {date} à {time}',
    },
    greeting: 'Bonjour,',
    greetingNamed: 'Bonjour {name},',
    body: {
      scheduled: 'Nous avons réservé votre visite de {listing} le {date} à {time}.',
      rescheduled: 'Votre visite de {listing} change d’horaire : elle a lieu le {date} à {time}.',
      cancelled: 'Votre visite de {listing} du {date} à {time} est annulée. Pour une autre date, répondez à ce message.',
      reminder: 'Nous vous rappelons votre visite de {listing} le {date} à {time}.',
    },
    place: 'Adresse : {place}',
    hidden: 'Votre agent vous enverra le point de rendez-vous.',
    ask: 'Vous venez ? Confirmez ou annulez la visite en un clic :',
    confirm: 'Confirmer',
    cancel: 'Annuler',
    closing: 'Cordialement,\n{business}',
    unsubscribe: 'Si vous ne souhaitez plus recevoir de messages de {business}, désabonnez-vous ici :',
    untitled: 'le bien',
  },
  de: {
    subject: {
      scheduled: 'Ihre Besichtigung am {date} um {time}',
      rescheduled: 'Ihre Besichtigung wurde verlegt: {date} um {time}',
      cancelled: 'Besichtigung abgesagt: {date} um {time}',
      reminder: 'Erinnerung: Ihre Besichtigung am {date} um {time}',
    },
    greeting: 'Guten Tag,',
    greetingNamed: 'Guten Tag {name},',
    body: {
      scheduled: 'Wir haben Ihre Besichtigung von {listing} am {date} um {time} Uhr eingetragen.',
      rescheduled: 'Ihre Besichtigung von {listing} wurde verlegt: jetzt am {date} um {time} Uhr.',
      cancelled:
        'Ihre Besichtigung von {listing} am {date} um {time} Uhr wurde abgesagt. Wenn Sie einen anderen Termin möchten, antworten Sie auf diese Nachricht.',
      reminder: 'Wir erinnern Sie an Ihre Besichtigung von {listing} am {date} um {time} Uhr.',
    },
    place: 'Adresse: {place}',
    hidden: 'Ihr Makler sendet Ihnen den Treffpunkt.',
    ask: 'Kommen Sie? Bestätigen oder sagen Sie die Besichtigung mit einem Klick ab:',
    confirm: 'Bestätigen',
    cancel: 'Absagen',
    closing: 'Mit freundlichen Grüßen\n{business}',
    unsubscribe: 'Wenn Sie keine weiteren Nachrichten von {business} erhalten möchten, melden Sie sich hier ab:',
    untitled: 'die Immobilie',
  },
  it: {
    subject: {
      scheduled: 'La tua visita del {date} alle {time}',
      rescheduled: 'La tua visita cambia: {date} alle {time}',
      cancelled: 'Visita annullata: {date} alle {time}',
      reminder: 'Promemoria: la tua visita del {date} alle {time}',
    },
    greeting: 'Buongiorno,',
    greetingNamed: 'Buongiorno {name},',
    body: {
      scheduled: 'Abbiamo prenotato la tua visita a {listing} il {date} alle {time}.',
      rescheduled: 'La tua visita a {listing} cambia orario: ora è il {date} alle {time}.',
      cancelled: 'La tua visita a {listing} del {date} alle {time} è stata annullata. Se vuoi un’altra data, rispondi a questo messaggio.',
      reminder: 'Ti ricordiamo la visita a {listing} il {date} alle {time}.',
    },
    place: 'Indirizzo: {place}',
    hidden: 'Il tuo agente ti invierà il punto d’incontro.',
    ask: 'Vieni? Conferma o annulla la visita con un clic:',
    confirm: 'Confermare',
    cancel: 'Annullare',
    closing: 'Cordiali saluti,\n{business}',
    unsubscribe: 'Se non desideri ricevere altri messaggi da {business}, annulla l’iscrizione qui:',
    untitled: 'l’immobile',
  },
};

/** A language this module words, `es` otherwise. */
const languageOf = (language: string) => (Object.hasOwn(WORDS, language) ? language : 'es');

/** The words of a notice in `lang` (one of {@link WORDS}) about a viewing of `kind`. */
const wordingOf = (lang: string, kind: ViewingKind): Wording =>
  kind === 'valuation' ? { ...WORDS[lang], ...VALUATION_WORDS[lang] } : WORDS[lang];

/**
 * The local date and time of a viewing as a person reads them in `language`: `{date: "martes,
 * 3 de marzo", time: "10:30"}` in `zone` (the business's time zone).
 */
export function noticeWhen(startsAt: string, zone: string, language: string): { date: string; time: string } {
  const local = DateTime.fromISO(startsAt, { zone }).setLocale(languageOf(language));
  return { date: local.toLocaleString({ weekday: 'long', day: 'numeric', month: 'long' }), time: local.toFormat('HH:mm') };
}

/** What a notice speaks of. */
export interface NoticeFacts {
  purpose: NoticePurpose;
  /** `visit`, or `valuation` (an owner's home; absent: `visit`). */
  kind?: ViewingKind;
  /** The viewing's start, RFC 3339. */
  startsAt: string;
  /** The business's time zone. */
  zone: string;
  /** The listing's title in the lead's language (null: its reference is used). */
  listing: string;
  place: NoticePlace;
}

/**
 * The parameters of a notice's WhatsApp template body, in order: {{1}} the date, {{2}} the time,
 * {{3}} the listing, {{4}} the place (the address, or the sentence that the agent will send the
 * meeting point), all in the lead's language (docs/whatsapp.md).
 */
export function templateParameters(language: string, facts: NoticeFacts): string[] {
  const wording = wordingOf(languageOf(language), facts.kind ?? 'visit');
  const { date, time } = noticeWhen(facts.startsAt, facts.zone, language);
  return [date, time, oneLine(facts.listing) || wording.untitled, facts.place.kind === 'address' ? facts.place.text : wording.hidden];
}

/**
 * The notice's e-mail.
 * @param language `es`, `en`, `fr`, `de` or `it` (anything else: `es`).
 * @param words the business's and the lead's names, the absolute unsubscribe URL and, for a
 *   notice that asks ({@link asksToConfirm}), the absolute confirm and cancel links.
 * @returns `{subject, text, html}`; the HTML is a complete document with every value escaped.
 */
export function viewingEmail(
  language: string,
  facts: NoticeFacts,
  words: { businessName: string; leadName: string | null; unsubscribeUrl: string; links: { confirm: string; cancel: string } | null },
): { subject: string; text: string; html: string } {
  const lang = languageOf(language);
  const wording = wordingOf(lang, facts.kind ?? 'visit');
  const business = oneLine(words.businessName);
  const name = words.leadName === null ? '' : oneLine(words.leadName);
  const [date, time, listing, place] = templateParameters(lang, facts);
  const fill = (text: string) =>
    text
      .replaceAll('{business}', business)
      .replaceAll('{name}', name)
      .replaceAll('{date}', date)
      .replaceAll('{time}', time)
      .replaceAll('{listing}', listing)
      .replaceAll('{place}', place);
  const subject = fill(wording.subject[facts.purpose]);
  const greeting = fill(name ? wording.greetingNamed : wording.greeting);
  const where = facts.purpose === 'cancelled' ? null : facts.place.kind === 'address' ? fill(wording.place) : wording.hidden;
  const paragraphs = [greeting, fill(wording.body[facts.purpose]), ...(where === null ? [] : [where])];
  const links = words.links;
  const text =
    [...paragraphs, ...(links ? [`${wording.ask}\n${wording.confirm}: ${links.confirm}\n${wording.cancel}: ${links.cancel}`] : [])].join(
      '\n\n',
    ) + `\n\n${fill(wording.closing)}\n\n--\n${fill(wording.unsubscribe)}\n${words.unsubscribeUrl}\n`;
  const button = (href: string, label: string) =>
    `<a href="${escape(href)}" style="display:inline-block;padding:8px 16px;margin-right:8px;border:1px solid #1a5fb4;border-radius:4px;color:#1a5fb4;text-decoration:none">${escape(label)}</a>`;
  const html =
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${escape(subject)}</title></head>` +
    `<body style="font-family:sans-serif;line-height:1.5;color:#222">` +
    paragraphs.map((p) => `<p>${escape(p)}</p>`).join('') +
    (links ? `<p>${escape(wording.ask)}</p><p>${button(links.confirm, wording.confirm)}${button(links.cancel, wording.cancel)}</p>` : '') +
    `<p>${escape(fill(wording.closing)).replaceAll('\n', '<br>')}</p>` +
    `<hr><p style="font-size:small;color:#555">${escape(fill(wording.unsubscribe))} ` +
    `<a href="${escape(words.unsubscribeUrl)}">${escape(words.unsubscribeUrl)}</a></p></body></html>`;
  return { subject, text, html };
}

/** What a one-click link's page can say after its button. */
export type LinkOutcome = 'confirmed' | 'cancelled' | 'already_cancelled' | 'over' | 'moved';

/** The words of a one-click link's page, per language. `{date}`, `{time}`, `{listing}` are filled in. */
const PAGE_WORDS: Readonly<
  Record<string, { title: Record<'confirm' | 'cancel', string>; ask: Record<'confirm' | 'cancel', string> } & Record<LinkOutcome, string>>
> = {
  es: {
    title: { confirm: 'Confirmar la visita', cancel: 'Cancelar la visita' },
    ask: {
      confirm: '¿Confirmas tu visita a {listing} el {date} a las {time}?',
      cancel: '¿Cancelas tu visita a {listing} del {date} a las {time}?',
    },
    confirmed: 'Hecho: tu visita a {listing} del {date} a las {time} queda confirmada. ¡Te esperamos!',
    cancelled: 'Hecho: tu visita a {listing} del {date} a las {time} queda cancelada. Tu agente lo sabe.',
    already_cancelled: 'Esta visita ya estaba cancelada. Si quieres otra fecha, contesta a nuestro mensaje.',
    over: 'Esta visita ya pasó; no se puede cambiar desde aquí.',
    moved: 'Esta visita ha cambiado desde que te escribimos; mira nuestro último mensaje.',
  },
  en: {
    title: { confirm: 'Confirm the viewing', cancel: 'Cancel the viewing' },
    ask: {
      confirm: 'Do you confirm your viewing of {listing} on {date} at {time}?',
      cancel: 'Do you cancel your viewing of {listing} on {date} at {time}?',
    },
    confirmed: 'Done: your viewing of {listing} on {date} at {time} is confirmed. See you there!',
    cancelled: 'Done: your viewing of {listing} on {date} at {time} is cancelled. Your agent knows.',
    already_cancelled: 'This viewing was already cancelled. If you would like another date, reply to our message.',
    over: 'This viewing is over; it cannot be changed here.',
    moved: 'This viewing has changed since we wrote to you; see our latest message.',
  },
  fr: {
    title: { confirm: 'Confirmer la visite', cancel: 'Annuler la visite' },
    ask: {
      confirm: 'Confirmez-vous votre visite de {listing} le {date} à {time} ?',
      cancel: 'Annulez-vous votre visite de {listing} du {date} à {time} ?',
    },
    confirmed: 'C’est fait : votre visite de {listing} du {date} à {time} est confirmée. À bientôt !',
    cancelled: 'C’est fait : votre visite de {listing} du {date} à {time} est annulée. Votre agent est prévenu.',
    already_cancelled: 'Cette visite était déjà annulée. Pour une autre date, répondez à notre message.',
    over: 'Cette visite est passée ; elle ne peut plus être modifiée ici.',
    moved: 'Cette visite a changé depuis notre message ; consultez notre dernier message.',
  },
  de: {
    title: { confirm: 'Besichtigung bestätigen', cancel: 'Besichtigung absagen' },
    ask: {
      confirm: 'Bestätigen Sie Ihre Besichtigung von {listing} am {date} um {time} Uhr?',
      cancel: 'Sagen Sie Ihre Besichtigung von {listing} am {date} um {time} Uhr ab?',
    },
    confirmed: 'Erledigt: Ihre Besichtigung von {listing} am {date} um {time} Uhr ist bestätigt. Bis bald!',
    cancelled: 'Erledigt: Ihre Besichtigung von {listing} am {date} um {time} Uhr ist abgesagt. Ihr Makler weiß Bescheid.',
    already_cancelled: 'Diese Besichtigung war bereits abgesagt. Für einen anderen Termin antworten Sie auf unsere Nachricht.',
    over: 'Diese Besichtigung ist vorbei; sie kann hier nicht mehr geändert werden.',
    moved: 'Diese Besichtigung hat sich seit unserer Nachricht geändert; sehen Sie unsere letzte Nachricht.',
  },
  it: {
    title: { confirm: 'Conferma la visita', cancel: 'Annulla la visita' },
    ask: {
      confirm: 'Confermi la visita a {listing} il {date} alle {time}?',
      cancel: 'Annulli la visita a {listing} del {date} alle {time}?',
    },
    confirmed: 'Fatto: la tua visita a {listing} del {date} alle {time} è confermata. Ti aspettiamo!',
    cancelled: 'Fatto: la tua visita a {listing} del {date} alle {time} è annullata. Il tuo agente lo sa.',
    already_cancelled: 'Questa visita era già annullata. Se vuoi un’altra data, rispondi al nostro messaggio.',
    over: 'Questa visita è passata; non si può più cambiare da qui.',
    moved: 'Questa visita è cambiata dal nostro messaggio; guarda il nostro ultimo messaggio.',
  },
};

/** What a valuation visit's link page says instead, per language. `{date}`, `{time}` are filled in. */
const VALUATION_PAGE_WORDS: Readonly<
  Record<
    string,
    { title: Record<'confirm' | 'cancel', string>; ask: Record<'confirm' | 'cancel', string> } & Record<'confirmed' | 'cancelled', string>
  >
> = {
  es: {
    title: { confirm: 'Confirmar la visita de valoración', cancel: 'Cancelar la visita de valoración' },
    ask: {
      confirm: '¿Confirmas la visita de valoración de tu vivienda el {date} a las {time}?',
      cancel: '¿Cancelas la visita de valoración de tu vivienda del {date} a las {time}?',
    },
    confirmed: 'Hecho: la visita de valoración del {date} a las {time} queda confirmada.',
    cancelled: 'Hecho: la visita de valoración del {date} a las {time} queda cancelada. Tu agente lo sabe.',
  },
  en: {
    title: { confirm: 'Confirm the valuation visit', cancel: 'Cancel the valuation visit' },
    ask: {
      confirm: 'Do you confirm the valuation visit to your home on {date} at {time}?',
      cancel: 'Do you cancel the valuation visit to your home on {date} at {time}?',
    },
    confirmed: 'Done: the valuation visit on {date} at {time} is confirmed.',
    cancelled: 'Done: the valuation visit on {date} at {time} is cancelled. Your agent knows.',
  },
  fr: {
    title: { confirm: 'Confirmer la visite d’estimation', cancel: 'Annuler la visite d’estimation' },
    ask: {
      confirm: 'Confirmez-vous la visite d’estimation de votre logement le {date} à {time} ?',
      cancel: 'Annulez-vous la visite d’estimation de votre logement du {date} à {time} ?',
    },
    confirmed: 'C’est fait : la visite d’estimation du {date} à {time} est confirmée.',
    cancelled: 'C’est fait : la visite d’estimation du {date} à {time} est annulée. Votre agent est prévenu.',
  },
  de: {
    title: { confirm: 'Bewertungstermin bestätigen', cancel: 'Bewertungstermin absagen' },
    ask: {
      confirm: 'Bestätigen Sie den Bewertungstermin für Ihre Immobilie am {date} um {time} Uhr?',
      cancel: 'Sagen Sie den Bewertungstermin für Ihre Immobilie am {date} um {time} Uhr ab?',
    },
    confirmed: 'Erledigt: Der Bewertungstermin am {date} um {time} Uhr ist bestätigt.',
    cancelled: 'Erledigt: Der Bewertungstermin am {date} um {time} Uhr ist abgesagt. Ihr Makler weiß Bescheid.',
  },
  it: {
    title: { confirm: 'Conferma la visita di valutazione', cancel: 'Annulla la visita di valutazione' },
    ask: {
      confirm: 'Confermi la visita di valutazione della tua casa il {date} alle {time}?',
      cancel: 'Annulli la visita di valutazione della tua casa del {date} alle {time}?',
    },
    confirmed: 'Fatto: la visita di valutazione del {date} alle {time} è confermata.',
    cancelled: 'Fatto: la visita di valutazione del {date} alle {time} è annullata. Il tuo agente lo sa.',
  },
};

/**
 * The words of a one-click link's page: its title, the question above its button, the button,
 * and what was done (when `outcome` is given); a valuation visit's in words of its own.
 */
export function linkPageWords(
  language: string,
  action: 'confirm' | 'cancel',
  facts: Omit<NoticeFacts, 'purpose' | 'place'>,
  outcome: LinkOutcome | null,
): { title: string; ask: string; button: string; done: string } {
  const lang = languageOf(language);
  const page = facts.kind === 'valuation' ? { ...PAGE_WORDS[lang], ...VALUATION_PAGE_WORDS[lang] } : PAGE_WORDS[lang];
  const [date, time, listing] = templateParameters(lang, { ...facts, purpose: 'reminder', place: { kind: 'hidden' } });
  const fill = (text: string) => text.replaceAll('{date}', date).replaceAll('{time}', time).replaceAll('{listing}', listing);
  return {
    title: page.title[action],
    ask: fill(page.ask[action]),
    button: page.title[action],
    done: outcome === null ? '' : fill(page[outcome]),
  };
}
