/**
 * Lead ↔ property matching (spec §2.4, §6 step 1; CONTRACT §7), as pure functions.
 *
 * A search entry is compiled once ({@link compileSearch}), bound to a catalogue's columns
 * ({@link indexListings}) and tested against each listing ({@link missedCriteria}). A listing matches an entry when every criterion the entry gives
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
import { createHash } from 'node:crypto';
import { PROPERTY_TYPES } from '../catalogue/terms.ts';
import type { MapArea } from '../catalogue/geo.ts';
import { areaTest, boundingBox, parseMapArea } from '../catalogue/geo.ts';

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
 * A catalogue prepared for matching many leads, as columns: one typed array per field the
 * criteria read, names (types, subtypes, places, features) as codes into the catalogue's own
 * vocabularies, and an inverted index of places. A listing is read as a few adjacent numbers
 * instead of an object and the sets and arrays it points to: at a million listings, testing the
 * listings that fail at most one of operation, type and location (CONTRACT §7 counts every near
 * miss) took 124–253 ms a lead from objects.
 *
 * Unknown values are NaN in the number columns and code 0 in the name columns. A listing's
 * places and features are the slice `[start[i], start[i + 1])` of their code column.
 */
export interface IndexedListings {
  /** How many listings. */
  size: number;
  ids: Float64Array;
  /** Bit set of OP_VENTA, OP_ALQUILER, OP_TRASPASO. */
  ops: Uint8Array;
  typeCodes: Uint16Array;
  /** Names by code; index 0 stands for no value. */
  typeNames: ReadonlyArray<string | null>;
  subtypeCodes: Uint32Array;
  subtypeNames: ReadonlyArray<string | null>;
  /** Sale, monthly rent and transfer price (€), size (m²), bedrooms, bathrooms. */
  price: Float64Array;
  priceRent: Float64Array;
  priceTransfer: Float64Array;
  area: Float64Array;
  bedrooms: Float64Array;
  bathrooms: Float64Array;
  /** Terraces (see {@link Listing.terraces}), 1 where the count is exact, and the terrace area (m²). */
  terraces: Float64Array;
  terracesExact: Uint8Array;
  terraceSize: Float64Array;
  placeStart: Uint32Array;
  placeCodes: Uint32Array;
  placeNames: ReadonlyArray<string | null>;
  featureStart: Uint32Array;
  featureCodes: Uint32Array;
  featureNames: ReadonlyArray<string | null>;
  /** Exact position, decimal degrees. */
  lat: Float64Array;
  lon: Float64Array;
  /** Positions of the listings with a position, by ascending latitude, and those latitudes: a map area's box is a range of it. */
  byLat: Uint32Array;
  sortedLat: Float64Array;
  /** Positions of the listings in each place (city, province, district key), ascending. */
  byPlace: ReadonlyMap<string, Uint32Array>;
  /**
   * One mark per listing, reused by each {@link matchLead} (synchronous, so never by two at once):
   * a fresh array per search entry was garbage of a megabyte per lead at a million listings.
   */
  scratch: Uint8Array;
}

/** A vocabulary of names, coded from 1 (0 = none). */
class Vocabulary {
  readonly names: Array<string | null> = [null];
  private readonly codes = new Map<string, number>();

  code(name: string | null): number {
    if (name === null) return 0;
    let code = this.codes.get(name);
    if (code === undefined) {
      code = this.names.push(name) - 1;
      this.codes.set(name, code);
    }
    return code;
  }
}

/** Prepares listings for {@link matchLead} (once per catalogue version). */
export function indexListings(listings: readonly Listing[]): IndexedListings {
  const builder = new IndexBuilder();
  for (const listing of listings) builder.add(listing);
  return builder.build();
}

/**
 * Builds an {@link IndexedListings} from listings added one at a time, in catalogue order:
 * a snapshot is read a page at a time (services/leads/matching.ts), and each page is indexed as it
 * comes, so that no step of the load holds the event loop for long.
 */
export class IndexBuilder {
  private readonly numbers = {
    ids: [] as number[],
    price: [] as number[],
    priceRent: [] as number[],
    priceTransfer: [] as number[],
    area: [] as number[],
    bedrooms: [] as number[],
    bathrooms: [] as number[],
    terraces: [] as number[],
    terraceSize: [] as number[],
    lat: [] as number[],
    lon: [] as number[],
  };
  private readonly ops: number[] = [];
  private readonly typeCodes: number[] = [];
  private readonly subtypeCodes: number[] = [];
  private readonly terracesExact: number[] = [];
  private readonly vocabularies = {
    types: new Vocabulary(),
    subtypes: new Vocabulary(),
    places: new Vocabulary(),
    features: new Vocabulary(),
  };
  private readonly placeStart: number[] = [0];
  private readonly placeCodes: number[] = [];
  private readonly featureStart: number[] = [0];
  private readonly featureCodes: number[] = [];
  private readonly byPlace = new Map<string, number[]>();

  /** Adds the next listing of the catalogue. */
  add(listing: Listing): void {
    const i = this.ops.length;
    const n = this.numbers;
    const { types, subtypes, places, features } = this.vocabularies;
    n.ids.push(listing.id);
    n.price.push(listing.price ?? NaN);
    n.priceRent.push(listing.priceRent ?? NaN);
    n.priceTransfer.push(listing.priceTransfer ?? NaN);
    n.area.push(listing.size ?? NaN);
    n.bedrooms.push(listing.bedrooms ?? NaN);
    n.bathrooms.push(listing.bathrooms ?? NaN);
    n.terraces.push(listing.terraces ?? NaN);
    n.terraceSize.push(listing.terraceSize ?? NaN);
    n.lat.push(listing.lat ?? NaN);
    n.lon.push(listing.lon ?? NaN);
    this.ops.push(listing.ops);
    this.typeCodes.push(types.code(listing.type));
    this.subtypeCodes.push(subtypes.code(listing.subtype));
    this.terracesExact.push(listing.terracesExact ? 1 : 0);
    // A listing's city and province are often the same place: each is kept once.
    const start = this.placeCodes.length;
    for (const place of listing.places) {
      const code = places.code(place);
      if (this.placeCodes.indexOf(code, start) !== -1) continue;
      this.placeCodes.push(code);
      const list = this.byPlace.get(place);
      if (list) list.push(i);
      else this.byPlace.set(place, [i]);
    }
    this.placeStart.push(this.placeCodes.length);
    for (const feature of listing.features) this.featureCodes.push(features.code(feature));
    this.featureStart.push(this.featureCodes.length);
  }

  /** The index of the listings added so far. */
  build(): IndexedListings {
    const n = this.numbers;
    const { types, subtypes, places, features } = this.vocabularies;
    const lat = Float64Array.from(n.lat);
    return {
      size: this.ops.length,
      ids: Float64Array.from(n.ids),
      ops: Uint8Array.from(this.ops),
      typeCodes: Uint16Array.from(this.typeCodes),
      typeNames: types.names,
      subtypeCodes: Uint32Array.from(this.subtypeCodes),
      subtypeNames: subtypes.names,
      price: Float64Array.from(n.price),
      priceRent: Float64Array.from(n.priceRent),
      priceTransfer: Float64Array.from(n.priceTransfer),
      area: Float64Array.from(n.area),
      bedrooms: Float64Array.from(n.bedrooms),
      bathrooms: Float64Array.from(n.bathrooms),
      terraces: Float64Array.from(n.terraces),
      terracesExact: Uint8Array.from(this.terracesExact),
      terraceSize: Float64Array.from(n.terraceSize),
      placeStart: Uint32Array.from(this.placeStart),
      placeCodes: Uint32Array.from(this.placeCodes),
      placeNames: places.names,
      featureStart: Uint32Array.from(this.featureStart),
      featureCodes: Uint32Array.from(this.featureCodes),
      featureNames: features.names,
      lat,
      lon: Float64Array.from(n.lon),
      ...latitudeOrder(lat),
      byPlace: new Map([...this.byPlace].map(([place, positions]) => [place, Uint32Array.from(positions)])),
      scratch: new Uint8Array(this.ops.length),
    };
  }
}

/** The positions with a latitude, in ascending order of it, and those latitudes. */
function latitudeOrder(lat: Float64Array): { byLat: Uint32Array; sortedLat: Float64Array } {
  const positioned: number[] = [];
  for (let i = 0; i < lat.length; i++) if (!Number.isNaN(lat[i])) positioned.push(i);
  const byLat = Uint32Array.from(positioned).sort((a, b) => lat[a] - lat[b] || a - b);
  return { byLat, sortedLat: Float64Array.from(byLat, (i) => lat[i]) };
}

/** The first index of ascending `values` whose value is at least `min`. */
function lowerBound(values: Float64Array, min: number): number {
  let [low, high] = [0, values.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle] < min) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A type's criteria with its names as one catalogue's codes. */
interface BoundCriteria extends TypeCriteria {
  /** Wanted subtypes by code; null = any. */
  subtypeWanted: Uint8Array | null;
  /** The features named, by code; -1 for a feature the catalogue does not know (no listing has it). */
  featureCodes: readonly number[];
}

/** A search bound to one catalogue ({@link bindSearch}). */
interface BoundSearch {
  ops: number;
  /** Wanted types by code; null = any. */
  typeWanted: Uint8Array | null;
  /** The criteria judged for each type code. */
  criteria: ReadonlyArray<BoundCriteria | undefined>;
  hasLocation: boolean;
  placeWanted: Uint8Array;
  areas: ReadonlyArray<(lat: number, lon: number) => boolean>;
}

/** Marks of the names of `vocabulary` that are in `wanted`, by code. */
const wantedCodes = (vocabulary: ReadonlyArray<string | null>, wanted: ReadonlySet<string> | readonly string[]) => {
  const set = wanted instanceof Set ? wanted : new Set(wanted);
  return Uint8Array.from(vocabulary, (name) => (name !== null && set.has(name) ? 1 : 0));
};

/** Turns the names of a compiled search into the codes of `index`'s vocabularies. */
function bindSearch(search: CompiledSearch, index: IndexedListings): BoundSearch {
  return {
    ops: search.ops,
    typeWanted: search.types === null ? null : wantedCodes(index.typeNames, search.types),
    criteria: index.typeNames.map((type) => {
      const c = type === null ? undefined : search.criteria.get(type);
      if (c === undefined) return undefined;
      return {
        ...c,
        subtypeWanted: c.subtypes === null ? null : wantedCodes(index.subtypeNames, c.subtypes),
        featureCodes: c.features.map((feature) => index.featureNames.indexOf(feature)),
      };
    }),
    hasLocation: search.placeNames.length !== 0 || search.areas.length !== 0,
    placeWanted: wantedCodes(index.placeNames, search.placeNames),
    areas: search.areas.map(areaTest),
  };
}

/** Whether a value (NaN = not stated) misses a minimum or a maximum: an unstated value misses. */
const belowMin = (value: number, min: number | undefined) => min !== undefined && !(value >= min);
const aboveMax = (value: number, max: number | undefined) => max !== undefined && !(value <= max);

/**
 * The criteria a listing misses, up to two: counting them into one object, reused for every
 * listing, costs nothing per listing (an array emptied for each would be reallocated).
 */
class Misses {
  count = 0;
  first = '';
  second = '';

  /** Notes a missed criterion. @returns whether two are missed now (the listing is out). */
  add(name: string): boolean {
    if (this.count === 0) this.first = name;
    else this.second = name;
    return ++this.count >= 2;
  }
}

/**
 * The price bounds listing `i` misses, judged for the operations both sides share (or, when
 * they share none, the listing's own): none when one operation is within its bounds,
 * otherwise those of the first operation (venta, alquiler, traspaso).
 * `price_min`/`price_max` bound the sale and the transfer price, `price_rent_*` the rent.
 * @returns whether two criteria are missed now.
 */
function priceMisses(c: TypeCriteria, ops: number, x: IndexedListings, i: number, misses: Misses): boolean {
  let firstMin: string | null = null;
  let firstMax: string | null = null;
  let judged = false;
  for (let op = OP_VENTA; op <= OP_TRASPASO; op <<= 1) {
    if ((ops & op) === 0) continue;
    const rent = op === OP_ALQUILER;
    const value = op === OP_VENTA ? x.price[i] : rent ? x.priceRent[i] : x.priceTransfer[i];
    const missMin = belowMin(value, rent ? c.rentMin : c.priceMin);
    const missMax = aboveMax(value, rent ? c.rentMax : c.priceMax);
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
  return (firstMin !== null && misses.add(firstMin)) || (firstMax !== null && misses.add(firstMax));
}

/** Whether listing `i` has every feature of `codes` (-1: one no listing has). */
function hasFeatures(x: IndexedListings, i: number, codes: readonly number[]): boolean {
  const end = x.featureStart[i + 1];
  outer: for (const code of codes) {
    for (let k = x.featureStart[i]; k < end; k++) if (x.featureCodes[k] === code) continue outer;
    return false;
  }
  return true;
}

/** Whether listing `i` is in one of the search's places or inside one of its areas. */
function located(b: BoundSearch, x: IndexedListings, i: number): boolean {
  for (let k = x.placeStart[i]; k < x.placeStart[i + 1]; k++) if (b.placeWanted[x.placeCodes[k]] === 1) return true;
  const lat = x.lat[i];
  const lon = x.lon[i];
  if (Number.isNaN(lat) || Number.isNaN(lon)) return false;
  for (const inside of b.areas) if (inside(lat, lon)) return true;
  return false;
}

/**
 * Counts into `misses` (reset first) the criteria of bound search `b` that listing `i` of `x`
 * misses, in the order of spec §2.4, stopping at two: none is a match, one a near miss.
 * @param mayBeLocated false when the listing is known to be outside the search's location
 *   (not in its places nor in its areas' boxes), which spares the exact test. Only then may the
 *   names of two misses come in another order than spec §2.4's.
 */
function missedAt(b: BoundSearch, x: IndexedListings, i: number, misses: Misses, mayBeLocated: boolean): void {
  misses.count = 0;
  // A location known to be missed is counted first, so that a second miss ends the test at
  // once: with one miss, the name is the same; with two, no name is kept.
  const knownOutside = b.hasLocation && !mayBeLocated;
  if (knownOutside) misses.add('location');
  const listingOps = x.ops[i];
  const commonOps = b.ops & listingOps;
  if (b.ops !== 0 && commonOps === 0 && misses.add('operation')) return;
  const type = x.typeCodes[i];
  if (b.typeWanted !== null && b.typeWanted[type] !== 1 && misses.add('type')) return;

  const c = b.criteria[type];
  if (c !== undefined) {
    if (c.subtypeWanted !== null && c.subtypeWanted[x.subtypeCodes[i]] !== 1 && misses.add('subtypes')) return;
    if (c.hasPriceBounds && priceMisses(c, commonOps !== 0 ? commonOps : listingOps, x, i, misses)) return;
    const area = x.area[i];
    if (belowMin(area, c.sizeMin) && misses.add('size_min')) return;
    if (aboveMax(area, c.sizeMax) && misses.add('size_max')) return;
    if (belowMin(x.bedrooms[i], c.bedroomsMin) && misses.add('bedrooms_min')) return;
    if (belowMin(x.bathrooms[i], c.bathroomsMin) && misses.add('bathrooms_min')) return;
    // Terraces only where stored (NaN compares false); a count known only as "at least" is
    // judged only when it suffices.
    if (c.terracesMin !== undefined && x.terracesExact[i] === 1 && x.terraces[i] < c.terracesMin && misses.add('num_terraces_min')) {
      return;
    }
    if (c.terraceSizeMin !== undefined && x.terraceSize[i] < c.terraceSizeMin && misses.add('size_terraces_min')) return;
    if (c.featureCodes.length !== 0 && !hasFeatures(x, i, c.featureCodes) && misses.add('features')) return;
  }
  if (b.hasLocation && !knownOutside && !located(b, x, i)) misses.add('location');
}

/**
 * The criteria of `search` that `listing` misses, in the order of spec §2.4, stopping at
 * two (a listing that misses two is neither a match nor a near miss).
 * @returns [] for a match, one name for a near miss, two names otherwise.
 */
export function missedCriteria(search: CompiledSearch, listing: Listing): string[] {
  const index = indexListings([listing]);
  const misses = new Misses();
  missedAt(bindSearch(search, index), index, 0, misses, true);
  return [misses.first, misses.second].slice(0, misses.count);
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

/** Degrees added around each map area's box, so that rounding never leaves a listing out of it. */
const BOX_MARGIN = 1e-7;

/**
 * Marks the listings a search's location cannot exclude: in one of its places, or inside the
 * box of one of its areas (the exact test is missedAt's). null when it has no location.
 */
function locationCandidates(search: CompiledSearch, index: IndexedListings): Uint8Array | null {
  if (search.placeNames.length === 0 && search.areas.length === 0) return null;
  const marks = index.scratch.fill(0);
  for (const name of search.placeNames) {
    for (const i of index.byPlace.get(name) ?? []) marks[i] = 1;
  }
  const { lon, byLat, sortedLat } = index;
  for (const area of search.areas) {
    const box = boundingBox(area);
    const [south, north, west, east] = [box.south - BOX_MARGIN, box.north + BOX_MARGIN, box.west - BOX_MARGIN, box.east + BOX_MARGIN];
    const wraps = box.west > box.east;
    // The listings between the box's latitudes, found by binary search; then their longitude.
    for (let k = lowerBound(sortedLat, south); k < sortedLat.length && sortedLat[k] <= north; k++) {
      const i = byLat[k];
      if (wraps ? lon[i] >= west || lon[i] <= east : lon[i] >= west && lon[i] <= east) marks[i] = 1;
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
  const { ids, ops, typeCodes, size } = index;
  const typeCount = index.typeNames.length;
  for (const { entry, entryIndex } of entries) {
    const search = compileSearch(entry);
    const bound = bindSearch(search, index);
    // The three gate criteria, decided from the columns: a listing failing two is skipped.
    // Operation and type as one table: how many of the two each (operations, type code) fails.
    const gates = new Uint8Array(8 * typeCount);
    for (let o = 0; o < 8; o++) {
      for (let t = 0; t < typeCount; t++) {
        gates[o * typeCount + t] = (bound.ops !== 0 && (o & bound.ops) === 0 ? 1 : 0) + (bound.typeWanted?.[t] === 0 ? 1 : 0);
      }
    }
    const marks = locationCandidates(search, index);
    let kept = 0;
    let keptNear = 0;
    const misses = new Misses();
    for (let i = 0; i < size; i++) {
      const gate = gates[ops[i] * typeCount + typeCodes[i]];
      if (gate >= 2) continue;
      const mayBeLocated = marks === null || marks[i] === 1;
      if (gate === 1 && !mayBeLocated) continue;
      missedAt(bound, index, i, misses, mayBeLocated);
      if (misses.count === 0) {
        result.matchesTotal++;
        if (kept++ < limit) result.matches.push([ids[i], entryIndex]);
      } else if (misses.count === 1) {
        result.nearMissesTotal++;
        if (keptNear++ < limit) result.nearMisses.push([ids[i], entryIndex, misses.first]);
      }
    }
  }
  return result;
}

/** One stored row of a lead's matching: a match (`failed` null) or a near miss naming the criterion missed. */
export interface MatchRow {
  property_id: number;
  search_index: number;
  failed: string | null;
}

/** The rows a matching result stores: its matches, then its near misses (CONTRACT §7). */
export function matchRows(result: LeadMatches): MatchRow[] {
  return [
    ...result.matches.map(([property_id, search_index]) => ({ property_id, search_index, failed: null })),
    ...result.nearMisses.map(([property_id, search_index, failed]) => ({ property_id, search_index, failed })),
  ];
}

/**
 * What a stored matching result is, in two values (migration 0042): `hash`, a digest of its rows
 * (in any order) and both totals, equal for equal results, so a re-match that finds the same
 * result need not write it; and `truncated`, whether the run found more matches or near misses
 * than it stored (the per-entry cap), so that a listing it matched may be missing from the rows.
 */
export function matchRunDigest(rows: readonly MatchRow[], totals: { matches_total: number; near_misses_total: number }) {
  const keys = rows.map((r) => `${r.search_index}:${r.property_id}:${r.failed ?? ''}`).sort();
  const hash = createHash('sha256')
    .update(`${totals.matches_total}/${totals.near_misses_total}|${keys.join(',')}`)
    .digest('base64url');
  const stored = rows.filter((r) => r.failed === null).length;
  const truncated = stored < totals.matches_total || rows.length - stored < totals.near_misses_total ? 1 : 0;
  return { hash, truncated };
}
