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
import { areaContains, boundingBox, parseMapArea } from './geo.ts';

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
  /** Subtype key, as a {@link placeKey}. */
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

/** The criteria object of one property type, compiled: each bound a number, or undefined when not given. */
interface TypeCriteria {
  subtypes: ReadonlySet<string> | null;
  features: readonly string[];
  priceMin?: number;
  priceMax?: number;
  rentMin?: number;
  rentMax?: number;
  hasPriceBounds: boolean;
  sizeMin?: number;
  sizeMax?: number;
  bedroomsMin?: number;
  bathroomsMin?: number;
  terracesMin?: number;
  terraceSizeMin?: number;
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

const PLACE_KEYS = new Map<string, string>();
/** Distinct names remembered by {@link placeKey} (catalogues repeat a small vocabulary). */
const PLACE_KEYS_MAX = 50_000;

/** Case- and accent-insensitive form of a place, feature or subtype name. */
export function placeKey(text: string): string {
  let key = PLACE_KEYS.get(text);
  if (key === undefined) {
    key = text
      .normalize('NFD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .replace(/[\s_-]+/g, ' ')
      .trim();
    if (PLACE_KEYS.size >= PLACE_KEYS_MAX) PLACE_KEYS.clear();
    PLACE_KEYS.set(text, key);
  }
  return key;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const words = (v: unknown): string[] => (Array.isArray(v) ? v.filter((w): w is string => typeof w === 'string' && w.trim() !== '') : []);
const bound = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function compileTypeCriteria(value: unknown): TypeCriteria {
  const o = isObject(value) ? value : {};
  const subtypes = words(o.subtypes).map(placeKey);
  const criteria: TypeCriteria = {
    subtypes: subtypes.length ? new Set(subtypes) : null,
    features: words(o.features).map(placeKey),
    priceMin: bound(o.price_min),
    priceMax: bound(o.price_max),
    rentMin: bound(o.price_rent_min),
    rentMax: bound(o.price_rent_max),
    hasPriceBounds: false,
    sizeMin: bound(o.size_min),
    sizeMax: bound(o.size_max),
    bedroomsMin: bound(o.bedrooms_min),
    bathroomsMin: bound(o.bathrooms_min),
    terracesMin: bound(o.num_terraces_min),
    terraceSizeMin: bound(o.size_terraces_min),
  };
  criteria.hasPriceBounds = [criteria.priceMin, criteria.priceMax, criteria.rentMin, criteria.rentMax].some((b) => b !== undefined);
  return criteria;
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

/**
 * The price bounds a listing misses, judged for the operations both sides share (or, when
 * they share none, the listing's own): none when one operation is within its bounds,
 * otherwise those of the first operation (venta, alquiler, traspaso), appended to `out`.
 * `price_min`/`price_max` bound the sale and the transfer price, `price_rent_*` the rent.
 * @returns whether `out` reached two names.
 */
function priceMisses(c: TypeCriteria, ops: number, listing: Listing, out: string[]): boolean {
  let firstMin: string | null = null;
  let firstMax: string | null = null;
  let judged = false;
  for (let op = OP_VENTA; op <= OP_TRASPASO; op <<= 1) {
    if ((ops & op) === 0) continue;
    const rent = op === OP_ALQUILER;
    const min = rent ? c.rentMin : c.priceMin;
    const max = rent ? c.rentMax : c.priceMax;
    const value = op === OP_VENTA ? listing.price : rent ? listing.priceRent : listing.priceTransfer;
    const missMin = min !== undefined && (value === null || value < min);
    const missMax = max !== undefined && (value === null || value > max);
    if (!missMin && !missMax) return false;
    if (!judged) {
      judged = true;
      firstMin = missMin ? (rent ? 'price_rent_min' : 'price_min') : null;
      firstMax = missMax ? (rent ? 'price_rent_max' : 'price_max') : null;
    }
  }
  if (!judged) {
    // A listing offered for no operation cannot meet a price bound.
    firstMin = c.priceMin !== undefined ? 'price_min' : c.rentMin !== undefined ? 'price_rent_min' : null;
    firstMax = c.priceMax !== undefined ? 'price_max' : c.rentMax !== undefined ? 'price_rent_max' : null;
  }
  return (firstMin !== null && out.push(firstMin) >= 2) || (firstMax !== null && out.push(firstMax) >= 2);
}

/** Whether `value` misses a minimum (`sign` 1) or a maximum (`sign` -1); an unstated value misses. */
const missesBound = (value: number | null, limit: number | undefined, sign: 1 | -1) =>
  limit !== undefined && (value === null || (value - limit) * sign < 0);

/**
 * The criteria of `search` that `listing` misses, in the order of spec §2.4, stopping at
 * two (a listing that misses two is neither a match nor a near miss).
 * @param out the array to fill (emptied first): matching many listings reuses one.
 * @returns `out`: [] for a match, one name for a near miss, two names otherwise.
 */
export function missedCriteria(search: CompiledSearch, listing: Listing, out: string[] = []): string[] {
  out.length = 0;
  const commonOps = search.ops & listing.ops;
  if (search.ops !== 0 && commonOps === 0 && out.push('operation') >= 2) return out;
  if (search.types !== null && (listing.type === null || !search.types.has(listing.type)) && out.push('type') >= 2) return out;

  const c = listing.type === null ? undefined : search.criteria.get(listing.type);
  if (c !== undefined) {
    if (c.subtypes !== null && (listing.subtype === null || !c.subtypes.has(listing.subtype)) && out.push('subtypes') >= 2) return out;
    if (c.hasPriceBounds && priceMisses(c, commonOps !== 0 ? commonOps : listing.ops, listing, out)) return out;
    if (missesBound(listing.size, c.sizeMin, 1) && out.push('size_min') >= 2) return out;
    if (missesBound(listing.size, c.sizeMax, -1) && out.push('size_max') >= 2) return out;
    if (missesBound(listing.bedrooms, c.bedroomsMin, 1) && out.push('bedrooms_min') >= 2) return out;
    if (missesBound(listing.bathrooms, c.bathroomsMin, 1) && out.push('bathrooms_min') >= 2) return out;
    // Terraces only where stored; a count known only as "at least" is judged only when it suffices.
    const terracesMin = c.terracesMin;
    if (terracesMin !== undefined && listing.terraces !== null && listing.terracesExact && listing.terraces < terracesMin) {
      if (out.push('num_terraces_min') >= 2) return out;
    }
    if (c.terraceSizeMin !== undefined && listing.terraceSize !== null && listing.terraceSize < c.terraceSizeMin) {
      if (out.push('size_terraces_min') >= 2) return out;
    }
    for (const feature of c.features) {
      if (!listing.features.has(feature)) {
        if (out.push('features') >= 2) return out;
        break;
      }
    }
  }

  if (search.placeNames.length !== 0 || search.areas.length !== 0) {
    let inside = false;
    for (const name of search.placeNames) if (listing.places.includes(name)) inside = true;
    if (!inside && listing.lat !== null && listing.lon !== null) {
      for (const area of search.areas) {
        if (areaContains(area, listing.lat, listing.lon)) {
          inside = true;
          break;
        }
      }
    }
    if (!inside) out.push('location');
  }
  return out;
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
 * A catalogue prepared for matching many leads: the listings, and beside them, in typed
 * arrays, what the three cheapest criteria read (operation, type, place, position). A lead is
 * then tested in full only against listings that fail at most one of operation, type and
 * location, the rest being neither a match nor a near miss: at a million listings, a scan of
 * every listing in full took 220–290 ms a lead.
 */
export interface IndexedListings {
  listings: readonly Listing[];
  ops: Uint8Array;
  /** Index of each listing's type in {@link IndexedListings.typeNames}; 0 = no type. */
  typeCodes: Uint16Array;
  /** Type names by code; index 0 stands for a listing without a type. */
  typeNames: ReadonlyArray<string | null>;
  /** Exact position, NaN when unknown. */
  lat: Float64Array;
  lon: Float64Array;
  /** Positions of the listings in each place (city, province, district key), ascending. */
  byPlace: ReadonlyMap<string, Uint32Array>;
}

/** Prepares listings for {@link matchLead} (once per catalogue version). */
export function indexListings(listings: readonly Listing[]): IndexedListings {
  const n = listings.length;
  const ops = new Uint8Array(n);
  const typeCodes = new Uint16Array(n);
  const typeNames: Array<string | null> = [null];
  const codeOf = new Map<string, number>();
  const lat = new Float64Array(n);
  const lon = new Float64Array(n);
  const places = new Map<string, number[]>();
  listings.forEach((listing, i) => {
    ops[i] = listing.ops;
    if (listing.type !== null) {
      let code = codeOf.get(listing.type);
      if (code === undefined) {
        code = typeNames.push(listing.type) - 1;
        codeOf.set(listing.type, code);
      }
      typeCodes[i] = code;
    }
    lat[i] = listing.lat ?? NaN;
    lon[i] = listing.lon ?? NaN;
    for (const place of new Set(listing.places)) {
      const list = places.get(place);
      if (list) list.push(i);
      else places.set(place, [i]);
    }
  });
  const byPlace = new Map<string, Uint32Array>();
  for (const [place, positions] of places) byPlace.set(place, Uint32Array.from(positions));
  return { listings, ops, typeCodes, typeNames, lat, lon, byPlace };
}

/** Degrees added around each map area's box, so that rounding never leaves a listing out of it. */
const BOX_MARGIN = 1e-7;

/**
 * Marks the listings a search's location cannot exclude: in one of its places, or inside the
 * box of one of its areas (the exact test is missedCriteria's). null when it has no location.
 */
function locationCandidates(search: CompiledSearch, index: IndexedListings): Uint8Array | null {
  if (search.placeNames.length === 0 && search.areas.length === 0) return null;
  const marks = new Uint8Array(index.listings.length);
  for (const name of search.placeNames) {
    for (const i of index.byPlace.get(name) ?? []) marks[i] = 1;
  }
  for (const area of search.areas) {
    const box = boundingBox(area);
    const [south, north, west, east] = [box.south - BOX_MARGIN, box.north + BOX_MARGIN, box.west - BOX_MARGIN, box.east + BOX_MARGIN];
    const wraps = box.west > box.east;
    const { lat, lon } = index;
    for (let i = 0; i < marks.length; i++) {
      if (lat[i] >= south && lat[i] <= north && (wraps ? lon[i] >= west || lon[i] <= east : lon[i] >= west && lon[i] <= east)) {
        marks[i] = 1;
      }
    }
  }
  return marks;
}

/**
 * Matches every search entry of a lead against listings.
 * @param searches the lead's `search_preferences`; entries without content match nothing
 *   (an empty entry would otherwise match the whole catalogue).
 * @param catalogue the catalogue, in the order in which matches should be kept (newest
 *   first), as listings or already indexed ({@link indexListings}).
 * @param limit most matches, and most near misses, kept per entry.
 */
export function matchLead(
  searches: ReadonlyArray<Record<string, unknown>>,
  catalogue: readonly Listing[] | IndexedListings,
  limit: number,
  hasContent: (entry: Record<string, unknown>) => boolean,
): LeadMatches {
  const result: LeadMatches = { matches: [], nearMisses: [], matchesTotal: 0, nearMissesTotal: 0 };
  const entries = searches.flatMap((entry, entryIndex) => (isObject(entry) && hasContent(entry) ? [{ entry, entryIndex }] : []));
  if (entries.length === 0) return result;
  const index = 'typeCodes' in catalogue ? catalogue : indexListings(catalogue);
  const { listings, ops, typeCodes, typeNames } = index;
  for (const { entry, entryIndex } of entries) {
    const search = compileSearch(entry);
    // The three gate criteria, decided from the typed arrays: a listing failing two is skipped.
    const wantedTypes = search.types === null ? null : typeNames.map((name) => name !== null && search.types!.has(name));
    const located = locationCandidates(search, index);
    let kept = 0;
    let keptNear = 0;
    const missed: string[] = [];
    for (let i = 0; i < listings.length; i++) {
      let gate = search.ops !== 0 && (ops[i] & search.ops) === 0 ? 1 : 0;
      if (wantedTypes !== null && !wantedTypes[typeCodes[i]]) gate++;
      if (located !== null && located[i] === 0) gate++;
      if (gate >= 2) continue;
      const listing = listings[i];
      missedCriteria(search, listing, missed);
      if (missed.length === 0) {
        result.matchesTotal++;
        if (kept++ < limit) result.matches.push([listing.id, entryIndex]);
      } else if (missed.length === 1) {
        result.nearMissesTotal++;
        if (keptNear++ < limit) result.nearMisses.push([listing.id, entryIndex, missed[0]]);
      }
    }
  }
  return result;
}
