/**
 * The rules of a visit sheet ("hoja de visita", CONTRACT §20, issue 44 item 6): the visitor's
 * identity document as typed on the agent's screen, and the agency's clause.
 *
 * Documents:
 * - `dni`: a Spanish DNI, 8 digits and a check letter (`12345678Z`); the letter is the number's
 *   remainder of 23 in `TRWAGMYFPDXBNJZSQVHLCKE` (Real Decreto 1553/2005 and the Ministry of the
 *   Interior's published rule);
 * - `nie`: a foreigner's identity number, `X`, `Y` or `Z`, 7 digits and a check letter, checked
 *   as a DNI with the first letter read as 0, 1 or 2 (`X1234567L`);
 * - `other`: a passport or another identity document (a visitor from abroad has neither DNI nor
 *   NIE): 5 to 20 letters and digits, nothing to check beyond the form, since each country
 *   writes its own.
 *
 * A number is read without spaces, dots or dashes, in upper case: `12.345.678-z` is `12345678Z`.
 */

/** The kinds of identity document a visitor may sign with. */
export const DOCUMENT_TYPES = ['dni', 'nie', 'other'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** The check letters of DNI and NIE, by the number's remainder of 23. */
const CHECK_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/** The longest visitor's name, characters. */
export const VISITOR_NAME_MAX = 120;

/** The longest clause, characters (a page of the sheet holds about 4,000). */
export const CLAUSE_MAX = 3000;

/** Why a document is refused: its form is not the type's, or its check letter does not match its number. */
export type DocumentFault = 'format' | 'letter';

/** `text` without spaces, dots or dashes, upper case. */
export function normaliseDocumentNumber(text: string): string {
  return text.replace(/[\s.\-‐-―_/]/g, '').toUpperCase();
}

/** The check letter of a DNI's 8 digits (or a NIE's as a number). */
export function checkLetter(digits: string): string {
  return CHECK_LETTERS[Number(digits) % 23];
}

/**
 * Reads a visitor's document number of type `type`.
 * @returns `{number}` normalised ({@link normaliseDocumentNumber}), or `{fault}`: `format` when it
 *   is not 8 digits and a letter (DNI), `X`/`Y`/`Z`, 7 digits and a letter (NIE), or 5–20 letters and
 *   digits (other); `letter` when a DNI's or NIE's check letter is not its number's.
 */
export function readDocument(type: DocumentType, text: string): { number: string } | { fault: DocumentFault } {
  const number = normaliseDocumentNumber(text);
  if (type === 'other') return /^[A-Z0-9]{5,20}$/.test(number) ? { number } : { fault: 'format' };
  const match = type === 'dni' ? /^(\d{8})([A-Z])$/.exec(number) : /^([XYZ]\d{7})([A-Z])$/.exec(number);
  if (!match) return { fault: 'format' };
  const digits = type === 'dni' ? match[1] : String('XYZ'.indexOf(match[1][0])) + match[1].slice(1);
  return checkLetter(digits) === match[2] ? { number } : { fault: 'letter' };
}

/**
 * The clause printed on a visit sheet when the agency has set none: the visitor acknowledges the
 * visit through the agency and that a purchase or rental of the listing arising from it, directly
 * or through third parties, within 12 months, owes the agency its fee; and is told how their data
 * are kept (GDPR Art. 13).
 */
export const DEFAULT_CLAUSE =
  'El visitante declara que ha conocido y visitado el inmueble arriba indicado por mediación de la agencia, en la fecha y hora que constan, ' +
  'y que no lo conocía con anterioridad. Se compromete a no tratar su compra, alquiler o cualquier otra operación sobre él directamente con la ' +
  'propiedad ni a través de terceros sin la intervención de la agencia durante los doce meses siguientes a esta visita. Si la operación se ' +
  'realizara en ese plazo sin su intervención, el visitante abonará a la agencia los honorarios que le habrían correspondido, como ' +
  'compensación por la gestión realizada. ' +
  'Sus datos (nombre, documento y firma) se tratan por la agencia para acreditar la visita y la gestión de la operación, se conservan mientras ' +
  'puedan derivarse responsabilidades y no se ceden a terceros salvo obligación legal. Puede ejercer sus derechos de acceso, rectificación, ' +
  'supresión y los demás que le reconoce la normativa dirigiéndose a la agencia.';
