/**
 * A lead's searches in plain words (issue 29, CONTRACT §16): each entry of `search_preferences`
 * (spec §2.4) as lines a person reads, in the console's language — "Alquiler máx. 900 €/mes",
 * "2+ habitaciones", "Zona: Delicias" — never a field's code. Prices are `es-ES` euros (the
 * agency's market), sizes m².
 */
import { describeLocation } from '../../domain/leads/notes.ts';
import { SUBTYPES } from '../../domain/catalogue/terms.ts';
import type { MessageKey, Translate } from './i18n.ts';
import { labelOf, OPERATION_LABEL, PROPERTY_TYPE_LABEL } from './labels.ts';

/** Euros as Spain writes them: `900 €`, `185.000 €`. */
const EUROS = new Intl.NumberFormat('es-ES', { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 });
/** Plain numbers (m², counts) as Spain writes them. */
const NUMBER = new Intl.NumberFormat('es-ES', { maximumFractionDigits: 2 });

/** How a criterion's value is written into its label's `{v}`. */
type Kind = 'euros' | 'number' | 'list';

/** A criterion of spec §2.4: its label's message key (with `{v}`), and how its value is written there. */
interface Criterion {
  label: MessageKey;
  kind: Kind;
}

/** Every criterion of spec §2.4 with a label in both languages. */
export const CRITERIA = {
  price_min: { label: 'criterion_price_min', kind: 'euros' },
  price_max: { label: 'criterion_price_max', kind: 'euros' },
  price_rent_min: { label: 'criterion_price_rent_min', kind: 'euros' },
  price_rent_max: { label: 'criterion_price_rent_max', kind: 'euros' },
  size_min: { label: 'criterion_size_min', kind: 'number' },
  size_max: { label: 'criterion_size_max', kind: 'number' },
  bedrooms_min: { label: 'criterion_bedrooms_min', kind: 'number' },
  bathrooms_min: { label: 'criterion_bathrooms_min', kind: 'number' },
  num_terraces_min: { label: 'criterion_num_terraces_min', kind: 'number' },
  size_terraces_min: { label: 'criterion_size_terraces_min', kind: 'number' },
  doble_bedrooms_min: { label: 'criterion_doble_bedrooms_min', kind: 'number' },
  suite_bathrooms_min: { label: 'criterion_suite_bathrooms_min', kind: 'number' },
  plot_size_min: { label: 'criterion_plot_size_min', kind: 'number' },
  porch_size_min: { label: 'criterion_porch_size_min', kind: 'number' },
  num_floors_min: { label: 'criterion_num_floors_min', kind: 'number' },
  num_locales_min: { label: 'criterion_num_locales_min', kind: 'number' },
  usable_area_min: { label: 'criterion_usable_area_min', kind: 'number' },
  num_parkings_min: { label: 'criterion_num_parkings_min', kind: 'number' },
  num_viviendas_min: { label: 'criterion_num_viviendas_min', kind: 'number' },
  min_seats: { label: 'criterion_min_seats', kind: 'number' },
  features: { label: 'criterion_features', kind: 'list' },
  subtypes: { label: 'criterion_subtypes', kind: 'list' },
  views: { label: 'criterion_views', kind: 'list' },
} as const satisfies Record<string, Criterion>;

/** A value as plain text: lists joined by commas, objects as `key: value` pairs. */
function plain(value: unknown): string {
  if (Array.isArray(value)) return value.map(plain).join(', ');
  if (value !== null && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => `${k}: ${plain(v)}`)
      .join(', ');
  }
  return String(value);
}

/** One criterion of a property type's criteria as a line, or null when it says nothing. */
function criterionLine(t: Translate, name: string, value: unknown): string | null {
  if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) return null;
  const criterion: Criterion | undefined = Object.hasOwn(CRITERIA, name) ? CRITERIA[name as keyof typeof CRITERIA] : undefined;
  if (criterion === undefined) return name === 'specs' ? t('criterion_specs', { v: plain(value) }) : `${name}: ${plain(value)}`;
  const { label, kind } = criterion;
  if (kind === 'list') {
    const items = (Array.isArray(value) ? value : [value]).map((item) =>
      name === 'subtypes' && typeof item === 'string' ? (SUBTYPES[item]?.label ?? item) : plain(item),
    );
    return t(label, { v: items.join(', ') });
  }
  if (typeof value !== 'number') return t(label).replace('{v}', plain(value));
  return t(label, { v: kind === 'euros' ? EUROS.format(value) : NUMBER.format(value) });
}

/**
 * One search of a lead as lines of plain words: operations, property types, places, then each
 * type's criteria. Internal notes are left out (the lead page shows the notes apart).
 */
export function describeSearch(t: Translate, entry: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const list = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  const operations = list(entry.operations);
  if (operations.length) lines.push(t('criterion_operations', { v: operations.map((o) => labelOf(t, OPERATION_LABEL, o)).join(', ') }));
  const types = list(entry.property_types);
  if (types.length) lines.push(t('criterion_property_types', { v: types.map((p) => labelOf(t, PROPERTY_TYPE_LABEL, p)).join(', ') }));
  const places = (Array.isArray(entry.locations) ? entry.locations : [])
    .map((location) => {
      const named = describeLocation(location);
      // A place by name as it is; a map area in the page's words (lead notes keep Spanish ones).
      const name = (location as { name?: unknown } | null)?.name;
      return named === null ? null : typeof name === 'string' && name.trim() !== '' ? name.trim() : t('criterion_map_area');
    })
    .filter((p): p is string => p !== null);
  if (places.length) lines.push(t('criterion_locations', { v: places.join('; ') }));
  for (const [key, value] of Object.entries(entry)) {
    if (['operations', 'property_types', 'locations', 'internal_notes', 'notes'].includes(key) || value === null) continue;
    if (typeof value !== 'object' || Array.isArray(value)) {
      lines.push(`${key}: ${plain(value)}`);
      continue;
    }
    const criteria = Object.entries(value as Record<string, unknown>)
      .map(([name, v]) => criterionLine(t, name, v))
      .filter((line): line is string => line !== null);
    if (criteria.length) lines.push(`${labelOf(t, PROPERTY_TYPE_LABEL, key)}: ${criteria.join(' · ')}`);
  }
  return lines;
}
