/**
 * The lead page's edit form (issue 57 item 2, CONTRACT §25): the inquiry's contact fields and the
 * lead's searches, saved as PATCH /v1/ext/leads/{id} saves them (services/leads/edit.ts), checked
 * by the same schema (schemas/lead-requests.ts `LeadPatchBody`), and each refusal said beside its
 * field (views/_lead-edit-form.eta).
 *
 * Fields: `name`, `phone_number_1`, `phone_number_2`, `personal_email`, `professional_email`,
 * `preferred_language` ('' for none); `searches`, how many searches the form shows; and for each
 * search `i` (0-based; the last one shown empty, to add a search): `s<i>_operations` and
 * `s<i>_property_types` (checkboxes), `s<i>_places` (place names, comma-separated), the
 * criteria of {@link FORM_CRITERIA} (`s<i>_price_max`…: whole numbers, '' for none), and
 * `s<i>_remove` (`1`: the search goes).
 *
 * A search keeps what the form does not show (map areas, features, subtypes, the other criteria
 * of spec §2.4, internal notes). A criterion the form shows applies to every chosen property type
 * that takes it (spec §2.4); one left as it was shown leaves each type's value as it is.
 */
import type { TSchema } from '@sinclair/typebox';
import type { Db } from '../../db/database.ts';
import type { LeadRow } from '../../db/types.ts';
import { OPERATIONS, PROPERTY_TYPES } from '../../domain/catalogue/terms.ts';
import { InmoError } from '../../errors.ts';
import type { LeadPatchBody } from '../../schemas/lead-requests.ts';
import { editLead, normalizeEditPhones, type EditOutcome } from '../../services/leads/edit.ts';
import { validateObject, type ValidationIssue } from '../../validation/validator.ts';
import { field, fields } from './forms.ts';
import type { MessageKey, Translate } from './i18n.ts';

/** The contact fields of the form, in its order. */
export const CONTACT_FIELDS = [
  'name',
  'phone_number_1',
  'phone_number_2',
  'personal_email',
  'professional_email',
  'preferred_language',
] as const;
type ContactField = (typeof CONTACT_FIELDS)[number];

/** The criteria of spec §2.4 the form shows, and the property types that take each. */
export const FORM_CRITERIA = {
  price_min: ['apartamento', 'casa', 'edificio', 'aparcamiento', 'local', 'nave', 'almacenaje', 'oficina', 'terreno'],
  price_max: ['apartamento', 'casa', 'edificio', 'aparcamiento', 'local', 'nave', 'almacenaje', 'oficina', 'terreno'],
  price_rent_min: ['apartamento', 'casa', 'edificio', 'aparcamiento', 'local', 'nave', 'almacenaje', 'oficina', 'terreno'],
  price_rent_max: ['apartamento', 'casa', 'edificio', 'aparcamiento', 'local', 'nave', 'almacenaje', 'oficina', 'terreno'],
  size_min: ['apartamento', 'casa', 'edificio', 'local', 'nave', 'almacenaje', 'oficina', 'terreno'],
  size_max: ['apartamento', 'casa', 'edificio', 'local', 'nave', 'almacenaje', 'oficina', 'terreno'],
  bedrooms_min: ['apartamento', 'casa'],
  bathrooms_min: ['apartamento', 'casa'],
} as const satisfies Record<string, readonly string[]>;
export type FormCriterion = keyof typeof FORM_CRITERIA;
const CRITERIA = Object.keys(FORM_CRITERIA) as FormCriterion[];

/** One search as the form shows it. */
export interface SearchForm {
  operations: string[];
  property_types: string[];
  places: string;
  criteria: Record<FormCriterion, string>;
  remove: boolean;
}

/** The edit form as the page shows it: the values (stored, or as typed), and the words of each refused field. */
export interface LeadEditFormState {
  values: Record<ContactField, string>;
  searches: SearchForm[];
  /** Words by field name (`name`, `s0_price_max`…); `form` for a fault of no one field. */
  faults: Record<string, string>;
  /** The form was sent and refused: the page shows it open. */
  refused: boolean;
}

type Entry = Record<string, unknown>;

/** A lead as the form reads it: its contact columns, and its searches as stored (JSON text) or parsed (the lead page's). */
export type EditedLead = Pick<LeadRow, 'id' | 'business_id' | ContactField> & { search_preferences: unknown };

/** The lead's searches; [] for none. */
export function storedSearches(lead: Pick<EditedLead, 'search_preferences'>): Entry[] {
  let parsed = lead.search_preferences;
  if (typeof parsed === 'string') {
    try {
      parsed = JSON.parse(parsed);
    } catch {
      return [];
    }
  }
  return Array.isArray(parsed) ? (parsed as Entry[]) : [];
}

const asObject = (value: unknown): Entry | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Entry) : null;
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** The place names of a search's `locations` (map areas are not shown: they are kept). */
const placeNames = (entry: Entry) =>
  (Array.isArray(entry.locations) ? entry.locations : [])
    .map((l) => asObject(l))
    .filter((l): l is Entry => l !== null && typeof l.name === 'string' && !('type' in l) && !('geometry' in l))
    .map((l) => l.name as string);

/** A criterion as the form shows it: its value under the first of the search's types that holds one, '' for none. */
function shownCriterion(entry: Entry, criterion: FormCriterion): string {
  const types = [...strings(entry.property_types), ...PROPERTY_TYPES];
  for (const type of types) {
    const value = asObject(entry[type])?.[criterion];
    if (typeof value === 'number') return String(value);
  }
  return '';
}

/** One stored search (spec §2.4) as the form shows it. */
function searchFormOf(entry: Entry): SearchForm {
  return {
    operations: strings(entry.operations),
    property_types: strings(entry.property_types),
    places: placeNames(entry).join(', '),
    criteria: Object.fromEntries(CRITERIA.map((c) => [c, shownCriterion(entry, c)])) as Record<FormCriterion, string>,
    remove: false,
  };
}

const emptySearch = (): SearchForm => searchFormOf({});

/**
 * The form of `lead` as stored: its contact, its searches and one empty search to add (while
 * fewer than `maxSearches`).
 */
export function leadEditFormOf(lead: EditedLead, maxSearches: number): LeadEditFormState {
  const searches = storedSearches(lead).map(searchFormOf);
  if (searches.length < maxSearches) searches.push(emptySearch());
  return {
    values: Object.fromEntries(CONTACT_FIELDS.map((f) => [f, lead[f] ?? ''])) as Record<ContactField, string>,
    searches,
    faults: {},
    refused: false,
  };
}

/** The form as posted, to show it again after a refusal. */
function postedForm(body: unknown, count: number): Pick<LeadEditFormState, 'values' | 'searches'> {
  const searches: SearchForm[] = [];
  for (let i = 0; i < count; i++) {
    searches.push({
      operations: fields(body, `s${i}_operations`),
      property_types: fields(body, `s${i}_property_types`),
      places: field(body, `s${i}_places`),
      criteria: Object.fromEntries(CRITERIA.map((c) => [c, field(body, `s${i}_${c}`)])) as Record<FormCriterion, string>,
      remove: field(body, `s${i}_remove`) === '1',
    });
  }
  return { values: Object.fromEntries(CONTACT_FIELDS.map((f) => [f, field(body, f)])) as Record<ContactField, string>, searches };
}

/** A number typed: a whole number as a number, '' as null, anything else as typed (the schema refuses it, `int_parsing`). */
const typedNumber = (text: string): number | string | null =>
  text.trim() === '' ? null : /^-?\d{1,15}$/.test(text.trim()) ? Number(text.trim()) : text.trim();

/**
 * One search of the form over the stored one it shows (`base`, {} for a new one): what the form
 * shows replaced, the rest kept. @returns the search, null when it is removed or has nothing,
 * the criteria typed that none of its chosen types takes, and those typed that are no whole number
 * where no type would have the schema say so.
 */
function searchOf(form: SearchForm, base: Entry): { entry: Entry | null; homeless: FormCriterion[]; malformed: FormCriterion[] } {
  if (form.remove) return { entry: null, homeless: [], malformed: [] };
  const entry: Entry = structuredClone(base);
  const types = form.property_types;
  entry.operations = form.operations.length ? form.operations : undefined;
  entry.property_types = types.length ? types : undefined;
  const names = form.places
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const shownNames = placeNames(base);
  if (names.join('\n') !== shownNames.join('\n')) {
    // Map areas and anything else that is no place by name stay, in their order; then the places typed.
    const places = new Set(shownNames);
    const kept = (Array.isArray(base.locations) ? base.locations : []).filter((l) => {
      const o = asObject(l);
      return !(o && typeof o.name === 'string' && places.has(o.name) && !('type' in o) && !('geometry' in o));
    });
    const locations = [...kept, ...names.map((name) => ({ name }))];
    entry.locations = locations.length ? locations : undefined;
  }
  const homeless: FormCriterion[] = [];
  const malformed: FormCriterion[] = [];
  const before = strings(base.property_types);
  const sameTypes = before.length === types.length && types.every((t) => before.includes(t));
  // Criteria of a type no longer chosen go with it.
  if (!sameTypes && types.length > 0) for (const type of PROPERTY_TYPES) if (!types.includes(type)) delete entry[type];
  for (const criterion of CRITERIA) {
    const typed = form.criteria[criterion].trim();
    // Left as shown, for the same types: each type keeps its own value.
    if (sameTypes && typed === shownCriterion(base, criterion)) continue;
    const value = typedNumber(typed);
    const takers = types.filter((t) => (FORM_CRITERIA[criterion] as readonly string[]).includes(t));
    // Not a whole number: the schema says so, under whichever type takes it.
    if (typeof value === 'string' && takers.length === 0) malformed.push(criterion);
    else if (value !== null && takers.length === 0) homeless.push(criterion);
    for (const type of takers) {
      const criteria: Entry = { ...(asObject(entry[type]) ?? {}) };
      if (value === null) delete criteria[criterion];
      else criteria[criterion] = value;
      entry[type] = Object.keys(criteria).length ? criteria : undefined;
    }
  }
  for (const key of Object.keys(entry)) if (entry[key] === undefined) delete entry[key];
  return { entry: Object.keys(entry).length ? entry : null, homeless, malformed };
}

/** The words of a schema fault. */
function issueWords(t: Translate, issue: ValidationIssue): string {
  const keys: Record<string, MessageKey> = {
    string_too_short: 'edit_fault_blank',
    string_too_long: 'edit_fault_too_long',
    int_parsing: 'edit_fault_whole_number',
    int_type: 'edit_fault_whole_number',
    literal_error: 'edit_fault_choice',
    too_long: 'edit_fault_too_many',
  };
  return t(keys[issue.type] ?? 'edit_fault_invalid');
}

/** The form field a fault of the API body is about (`s<i>_…` for a search's), `form` when none. */
function fieldOf(loc: ValidationIssue['loc'], formIndex: number[]): string {
  const [, top, index, ...rest] = loc;
  if (top !== 'search_preferences') return (CONTACT_FIELDS as readonly unknown[]).includes(top) ? String(top) : 'form';
  if (typeof index !== 'number') return 'form';
  const i = formIndex[index];
  const criterion = rest.find((k): k is FormCriterion => typeof k === 'string' && k in FORM_CRITERIA);
  if (criterion) return `s${i}_${criterion}`;
  if (rest[0] === 'operations' || rest[0] === 'property_types') return `s${i}_${rest[0]}`;
  return `s${i}_places`;
}

/**
 * Saves the edit form posted for `lead` (see the module's comment), as user `userId`.
 * @param schema the API's `LeadPatchBody` for the app's limits.
 * @returns what the edit changed, or the form to show again with the words of each refused
 *   field (nothing is then written).
 * @throws InmoError LEAD_NOT_FOUND (the lead went meanwhile).
 */
export async function saveLeadEditForm(
  db: Db,
  lead: EditedLead,
  body: unknown,
  userId: number,
  options: { schema: TSchema; maxSearches: number; t: Translate },
): Promise<{ outcome: EditOutcome } | { form: LeadEditFormState }> {
  const { t } = options;
  const count = Math.max(0, Math.min(options.maxSearches + 1, Number.parseInt(field(body, 'searches'), 10) || 0));
  const posted = postedForm(body, count);
  const faults: Record<string, string> = {};
  const bases = storedSearches(lead);
  const searches: Entry[] = [];
  const formIndex: number[] = [];
  posted.searches.forEach((form, i) => {
    const { entry, homeless, malformed } = searchOf(form, bases[i] ?? {});
    for (const c of malformed) faults[`s${i}_${c}`] ??= t('edit_fault_whole_number');
    for (const c of homeless) faults[`s${i}_${c}`] ??= t('edit_fault_needs_type');
    if (entry === null) return;
    searches.push(entry);
    formIndex.push(i);
  });
  const v = posted.values;
  const request: Record<string, unknown> = {
    name: v.name,
    phone_number_1: v.phone_number_1,
    phone_number_2: v.phone_number_2.trim() || null,
    personal_email: v.personal_email.trim() || null,
    professional_email: v.professional_email.trim() || null,
    preferred_language: v.preferred_language || null,
    search_preferences: searches,
  };
  const issues: ValidationIssue[] = [];
  const checked = validateObject(options.schema, request, ['body'], 'json', issues) as LeadPatchBody;
  for (const issue of issues) faults[fieldOf(issue.loc, formIndex)] ??= issueWords(t, issue);
  const again = () => ({ form: { ...posted, faults, refused: true } });
  if (issues.length > 0 || Object.keys(faults).length > 0) {
    return again();
  }
  const { edit, invalid } = normalizeEditPhones(checked);
  for (const f of invalid) faults[f] = t('edit_fault_phone');
  if (invalid.length > 0) return again();
  try {
    return { outcome: await editLead(db, lead.business_id, lead.id, edit, { userId }) };
  } catch (error) {
    if (!(error instanceof InmoError) || error.code !== 'LEAD_PHONE_TAKEN') throw error;
    faults.phone_number_1 = t('edit_fault_phone_taken');
    return again();
  }
}

/** The operations and property types a search may choose, for the template. */
export const SEARCH_CHOICES = { operations: OPERATIONS, propertyTypes: PROPERTY_TYPES } as const;
