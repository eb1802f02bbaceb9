/**
 * A rejected import line in the console's language (CONTRACT §9; domain/catalogue/import-faults.ts):
 * each fault as the field's label, the import format's own name of it (which the agency's export
 * uses), and what is wrong in words. A line stored before faults were kept says its English reason.
 */
import type { ImportFault } from '../../domain/catalogue/import-faults.ts';
import { FLOOR_MAX, FLOOR_MIN, FLOOR_TEXT_MAX } from '../../domain/catalogue/listing-facts.ts';
import type { Translate } from './i18n.ts';
import { LISTING_FIELD_LABEL, labelOf } from './labels.ts';

/** One fault, said: `label` is null for the line as a whole; `field` the import format's name, when it differs from nothing. */
export interface FaultWords {
  label: string | null;
  field: string | null;
  text: string;
}

/** What a rejection shows: a line's faults in words, or its English reason when it has none stored. */
export type RejectionWords = { faults: FaultWords[] } | { reason: string };

/** A context value as text: Pydantic's `'a', 'b' or 'c'` lists lose their English `or`. */
function value(ctx: ImportFault['ctx'], key: string): string {
  const v = ctx?.[key];
  return v === undefined ? '' : String(v).replace(/ or /g, ', ');
}

/** What is wrong, in `t`'s language (the listing form's words beside a field too: sections/listings.ts). */
export function importFaultText(t: Translate, fault: ImportFault): string {
  const { ctx } = fault;
  switch (fault.rule) {
    case 'missing':
      return t('import_fault_missing');
    case 'string_type':
      return t('import_fault_text');
    case 'string_too_short':
      return t('import_fault_too_short', { min: value(ctx, 'min_length') });
    case 'string_too_long':
      return t('listing_fault_too_long', { max: value(ctx, 'max_length') });
    case 'int_parsing':
    case 'int_type':
    case 'int_from_float':
      return t('listing_fault_integer');
    case 'float_parsing':
    case 'float_type':
    case 'finite_number':
    case 'kyero_price':
      return t('listing_fault_number');
    case 'greater_than_equal':
      return t('listing_fault_min', { min: value(ctx, 'ge') });
    case 'greater_than':
      return t('import_fault_above', { min: value(ctx, 'gt') });
    case 'less_than_equal':
      return t('listing_fault_max', { max: value(ctx, 'le') });
    case 'bool_parsing':
    case 'bool_type':
      return t('import_fault_bool');
    case 'list_type':
      return t('import_fault_list');
    case 'dict_type':
    case 'model_attributes_type':
    case 'fact_shape':
      return t('import_fault_object');
    case 'literal_error':
    case 'choice':
    case 'kyero_price_freq':
      return t('import_fault_choice', { expected: value(ctx, 'expected') });
    case 'date_parsing':
    case 'datetime_from_date_parsing':
    case 'timezone_aware':
    case 'timestamp':
      return t('import_fault_timestamp');
    case 'url':
      return t('listing_fault_url');
    case 'latlon':
      return t('listing_fault_latlon');
    case 'language':
      return t('import_fault_language', { value: value(ctx, 'value'), expected: value(ctx, 'expected') });
    case 'language_twice':
      return t('import_fault_language_twice');
    case 'markup_only':
      return t('import_fault_markup');
    case 'fact_choice':
      return t('listing_fault_choice');
    case 'fact_range':
      return t('listing_fault_range', { min: value(ctx, 'min'), max: value(ctx, 'max') });
    case 'fact_year':
      return t('listing_fault_year', { min: value(ctx, 'min'), max: value(ctx, 'max') });
    case 'fact_floor':
      return t('listing_fault_floor', { min: FLOOR_MIN, max: FLOOR_MAX, length: FLOOR_TEXT_MAX });
    case 'fact_rating_required':
      return t('listing_fault_rating_required');
    case 'fact_rating_only_available':
      return t('listing_fault_rating_only_available');
    case 'fact_twice':
      return t('import_fault_fact_twice');
    case 'json_invalid':
      return t('import_fault_json');
    case 'json_too_deep':
      return t('import_fault_json_deep', { max: value(ctx, 'max') });
    case 'not_object':
      return t('import_fault_not_object');
    case 'kyero_overlong':
      return t('import_fault_overlong');
    case 'kyero_id_missing':
      return t('import_fault_id_missing');
    case 'kyero_id_long':
      return t('listing_fault_too_long', { max: value(ctx, 'max') });
    case 'kyero_currency':
      return t('import_fault_currency', { value: value(ctx, 'value') });
    case 'kyero_type':
      return t('import_fault_type', { value: value(ctx, 'value') });
    case 'owner_one_of':
      return t('import_fault_owner_one_of');
    case 'owner_phone':
      return t('import_fault_owner_phone');
    case 'owner_unknown':
      return t('import_fault_owner_unknown');
    case 'owner_not_propietario':
      return t('import_fault_owner_not_propietario');
    default:
      return t('listing_fault_invalid');
  }
}

/**
 * The label of an import field (`price` → "Precio"; a fact by its name with or without `specs.`),
 * or null when the console has none: the field's own name then says where.
 */
function fieldLabel(t: Translate, field: string): string | null {
  const name = field.startsWith('specs.') ? field.slice('specs.'.length) : field;
  const label = labelOf(t, LISTING_FIELD_LABEL, name);
  return label === name ? null : label;
}

/**
 * A rejected line in `t`'s language (the templates' `it.rejection(r)`).
 * @param line a rejected line as stored (`faults` absent from runs stored before them).
 */
export function rejectionWords(t: Translate): (line: { reason: string; faults?: ImportFault[] }) => RejectionWords {
  return (line) =>
    line.faults?.length
      ? {
          faults: line.faults.map((fault) => ({
            label: fault.field === null ? null : fieldLabel(t, fault.field),
            field: fault.field,
            text: importFaultText(t, fault),
          })),
        }
      : { reason: line.reason };
}
