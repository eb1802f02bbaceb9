/**
 * One rule for polygons (CONTRACT §4): a polygon is closed, so a published position on an
 * edge or a vertex is inside, and the SQL filter of GET /properties, `areaContains` and
 * matching agree on every position, on both engines. Positions and vertices sit on the
 * 0.01° grid, where approximate and hidden positions land (rounded to 2 decimals) and where
 * users draw round coordinates: the case that used to split them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { areaContains, parseMapArea, pointInPolygon } from '../src/domain/geo.ts';
import { CatalogueSnapshots, matchSearchPreferences } from '../src/services/matching.ts';
import { importRecords, listing } from './helpers/db.ts';
import { get, withApp, type TestApp } from './helpers/http.ts';

/** Grid of 0.01° around (40.00, -3.70): 13 × 13 positions. */
const STEPS = 12;
const gridLat = (i: number) => Math.round((40 + i / 100) * 100) / 100;
const gridLon = (j: number) => Math.round((-3.7 + j / 100) * 100) / 100;
const PRIVACY = ['public', 'approximate', 'hidden'] as const;

/** Published position of every listing, by id. */
const positions = new Map<number, { lat: number; lon: number }>();

const t = withApp({ seed: importGrid });
async function importGrid({ db, businessId }: TestApp): Promise<void> {
  const records = [];
  for (let i = 0; i <= STEPS; i++) {
    for (let j = 0; j <= STEPS; j++) {
      const privacy = PRIVACY[(i + j) % PRIVACY.length];
      records.push(listing(`g-${i}-${j}`, { lat: gridLat(i), lon: gridLon(j), address_privacy: privacy }));
    }
  }
  const imported = await importRecords(db, businessId, records);
  expect(imported.rejected).toEqual([]);
  const rows = await db.selectFrom('properties').select(['id', 'pub_lat', 'pub_lon']).where('business_id', '=', businessId).execute();
  for (const row of rows) positions.set(row.id, { lat: row.pub_lat!, lon: row.pub_lon! });
}

/** Ids GET /properties returns for these map areas. */
async function apiIds(areas: unknown[]): Promise<number[]> {
  const { status, body } = await get(t.app, `/properties?limit=1000&locations=${encodeURIComponent(JSON.stringify(areas))}`, t.key);
  expect(status).toBe(200);
  return (body.data as Array<{ id: number }>).map((p) => p.id).sort((a, b) => a - b);
}

/** Ids `areaContains` accepts, over the published positions. */
function containedIds(entry: unknown): number[] {
  const area = parseMapArea(entry)!;
  return [...positions]
    .filter(([, p]) => areaContains(area, p.lat, p.lon))
    .map(([id]) => id)
    .sort((a, b) => a - b);
}

/** Ids a lead searching this area is matched to. */
async function matchedIds(entry: unknown): Promise<number[]> {
  const snapshot = await new CatalogueSnapshots().get(t.db, t.businessId);
  const result = matchSearchPreferences(JSON.stringify([{ locations: [entry] }]), snapshot, 100_000);
  return result.matches.map(([id]) => id).sort((a, b) => a - b);
}

const gridPoint = fc.tuple(fc.integer({ min: 0, max: STEPS }), fc.integer({ min: 0, max: STEPS }));
const asCoordinates = (ring: Array<[number, number]>) => ring.map(([i, j]) => ({ lat: gridLat(i), lng: gridLon(j) }));

describe('a polygon is closed, and one rule holds everywhere', () => {
  it('a position on an edge or a vertex is inside: top, bottom and side edges alike', () => {
    const square: Array<[number, number]> = [
      [40.02, -3.68],
      [40.02, -3.66],
      [40.04, -3.66],
      [40.04, -3.68],
    ];
    for (const ring of [square, [...square].reverse()]) {
      for (const [lat, lon] of [
        [40.02, -3.67], // bottom edge
        [40.04, -3.67], // top edge
        [40.03, -3.68], // west edge
        [40.03, -3.66], // east edge
        [40.02, -3.68], // a vertex
        [40.04, -3.66], // the opposite vertex
        [40.03, -3.67], // inside
      ]) {
        expect(pointInPolygon(lat, lon, ring), `${lat},${lon}`).toBe(true);
      }
      expect(pointInPolygon(40.05, -3.67, ring)).toBe(false);
      expect(pointInPolygon(40.03, -3.65, ring)).toBe(false);
    }
  });

  it('the SQL filter, areaContains and matching agree on every grid position, in both winding orders', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(gridPoint, { minLength: 3, maxLength: 7 }), async (vertices) => {
        const entry = { type: 'polygon', coordinates: asCoordinates(vertices) };
        const reversed = { type: 'polygon', coordinates: asCoordinates([...vertices].reverse()) };
        if (parseMapArea(entry) === null) return; // fewer than three distinct corners: not an area
        const expected = containedIds(entry);
        expect(await apiIds([entry])).toEqual(expected);
        expect(await apiIds([reversed])).toEqual(expected);
        expect(containedIds(reversed)).toEqual(expected);
        expect(await matchedIds(entry)).toEqual(expected);
      }),
      { numRuns: 40, seed: 11 },
    );
  }, 120_000);

  it('an axis-aligned polygon selects exactly what the rectangle with the same bounds selects', async () => {
    await fc.assert(
      fc.asyncProperty(gridPoint, gridPoint, async ([i1, j1], [i2, j2]) => {
        const [south, north] = [Math.min(i1, i2), Math.max(i1, i2)];
        const [west, east] = [Math.min(j1, j2), Math.max(j1, j2)];
        fc.pre(south < north && west < east);
        const rectangle = {
          type: 'rectangle',
          bounds: { south: gridLat(south), west: gridLon(west), north: gridLat(north), east: gridLon(east) },
        };
        const corners: Array<[number, number]> = [
          [south, west],
          [south, east],
          [north, east],
          [north, west],
        ];
        const expected = await apiIds([rectangle]);
        // Every position within the bounds, edges included.
        expect(expected.length).toBe((north - south + 1) * (east - west + 1));
        for (const ring of [corners, [...corners].reverse()]) {
          const polygon = { type: 'polygon', coordinates: asCoordinates(ring) };
          expect(await apiIds([polygon])).toEqual(expected);
          expect(containedIds(polygon)).toEqual(expected);
          expect(await matchedIds(polygon)).toEqual(expected);
        }
      }),
      { numRuns: 30, seed: 7 },
    );
  }, 120_000);
});
