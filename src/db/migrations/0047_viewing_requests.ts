/**
 * 0047: who asked for a viewing (issue 55, CONTRACT §20, docs/security.md).
 *
 * - viewings.api_key_id: the `key_id` of the publishable key a `requested` viewing came through
 *   (POST /v1/ext/viewings, the website kit); null for every other viewing (the console, the
 *   assistant, a secret key, a listing page's form). The bookings of a key in the last 24 hours
 *   are counted by it, against INMO_VIEWING_REQUESTS_PER_DAY; the index reads only them.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table viewings add column api_key_id text`.execute(db);
  await sql`create index viewings_key on viewings (api_key_id, created_at) where api_key_id is not null`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index viewings_key`.execute(db);
  await sql`alter table viewings drop column api_key_id`.execute(db);
}
