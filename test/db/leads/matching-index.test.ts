/**
 * matchLead skips listings that fail two of operation, type and location before testing them
 * in full (domain/leads/matching.ts IndexedListings). The skip must change nothing: for every kind
 * of search, the result equals a full test of every listing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { searchEntryHasContent } from '../../../src/domain/leads/rules.ts';
import { compileSearch, matchLead, missedCriteria, type LeadMatches, type Listing } from '../../../src/domain/leads/matching.ts';
import { generateCatalogue } from '../../../src/demo/catalogue-generator.ts';
import { listMatchableProperties } from '../../../src/db/repositories/matches.ts';
import { CatalogueSnapshots, toListing } from '../../../src/services/leads/matching.ts';
import { businessWithKey, ENGINE, freshDb, importRecords, listing } from '../../helpers/db.ts';
import { saveListing } from '../../../src/services/catalogue/listings.ts';

/** The rule itself, with no skipping: every listing tested in full. */
function fullScan(searches: Array<Record<string, unknown>>, listings: readonly Listing[], limit: number): LeadMatches {
  const result: LeadMatches = { matches: [], nearMisses: [], matchesTotal: 0, nearMissesTotal: 0 };
  searches.forEach((entry, index) => {
    if (!searchEntryHasContent(entry)) return;
    const search = compileSearch(entry);
    let kept = 0;
    let keptNear = 0;
    for (const listing of listings) {
      const missed = missedCriteria(search, listing);
      if (missed.length === 0) {
        result.matchesTotal++;
        if (kept++ < limit) result.matches.push([listing.id, index]);
      } else if (missed.length === 1) {
        result.nearMissesTotal++;
        if (keptNear++ < limit) result.nearMisses.push([listing.id, index, missed[0]]);
      }
    }
  });
  return result;
}

const SOL = { lat: 40.4168, lng: -3.7038 };
const SEARCHES: Array<[string, Array<Record<string, unknown>>]> = [
  ['operation, type and a city', [{ operations: ['venta'], property_types: ['apartamento'], locations: [{ name: 'Madrid' }] }]],
  ['a district, accents folded', [{ operations: ['alquiler'], locations: [{ name: 'chamberi' }], apartamento: { bedrooms_min: 2 } }]],
  [
    'a province and two types',
    [{ property_types: ['casa', 'apartamento'], locations: [{ name: 'Zaragoza' }], casa: { price_max: 400000 } }],
  ],
  ['a circle only', [{ locations: [{ type: 'circle', center: SOL, radius: 2000 }] }]],
  [
    'a circle and a polygon, with criteria',
    [
      {
        operations: ['venta', 'alquiler'],
        property_types: ['apartamento'],
        locations: [
          { type: 'circle', center: SOL, radius: 800 },
          {
            type: 'polygon',
            coordinates: [
              { lat: 41.64, lng: -0.9 },
              { lat: 41.67, lng: -0.9 },
              { lat: 41.67, lng: -0.86 },
            ],
          },
        ],
        apartamento: { size_min: 60, features: ['ascensor'] },
      },
    ],
  ],
  [
    'prices by operation, size and rooms, two types',
    [
      {
        operations: ['venta', 'alquiler'],
        property_types: ['apartamento', 'casa'],
        locations: [{ name: 'Madrid' }],
        apartamento: { price_max: 250000, price_rent_max: 1000, size_min: 50, size_max: 120, bedrooms_min: 2, bathrooms_min: 2 },
        casa: { price_min: 200000, bedrooms_min: 3 },
      },
    ],
  ],
  ['a transfer price and a rent floor, no location', [{ operations: ['traspaso'], local: { price_max: 100000, price_rent_min: 500 } }]],
  [
    'bounds a type never states (bedrooms of a local), in a circle',
    [
      {
        property_types: ['local', 'oficina'],
        locations: [{ type: 'circle', center: SOL, radius: 3000 }],
        local: { bedrooms_min: 1 },
        oficina: { size_max: 100, price_min: 100000 },
      },
    ],
  ],
  ['a type the catalogue does not know', [{ property_types: ['castillo'], operations: ['venta'] }]],
  ['operation only', [{ operations: ['traspaso'] }]],
  ['type only, with a subtype', [{ property_types: ['casa'], casa: { subtypes: ['chalet'] } }]],
  ['a place no listing is in', [{ operations: ['venta'], property_types: ['local'], locations: [{ name: 'Atlántida' }] }]],
  [
    'several entries',
    [
      { operations: ['alquiler'], locations: [{ name: 'Valencia' }] },
      { internal_notes: 'solo notas' },
      { property_types: ['garaje'], locations: [{ type: 'rectangle', north: 41.7, south: 41.6, east: -0.8, west: -0.95 }] },
    ],
  ],
];

let db: Db;
let listings: readonly Listing[];
let snapshot: Awaited<ReturnType<CatalogueSnapshots['get']>>;

beforeAll(async () => {
  ({ db } = await freshDb());
  const { businessId } = await businessWithKey(db);
  await importRecords(db, businessId, [...generateCatalogue(4000, 21)]);
  snapshot = await new CatalogueSnapshots().get(db, businessId);
  // The same listings, in the same order, as objects.
  listings = (await listMatchableProperties(db, businessId)).map(toListing);
  expect(snapshot.index.size).toBe(listings.length);
});
afterAll(async () => db.destroy());

describe('matching with the catalogue index', () => {
  it.each(SEARCHES)('%s: the same matches and near misses as testing every listing', (_name, searches) => {
    const expected = fullScan(searches, listings, 50);
    expect(expected.matchesTotal + expected.nearMissesTotal).toBeGreaterThan(0);
    expect(matchLead(searches, snapshot.index, 50, searchEntryHasContent)).toEqual(expected);
    // Given the plain listings, it indexes them itself: the same answer.
    expect(matchLead(searches, listings, 50, searchEntryHasContent)).toEqual(expected);
  });
});

describe('the listings a snapshot offers', () => {
  it('holds public listings that are available: not reserved ones (not offered to new leads), nor hidden ones', async () => {
    const { businessId } = await businessWithKey(db);
    await importRecords(db, businessId, [
      listing('OFFERED'),
      listing('RESERVED', { status: 'reservada' }),
      listing('HIDDEN', { public: false }),
    ]);
    const refs = await db.selectFrom('properties').select(['id', 'external_ref']).where('business_id', '=', businessId).execute();
    const idOf = (ref: string) => refs.find((r) => r.external_ref === ref)!.id;
    const snapshot = await new CatalogueSnapshots().get(db, businessId);
    expect(Array.from(snapshot.index.ids)).toEqual([idOf('OFFERED')]);
  });
});

describe('loading a snapshot a page at a time', () => {
  it('reads the catalogue in its order, and the catalogue as it stands at the version it gives when a change commits during the load', async () => {
    const { businessId } = await businessWithKey(db);
    await importRecords(db, businessId, [...generateCatalogue(4500, 5)]);
    const version = async () =>
      (await db.selectFrom('businesses').select('catalogue_version').where('id', '=', businessId).executeTakeFirstOrThrow())
        .catalogue_version;
    const ids = async () => (await listMatchableProperties(db, businessId)).map((r) => r.id);
    const [versionBefore, before] = [await version(), await ids()];
    expect(before.length).toBeGreaterThan(2000); // two pages at least
    const oldest = before.at(-1)!;
    const { external_ref: ref } = await db
      .selectFrom('properties')
      .select('external_ref')
      .where('id', '=', oldest)
      .executeTakeFirstOrThrow();

    const snapshots = new CatalogueSnapshots();
    const loading = snapshots.get(db, businessId);
    // Concurrent callers share the load.
    const alongside = snapshots.get(db, businessId);
    // The load gives the event loop back between pages: the oldest listing, on its last page, is edited
    // meanwhile and becomes the newest, on a page already read.
    await new Promise((resolve) => setImmediate(resolve));
    await saveListing(db, businessId, oldest, { ...listing(ref), price: 123_456 }, null);
    const [versionAfter, after] = [await version(), await ids()];
    expect(after[0]).toBe(oldest);

    const [snapshot, other] = [await loading, await alongside];
    // Callers that read the same version share one load: always on SQLite, where nothing commits
    // between the two reads of the version. On PostgreSQL the edit may commit before the second
    // caller's read answers; that caller then loads the catalogue as edited, never an older one.
    if (other !== snapshot) expect(other.version).toBe(versionAfter);
    if (ENGINE === 'sqlite') expect(other).toBe(snapshot);
    expect([versionBefore, versionAfter]).toContain(snapshot.version);
    expect(Array.from(snapshot.index.ids)).toEqual(snapshot.version === versionAfter ? after : before);
    // On SQLite the edit lands between two pages of the load: the load is read again.
    if (ENGINE === 'sqlite') expect(snapshot.version).toBe(versionAfter);
  });
});
