/**
 * 0017: the external refs an import has accepted so far, kept in the database rather than in
 * memory (issue 28: a server's memory does not grow with the size of a feed it pulls).
 *
 * - import_refs: one row per `external_ref` accepted by import run `run` (a random id); an
 *   accepted line whose ref is there already repeats an earlier one. A feed pull withdraws its
 *   source's listings the document did not name from them, then deletes the run's rows.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql, PostgresAdapter } from 'kysely';

function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table import_refs (
    run text not null,
    external_ref text not null,
    primary key (run, external_ref)
  )${isPostgres(db) ? sql`` : sql` without rowid`}`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table import_refs`.execute(db);
}
