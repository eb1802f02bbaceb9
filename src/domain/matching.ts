/**
 * Lead ↔ property matching (spec §2.4, §6 step 1; CONTRACT §7), as pure functions.
 *
 * A search entry is compiled once ({@link compileSearch}) and tested against each listing
 * ({@link missedCriteria}). A listing matches an entry when every criterion the entry gives
 * holds; it is a near miss when exactly one does not, and that criterion is named with the
 * field name of spec §2.4 (`price_rent_max`, `bedrooms_min`, `subtypes`, `features`, …) or
 * `operation`, `type`, `location`.
 *
 * The criteria and how each is read:
 * - `operation`: the listing offers one of the entry's `operations`;
 * - `type`: its type is one of `property_types`; the criteria object under that type's name
 *   (`apartamento: {…}`) then applies;
 * - price by operation: `price_min`/`price_max` bound the sale price (`venta`) and the
 *   transfer price (`traspaso`), `price_rent_min`/`price_rent_max` the monthly rent
 *   (`alquiler`), all in €. A listing offered for several of the entry's operations passes
 *   when one of them is within its bounds;
 * - `size_min`/`size_max` (m², `size_total`), `bedrooms_min`, `bathrooms_min`, `subtypes`,
 *   `features` (every one named must be present, by key or label);
 * - terraces, where stored: `num_terraces_min` against `specs.num_terraces` when the listing
 *   stores a count; otherwise a `terraza` feature means at least one terrace (enough for a
 *   minimum of 1, unknown beyond), and a listing that lists features without `terraza` has
 *   none; a listing with neither is not judged on terraces. `size_terraces_min` (m²) only
 *   against listings that store `specs.size_terraces`;
 * - `location`: in one of the places named (city, province or district, case- and
 *   accent-insensitive) or inside one of the map areas (exact position; map areas in the
 *   shapes of the `locations` filter, CONTRACT §4). Entries that are neither are ignored.
 *
 * A bound on a value the listing does not state (a price, size, bedrooms or bathrooms that
 * is null) does not hold: the listing is at best a near miss naming that bound, which tells
 * the agent what to ask. Criteria the catalogue never stores (`views`, `specs`,
 * `plot_size_min`, `min_seats`, the `edificio` counts, …) are kept on the lead and not
 * used.
 */
import { PROPERTY_TYPES } from './catalogue-terms.ts';
import type { MapArea } from './geo.ts';
import { areaContains, parseMapArea } from './geo.ts';

/** Operation bits of {@link Listing.ops}. */
export const OP_VENTA = 1;
export const OP_ALQUILER = 2;
export const OP_TRASPASO = 4;
const OP_BITS: Record<string, number> = { venta: OP_VENTA, alquiler: OP_ALQUILER, traspaso: OP_TRASPASO };

/** A listing as matching reads it: one per public, available property. */
export interface Listing {
  id: number;
  /** Bit set of OP_VENTA, OP_ALQUILER, OP_TRASPASO. */
  ops: number;
  type: string | null;
  subtype: string | null;
  /** Sale price, €. */
  price: number | null;
  /** Monthly rent, €. */
  priceRent: number | null;
  /** Transfer price, €. */
  priceTransfer: number | null;
  /** m². */
  size: number | null;
  bedrooms: number | null;
  bathrooms: number | null;
  /** Number of terraces, or at least that many when not {@link terracesExact}; null when unknown (see module notes). */
  terraces: number | null;
  terracesExact: boolean;
  /** Terrace area, m², when stored. */
  terraceSize: number | null;
  /** Feature keys and labels, as {@link placeKey}s. */
  features: ReadonlySet<string>;
  /** City, province and district, as {@link placeKey}s. */
  places: readonly string[];
  /** Exact position, decimal degrees. */
  lat: number | null;
  lon: number | null;
}

/** Bounds of one operation's price: [field of the minimum, field of the maximum, listing value]. */
type PriceCheck = { op: number; minField: string; maxField: string; value: (l: Listing) => number | null };

const PRICE_CHECKS: PriceCheck[] = [
  { op: OP_VENTA, minField: 'price_min', maxField: 'price_max', value: (l) => l.price },
  { op: OP_ALQUILER, minField: 'price_rent_min', maxField: 'price_rent_max', value: (l) => l.priceRent },
  { op: OP_TRASPASO, minField: 'price_min', maxField: 'price_max', value: (l) => l.priceTransfer },
];

/** Bounds on listing numbers: [criterion field, listing value, +1 for a minimum or -1 for a maximum]. */
const NUMBER_BOUNDS: Array<[string, (l: Listing) => number | null, 1 | -1]> = [
  ['size_min', (l) => l.size, 1],
  ['size_max', (l) => l.size, -1],
  ['bedrooms_min', (l) => l.bedrooms, 1],
  ['bathrooms_min', (l) => l.bathrooms, 1],
];

/** The criteria object of one property type, compiled. */
interface TypeCriteria {
  subtypes: ReadonlySet<string> | null;
  features: readonly string[];
  bounds: ReadonlyMap<string, number>;
}

/** A search entry, compiled for testing many listings. */
export interface CompiledSearch {
  /** Bit set of wanted operations; 0 = any. */
  ops: number;
  /** Wanted types; null = any. */
  types: ReadonlySet<string> | null;
  criteria: ReadonlyMap<string, TypeCriteria>;
  placeNames: readonly string[];
  areas: readonly MapArea[];
}

/** Case- and accent-insensitive form of a place, feature or subtype name. */
export function placeKey(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ')
    .trim();
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const words = (v: unknown): string[] => (Array.isArray(v) ? v.filter((w): w is string => typeof w === 'string' && w.trim() !== '') : []);
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

const BOUND_FIELDS = [
  'price_min',
  'price_max',
  'price_rent_min',
  'price_rent_max',
  'size_min',
  'size_max',
  'bedrooms_min',
  'bathrooms_min',
  'num_terraces_min',
  'size_terraces_min',
];

function compileTypeCriteria(value: unknown): TypeCriteria {
  const object = isObject(value) ? value : {};
  const subtypes = words(object.subtypes).map(placeKey);
  const bounds = new Map<string, number>();
  for (const field of BOUND_FIELDS) if (finite(object[field])) bounds.set(field, object[field]);
  return { subtypes: subtypes.length ? new Set(subtypes) : null, features: words(object.features).map(placeKey), bounds };
}

/** Compiles one entry of `search_preferences` (spec §2.4). Unknown values are ignored. */
export function compileSearch(entry: Record<string, unknown>): CompiledSearch {
  let ops = 0;
  for (const op of words(entry.operations)) ops |= OP_BITS[op] ?? 0;
  const typeList = words(entry.property_types);
  const criteria = new Map<string, TypeCriteria>();
  for (const type of PROPERTY_TYPES) {
    if (isObject(entry[type])) criteria.set(type, compileTypeCriteria(entry[type]));
  }
  const placeNames: string[] = [];
  const areas: MapArea[] = [];
  for (const location of Array.isArray(entry.locations) ? entry.locations : []) {
    if (isObject(location) && typeof location.name === 'string' && location.name.trim() !== '') {
      placeNames.push(placeKey(location.name));
      continue;
    }
    const area = parseMapArea(location);
    if (area) areas.push(area);
  }
  return { ops, types: typeList.length ? new Set(typeList) : null, criteria, placeNames, areas };
}

/** The price bound fields a listing misses for one operation, in field order. */
function priceMisses(check: PriceCheck, bounds: ReadonlyMap<string, number>, listing: Listing): string[] {
  const min = bounds.get(check.minField);
  const max = bounds.get(check.maxField);
  if (min === undefined && max === undefined) return [];
  const value = check.value(listing);
  const missed: string[] = [];
  if (min !== undefined && (value === null || value < min)) missed.push(check.minField);
  if (max !== undefined && (value === null || value > max)) missed.push(check.maxField);
  return missed;
}

/**
 * The criteria of `search` that `listing` misses, in the order of spec §2.4, stopping at
 * two (a listing that misses two is neither a match nor a near miss).
 * @returns [] for a match, one name for a near miss, two names otherwise.
 */
export function missedCriteria(search: CompiledSearch, listing: Listing): string[] {
  const missed: string[] = [];
  const miss = (name: string) => missed.push(name) >= 2;

  const commonOps = search.ops & listing.ops;
  if (search.ops !== 0 && commonOps === 0 && miss('operation')) return missed;
  if (search.types !== null && (listing.type === null || !search.types.has(listing.type)) && miss('type')) return missed;

  const criteria = listing.type === null ? undefined : search.criteria.get(listing.type);
  if (criteria) {
    if (criteria.subtypes !== null && (listing.subtype === null || !criteria.subtypes.has(placeKey(listing.subtype)))) {
      if (miss('subtypes')) return missed;
    }
    // Prices are judged for the operations both sides share (or, when they share none, the
    // listing's own), and pass when one operation is within its bounds.
    const ops = commonOps !== 0 ? commonOps : listing.ops;
    let priceMissed: string[] | null = null;
    for (const check of PRICE_CHECKS) {
      if ((ops & check.op) === 0) continue;
      const m = priceMisses(check, criteria.bounds, listing);
      if (m.length === 0) {
        priceMissed = [];
        break;
      }
      priceMissed ??= m;
    }
    if (priceMissed === null) {
      // A listing offered for no operation cannot meet a price bound.
      priceMissed = BOUND_FIELDS.slice(0, 4).filter((f) => criteria.bounds.has(f));
    }
    for (const name of priceMissed) if (miss(name)) return missed;

    for (const [field, value, sign] of NUMBER_BOUNDS) {
      const bound = criteria.bounds.get(field);
      if (bound === undefined) continue;
      const v = value(listing);
      if ((v === null || (v - bound) * sign < 0) && miss(field)) return missed;
    }
    const terracesMin = criteria.bounds.get('num_terraces_min');
    if (terracesMin !== undefined && listing.terraces !== null && (listing.terracesExact || terracesMin <= listing.terraces)) {
      if (listing.terraces < terracesMin && miss('num_terraces_min')) return missed;
    }
    const terraceSizeMin = criteria.bounds.get('size_terraces_min');
    if (terraceSizeMin !== undefined && listing.terraceSize !== null && listing.terraceSize < terraceSizeMin) {
      if (miss('size_terraces_min')) return missed;
    }
    if (criteria.features.some((f) => !listing.features.has(f)) && miss('features')) return missed;
  }

  if (search.placeNames.length || search.areas.length) {
    const named = search.placeNames.some((name) => listing.places.includes(name));
    const inArea =
      !named && listing.lat !== null && listing.lon !== null && search.areas.some((area) => areaContains(area, listing.lat!, listing.lon!));
    if (!named && !inArea) miss('location');
  }
  return missed;
}

/** Stored results of matching one lead (CONTRACT §7). */
export interface LeadMatches {
  /** Matches, `[property id, entry index]`, in catalogue order, at most `limit` per entry. */
  matches: Array<[number, number]>;
  /** Near misses, `[property id, entry index, criterion missed]`, at most `limit` per entry. */
  nearMisses: Array<[number, number, string]>;
  /** Counts before the cap. */
  matchesTotal: number;
  nearMissesTotal: number;
}

/**
 * Matches every search entry of a lead against listings.
 * @param searches the lead's `search_preferences`; entries without content match nothing
 *   (an empty entry would otherwise match the whole catalogue).
 * @param listings the catalogue, in the order in which matches should be kept (newest first).
 * @param limit most matches, and most near misses, kept per entry.
 */
export function matchLead(
  searches: ReadonlyArray<Record<string, unknown>>,
  listings: readonly Listing[],
  limit: number,
  hasContent: (entry: Record<string, unknown>) => boolean,
): LeadMatches {
  const result: LeadMatches = { matches: [], nearMisses: [], matchesTotal: 0, nearMissesTotal: 0 };
  searches.forEach((entry, index) => {
    if (!isObject(entry) || !hasContent(entry)) return;
    const search = compileSearch(entry);
    let kept = 0;
    let keptNear = 0;
    for (const listing of listings) {
      const missed = missedCriteria(search, listing);
      if (missed.length === 0) {
        result.matchesTotal++;
        if (kept++ < limit) result.matches.push([listing.id, index]);
      } else if (missed.length === 1) {
        result.nearMissesTotal++;
        if (keptNear++ < limit) result.nearMisses.push([listing.id, index, missed[0]]);
      }
    }
  });
  return result;
}
