/**
 * The built-in WhatsApp assistant's understanding and wording (spec §6.2, CONTRACT §10):
 * deterministic, no outside service, Spanish and English. Pure functions.
 *
 * {@link understand} reads a lead's message into one intent, in this order of precedence:
 * - `opt_out`: "baja", "stop", "no me escribáis", "unsubscribe" → never write again;
 * - `agent`: a call, an agent or a person → hand the conversation to an agent;
 * - `visit`: to visit a listing ("¿puedo verlo el jueves?", "quiero visitarlo", "can I see it",
 *   and in French, German and Italian "visiter", "besichtigen", "visitare")
 *   → free slots are offered (CONTRACT §20, jobs/tasks/assistant-reply.ts), else a hand-off;
 * - `refine`: a budget ("hasta 900", "up to 250k"), bedrooms ("3 habitaciones"), an operation
 *   ("para comprar", "to rent") or a place the catalogue knows ("en Delicias") → the search
 *   preferences change and the new top matches are shown;
 * - `listings`: wants to see properties ("sí, me interesa", "ver pisos", "show me") → top matches;
 * - `unknown`: anything else → a short help message (the second in a row hands off).
 *
 * {@link compose} words the answer to an intent in the lead's language.
 */
import { placeKey } from '../leads/matching.ts';

export type Intent = 'opt_out' | 'agent' | 'visit' | 'refine' | 'listings' | 'unknown';
export type ReplyLanguage = 'es' | 'en';

/** What a message asks to change in the lead's searches. */
export interface Refinement {
  /** € (a sale price) or €/month (a rent): {@link priceField} says which. */
  priceMax?: number;
  bedroomsMin?: number;
  operation?: 'venta' | 'alquiler' | 'traspaso';
  /** A place name of the catalogue, as the lead wrote it. */
  place?: string;
}

export interface Understanding {
  intent: Intent;
  /** The language the message is written in, when it shows (English words, or Spanish ones). */
  language: ReplyLanguage | null;
  refinement: Refinement;
}

/** Lower-case, accents off, punctuation to spaces: the form patterns are written for. */
function fold(text: string): string {
  return ` ${placeKey(text).replace(/[^\p{L}\p{N}€.,]+/gu, ' ')} `;
}

// An opt-out is for good, so only an unmistakable request counts: a bare command as the whole
// message ("BAJA", "stop"), or a phrase that cannot mean anything else. "Planta baja", "¿el
// precio baja?" and "a bus stop" are not requests.
const OPT_OUT_COMMAND = /^\s*(baja|stop|unsubscribe|cancelar suscripcion|opt out)\s*$/;
const OPT_OUT = {
  es: /\b(da(rme|dme|me) de baja|quiero (darme de )?baja|no me escrib\w*|no (me )?(envi|mand)\w* (mas )?(mensajes|whatsapps?)|dej(a|ad|en|e) de escribir\w*|no quiero (recibir )?(mas )?mensajes)\b/,
  en: /\b(unsubscribe me|stop (messaging|texting|contacting|writing to) me|stop sending( me)? messages|do not (message|contact|text) me|don t (message|contact|text) me|no more messages|opt me out)\b/,
};
// A person: an agent or a call. Not "me llamo Ana", "local comercial" or "mi teléfono es".
const AGENT = {
  es: /\b(agente|asesor[ae]?s?|humano|persona real|hablar con (un|una|el|la|alguien|algun)\w*|ll[aá]m(a|e|ad|en)me|que me llam\w+|me (puede|pueden|podeis|podrias|podria)s? llamar|llamarme|una llamada)\b/,
  en: /\b(agent|advisor|a human|real person|(speak|talk) (to|with) (someone|a person|an agent|a human|somebody)|call me|phone me|give me a call|ring me)\b/,
};
// A visit to a listing. Not "ver pisos", "¿puedo ver más fotos?" (listings, or a question).
const NOT_A_LISTING = {
  es: String.raw`(?!(mas |los |las |otr\w+ |unas |unos )?(pisos|casas|inmuebles|opciones|propiedades|fotos|imagenes|precios?)\b)`,
  en: String.raw`(?!(more |other |the |some )?(flats|apartments|homes|houses|properties|listings|options|photos|pictures|prices?)\b)`,
};
const VISIT = {
  es: new RegExp(
    String.raw`\b(visita\w*|visitar\w*|verl[oa]|ir a verl[oa]|ensen\w*(melo|mela)|ver (el|la|este|esta|ese|esa) (piso|casa|inmueble|atico|chalet|local|apartamento|vivienda|estudio|duplex)|(puedo|podemos|podria|podriamos|se puede|quiero|quisiera|me gustaria) (ir a )?ver ${NOT_A_LISTING.es}\S)`,
  ),
  en: new RegExp(
    String.raw`\b(visit(?:s|ed|ing)?\b|viewing|view (it|the (flat|apartment|house|property|place|home))|see (it|the (flat|apartment|house|property|place|home))|(come|go) (and|to) see|(can|could|may) (i|we) (come and )?(see|view) ${NOT_A_LISTING.en}\S)`,
  ),
};
/**
 * A visit in French, German or Italian ("Puis-je visiter le premier ?", "Kann ich den ersten
 * besichtigen?", "Posso vedere il primo?"): a visit, in no reply language of its own.
 */
const VISIT_OTHER =
  /\b(visiter|visite[rz]|voir (le|la|l|les|ce|cet|cette|celui|celle)|besichtig\w*|anseh\w*|anschau\w*|anzuseh\w*|anzuschau\w*|visitare|visitarl[oa]|vederl[oa]|vedere (il|la|l|lo|quest\w*|quell\w*))\b/;
/** "No me interesa", "not interested": no listings wanted. */
const DECLINES = /\b(no (me )?interesa\w*|no estoy interesad[oa]|no gracias|not interested|no thanks)\b/;
const LISTINGS = {
  es: /\b(si|me interesa\w*|interesad[oa]s?|ver (los )?(pisos|casas|inmuebles|opciones|propiedades)|opciones|pisos|casas|inmuebles|que (teneis|tienes|hay)|ensen\w*|mand\w* (los|las|opciones))\b/,
  en: /\b(yes|yeah|sure|interested|show me|see (the )?(flats|apartments|homes|houses|properties|listings|options)|options|listings|properties|flats|apartments|what do you have)\b/,
};
/** Common words that tell the language of a message the patterns did not recognise. */
const COMMON_WORDS = {
  es: /\b(hola|buenas|buenos|gracias|que|el|la|los|las|es|esto|quiero|tengo|por favor|como|donde|cuando|pero|y|de|en|un|una)\b/g,
  en: /\b(hello|hi|hey|thanks|thank|what|the|is|this|about|want|have|please|how|where|when|but|and|of|in|a|an|you|i)\b/g,
};

/** The language most of a message's common words belong to, or null. */
function guessLanguage(folded: string): ReplyLanguage | null {
  const es = folded.match(COMMON_WORDS.es)?.length ?? 0;
  const en = folded.match(COMMON_WORDS.en)?.length ?? 0;
  return es === en ? null : es > en ? 'es' : 'en';
}

const OPERATION: Array<[RegExp, Refinement['operation'], ReplyLanguage]> = [
  [/\b(comprar|compra|en venta|para comprar)\b/, 'venta', 'es'],
  [/\b(alquilar|alquiler|en alquiler|arrendar)\b/, 'alquiler', 'es'],
  [/\btraspaso\b/, 'traspaso', 'es'],
  [/\b(buy|buying|purchase|for sale)\b/, 'venta', 'en'],
  [/\b(rent|renting|to let|for rent)\b/, 'alquiler', 'en'],
];
const BEDROOMS = [
  { re: /\b(\d{1,2})\s*(habitaciones|habitacion|habs?|dormitorios|dormitorio|cuartos)\b/, language: 'es' as const },
  { re: /\b(\d{1,2})\s*(bedrooms?|beds?|br|rooms?)\b/, language: 'en' as const },
];
const AMOUNT = String.raw`(\d{1,3}(?:[.,\s]\d{3})+|\d+(?:[.,]\d+)?)\s*(k|mil|millones|million)?\b\s*(€|euros?|eur)?`;
const PRICE = [
  {
    re: new RegExp(String.raw`\b(?:hasta|maximo|max|como mucho|menos de|presupuesto(?: de)?|no mas de)\s*(?:de\s*)?${AMOUNT}`),
    language: 'es' as const,
  },
  {
    re: new RegExp(String.raw`\b(?:up to|under|below|max(?:imum)?|at most|less than|budget(?: of| is)?|no more than)\s*€?\s*${AMOUNT}`),
    language: 'en' as const,
  },
  { re: new RegExp(String.raw`(?:^|\s)€\s*${AMOUNT}`), language: null },
  { re: new RegExp(String.raw`\b(\d{1,3}(?:[.,\s]\d{3})+|\d+)\s*(k|mil)?\s*(€|euros?|eur)\b`), language: null },
];

/** "250.000", "250,000", "250 000", "1,5" with "k", "mil", "millones" → a whole number of €. */
function parseAmount(digits: string, multiplier: string | undefined): number | null {
  let value: number;
  if (/^\d{1,3}(?:[.,\s]\d{3})+$/.test(digits)) value = Number(digits.replace(/[.,\s]/g, ''));
  else value = Number(digits.replace(',', '.'));
  if (!Number.isFinite(value)) return null;
  if (multiplier === 'k' || multiplier === 'mil') value *= 1000;
  else if (multiplier === 'millones' || multiplier === 'million') value *= 1_000_000;
  value = Math.round(value);
  return value > 0 && value < 1e9 ? value : null;
}

/** Folded place names, to be asked about: a set, or the matching index's places (domain/leads/matching.ts). */
export interface PlaceNames {
  has(place: string): boolean;
}

/**
 * The catalogue place named in a message, as written there: the longest run of up to four
 * words whose folded form is one of `places` (folded city, province and district names).
 */
function findPlace(text: string, places: PlaceNames): string | null {
  const words = text.split(/[^\p{L}\p{N}'-]+/u).filter(Boolean);
  for (let size = Math.min(4, words.length); size >= 1; size--) {
    for (let start = 0; start + size <= words.length; start++) {
      const candidate = words.slice(start, start + size).join(' ');
      if (candidate.length >= 3 && places.has(placeKey(candidate))) return candidate;
    }
  }
  return null;
}

/**
 * Reads a message.
 * @param places folded place names of the business's catalogue ({@link placeKey}).
 */
export function understand(text: string | null, places: PlaceNames = new Set<string>()): Understanding {
  if (text === null || text.trim() === '') return { intent: 'unknown', language: null, refinement: {} };
  const folded = fold(text);
  const said = (patterns: { es: RegExp; en: RegExp }): ReplyLanguage | null =>
    patterns.es.test(folded) ? 'es' : patterns.en.test(folded) ? 'en' : null;

  const command = OPT_OUT_COMMAND.exec(folded.replace(/[.,!¡?¿]/g, ' '));
  const optOut = command ? (command[1] === 'baja' || command[1] === 'cancelar suscripcion' ? 'es' : 'en') : said(OPT_OUT);
  if (optOut) return { intent: 'opt_out', language: optOut, refinement: {} };

  const refinement: Refinement = {};
  let language: ReplyLanguage | null = null;
  // A count of bedrooms is not a budget: "hasta 3 habitaciones" sets bedrooms only.
  const withoutBedrooms = BEDROOMS.reduce((text, { re }) => text.replace(new RegExp(re.source, 'g'), ' '), folded);
  for (const { re, language: lang } of PRICE) {
    const m = re.exec(withoutBedrooms);
    const amount = m ? parseAmount(m[1], m[2]) : null;
    if (amount !== null) {
      refinement.priceMax = amount;
      language ??= lang;
      break;
    }
  }
  for (const { re, language: lang } of BEDROOMS) {
    const m = re.exec(folded);
    if (m && Number(m[1]) >= 1 && Number(m[1]) <= 20) {
      refinement.bedroomsMin = Number(m[1]);
      language ??= lang;
      break;
    }
  }
  for (const [re, operation, lang] of OPERATION) {
    if (re.test(folded)) {
      refinement.operation = operation;
      language ??= lang;
      break;
    }
  }
  const place = findPlace(text, places);
  if (place !== null) refinement.place = place;

  const agent = said(AGENT);
  if (agent) return { intent: 'agent', language: agent, refinement: {} };
  const visit = said(VISIT);
  if (visit) return { intent: 'visit', language: visit, refinement: {} };
  if (VISIT_OTHER.test(folded)) return { intent: 'visit', language: null, refinement: {} };
  if (Object.keys(refinement).length) return { intent: 'refine', language: language ?? said(LISTINGS), refinement };
  if (DECLINES.test(folded)) return { intent: 'unknown', language: guessLanguage(folded), refinement: {} };
  const listings = said(LISTINGS);
  if (listings) return { intent: 'listings', language: listings, refinement: {} };
  return { intent: 'unknown', language: guessLanguage(folded), refinement: {} };
}

/** Which price bound a budget sets: a sale or transfer price, or a monthly rent (below 10,000 €, or a rental search). */
export function priceField(amount: number, operations: readonly string[]): 'price_max' | 'price_rent_max' {
  const rents = operations.includes('alquiler');
  const buys = operations.includes('venta') || operations.includes('traspaso');
  if (rents && !buys) return 'price_rent_max';
  if (buys && !rents) return 'price_max';
  return amount < 10_000 ? 'price_rent_max' : 'price_max';
}

/** Property types a refinement applies to when an entry names none (those of a home, as ingest does). */
const DEFAULT_TYPES = ['apartamento', 'casa'];

/**
 * The lead's search preferences with a refinement applied to every entry (a new entry when
 * there is none): the operation replaces the entry's operations, the budget and bedrooms
 * set the bounds of each of its property types, and a place replaces its locations.
 * @param searches spec §2.4 entries (not changed).
 */
export function refineSearches(searches: ReadonlyArray<Record<string, unknown>>, refinement: Refinement): Array<Record<string, unknown>> {
  const entries = searches.length ? searches.map((e) => structuredClone(e)) : [{}];
  return entries.map((entry) => {
    if (refinement.operation) entry.operations = [refinement.operation];
    let operations = Array.isArray(entry.operations) ? (entry.operations as string[]) : [];
    if (refinement.priceMax !== undefined && operations.length === 0) {
      operations = [refinement.priceMax < 10_000 ? 'alquiler' : 'venta'];
      entry.operations = operations;
    }
    if (refinement.priceMax !== undefined || refinement.bedroomsMin !== undefined) {
      const listed = Array.isArray(entry.property_types) ? (entry.property_types as string[]) : [];
      const types = listed.length ? listed : DEFAULT_TYPES;
      if (!listed.length) entry.property_types = [...DEFAULT_TYPES];
      for (const type of types) {
        const criteria = { ...((entry[type] as Record<string, unknown> | undefined) ?? {}) };
        if (refinement.priceMax !== undefined) {
          const field = priceField(refinement.priceMax, operations);
          delete criteria[field === 'price_max' ? 'price_rent_max' : 'price_max'];
          criteria[field] = refinement.priceMax;
        }
        if (refinement.bedroomsMin !== undefined) criteria.bedrooms_min = refinement.bedroomsMin;
        entry[type] = criteria;
      }
    }
    if (refinement.place !== undefined) entry.locations = [{ name: refinement.place }];
    return entry;
  });
}

/** A listing as the assistant shows it. */
export interface ListingSummary {
  id: number;
  title: string | null;
  /** The operation shown: sale (`price`, €), rent (`price_rent`, €/month) or transfer (`price_transfer`, €). */
  operation: 'venta' | 'alquiler' | 'traspaso';
  /** €, or €/month for a rent. */
  amount: number | null;
  city: string | null;
  /** m². */
  size: number | null;
  bedrooms: number | null;
  /** The business's listing URL for it, when it has a template. */
  url: string | null;
}

/**
 * The listings of `listings` a text names, in the order it names them (what a chat-completions
 * assistant is given of each, services/messaging/assistant.ts): each placed where the text first
 * gives its URL, else its `#id`, else its title (a title may be part of another's: the URL and
 * the id are its own).
 */
export function listingsNamedIn(text: string, listings: readonly ListingSummary[]): number[] {
  const placed = listings.map((listing) => {
    const ways = [listing.url, `#${listing.id}`, listing.title].filter((needle): needle is string => !!needle);
    const found = ways
      .map((needle) => (needle === `#${listing.id}` ? new RegExp(`#${listing.id}(?!\\d)`).exec(text)?.index : text.indexOf(needle)))
      .find((i): i is number => i !== undefined && i >= 0);
    return { id: listing.id, at: found ?? -1 };
  });
  return placed
    .filter((l) => l.at >= 0)
    .sort((a, b) => a.at - b.at)
    .map((l) => l.id);
}

const TEXTS = {
  es: {
    intro: 'Estas son las opciones que mejor encajan con lo que buscas:',
    refined: (summary: string) => `Hecho, he actualizado tu búsqueda (${summary}).`,
    none: 'Ahora mismo no tenemos inmuebles que encajen con lo que buscas.',
    tryRefine: 'Puedes afinar la búsqueda escribiendo, por ejemplo, «hasta 900», «3 habitaciones» o el nombre de una zona.',
    next: 'Si quieres visitar alguno, dime cuál (por ejemplo, «quiero visitar el primero»); si prefieres que te llame un agente, escribe «agente».',
    agent: 'De acuerdo: un agente de la agencia se pondrá en contacto contigo lo antes posible.',
    handOff: 'No te he entendido bien, así que le paso la conversación a un agente de la agencia, que te responderá lo antes posible.',
    help:
      'Soy el asistente de la agencia. Puedo enseñarte inmuebles que encajen con lo que buscas: escribe «ver pisos», ' +
      'o afina la búsqueda con «hasta 900», «3 habitaciones» o el nombre de una zona. Para hablar con una persona, escribe «agente»; ' +
      'para no recibir más mensajes, «baja».',
    perMonth: '€/mes',
    rooms: (n: number) => `${n} hab.`,
    priceMax: (n: string, rent: boolean) => `hasta ${n} ${rent ? '€/mes' : '€'}`,
    bedroomsMin: (n: number) => `${n}+ habitaciones`,
    operation: { venta: 'compra', alquiler: 'alquiler', traspaso: 'traspaso' },
    place: (p: string) => `en ${p}`,
    locale: 'es-ES',
  },
  en: {
    intro: 'These are the properties that best fit what you are looking for:',
    refined: (summary: string) => `Done, I have updated your search (${summary}).`,
    none: 'Right now we have no properties that fit what you are looking for.',
    tryRefine: 'You can refine the search by writing, for example, "up to 900", "3 bedrooms" or the name of an area.',
    next: 'If you would like to visit one, tell me which (for example, "I would like to visit the first one"); to have an agent call you, write "agent".',
    agent: 'Of course: an agent from the agency will get in touch with you as soon as possible.',
    handOff:
      'I did not quite understand, so I am passing the conversation to an agent from the agency, who will answer you as soon as possible.',
    help:
      'I am the agency’s assistant. I can show you properties that fit what you are looking for: write "show me", ' +
      'or refine the search with "up to 900", "3 bedrooms" or the name of an area. To talk to a person, write "agent"; ' +
      'to stop receiving messages, "stop".',
    perMonth: '€/month',
    rooms: (n: number) => `${n} bed`,
    priceMax: (n: string, rent: boolean) => `up to ${n} ${rent ? '€/month' : '€'}`,
    bedroomsMin: (n: number) => `${n}+ bedrooms`,
    operation: { venta: 'to buy', alquiler: 'to rent', traspaso: 'business transfer' },
    place: (p: string) => `in ${p}`,
    locale: 'en-GB',
  },
} as const;

function listingLine(listing: ListingSummary, index: number, language: ReplyLanguage): string {
  const t = TEXTS[language];
  const amount =
    listing.amount === null
      ? null
      : `${new Intl.NumberFormat(t.locale, { maximumFractionDigits: 0 }).format(listing.amount)} ${listing.operation === 'alquiler' ? t.perMonth : '€'}`;
  const facts = [
    listing.title ?? `#${listing.id}`,
    amount,
    listing.city,
    listing.size === null ? null : `${listing.size} m²`,
    listing.bedrooms === null ? null : t.rooms(listing.bedrooms),
  ].filter((x): x is string => x !== null && x !== '');
  return `${index + 1}. ${facts.join(' · ')}${listing.url ? `\n${listing.url}` : ''}`;
}

/** The words of a refinement, for the confirmation ("hasta 900 €/mes, 3+ habitaciones"). */
function refinementSummary(refinement: Refinement, operations: readonly string[], language: ReplyLanguage): string {
  const t = TEXTS[language];
  const parts: string[] = [];
  if (refinement.operation) parts.push(t.operation[refinement.operation]);
  if (refinement.priceMax !== undefined) {
    const rent = priceField(refinement.priceMax, operations) === 'price_rent_max';
    parts.push(t.priceMax(new Intl.NumberFormat(t.locale).format(refinement.priceMax), rent));
  }
  if (refinement.bedroomsMin !== undefined) parts.push(t.bedroomsMin(refinement.bedroomsMin));
  if (refinement.place !== undefined) parts.push(t.place(refinement.place));
  return parts.join(', ');
}

/** What the assistant knows when it answers. */
export interface ReplyContext {
  understanding: Understanding;
  language: ReplyLanguage;
  /** The lead's top current matches (after a refinement, the new ones). */
  matches: readonly ListingSummary[];
  /** The operations of the lead's searches (after a refinement), for wording a budget. */
  operations: readonly string[];
  /** Whether this unrecognised message is the second in a row (it hands off). */
  handsOff: boolean;
}

/** The built-in assistant's answer, or null when there is none to send (an opt-out). */
export function compose(context: ReplyContext): string | null {
  const t = TEXTS[context.language];
  const listings = () =>
    context.matches.length
      ? [t.intro, ...context.matches.map((m, i) => listingLine(m, i, context.language)), t.next].join('\n\n')
      : `${t.none} ${t.tryRefine}`;
  switch (context.understanding.intent) {
    case 'opt_out':
      return null;
    case 'agent':
    case 'visit':
      // A visit whose slots are not offered (no listing known): an agent arranges it.
      return t.agent;
    case 'refine':
      return `${t.refined(refinementSummary(context.understanding.refinement, context.operations, context.language))}\n\n${listings()}`;
    case 'listings':
      return listings();
    case 'unknown':
      return context.handsOff ? t.handOff : t.help;
  }
}

/** The reply language: the lead's `preferred_language` (`gb` → English, any other → Spanish), else the message's, else Spanish. */
export function replyLanguage(preferred: string | null, written: ReplyLanguage | null): ReplyLanguage {
  if (preferred === 'gb') return 'en';
  if (preferred !== null) return 'es';
  return written ?? 'es';
}
