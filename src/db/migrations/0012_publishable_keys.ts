/**
 * 0012: publishable keys for browser forms (issue 16, CONTRACT §13).
 *
 * - api_keys.origins: JSON array of the web origins (`https://site.example`) a publishable key
 *   (`AC_PUB_…`) may be used from; null for a secret key (`AC_LIVE_…`).
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table api_keys add column origins text`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table api_keys drop column origins`.execute(db);
}
