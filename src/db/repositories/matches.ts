/** Lead ↔ property matches and the catalogue as matching reads it. SQL, and the runs' digests (domain/leads/matching.ts). */
import { sql } from 'kysely';
import { SUMMARY_COLUMNS } from './properties.ts';
import { matchRunDigest, type MatchRow } from '../../domain/leads/matching.ts';
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
 * @param changedAfter only the listings written at a catalogue version after this one.
 */
export async function listMatchableProperties(
  db: Executor,
  businessId: number,
  page?: { after: MatchableAfter | null; limit: number },
  changedAfter?: number,
) {
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
  if (changedAfter !== undefined) query = query.where('change_seq', '>', changedAfter);
  if (page) {
    const { after, limit } = page;
    if (after !== null) query = query.where(sql<boolean>`(updated_at, id) < (${after.updatedAt}, ${after.id})`);
    query = query.limit(limit);
  }
  return query.execute();
}

export type MatchableRow = Awaited<ReturnType<typeof listMatchableProperties>>[number];

/** What a lead's stored matching run says (lead_match_runs, migration 0042 for `result_hash` and `truncated`). */
export interface MatchRun {
  catalogue_version: number;
  matched_at: string;
  matches_total: number;
  near_misses_total: number;
}

/** Replaces the stored matches and near misses of a lead, and records the run with its digest (domain/leads/matching.ts matchRunDigest). */
export async function replaceLeadMatches(db: Executor, leadId: number, rows: readonly MatchRow[], run: MatchRun): Promise<void> {
  await replaceMatchesOfLeads(db, [{ leadId, rows, run }]);
}

/**
 * Replaces the stored matches and near misses of several leads, and records their runs with
 * their digests (computed here unless given): one delete, then inserts of {@link INSERT_CHUNK} rows, whatever the number of leads.
 */
export async function replaceMatchesOfLeads(
  db: Executor,
  results: ReadonlyArray<{ leadId: number; rows: readonly MatchRow[]; run: MatchRun; digest?: { hash: string; truncated: number } }>,
): Promise<void> {
  if (results.length === 0) return;
  const leadIds = results.map((r) => r.leadId);
  for (let i = 0; i < leadIds.length; i += INSERT_CHUNK) {
    await db
      .deleteFrom('lead_matches')
      .where('lead_id', 'in', leadIds.slice(i, i + INSERT_CHUNK))
      .execute();
  }
  const rows = results.flatMap((r) => r.rows.map((row) => ({ lead_id: r.leadId, ...row })));
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await db
      .insertInto('lead_matches')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .execute();
  }
  const runs = results.map((r) => {
    const { hash, truncated } = r.digest ?? matchRunDigest(r.rows, r.run);
    return { lead_id: r.leadId, ...r.run, result_hash: hash, truncated };
  });
  // 7 parameters a run: well under SQLite's limit at INSERT_CHUNK / 4 runs a statement.
  for (let i = 0; i < runs.length; i += INSERT_CHUNK / 4) {
    await db
      .insertInto('lead_match_runs')
      .values(runs.slice(i, i + INSERT_CHUNK / 4))
      .onConflict((oc) =>
        oc.column('lead_id').doUpdateSet((eb) => ({
          catalogue_version: eb.ref('excluded.catalogue_version'),
          matched_at: eb.ref('excluded.matched_at'),
          matches_total: eb.ref('excluded.matches_total'),
          near_misses_total: eb.ref('excluded.near_misses_total'),
          result_hash: eb.ref('excluded.result_hash'),
          truncated: eb.ref('excluded.truncated'),
        })),
      )
      .execute();
  }
}

/**
 * Marks runs as current at catalogue version `to` without changing what they store: the runs
 * whose version is at least `from` and below `to` (a newer run is left as it is), of `leads`:
 * the business's searching leads with ids in `(after, upTo]`, or the leads listed.
 * @returns the number of runs marked.
 */
export async function advanceMatchRuns(
  db: Executor,
  businessId: number,
  versions: { from: number; to: number },
  matchedAt: string,
  leads: { after: number; upTo: number } | readonly number[],
): Promise<number> {
  if (Array.isArray(leads) && leads.length === 0) return 0;
  let query = db
    .updateTable('lead_match_runs')
    .set({ catalogue_version: versions.to, matched_at: matchedAt })
    .where('catalogue_version', '>=', versions.from)
    .where('catalogue_version', '<', versions.to);
  if (Array.isArray(leads)) query = query.where('lead_id', 'in', leads);
  else {
    const { after, upTo } = leads as { after: number; upTo: number };
    query = query
      .where('lead_id', '>', after)
      .where('lead_id', '<=', upTo)
      .where('lead_id', 'in', (eb) =>
        eb
          .selectFrom('leads')
          .select('id')
          .where('business_id', '=', businessId)
          .where('status', '=', 'searching_property')
          .where('id', '>', after)
          .where('id', '<=', upTo),
      );
  }
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The leads of the business with a `match_lead` job pending or running (it will match them whole). */
export async function listLeadsWithMatchQueued(db: Executor, businessId: number): Promise<Set<number>> {
  const rows = await db
    .selectFrom('jobs')
    .select('lead_id')
    .where('business_id', '=', businessId)
    .where('kind', '=', 'match_lead')
    .where('state', 'in', ['pending', 'running'])
    .execute();
  return new Set(rows.flatMap((r) => (r.lead_id === null ? [] : [r.lead_id])));
}

/** A page of {@link listSearchingLeads}. */
export type SearchingLeadRow = Awaited<ReturnType<typeof listSearchingLeads>>[number];

/**
 * A page of the business's searching leads (`searching_property`), by id after `afterId`, with
 * their searches and their stored run (nulls when never matched).
 */
export async function listSearchingLeads(db: Executor, businessId: number, afterId: number, limit: number) {
  return db
    .selectFrom('leads as l')
    .leftJoin('lead_match_runs as r', 'r.lead_id', 'l.id')
    .select(['l.id', 'l.updated_at', 'l.search_preferences', 'r.catalogue_version', 'r.result_hash', 'r.truncated'])
    .where('l.business_id', '=', businessId)
    .where('l.status', '=', 'searching_property')
    .where('l.id', '>', afterId)
    .orderBy('l.id')
    .limit(limit)
    .execute();
}

/** The ids of the business's listings written at a catalogue version after `version` (public or not). */
export async function listPropertiesChangedAfter(db: Executor, businessId: number, version: number): Promise<number[]> {
  const rows = await db
    .selectFrom('properties')
    .select('id')
    .where('business_id', '=', businessId)
    .where('change_seq', '>', version)
    .execute();
  return rows.map((r) => r.id);
}

/** The leads that store any of these listings as a match or near miss. */
export async function listLeadsStoring(db: Executor, propertyIds: readonly number[]): Promise<Set<number>> {
  const leads = new Set<number>();
  for (let i = 0; i < propertyIds.length; i += INSERT_CHUNK) {
    const rows = await db
      .selectFrom('lead_matches')
      .select('lead_id')
      .distinct()
      .where('property_id', 'in', propertyIds.slice(i, i + INSERT_CHUNK))
      .execute();
    for (const row of rows) leads.add(row.lead_id);
  }
  return leads;
}

/** The properties each lead stores as a match (near misses left out). */
export async function listMatchedPropertiesOfLeads(db: Executor, leadIds: readonly number[]): Promise<Map<number, Set<number>>> {
  const matched = new Map<number, Set<number>>();
  for (let i = 0; i < leadIds.length; i += INSERT_CHUNK) {
    const rows = await db
      .selectFrom('lead_matches')
      .select(['lead_id', 'property_id'])
      .where('lead_id', 'in', leadIds.slice(i, i + INSERT_CHUNK))
      .where('failed', 'is', null)
      .execute();
    for (const row of rows) {
      let set = matched.get(row.lead_id);
      if (!set) matched.set(row.lead_id, (set = new Set()));
      set.add(row.property_id);
    }
  }
  return matched;
}

/**
 * Of these leads, those whose matching may be written now: the lead's `updated_at` is still the
 * one given (its searches unchanged) and its stored run is not newer than catalogue `version`.
 * @returns lead id → whether it has a stored run (it was matched before).
 */
export async function listLeadsMatchable(
  db: Executor,
  leads: ReadonlyArray<{ id: number; updated_at: string }>,
  version: number,
): Promise<Map<number, boolean>> {
  const expected = new Map(leads.map((l) => [l.id, l.updated_at]));
  const ok = new Map<number, boolean>();
  const ids = [...expected.keys()];
  for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
    const rows = await db
      .selectFrom('leads as l')
      .leftJoin('lead_match_runs as r', 'r.lead_id', 'l.id')
      .select(['l.id', 'l.updated_at', 'r.catalogue_version'])
      .where('l.id', 'in', ids.slice(i, i + INSERT_CHUNK))
      .execute();
    for (const row of rows) {
      if (row.updated_at === expected.get(row.id) && (row.catalogue_version ?? -1) <= version)
        ok.set(row.id, row.catalogue_version !== null);
    }
  }
  return ok;
}

/** Sets the catalogue version the business's searching leads were brought up to, never backwards (migration 0042). */
export async function setRematchedVersion(db: Executor, businessId: number, version: number): Promise<void> {
  await db
    .updateTable('businesses')
    .set({ rematched_version: version })
    .where('id', '=', businessId)
    .where((eb) => eb.or([eb('rematched_version', 'is', null), eb('rematched_version', '<', version)]))
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
