/**
 * A lead's searches in plain words (issue 29, CONTRACT §16): each entry of `search_preferences`
 * (spec §2.4) as lines a person reads, in the console's language — "Alquiler máx. 900 €/mes",
 * "2+ habitaciones", "Zona: Delicias" — never a field's code. Prices are `es-ES` euros (the
 * agency's market), sizes m².
 */
import { describeLocation } from '../../domain/leads/notes.ts';
import { SUBTYPES } from '../../domain/catalogue/terms.ts';
import type { MessageKey, Translate } from './i18n.ts';

/** Euros as Spain writes them: `900 €`, `185.000 €`. */
const EUROS = new Intl.NumberFormat('es-ES', { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 });
/** Plain numbers (m², counts) as Spain writes them. */
const NUMBER = new Intl.NumberFormat('es-ES', { maximumFractionDigits: 2 });

/** How a criterion's value is written into its label's `{v}`. */
type Kind = 'euros' | 'number' | 'list';

/**
 * Every criterion of spec §2.4 with a label: the message key `criterion_<name>` (with `{v}`) in
 * both languages, and how its value is written.
 */
export const CRITERIA: Readonly<Record<string, Kind>> = {
  price_min: 'euros',
  price_max: 'euros',
  price_rent_min: 'euros',
  price_rent_max: 'euros',
  size_min: 'number',
  size_max: 'number',
  bedrooms_min: 'number',
  bathrooms_min: 'number',
  num_terraces_min: 'number',
  size_terraces_min: 'number',
  doble_bedrooms_min: 'number',
  suite_bathrooms_min: 'number',
  plot_size_min: 'number',
  porch_size_min: 'number',
  num_floors_min: 'number',
  num_locales_min: 'number',
  usable_area_min: 'number',
  num_parkings_min: 'number',
  num_viviendas_min: 'number',
  min_seats: 'number',
  features: 'list',
  subtypes: 'list',
  views: 'list',
};

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

/** A label of the dictionary, or `fallback` when it has none for `key`. */
const labelOr = (t: Translate, key: string, fallback: string) => (t(key as MessageKey) as string | undefined) ?? fallback;

/** One criterion of a property type's criteria as a line, or null when it says nothing. */
function criterionLine(t: Translate, name: string, value: unknown): string | null {
  if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) return null;
  const kind = CRITERIA[name];
  if (kind === undefined) return name === 'specs' ? t('criterion_specs', { v: plain(value) }) : `${name}: ${plain(value)}`;
  if (kind === 'list') {
    const items = (Array.isArray(value) ? value : [value]).map((item) =>
      name === 'subtypes' && typeof item === 'string' ? (SUBTYPES[item]?.label ?? item) : plain(item),
    );
    return t(`criterion_${name}` as MessageKey, { v: items.join(', ') });
  }
  if (typeof value !== 'number') return `${labelOr(t, `criterion_${name}`, name).replace('{v}', plain(value))}`;
  return t(`criterion_${name}` as MessageKey, { v: kind === 'euros' ? EUROS.format(value) : NUMBER.format(value) });
}

/**
 * One search of a lead as lines of plain words: operations, property types, places, then each
 * type's criteria. Internal notes are left out (the lead page shows the notes apart).
 */
export function describeSearch(t: Translate, entry: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const list = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  const operations = list(entry.operations);
  if (operations.length) lines.push(t('criterion_operations', { v: operations.map((o) => labelOr(t, `operation_${o}`, o)).join(', ') }));
  const types = list(entry.property_types);
  if (types.length) lines.push(t('criterion_property_types', { v: types.map((p) => labelOr(t, `property_type_${p}`, p)).join(', ') }));
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
    if (criteria.length) lines.push(`${labelOr(t, `property_type_${key}`, key)}: ${criteria.join(' · ')}`);
  }
  return lines;
}
