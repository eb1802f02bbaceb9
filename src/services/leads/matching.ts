/**
 * Matching a lead against its business's catalogue (spec §6 step 1, CONTRACT §7).
 *
 * The rules are pure (domain/leads/matching.ts); this module supplies the catalogue. A worker keeps
 * each business's matchable listings in memory, keyed by the business's catalogue version,
 * which every import bumps in the transaction that changes the catalogue: a cached copy is
 * used only while its version is current, so a match never reads a stale catalogue, and a
 * lead costs one scan of typed arrays (domain/leads/matching.ts IndexedListings) instead of a
 * database query per criterion.
 */
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/database.ts';
import { catalogueVersion } from '../../db/repositories/businesses.ts';
import { listMatchableProperties, type MatchableAfter, type MatchableRow } from '../../db/repositories/matches.ts';
import {
  IndexBuilder,
  indexListings,
  matchLead,
  OP_ALQUILER,
  OP_TRASPASO,
  OP_VENTA,
  placeKey,
  type IndexedListings,
  type LeadMatches,
  type Listing,
} from '../../domain/leads/matching.ts';
import { searchEntryHasContent } from '../../domain/leads/rules.ts';

/**
 * A business's matchable listings at one catalogue version, as columns (domain/leads/matching.ts
 * indexListings) in catalogue order, newest first. The listing objects they were made from are
 * not kept: a million of them, with their sets of features, made every major garbage collection
 * of the worker take 230 ms; typed arrays are not traced.
 */
export interface CatalogueSnapshot {
  version: number;
  index: IndexedListings;
}

const numberOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A stored property → the listing matching reads. */
export function toListing(row: Omit<MatchableRow, 'updated_at'>): Listing {
  const features = new Set<string>();
  const featureList = parseJson(row.features);
  if (Array.isArray(featureList)) {
    for (const f of featureList as Array<Record<string, unknown>>) {
      if (f === null || typeof f !== 'object' || f.value === false) continue;
      if (typeof f.key === 'string') features.add(placeKey(f.key));
      if (typeof f.label === 'string') features.add(placeKey(f.label));
    }
  }
  const specsValue = parseJson(row.specs);
  const specs = specsValue !== null && typeof specsValue === 'object' ? (specsValue as Record<string, unknown>) : {};
  const places = [row.city, row.province, typeof specs.district === 'string' ? specs.district : null]
    .filter((p): p is string => typeof p === 'string' && p.trim() !== '')
    .map(placeKey);
  const storedTerraces = numberOrNull(specs.num_terraces);
  const listsFeatures = Array.isArray(featureList) && featureList.length > 0;
  return {
    id: row.id,
    ops: (row.op_venta ? OP_VENTA : 0) | (row.op_alquiler ? OP_ALQUILER : 0) | (row.op_traspaso ? OP_TRASPASO : 0),
    type: row.type,
    subtype: row.subtype === null ? null : placeKey(row.subtype),
    price: row.price,
    priceRent: row.price_rent,
    priceTransfer: row.price_transfer,
    size: row.size_total,
    bedrooms: row.bedrooms,
    bathrooms: row.bathrooms,
    terraces: storedTerraces ?? (features.has('terraza') ? 1 : listsFeatures ? 0 : null),
    terracesExact: storedTerraces !== null || (listsFeatures && !features.has('terraza')),
    terraceSize: numberOrNull(specs.size_terraces),
    features,
    places,
    // Map areas test the position the API publishes (CONTRACT §4): a lead matches exactly
    // what GET /properties shows for the same area, and no more precisely.
    lat: row.pub_lat,
    lon: row.pub_lon,
  };
}

/** Per-process cache of catalogue snapshots, a few businesses at a time. */
export class CatalogueSnapshots {
  private readonly cache: LRUCache<number, CatalogueSnapshot>;
  /** The load under way per business, and the version it was started for. */
  private readonly loading = new Map<number, { version: number; promise: Promise<CatalogueSnapshot> }>();

  /** @param maxBusinesses snapshots kept (least recently used out first). */
  constructor(maxBusinesses = 8) {
    this.cache = new LRUCache({ max: maxBusinesses });
  }

  /**
   * The business's current snapshot, loaded again when the catalogue has changed (see
   * {@link loadSnapshot}); callers asking while it loads share the load.
   */
  async get(db: Db, businessId: number): Promise<CatalogueSnapshot> {
    const version = await currentVersion(db, businessId);
    const cached = this.cache.get(businessId);
    if (cached && cached.version === version) return cached;
    let loading = this.loading.get(businessId);
    if (loading === undefined || loading.version !== version) {
      const promise = loadSnapshot(db, businessId).finally(() => {
        if (this.loading.get(businessId)?.promise === promise) this.loading.delete(businessId);
      });
      loading = { version, promise };
      this.loading.set(businessId, loading);
    }
    const snapshot = await loading.promise;
    if ((this.cache.get(businessId)?.version ?? -1) < snapshot.version) this.cache.set(businessId, snapshot);
    return snapshot;
  }
}

/** Rows read per statement while a snapshot loads; the event loop is given back between statements. */
const LOAD_PAGE = 2000;
/** Paged reads tried before one read in a transaction. */
const LOAD_TRIES = 3;

/**
 * Reads a business's matchable listings into a snapshot, a page at a time along the catalogue's
 * order index, each page indexed as it comes and the event loop given back in between: at a
 * million listings one read in one transaction held the process (and, under `inmo serve`, the
 * API) for 25 s. Every catalogue change bumps `catalogue_version` in its own transaction, so
 * when the version read after the last page is the one read before the first, no change
 * committed in between and the pages are the catalogue at that version. Otherwise (an import
 * committing meanwhile) the read is tried again, and after {@link LOAD_TRIES} the rows are read
 * in one transaction, whose snapshot agrees with the version it reads.
 */
async function loadSnapshot(db: Db, businessId: number): Promise<CatalogueSnapshot> {
  for (let attempt = 1; attempt <= LOAD_TRIES; attempt++) {
    const version = await currentVersion(db, businessId);
    const builder = new IndexBuilder();
    let after: MatchableAfter | null = null;
    for (;;) {
      const rows = await listMatchableProperties(db, businessId, { after, limit: LOAD_PAGE });
      for (const row of rows) builder.add(toListing(row));
      if (rows.length < LOAD_PAGE) break;
      const last = rows[rows.length - 1];
      after = { updatedAt: last.updated_at, id: last.id };
      await new Promise((resolve) => setImmediate(resolve));
    }
    if ((await currentVersion(db, businessId)) === version) return { version, index: builder.build() };
  }
  return db.transaction().execute(async (trx) => {
    const version = await currentVersion(trx, businessId);
    const rows = await listMatchableProperties(trx, businessId);
    return { version, index: indexListings(rows.map(toListing)) };
  });
}

const currentVersion = catalogueVersion;

/**
 * Matches a lead's `search_preferences` (the stored JSON text, or null) against a snapshot.
 * @param limit most matches, and most near misses, kept per search entry.
 */
export function matchSearchPreferences(searchPreferences: string | null, snapshot: CatalogueSnapshot, limit: number): LeadMatches {
  const searches = parseJson(searchPreferences);
  return matchLead(
    Array.isArray(searches) ? (searches as Array<Record<string, unknown>>) : [],
    snapshot.index,
    limit,
    searchEntryHasContent,
  );
}
