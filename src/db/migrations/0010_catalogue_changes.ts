/**
 * 0010: the catalogue changes feed (issue 16, CONTRACT §13 `GET /properties/changes`).
 *
 * - properties.change_seq: the business's catalogue version of the import that last wrote the
 *   listing (0 for listings written before this migration). Versions are taken under the lock
 *   of the business's row, so a business's changes commit in version order, and a reader that
 *   has seen version v has seen every change up to it. Listings are never deleted: one that
 *   left the public catalogue keeps its row (`listed = 0`) and its version, which the feed
 *   reports as a deletion.
 * - properties_changes: the feed reads a business's listings by (change_seq, id).
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table properties add column change_seq integer not null default 0`.execute(db);
  await sql`create index properties_changes on properties (business_id, change_seq, id)`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index properties_changes`.execute(db);
  await sql`alter table properties drop column change_seq`.execute(db);
}
