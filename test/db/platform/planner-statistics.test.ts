/**
 * The planner's statistics after bulk writes (db/planner-statistics.ts), as each engine needs
 * them: PostgreSQL's are refreshed while an import grows the listings and vacuumed at its end;
 * SQLite's only at the end, for the whole database.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { refreshPlannerStatistics, refreshStatisticsWhileGrowing } from '../../../src/db/planner-statistics.ts';
import { businessWithKey, ENGINE, freshDb, importRecords, listing } from '../../helpers/db.ts';

let db: Db;
beforeAll(async () => {
  ({ db } = await freshDb());
});
afterAll(async () => {
  await db?.destroy();
});

/** What the planner knows of `table`: PostgreSQL's row estimate and all-visible pages, or SQLite's `sqlite_stat1` rows of it. */
async function known(table: 'properties' | 'property_docs') {
  if (ENGINE === 'postgres') {
    const { rows } = await sql<{ reltuples: number; relallvisible: number }>`
      select reltuples::float8 as reltuples, relallvisible from pg_class
      where relname = ${table} and relnamespace = current_schema()::regnamespace`.execute(db);
    return { rows: Number(rows[0].reltuples), allVisiblePages: Number(rows[0].relallvisible) };
  }
  const statTable = await sql<{ n: number }>`select count(*) as n from sqlite_master where name = 'sqlite_stat1'`.execute(db);
  if (statTable.rows[0].n === 0) return { statRows: 0 };
  const { rows } = await sql<{ n: number }>`select count(*) as n from sqlite_stat1 where tbl = ${table}`.execute(db);
  return { statRows: Number(rows[0].n) };
}

describe('planner statistics', () => {
  it('are refreshed while an import grows the listings on PostgreSQL only, and for every table at its end', async () => {
    const { businessId } = await businessWithKey(db);
    const docsBefore = await known('property_docs');
    // A small import: its first batch refreshes while growing, and it is too small for the end's refresh.
    await importRecords(
      db,
      businessId,
      ['s-1', 's-2', 's-3', 's-4', 's-5'].map((ref) => listing(ref)),
    );
    if (ENGINE === 'postgres') {
      expect((await known('properties')).rows).toBe(5);
      expect(await known('property_docs')).toEqual(docsBefore);
    } else {
      expect(await known('properties')).toEqual({ statRows: 0 });
    }
    await refreshStatisticsWhileGrowing(db, 'property_docs');
    if (ENGINE === 'postgres') expect((await known('property_docs')).rows).toBe(5);
    else expect(await known('property_docs')).toEqual({ statRows: 0 });

    await refreshPlannerStatistics(db, ['properties', 'property_docs']);
    if (ENGINE === 'postgres') {
      // VACUUM marked the pages all-visible: index-only scans can answer.
      expect((await known('properties')).allVisiblePages).toBeGreaterThan(0);
      expect((await known('property_docs')).allVisiblePages).toBeGreaterThan(0);
    } else {
      expect((await known('properties')).statRows).toBeGreaterThan(0);
      // The whole database: the keys' table too.
      const keys = await sql<{ n: number }>`select count(*) as n from sqlite_stat1 where tbl = 'api_keys'`.execute(db);
      expect(Number(keys.rows[0].n)).toBeGreaterThan(0);
    }
  });
});
