/**
 * Matching a lead against its business's catalogue (spec §6 step 1, CONTRACT §7).
 *
 * The rules are pure (domain/matching.ts); this module supplies the catalogue. A worker keeps
 * each business's matchable listings in memory, keyed by the business's catalogue version,
 * which every import bumps in the transaction that changes the catalogue: a cached copy is
 * used only while its version is current, so a match never reads a stale catalogue, and a
 * lead costs one scan of typed arrays (domain/matching.ts IndexedListings) instead of a
 * database query per criterion.
 */
import { LRUCache } from 'lru-cache';
import type { Db } from '../db/database.ts';
import { listMatchableProperties, type MatchableRow } from '../db/repositories/matches.ts';
import {
  indexListings,
  matchLead,
  OP_ALQUILER,
  OP_TRASPASO,
  OP_VENTA,
  placeKey,
  type IndexedListings,
  type LeadMatches,
  type Listing,
} from '../domain/matching.ts';
import { searchEntryHasContent } from '../domain/lead-rules.ts';

/**
 * A business's matchable listings at one catalogue version, as columns (domain/matching.ts
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
export function toListing(row: MatchableRow): Listing {
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

  /** @param maxBusinesses snapshots kept (least recently used out first). */
  constructor(maxBusinesses = 8) {
    this.cache = new LRUCache({ max: maxBusinesses });
  }

  /**
   * The business's current snapshot, loaded again when an import has changed the catalogue.
   * The version and the rows are read in one transaction, so they agree.
   */
  async get(db: Db, businessId: number): Promise<CatalogueSnapshot> {
    const version = await currentVersion(db, businessId);
    const cached = this.cache.get(businessId);
    if (cached && cached.version === version) return cached;
    const snapshot = await db.transaction().execute(async (trx) => {
      const v = await currentVersion(trx, businessId);
      const rows = await listMatchableProperties(trx, businessId);
      return { version: v, index: indexListings(rows.map(toListing)) };
    });
    this.cache.set(businessId, snapshot);
    return snapshot;
  }
}

async function currentVersion(db: Pick<Db, 'selectFrom'>, businessId: number): Promise<number> {
  const row = await db.selectFrom('businesses').select('catalogue_version').where('id', '=', businessId).executeTakeFirst();
  return row?.catalogue_version ?? 0;
}

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
