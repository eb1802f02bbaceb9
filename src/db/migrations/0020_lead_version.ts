/**
 * 0020: a per-business lead version on SQLite (issue 32), the key of GET /leads's page cache.
 *
 * `businesses.lead_version` grows, by triggers in the writing transaction, whenever one of the
 * business's leads is inserted, updated or deleted, whoever writes it (the API, the console,
 * the worker, an erasure, another process). A page of leads read at version v is the page for
 * as long as the version is v.
 *
 * SQLite only: there one connection writes at a time, so the row is never waited for. On
 * PostgreSQL the same trigger would make every lead's transaction wait for the previous one's
 * commit on the business's row; there the column stays 0 and GET /leads is not cached.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql, PostgresAdapter } from 'kysely';

function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table businesses add column lead_version integer not null default 0`.execute(db);
  if (isPostgres(db)) return;
  const bump = (row: 'old' | 'new') => sql`update businesses set lead_version = lead_version + 1 where id = ${sql.raw(row)}.business_id;`;
  await sql`create trigger leads_inserted after insert on leads begin ${bump('new')} end`.execute(db);
  await sql`create trigger leads_updated after update on leads begin ${bump('new')} end`.execute(db);
  await sql`create trigger leads_deleted after delete on leads begin ${bump('old')} end`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) {
    for (const trigger of ['leads_deleted', 'leads_updated', 'leads_inserted']) await sql`drop trigger ${sql.ref(trigger)}`.execute(db);
  }
  await sql`alter table businesses drop column lead_version`.execute(db);
}
