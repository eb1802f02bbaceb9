/**
 * 0037: the public page of each listing (issue 45, CONTRACT §21 "Listing page for recipients").
 *
 * - property_pages: one row per listing with the token of its page `/l/<token>` and of its sheet
 *   `/l/<token>.pdf`: 32 lowercase hex characters of a cryptographic random source (128 bits,
 *   or 122 for the rows made here on PostgreSQL, whose `gen_random_uuid()` is version 4),
 *   unique across businesses. Stored, not derived from the installation's secret key, so a
 *   printed sheet's QR code keeps working whatever happens to that key. A listing's token never
 *   changes; the listing's own state (public, status) decides what the page answers. Gone with
 *   its listing (`on delete cascade`).
 * - Every listing already stored gets its token here; new ones get theirs as they are inserted.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql, PostgresAdapter } from 'kysely';

function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table property_pages (
    property_id integer primary key references properties(id) on delete cascade,
    token text not null unique,
    created_at text not null
  )`.execute(db);
  const random = isPostgres(db) ? sql`replace(gen_random_uuid()::text, '-', '')` : sql`lower(hex(randomblob(16)))`;
  const now = new Date().toISOString().replace(/Z$/, '+00:00');
  await sql`insert into property_pages (property_id, token, created_at) select id, ${random}, ${now} from properties`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table property_pages`.execute(db);
}
