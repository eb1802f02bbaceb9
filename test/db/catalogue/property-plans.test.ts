/**
 * The two ways of finding a page of GET /properties (db/repositories/property-filters.ts,
 * ScanPlan) must return the same rows in the same order for every query: only speed differs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Db } from '../../../src/db/database.ts';
import { listPublished } from '../../../src/db/repositories/properties.ts';
import { generateCatalogue } from '../../../src/demo/catalogue-generator.ts';
import type { PropertyQuery } from '../../../src/domain/catalogue/property-query.ts';
import { businessWithKey, ENGINE, freshDb, importRecords } from '../../helpers/db.ts';

let db: Db;
let businessId: number;

beforeAll(async () => {
  ({ db } = await freshDb());
  ({ businessId } = await businessWithKey(db));
  await importRecords(db, businessId, [...generateCatalogue(3000, 11)]);
});
afterAll(async () => db.destroy());

const base: PropertyQuery = { limit: 25, offset: 0, areas: [] };
const madrid2km = { kind: 'circle' as const, lat: 40.4168, lon: -3.7038, radiusM: 2000 };
const QUERIES: Array<[string, PropertyQuery]> = [
  ['unfiltered', base],
  ['city + price sort', { ...base, cityKey: 'madrid', operation: 'venta', min_bedrooms: 2, sort: 'price_asc' }],
  ['rent desc', { ...base, operation: 'alquiler', sort: 'price_desc', offset: 10 }],
  ['type + subtype', { ...base, type: 'casa', subtype: 'chalet' }],
  ['circle', { ...base, areas: [madrid2km] }],
  ['circle + sort', { ...base, areas: [madrid2km], sort: 'price_desc' }],
  [
    'polygon + rectangle',
    {
      ...base,
      areas: [
        { kind: 'rectangle', south: 41.6, west: -0.95, north: 41.7, east: -0.85 },
        {
          kind: 'polygon',
          ring: [
            [39.4, -0.45],
            [39.55, -0.45],
            [39.55, -0.3],
            [39.4, -0.3],
          ],
        },
      ],
    },
  ],
  ['city ávila', { ...base, cityKey: 'ávila', is_featured: false, limit: 1000 }],
];

describe('scan plans', () => {
  it.each(QUERIES)('%s: planner and order-index agree', async (_name, q) => {
    const planner = await listPublished(db, businessId, q, 'planner');
    const ordered = await listPublished(db, businessId, q, 'order-index');
    expect(planner.length).toBeGreaterThan(0);
    expect(ordered).toEqual(planner);
  });
});

describe.runIf(ENGINE === 'postgres')('PostgreSQL connections', () => {
  it('run without JIT compilation, which cost more than a page query itself', async () => {
    // Several queries at once: each pool connection, not only the first, has it off.
    const settings = await Promise.all(Array.from({ length: 4 }, () => sql<{ jit: string }>`show jit`.execute(db)));
    expect(settings.map((s) => s.rows[0].jit)).toEqual(['off', 'off', 'off', 'off']);
  });
});
