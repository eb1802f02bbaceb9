/** Lead ↔ property matches and the catalogue as matching reads it. SQL only. */
import { sql } from 'kysely';
import { SUMMARY_COLUMNS } from './properties.ts';
import type { Executor } from '../database.ts';

/** Rows per insert statement (4 parameters each, well under SQLite's limit). */
const INSERT_CHUNK = 500;

/** Where a page of {@link listMatchableProperties} starts: after the row with this `updated_at` and `id`. */
export interface MatchableAfter {
  updatedAt: string;
  id: number;
}

/**
 * The public, available properties of a business with what matching reads, newest
 * (`updated_at`, then `id`) first. Reserved properties are not offered to new leads.
 * @param page `limit` rows after `after` (null: from the newest), along the catalogue's order
 *   index; without it, every row.
 */
export async function listMatchableProperties(db: Executor, businessId: number, page?: { after: MatchableAfter | null; limit: number }) {
  let query = db
    .selectFrom('properties')
    .select([
      'id',
      'op_venta',
      'op_alquiler',
      'op_traspaso',
      'type',
      'subtype',
      'price',
      'price_rent',
      'price_transfer',
      'size_total',
      'bedrooms',
      'bathrooms',
      'pub_lat',
      'pub_lon',
      'city',
      'province',
      'features',
      'specs',
      'updated_at',
    ])
    .where('business_id', '=', businessId)
    .where('listed', '=', 1)
    .where('status', '=', 'disponible')
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc');
  if (page) {
    const { after, limit } = page;
    if (after !== null) query = query.where(sql<boolean>`(updated_at, id) < (${after.updatedAt}, ${after.id})`);
    query = query.limit(limit);
  }
  return query.execute();
}

export type MatchableRow = Awaited<ReturnType<typeof listMatchableProperties>>[number];

/** Replaces the stored matches and near misses of a lead, and records the run. */
export async function replaceLeadMatches(
  db: Executor,
  leadId: number,
  rows: Array<{ search_index: number; property_id: number; failed: string | null }>,
  run: { catalogue_version: number; matched_at: string; matches_total: number; near_misses_total: number },
): Promise<void> {
  await db.deleteFrom('lead_matches').where('lead_id', '=', leadId).execute();
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await db
      .insertInto('lead_matches')
      .values(rows.slice(i, i + INSERT_CHUNK).map((r) => ({ lead_id: leadId, ...r })))
      .execute();
  }
  await db
    .insertInto('lead_match_runs')
    .values({ lead_id: leadId, ...run })
    .onConflict((oc) => oc.column('lead_id').doUpdateSet(run))
    .execute();
}

/** A lead's stored matches and near misses, by entry, then property id. */
export async function listLeadMatches(db: Executor, leadId: number) {
  return db
    .selectFrom('lead_matches')
    .select(['property_id', 'search_index', 'failed'])
    .where('lead_id', '=', leadId)
    .orderBy('search_index')
    .orderBy('property_id')
    .execute();
}

export async function findLeadMatchRun(db: Executor, leadId: number) {
  return db
    .selectFrom('lead_match_runs')
    .select(['catalogue_version', 'matched_at', 'matches_total', 'near_misses_total'])
    .where('lead_id', '=', leadId)
    .executeTakeFirst();
}

/** What the assistant shows of some properties (any order; the caller orders them). */
export async function listPropertySummaries(db: Executor, businessId: number, ids: readonly number[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('properties').select(SUMMARY_COLUMNS).where('business_id', '=', businessId).where('id', 'in', ids).execute();
}

export type PropertySummaryRow = Awaited<ReturnType<typeof listPropertySummaries>>[number];

/**
 * The cover image of each property: its primary public image, else its first public one by
 * `sort_order`. @returns property id → image URL (properties without a public image absent).
 */
export async function listCoverImages(db: Executor, businessId: number, propertyIds: readonly number[]): Promise<Map<number, string>> {
  if (propertyIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('property_images')
    .innerJoin('properties', 'properties.id', 'property_images.property_id')
    .select(['property_images.property_id', 'property_images.url'])
    .where('properties.business_id', '=', businessId)
    .where('property_images.property_id', 'in', propertyIds)
    .where('property_images.public', '=', 1)
    .orderBy('property_images.property_id')
    .orderBy('property_images.is_primary', 'desc')
    .orderBy('property_images.sort_order')
    .orderBy('property_images.id')
    .execute();
  const covers = new Map<number, string>();
  for (const row of rows) if (!covers.has(row.property_id)) covers.set(row.property_id, row.url);
  return covers;
}
