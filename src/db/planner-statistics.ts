/**
 * The planner's statistics after bulk writes (a catalogue import: services/catalogue/import/import.ts),
 * refreshed the way each engine needs them. The caller says when; this module knows how.
 */
import { sql } from 'kysely';
import type { Db } from './database.ts';
import type { Database } from './types.ts';

/** Rows of each index SQLite's ANALYZE reads (its `analysis_limit`; 0 would read all). */
const ANALYSIS_LIMIT = 1000;

/**
 * Refreshes the statistics of `table` while a bulk write is still growing it (an import calls
 * this after its batches 1, 4, 16…). PostgreSQL plans the lookup of a batch's refs from the
 * table's statistics: left as they were while the table grows from nothing to a million rows,
 * they made it scan the table for every batch (an import slowing to a crawl); `ANALYZE` reads a
 * fixed sample, so this stays cheap. A no-op on SQLite, whose planner has no such trap: its
 * statistics are refreshed once, at the end ({@link refreshPlannerStatistics}).
 * @throws the database's error.
 */
export async function refreshStatisticsWhileGrowing(db: Db, table: keyof Database): Promise<void> {
  if (db.engine !== 'postgres') return;
  await sql`analyze ${sql.table(table)}`.execute(db);
}

/**
 * Refreshes the planner's statistics after a bulk write to `tables`, so that it picks the right
 * index for each filter. PostgreSQL: `VACUUM (ANALYZE)` of those tables, which also marks the new
 * rows' pages all-visible, letting covering indexes answer with index-only scans instead of
 * reading every row they pass. SQLite: `ANALYZE` of the whole database (every table, `tables`
 * among them), reading a sample of {@link ANALYSIS_LIMIT} rows of each index, as good for the
 * planner as reading all of it (7 s less on a million listings).
 * @throws the database's error.
 */
export async function refreshPlannerStatistics(db: Db, tables: Array<keyof Database>): Promise<void> {
  if (db.engine === 'postgres') {
    await sql`vacuum (analyze) ${sql.join(tables.map((table) => sql.table(table)))}`.execute(db);
    return;
  }
  await sql`pragma analysis_limit = ${sql.lit(ANALYSIS_LIMIT)}`.execute(db);
  await sql`analyze`.execute(db);
}
