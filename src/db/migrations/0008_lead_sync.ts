/**
 * 0008: reading leads back (issue 16, CONTRACT §13).
 *
 * - leads_updated: `GET /leads?updated_since=` reads a business's leads changed since an
 *   instant; without this index it would scan every lead of the business.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index leads_updated on leads (business_id, updated_at)`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index leads_updated`.execute(db);
}
