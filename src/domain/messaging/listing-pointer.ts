/**
 * Which of the listings the assistant just showed a lead's message points at (CONTRACT §10, §20):
 * "el primero", "la segunda", "el último", "ese", "este piso"; "the first one", "that one";
 * "le premier", "la dernière", "celui-ci"; "den ersten", "das letzte", "diese Wohnung";
 * "il primo", "l'ultimo", "quello"; "la opción 2", "number 3"; or a message that is a number
 * alone ("2"). Deterministic rules, pure functions; the listings pointed into are those of the
 * assistant's most recent message that listed some (services/messaging/assistant-viewings.ts).
 *
 * An ordinal counts only after its article ("el primero", not "primero, dime…") and not before a
 * word of time ("la primera semana", "the first week", "le premier jour", "den ersten Tag",
 * "il primo giorno", "el primero de mayo"); a demonstrative only at the end of a phrase or
 * before a word for a listing ("ese", "ese piso", "diese Wohnung"; not "esta semana",
 * "¿está disponible?", "this week").
 */

/** What a message points at: the `position`-th listing shown (from 1), the last one, or the one spoken of ("ese"). */
export type ListingPointer = { kind: 'position'; position: number } | { kind: 'last' } | { kind: 'this' };

/** Highest position read ("el décimo"); a lead never counts further down a list of a few. */
const MAX_POSITION = 10;

/**
 * Lower case, accents off, apostrophes and hyphens to spaces ("l'ultimo" → "l ultimo",
 * "celui-ci" → "celui ci"), each mark that ends a phrase to ` | `, other symbols to spaces.
 */
function normalise(text: string): string {
  const plain = text
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/ß/g, 'ss')
    .replace(/[.,;:!?¡¿()«»"“”\n]+/g, ' | ')
    .replace(/[^\p{L}\p{N}|]+/gu, ' ');
  return ` ${plain.replace(/\s+/g, ' ').trim()} `;
}

/** Ordinal words by position (0: the last), every gender and case, accents off. */
const ORDINALS: Array<[RegExp, number]> = [
  [/^(primer[oa]?|first|1st|premier|premiere|erste[nmrs]?|prim[oa])$/, 1],
  [/^(segund[oa]|second|2nd|deuxieme|seconde?|zweite[nmrs]?|second[oa])$/, 2],
  [/^(tercer[oa]?|third|3rd|troisieme|dritte[nmrs]?|terz[oa])$/, 3],
  [/^(cuart[oa]|fourth|4th|quatrieme|vierte[nmrs]?|quart[oa])$/, 4],
  [/^(quint[oa]|fifth|5th|cinquieme|funfte[nmrs]?|fuenfte[nmrs]?)$/, 5],
  [/^(sext[oa]|sixth|6th|sixieme|sechste[nmrs]?|sest[oa])$/, 6],
  [/^(septim[oa]|seventh|7th|septieme|siebte[nmrs]?|settim[oa])$/, 7],
  [/^(octav[oa]|eighth|8th|huitieme|achte[nmrs]?|ottav[oa])$/, 8],
  [/^(noven[oa]|ninth|9th|neuvieme|neunte[nmrs]?|non[oa])$/, 9],
  [/^(decim[oa]|tenth|10th|dixieme|zehnte[nmrs]?)$/, 10],
  [/^(ultim[oa]|last|dernier|derniere|letzte[nmrs]?)$/, 0],
];
const ORDINAL_WORDS = ORDINALS.map(([re]) => re.source.slice(2, -2)).join('|');

/** Articles an ordinal follows (not Spanish "lo": "lo primero" is "first of all"; not Italian "i": an English "I"). */
const ARTICLES = String.raw`el|la|al|del|the|le|l|du|au|der|die|das|den|dem|il`;

/** Months, after which (or after "de", "of"… and one) an ordinal is a date: "el primero de mayo", "den ersten Mai". */
const MONTHS = String.raw`enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre|january|february|march|april|may|june|july|august|september|october|november|december|janvier|fevrier|mars|avril|mai|juin|juillet|aout|septembre|octobre|novembre|decembre|januar|februar|marz|maerz|juni|juli|oktober|dezember|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre`;

/** Words of time (and of a floor) after which an ordinal is no listing: "la primera semana", "the second floor". */
const NOT_A_LISTING = String.raw`(?:semana|semanas|dia|dias|mes|hora|horas|vez|fin|planta|turno|hueco|horario|manana|tarde|week|weekend|day|days|month|time|times|floor|slot|hour|morning|afternoon|semaine|jour|jours|mois|fois|etage|creneau|heure|matin|woche|tag|tage|monat|mal|stock|termin|uhr|stunde|settimana|giorno|giorni|mese|volta|piano|ora|mattina|pomeriggio|lunes|martes|miercoles|jueves|viernes|sabado|domingo|monday|tuesday|wednesday|thursday|friday|saturday|sunday|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lunedi|martedi|mercoledi|giovedi|venerdi|sabato|${MONTHS}|(?:de|of|di|du) (?:${MONTHS}))`;

/** Words for a listing, that a demonstrative may stand before: "ese piso", "this one", "diese Wohnung". */
const LISTING_WORDS = String.raw`piso|casa|inmueble|atico|chalet|local|apartamento|vivienda|estudio|duplex|opcion|anuncio|one|flat|apartment|house|home|property|place|listing|option|bien|logement|appartement|appart|maison|studio|annonce|villa|wohnung|haus|objekt|immobilie|angebot|appartamento|immobile|annuncio|attico|bilocale|trilocale`;

/** Verbs of seeing that close a German phrase: "Kann ich diese besichtigen?". */
const GERMAN_VERBS = String.raw`besichtigen|ansehen|anschauen|anzusehen|anzuschauen|sehen|zu`;

/** "el segundo", "the last", "den ersten", not before a word of time. */
const ORDINAL = new RegExp(String.raw` (?:${ARTICLES}) (${ORDINAL_WORDS}) (?!${NOT_A_LISTING} )`, 'g');
/** "second one" without its article. */
const ORDINAL_ONE = new RegExp(String.raw` (${ORDINAL_WORDS}) one `);
/** "la opción 2", "number 3". */
const NUMBERED = / (?:numero|number|nummer|nr|opcion|option|opzione) (\d{1,2}) /;
/** A message that is a number alone, or with its article: "2", "el 2". */
const NUMBER_ALONE = /^ (?:(?:el|la|the|le|il|der|die|das|den) )?(\d{1,2}) $/;
/** A demonstrative that can close a phrase on its own: "ese", "that", "celui-ci", "quello". */
const DEMONSTRATIVE = String.raw`este|ese|esta|esa|esto|eso|aquel|aquella|this|that|celui ci|celui la|celle ci|celle la|diese|dieser|dieses|diesen|questo|questa|quello|quella`;
/** Demonstratives only before a word for a listing: "ce bien", "cette maison". */
const DETERMINER = String.raw`ce|cet|cette`;
const THIS = new RegExp(
  String.raw` (?:(?:${DEMONSTRATIVE})(?= $| (?:${LISTING_WORDS}) | (?:${GERMAN_VERBS}) )|(?:${DETERMINER}) (?:${LISTING_WORDS}) )`,
);

function position(word: string): number | null {
  for (const [re, n] of ORDINALS) if (re.test(word)) return n;
  return null;
}

const pointerAt = (n: number | null): ListingPointer | null =>
  n === null ? null : n === 0 ? { kind: 'last' } : { kind: 'position', position: n };

/**
 * The listing a message points at among those just shown, or null when it points at none.
 * An ordinal or a number wins over a demonstrative ("ese, el segundo" is the second).
 * @param text the lead's message as written.
 */
export function listingPointer(text: string | null): ListingPointer | null {
  if (!text) return null;
  const folded = normalise(text);
  const phrases = folded.split('|').map((phrase) => ` ${phrase.trim()} `);
  for (const phrase of phrases) {
    for (const match of phrase.matchAll(ORDINAL)) {
      const pointer = pointerAt(position(match[1]));
      if (pointer) return pointer;
    }
    const one = ORDINAL_ONE.exec(phrase);
    const pointer = one ? pointerAt(position(one[1])) : null;
    if (pointer) return pointer;
    const numbered = NUMBERED.exec(phrase);
    if (numbered && Number(numbered[1]) >= 1 && Number(numbered[1]) <= MAX_POSITION) {
      return { kind: 'position', position: Number(numbered[1]) };
    }
  }
  const alone = NUMBER_ALONE.exec(` ${folded.replace(/[|\s]+/g, ' ').trim()} `);
  if (alone && Number(alone[1]) >= 1 && Number(alone[1]) <= MAX_POSITION) return { kind: 'position', position: Number(alone[1]) };
  return phrases.some((phrase) => THIS.test(phrase)) ? { kind: 'this' } : null;
}

/**
 * What a pointer means among `shown` (ids in the order listed, 1 first).
 * @returns the listing's id, or `which` when it cannot say: a position beyond the list, or "ese"
 *   when several were listed.
 */
export function resolvePointer(pointer: ListingPointer, shown: readonly number[]): { id: number } | { which: 'beyond' | 'several' } {
  if (shown.length === 0) return { which: 'beyond' };
  switch (pointer.kind) {
    case 'last':
      return { id: shown.at(-1)! };
    case 'position':
      return pointer.position <= shown.length ? { id: shown[pointer.position - 1] } : { which: 'beyond' };
    case 'this':
      return shown.length === 1 ? { id: shown[0] } : { which: 'several' };
  }
}
