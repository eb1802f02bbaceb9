/**
 * 0042: a catalogue change re-matches only the searching leads it can change (CONTRACT §7, §21;
 * issue 45 "Speed"; services/leads/rematch.ts).
 *
 * - businesses.rematched_version: the catalogue version the searching leads' stored matches were
 *   last brought up to; null until the first re-match, which then matches every searching lead.
 * - lead_match_runs.result_hash: a digest of what the run stored (the rows and both totals), so a
 *   re-match that finds the same result writes nothing; null for runs stored before.
 * - lead_match_runs.truncated: 1 when the run found more matches or near misses than it stored
 *   (the per-entry cap), so a listing it matched may not be among the rows.
 * - lead_matches_property: the leads that store a listing, found when that listing changes.
 * - leads_status: a business's leads of one status by id, read a page at a time (SQLite otherwise
 *   sorted every searching lead for each page: 2.7 s to read 100,000 leads in pages of 1,000).
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table businesses add column rematched_version integer`.execute(db);
  await sql`alter table lead_match_runs add column result_hash text`.execute(db);
  await sql`alter table lead_match_runs add column truncated integer not null default 0`.execute(db);
  await sql`create index lead_matches_property on lead_matches (property_id)`.execute(db);
  await sql`create index leads_status on leads (business_id, status, id)`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index leads_status`.execute(db);
  await sql`drop index lead_matches_property`.execute(db);
  await sql`alter table lead_match_runs drop column truncated`.execute(db);
  await sql`alter table lead_match_runs drop column result_hash`.execute(db);
  await sql`alter table businesses drop column rematched_version`.execute(db);
}
