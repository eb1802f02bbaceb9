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

/** `Label: value` (value may be empty), or a line that is only a label; Gmail's `*` and `_` marks around the label ignored. */
const LABELLED = /^\s*[*_]*([\p{L}][\p{L}\p{N} .'’-]{0,40}?)[*_]*\s*[:：]\s*[*_]*\s*(.*?)\s*$/u;

/** A line's label and value: `{field, value}` when it begins with a known label, else null. */
export function labelledLine(line: string): { field: Field; value: string } | null {
  const match = LABELLED.exec(line);
  if (match) {
    const field = fieldOfLabel(match[1]);
    return field === null ? null : { field, value: match[2].replace(/^[*_]+|[*_]+$/g, '').trim() };
  }
  // A label alone on its line, without a colon (a table's cell).
  const bare = line.replace(/^[\s*_]+|[\s*_]+$/g, '');
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
