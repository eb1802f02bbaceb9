/**
 * A first import into an empty catalogue loads without the listing indexes and builds them at
 * the end (db/deferred-indexes.ts). The result must be the catalogue and the index set of an
 * ordinary import, whatever happens half way: an error in the import, or a process that died
 * and left its indexes deferred.
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { migrate, type Db } from '../../../src/db/database.ts';
import { deferIndexes, restoreDeferredIndexes } from '../../../src/db/deferred-indexes.ts';
import { generateCatalogue } from '../../../src/demo/catalogue-generator.ts';
import { BATCH_SIZE, importCatalogueLines } from '../../../src/services/catalogue/import/import.ts';
import { businessWithKey, ENGINE, freshDb, importRecords, listing } from '../../helpers/db.ts';
import { appOn, get, API_ONLY } from '../../helpers/http.ts';

/** Names and definitions of the secondary indexes of `properties`, as the engine reports them. */
async function propertyIndexes(db: Db): Promise<string[]> {
  if (ENGINE === 'postgres') {
    const { rows } = await sql<{ def: string }>`
      select indexdef as def from pg_indexes where tablename = 'properties' and schemaname = current_schema() order by indexname`.execute(
      db,
    );
    return rows.map((r) => r.def);
  }
  const { rows } = await sql<{ def: string }>`
    select name || ': ' || coalesce(sql, '') as def from sqlite_schema where type = 'index' and tbl_name = 'properties' order by name`.execute(
    db,
  );
  return rows.map((r) => r.def);
}

const lines = (n: number, seed: number) => [...generateCatalogue(n, seed)].map((r) => JSON.stringify(r));

describe('bulk import into an empty catalogue', () => {
  it('drops the listing indexes while it loads, and ends with every one of them, as the migrations define them', async () => {
    const { db } = await freshDb();
    const { businessId } = await businessWithKey(db);
    const before = await propertyIndexes(db);
    expect(before.length).toBeGreaterThan(10);
    const seenDuringLoad: number[] = [];
    const summary = await importCatalogueLines(db, businessId, lines(BATCH_SIZE * 3 + 7, 5), async () => {
      seenDuringLoad.push((await propertyIndexes(db)).length);
    });
    expect(summary.created).toBe(BATCH_SIZE * 3 + 7);
    // Full set after the first batch; only the constraint's index (SQLite: its autoindex; PostgreSQL:
    // the primary key and the unique one) while the rest loads; the full set again at the end.
    expect(seenDuringLoad[0]).toBe(before.length);
    expect(Math.max(...seenDuringLoad.slice(1, -1))).toBeLessThan(before.length);
    expect(await propertyIndexes(db)).toEqual(before);
    expect(await db.selectFrom('deferred_indexes').selectAll().execute()).toEqual([]);
    await db.destroy();
  });

  it('answers every read as an import into a catalogue that already had a listing, which keeps its indexes', async () => {
    const records = lines(BATCH_SIZE * 2 + 50, 9);
    const bulk = await freshDb();
    const ordinary = await freshDb();
    const a = await businessWithKey(bulk.db);
    const b = await businessWithKey(ordinary.db);
    // A listing of another business makes the second catalogue not empty: no bulk load there.
    const other = await businessWithKey(ordinary.db, 'Other');
    await importRecords(ordinary.db, other.businessId, [listing('elsewhere')]);
    await importCatalogueLines(bulk.db, a.businessId, records);
    let deferredSeen = false;
    await importCatalogueLines(ordinary.db, b.businessId, records, async () => {
      deferredSeen ||= (await ordinary.db.selectFrom('deferred_indexes').select('name').execute()).length > 0;
    });
    expect(deferredSeen).toBe(false);
    const apps = [await appOn(bulk.db, API_ONLY), await appOn(ordinary.db, API_ONLY)];
    const madrid2km = encodeURIComponent(JSON.stringify([{ type: 'circle', center: { lat: 40.4168, lng: -3.7038 }, radius: 2000 }]));
    for (const path of [
      '/properties?limit=100',
      '/properties?operation=venta&city=Madrid&min_bedrooms=2&sort=price_asc&limit=50',
      `/properties?locations=${madrid2km}&limit=50`,
      '/properties?operation=alquiler&max_price=900&sort=price_desc&limit=50&offset=10',
      '/properties?is_featured=true&type=casa&limit=50',
    ]) {
      const [x, y] = [await get(apps[0], path, a.key), await get(apps[1], path, b.key)];
      expect(x.status).toBe(200);
      expect(x.body.total).toBeGreaterThan(0);
      // Ids differ by the other business's listing; everything else, order included, is the same.
      const withoutIds = (body: { data: Array<Record<string, unknown>> }) => ({
        ...body,
        data: body.data.map(({ id: _id, ...rest }) => rest),
      });
      expect({ path, body: withoutIds(x.body) }).toEqual({ path, body: withoutIds(y.body) });
    }
    for (const app of apps) await app.close();
    await bulk.db.destroy();
    await ordinary.db.destroy();
  });

  it('builds the indexes again when the import fails half way, keeping the batches it wrote', async () => {
    const { db } = await freshDb();
    const { businessId } = await businessWithKey(db);
    const before = await propertyIndexes(db);
    let batches = 0;
    const failing = importCatalogueLines(db, businessId, lines(BATCH_SIZE * 4, 3), () => {
      if (++batches === 3) throw new Error('the disk is full');
    });
    await expect(failing).rejects.toThrow('the disk is full');
    expect(await propertyIndexes(db)).toEqual(before);
    expect(await db.selectFrom('deferred_indexes').selectAll().execute()).toEqual([]);
    const { n } = await db
      .selectFrom('properties')
      .select((e) => e.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(BATCH_SIZE * 3);
    await db.destroy();
  });

  it('reports bad lines of every chunk, parsed on the parser thread or not, with their own line numbers', async () => {
    const { db } = await freshDb();
    const { businessId } = await businessWithKey(db);
    const records = lines(BATCH_SIZE * 3, 4);
    // Blank lines count as lines: the numbers are the file's.
    records.splice(2, 0, '');
    records.splice(BATCH_SIZE + 10, 0, '{"external_ref": "no-title"');
    records.splice(BATCH_SIZE * 2 + 99, 0, JSON.stringify({ ...JSON.parse(records[5]), external_ref: 'bad-price', price: 'cheap' }));
    const summary = await importCatalogueLines(db, businessId, records);
    expect(summary.rejected.map((r) => r.line)).toEqual([BATCH_SIZE + 11, BATCH_SIZE * 2 + 100]);
    expect(summary.rejected[0].reason).toMatch(/^invalid JSON/);
    expect(summary.rejected[1].reason).toMatch(/^price: /);
    expect(summary.created).toBe(BATCH_SIZE * 3);
    await db.destroy();
  });

  it.runIf(ENGINE === 'postgres')('refreshes PostgreSQL’s statistics as the table grows, after batches 1, 4, 16…', async () => {
    // Without them the planner kept an empty table's view and scanned every row to find each
    // batch's refs: an import of a million listings slowed from 3,600 to 1,300 a second.
    const { db } = await freshDb();
    const { businessId } = await businessWithKey(db);
    const estimates: number[] = [];
    await importCatalogueLines(db, businessId, lines(BATCH_SIZE * 5, 8), async () => {
      const { rows } = await sql<{ n: number }>`
        select reltuples::int as n from pg_class where relname = 'properties' and relnamespace = current_schema()::text::regnamespace`.execute(
        db,
      );
      estimates.push(rows[0].n);
    });
    expect(estimates.slice(0, 5)).toEqual([BATCH_SIZE, BATCH_SIZE, BATCH_SIZE, BATCH_SIZE * 4, BATCH_SIZE * 4]);
    await db.destroy();
  });

  it('builds indexes a dead process left deferred at the next migrate, and only once', async () => {
    const { db } = await freshDb();
    const before = await propertyIndexes(db);
    const dropped = await deferIndexes(db, 'properties');
    expect(dropped.length).toBeGreaterThan(10);
    expect((await propertyIndexes(db)).length).toBe(before.length - dropped.length);
    expect((await db.selectFrom('deferred_indexes').select('name').orderBy('name').execute()).map((r) => r.name)).toEqual(
      [...dropped].sort(),
    );
    await migrate(db);
    expect(await propertyIndexes(db)).toEqual(before);
    expect(await restoreDeferredIndexes(db)).toEqual([]);
    await db.destroy();
  });
});
