/**
 * The generic reader of labelled text (CONTRACT §19): `Nombre`/`Name`, `Teléfono`/`Tel`/`Phone`,
 * `Email`/`Correo`, `Mensaje`/`Message`, `Referencia`/`Ref.`/`Reference` (and their usual
 * variants), each followed by its value on the same line (`Nombre: Ana`) or, when the label
 * stands alone on its line (a table's cell, `Mensaje:` before a paragraph), on the next lines.
 * Labels are compared case- and accent-insensitively, with Gmail's `*bold*` marks ignored.
 * The first value found for each field wins: portals put the contact first, their own
 * footer (with its customer-service phone) last.
 */
import { addressIn } from './content.ts';

/** What a parser read of a message, as written (not yet normalised). */
export interface Fields {
  name: string | null;
  phone: string | null;
  email: string | null;
  message: string | null;
  reference: string | null;
}

export type Field = keyof Fields;

export const NO_FIELDS: Fields = { name: null, phone: null, email: null, message: null, reference: null };

/** Labels of each field, as {@link labelKey}s. */
const LABELS: Record<Field, readonly string[]> = {
  name: ['nombre', 'name', 'nombre y apellidos', 'nombre completo', 'full name', 'your name', 'contact name', 'nombre de contacto', 'nom'],
  phone: [
    'telefono',
    'tel',
    'tfno',
    'telf',
    'phone',
    'phone number',
    'telephone',
    'movil',
    'mobile',
    'mi telefono',
    'telefono de contacto',
    'numero de telefono',
  ],
  email: ['email', 'e mail', 'correo', 'correo electronico', 'mail', 'mi email', 'mi e mail', 'direccion de correo', 'email address'],
  message: ['mensaje', 'message', 'comentarios', 'comentario', 'comments', 'comment', 'consulta', 'tu mensaje', 'su mensaje'],
  reference: [
    'referencia',
    'ref',
    'reference',
    'tu referencia',
    'su referencia',
    'referencia del anuncio',
    'referencia del inmueble',
    'ref del anuncio',
    'property reference',
    'ref anuncio',
  ],
};

/** A label as compared: no accents, no case, punctuation and runs of spaces made one space. */
export function labelKey(label: string): string {
  return label
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

const FIELD_OF = new Map<string, Field>(
  (Object.entries(LABELS) as Array<[Field, readonly string[]]>).flatMap(([field, labels]) => labels.map((l) => [l, field] as const)),
);

/** The field a label names, or null. */
export function fieldOfLabel(label: string): Field | null {
  return FIELD_OF.get(labelKey(label)) ?? null;
}

/** Characters of a label (after its first, a letter), and the marks Gmail and Outlook put around one. */
const LETTER = /^\p{L}$/u;
const LABEL_CHARACTER = /^[\p{L}\p{N} .'’-]$/u;
const isMark = (c: string | undefined) => c === '*' || c === '_';
const isBlank = (c: string | undefined) => c !== undefined && c.trim() === '';
/** The longest label before a colon, characters. */
const LABEL_MAX = 41;

/** `text` without the characters `drop` accepts at its start and end; in linear time. */
export function trimWhere(text: string, drop: (c: string) => boolean): string {
  let start = 0;
  let end = text.length;
  while (start < end && drop(text[start])) start++;
  while (end > start && drop(text[end - 1])) end--;
  return text.slice(start, end);
}

/**
 * The label of a `Label: value` line and the value, or null when the line is not one: blanks,
 * then `*`/`_` marks, then a label (a letter, then at most 40 letters, digits, spaces, `.`, `'`,
 * `’` or `-`), marks and blanks, a colon (`:` or `：`), and the value with the marks and blanks
 * around it removed. String operations only: linear in the line's length, whatever it holds
 * (issue 55: the pattern this replaces took time quadratic in a line padded with blanks).
 */
function labelAndValue(line: string): { label: string; value: string } | null {
  let at = 0;
  while (isBlank(line[at])) at++;
  while (isMark(line[at])) at++;
  const start = at;
  // The first colon ends the label: no character of a label, a mark or a blank is one.
  const colon = line.slice(start, start + 2 * LABEL_MAX + 64).search(/[:：]/);
  if (colon < 0) return null;
  // Before the colon: the label, then marks, then blanks.
  let end = start + colon;
  while (end > start && isBlank(line[end - 1])) end--;
  while (end > start && isMark(line[end - 1])) end--;
  const before = line.slice(start, end);
  const characters = [...before];
  if (characters.length === 0 || characters.length > LABEL_MAX || !LETTER.test(characters[0])) return null;
  if (!characters.every((c) => LABEL_CHARACTER.test(c))) return null;
  const value = trimWhere(line.slice(start + colon + 1), (c) => isBlank(c) || isMark(c));
  return { label: before, value };
}

/** A line's label and value: `{field, value}` when it begins with a known label, else null. */
export function labelledLine(line: string): { field: Field; value: string } | null {
  const labelled = labelAndValue(line);
  if (labelled) {
    const field = fieldOfLabel(labelled.label);
    return field === null ? null : { field, value: labelled.value };
  }
  // A label alone on its line, without a colon (a table's cell).
  const bare = trimWhere(line, (c) => isBlank(c) || isMark(c));
  const field = bare.length <= 40 ? fieldOfLabel(bare) : null;
  return field === null ? null : { field, value: '' };
}

/**
 * Reads every labelled field of `text` (see the module's comment). A message's value runs on
 * over the following lines up to a blank line or another label, at most 60 lines (a portal's
 * footer follows after a blank line); another field's value is its line, or the next non-blank
 * line when the label stands alone.
 */
export function labelledFields(text: string): Fields {
  const lines = text.split('\n');
  const fields: Fields = { ...NO_FIELDS };
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    const found = labelledLine(lines[i]);
    if (!found || fields[found.field] !== null) continue;
    if (found.field === 'message') {
      const taken: string[] = found.value ? [found.value] : [];
      let j = i + 1;
      for (; j < lines.length && j <= i + 60; j++) {
        if (labelledLine(lines[j]) !== null) break;
        if (lines[j].trim() === '') {
          if (taken.length > 0) break;
          continue;
        }
        taken.push(lines[j].trim());
      }
      const message = taken.join('\n').trim();
      if (message) fields.message = message;
      continue;
    }
    let value = found.value;
    if (value === '') {
      let j = i + 1;
      while (j < lines.length && lines[j].trim() === '') j++;
      if (j < lines.length && labelledLine(lines[j]) === null) value = lines[j].trim();
    }
    if (found.field === 'email') value = addressIn(value) ?? '';
    if (value) fields[found.field] = value;
  }
  return fields;
}

/** `first`, with each field it lacks taken from `second`. */
export function merged(first: Fields, second: Fields): Fields {
  return {
    name: first.name ?? second.name,
    phone: first.phone ?? second.phone,
    email: first.email ?? second.email,
    message: first.message ?? second.message,
    reference: first.reference ?? second.reference,
  };
}
