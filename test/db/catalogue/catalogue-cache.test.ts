/** Cached counts and pages of GET /properties are never stale: every catalogue change is seen at once. */
import { describe, expect, it } from 'vitest';
import { businessWithKey, freshDb, importRecords, listing } from '../../helpers/db.ts';
import { appOn, get, API_ONLY } from '../../helpers/http.ts';

describe('catalogue caches', () => {
  it('serve the new catalogue right after an import changes it, for this and for other businesses', async () => {
    const { db } = await freshDb();
    const a = await businessWithKey(db, 'A');
    const b = await businessWithKey(db, 'B');
    await importRecords(db, a.businessId, [listing('one', { price: 100 }), listing('two', { price: 200 })]);
    await importRecords(db, b.businessId, [listing('b-one')]);
    const app = await appOn(db, API_ONLY);

    const first = await get(app, '/properties?sort=price_asc&limit=1', a.key);
    expect(first.body.total).toBe(2);
    expect(first.body.data[0].price).toBe(100);
    expect((await get(app, '/properties?sort=price_asc&limit=1', a.key)).body).toEqual(first.body);

    await importRecords(db, a.businessId, [listing('one', { price: 300, title: 'changed' }), listing('three', { price: 50 })]);
    const after = await get(app, '/properties?sort=price_asc&limit=1', a.key);
    expect(after.body.total).toBe(3);
    expect(after.body.data[0].price).toBe(50);
    const changed = await get(app, '/properties?sort=price_desc&limit=1', a.key);
    expect(changed.body.data[0]).toMatchObject({ price: 300, title: 'changed' });

    await importRecords(db, a.businessId, [listing('three', { status: 'vendida' })]);
    expect((await get(app, '/properties?sort=price_asc&limit=1', a.key)).body.total).toBe(2);
    expect((await get(app, '/properties', b.key)).body.total).toBe(1);
    await app.close();
    await db.destroy();
  });

  it('serve a single property as it is now: changed, then withdrawn, right after each import', async () => {
    const { db } = await freshDb();
    const a = await businessWithKey(db, 'A');
    await importRecords(db, a.businessId, [listing('one', { price: 100 })]);
    const app = await appOn(db, API_ONLY);
    const id = (await get(app, '/properties', a.key)).body.data[0].id as number;

    expect((await get(app, `/properties/${id}`, a.key)).body.data.price).toBe(100);
    expect((await get(app, `/properties/${id}`, a.key)).body.data.price).toBe(100); // cached
    await importRecords(db, a.businessId, [listing('one', { price: 120 })]);
    expect((await get(app, `/properties/${id}`, a.key)).body.data.price).toBe(120);
    await importRecords(db, a.businessId, [listing('one', { status: 'retirada' })]);
    expect((await get(app, `/properties/${id}`, a.key)).status).toBe(404);
    await app.close();
    await db.destroy();
  });
});
