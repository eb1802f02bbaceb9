/**
 * One rule for polygons (CONTRACT §4): a polygon is closed, so a published position on an
 * edge or a vertex is inside, and the SQL filter of GET /properties (both scan plans),
 * `areaContains` and matching agree on every position, on both engines. Positions and
 * vertices sit on the 0.01° grid, where approximate and hidden positions land (rounded to 2
 * decimals) and where users draw round coordinates: the case that used to split them. The
 * expected answer is computed in whole grid steps, exactly, independently of domain/catalogue/geo.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { areasCondition } from '../../../src/db/repositories/property-filters.ts';
import { areaContains, parseMapArea, pointInPolygon } from '../../../src/domain/catalogue/geo.ts';
import { CatalogueSnapshots, matchSearchPreferences, type CatalogueSnapshot } from '../../../src/services/leads/matching.ts';
import { importRecords, listing } from '../../helpers/db.ts';
import { get, withApp, type TestApp, API_ONLY } from '../../helpers/http.ts';

/** Grid of 0.01° around (40.00, -3.70): 13 × 13 positions, `[i, j]` steps north and east. */
const STEPS = 12;
type Step = [number, number];
const gridLat = (i: number) => Math.round((40 + i / 100) * 100) / 100;
const gridLon = (j: number) => Math.round((-3.7 + j / 100) * 100) / 100;
const PRIVACY = ['public', 'approximate', 'hidden'] as const;

/** Grid steps of every listing, by id: its published position is `gridLat(i), gridLon(j)`. */
const steps = new Map<number, Step>();

const t = withApp({ surfaces: API_ONLY, seed: importGrid });
async function importGrid({ db, businessId }: TestApp): Promise<void> {
  const records = [];
  for (let i = 0; i <= STEPS; i++) {
    for (let j = 0; j <= STEPS; j++) {
      const privacy = PRIVACY[(i + j) % PRIVACY.length];
      // Non-public addresses sit off the grid and are published rounded onto it: the filter and
      // the matcher must both test the published position, not the address.
      const [dLat, dLon] = privacy === 'public' ? [0, 0] : [0.003, -0.004];
      records.push(listing(`g-${i}-${j}`, { lat: gridLat(i) + dLat, lon: gridLon(j) + dLon, address_privacy: privacy }));
    }
  }
  const imported = await importRecords(db, businessId, records);
  expect(imported.rejected).toEqual([]);
  const rows = await db
    .selectFrom('properties')
    .select(['id', 'external_ref', 'pub_lat', 'pub_lon'])
    .where('business_id', '=', businessId)
    .execute();
  for (const row of rows) {
    const [i, j] = row.external_ref.split('-').slice(1).map(Number);
    expect([row.pub_lat, row.pub_lon]).toEqual([gridLat(i), gridLon(j)]);
    steps.set(row.id, [i, j]);
  }
}

/**
 * Whether grid position `p` lies in the closed polygon `ring`, all in whole grid steps so
 * every product is an exact integer: on an edge (within its box and on its line) or a vertex
 * is inside, else the crossing number of a ray to the east (even-odd) decides.
 */
function exactlyInside(ring: Step[], [pi, pj]: Step): boolean {
  let inside = false;
  for (let k = 0; k < ring.length; k++) {
    const [ai, aj] = ring[k];
    const [bi, bj] = ring[(k + ring.length - 1) % ring.length];
    const inBox = pi >= Math.min(ai, bi) && pi <= Math.max(ai, bi) && pj >= Math.min(aj, bj) && pj <= Math.max(aj, bj);
    if (inBox && (bj - aj) * (pi - ai) === (pj - aj) * (bi - ai)) return true;
    // Crossing east of p: pj < aj + (bj - aj)(pi - ai)/(bi - ai), multiplied out by bi - ai.
    const [left, right] = [(pj - aj) * (bi - ai), (bj - aj) * (pi - ai)];
    if (ai > pi !== bi > pi && (bi > ai ? left < right : left > right)) inside = !inside;
  }
  return inside;
}

/** Whether grid position `p` lies on a slanted edge of `ring` without being a vertex. */
function onSlantedEdge(ring: Step[], [pi, pj]: Step): boolean {
  return ring.some(([ai, aj], k) => {
    const [bi, bj] = ring[(k + ring.length - 1) % ring.length];
    if (ai === bi || aj === bj || (pi === ai && pj === aj) || (pi === bi && pj === bj)) return false;
    const inBox = pi >= Math.min(ai, bi) && pi <= Math.max(ai, bi) && pj >= Math.min(aj, bj) && pj <= Math.max(aj, bj);
    return inBox && (bj - aj) * (pi - ai) === (pj - aj) * (bi - ai);
  });
}

const asCoordinates = (ring: Step[]) => ring.map(([i, j]) => ({ lat: gridLat(i), lng: gridLon(j) }));
const sorted = (ids: Iterable<number>) => [...ids].sort((a, b) => a - b);

/** Ids GET /properties returns for these map areas. */
async function apiIds(areas: unknown[]): Promise<number[]> {
  const { status, body } = await get(t.app, `/properties?limit=1000&locations=${encodeURIComponent(JSON.stringify(areas))}`, t.key);
  expect(status).toBe(200);
  return sorted((body.data as Array<{ id: number }>).map((p) => p.id));
}

/** Ids the SQL filter selects, run directly in each of its two forms (the scan plans). */
async function sqlIds(entry: unknown, hideIndex: boolean): Promise<number[]> {
  const rows = await t.db
    .selectFrom('properties')
    .select('id')
    .where('business_id', '=', t.businessId)
    .where(areasCondition([parseMapArea(entry)!], hideIndex))
    .execute();
  return sorted(rows.map((r) => r.id));
}

/** Ids `areaContains` accepts, over the published positions. */
function containedIds(entry: unknown): number[] {
  const area = parseMapArea(entry)!;
  return sorted([...steps].filter(([, [i, j]]) => areaContains(area, gridLat(i), gridLon(j))).map(([id]) => id));
}

let snapshot: CatalogueSnapshot | undefined;
/** Ids a lead searching this area is matched to (every listing is `disponible`). */
async function matchedIds(entry: unknown): Promise<number[]> {
  snapshot ??= await new CatalogueSnapshots().get(t.db, t.businessId);
  const result = matchSearchPreferences(JSON.stringify([{ locations: [entry] }]), snapshot, 100_000);
  return sorted(result.matches.map(([id]) => id));
}

/** Grid steps, often on a coarser grid so that edges run through positions, slanted ones too. */
const gridPoint: fc.Arbitrary<Step> = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: STEPS }), fc.integer({ min: 0, max: STEPS })),
  fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 })).map(([i, j]): Step => [3 * i, 3 * j]),
);

describe('a polygon is closed, and one rule holds everywhere', () => {
  it('a position on an edge or a vertex is inside: top, bottom, side and slanted edges alike', () => {
    const square: Array<[number, number]> = [
      [40.02, -3.68],
      [40.02, -3.66],
      [40.04, -3.66],
      [40.04, -3.68],
    ];
    const diamond: Array<[number, number]> = [
      [40.02, -3.68],
      [40.05, -3.65],
      [40.08, -3.68],
      [40.05, -3.71],
    ];
    const cases: Array<[Array<[number, number]>, Array<[number, number]>, Array<[number, number]>]> = [
      [
        square,
        // bottom, top, west and east edges, two opposite vertices, inside
        [
          [40.02, -3.67],
          [40.04, -3.67],
          [40.03, -3.68],
          [40.03, -3.66],
          [40.02, -3.68],
          [40.04, -3.66],
          [40.03, -3.67],
        ],
        [
          [40.05, -3.67],
          [40.03, -3.65],
        ],
      ],
      [
        diamond,
        // a point of each slanted edge, every vertex, inside
        [
          [40.03, -3.67],
          [40.07, -3.67],
          [40.06, -3.7],
          [40.04, -3.7],
          [40.02, -3.68],
          [40.05, -3.65],
          [40.08, -3.68],
          [40.05, -3.71],
          [40.05, -3.68],
        ],
        [
          [40.03, -3.66],
          [40.07, -3.7],
          [40.02, -3.67],
        ],
      ],
    ];
    for (const [ring, inside, outside] of cases) {
      for (const r of [ring, [...ring].reverse()]) {
        for (const [lat, lon] of inside) expect(pointInPolygon(lat, lon, r), `${lat},${lon} in ${JSON.stringify(r)}`).toBe(true);
        for (const [lat, lon] of outside) expect(pointInPolygon(lat, lon, r), `${lat},${lon} in ${JSON.stringify(r)}`).toBe(false);
      }
    }
  });

  it('the SQL filter (both scan plans), areaContains and matching select exactly the closed polygon, in both winding orders', async () => {
    let slanted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(gridPoint, { minLength: 3, maxLength: 6 }), async (vertices) => {
        const entries = [vertices, [...vertices].reverse()].map((ring) => ({ type: 'polygon', coordinates: asCoordinates(ring) }));
        if (parseMapArea(entries[0]) === null) return; // fewer than three distinct corners: not an area
        const expected = sorted([...steps].filter(([, p]) => exactlyInside(vertices, p)).map(([id]) => id));
        slanted += [...steps.values()].filter((p) => onSlantedEdge(vertices, p)).length;
        for (const entry of entries) {
          expect(await apiIds([entry])).toEqual(expected);
          expect(await sqlIds(entry, false)).toEqual(expected);
          expect(await sqlIds(entry, true)).toEqual(expected);
          expect(containedIds(entry)).toEqual(expected);
          expect(await matchedIds(entry)).toEqual(expected);
        }
      }),
      { numRuns: 40, seed: 11 },
    );
    // The generated polygons did run edges through positions that are not vertices, slanted too.
    expect(slanted).toBeGreaterThan(50);
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
        const corners: Step[] = [
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

it('takes a polygon of 1,000 vertices, the most CONTRACT §8 allows (SQLite refused a chain that long)', async () => {
  // A rectangle between grid lines (no published position on its edges), each side cut into
  // 250 segments: 1,000 vertices that select what its 4 corners select.
  const [south, north, west, east] = [gridLat(2) + 0.005, gridLat(7) + 0.005, gridLon(3) + 0.005, gridLon(8) + 0.005];
  const side = (from: [number, number], to: [number, number]) =>
    Array.from({ length: 250 }, (_, k) => ({ lat: from[0] + ((to[0] - from[0]) * k) / 250, lng: from[1] + ((to[1] - from[1]) * k) / 250 }));
  const ring = [
    ...side([south, west], [south, east]),
    ...side([south, east], [north, east]),
    ...side([north, east], [north, west]),
    ...side([north, west], [south, west]),
  ];
  expect(ring).toHaveLength(1000);
  const corners = [
    { lat: south, lng: west },
    { lat: south, lng: east },
    { lat: north, lng: east },
    { lat: north, lng: west },
  ];
  const expected = sorted([...steps].filter(([, [i, j]]) => i >= 3 && i <= 7 && j >= 4 && j <= 8).map(([id]) => id));
  expect(expected).toHaveLength(25);
  expect(await apiIds([{ type: 'polygon', coordinates: ring }])).toEqual(expected);
  expect(await apiIds([{ type: 'polygon', coordinates: corners }])).toEqual(expected);
});

it('pages a polygon as SQL pages the same rectangle: order, total, limit and offset, with or without sort', async () => {
  // A polygon is tested in code after SQL's box (services/catalogue/published.ts), a rectangle in SQL alone.
  const [south, north, west, east] = [gridLat(2), gridLat(9), gridLon(1), gridLon(10)];
  const square = [
    {
      type: 'polygon',
      coordinates: asCoordinates([
        [2, 1],
        [9, 1],
        [9, 10],
        [2, 10],
      ]),
    },
  ];
  const rectangle = [{ type: 'rectangle', bounds: { south, north, west, east } }];
  let seen = 0;
  for (const sort of ['', '&sort=price_asc', '&sort=price_desc&operation=venta']) {
    for (const offset of [0, 7, 63]) {
      const page = (areas: unknown) =>
        get(t.app, `/properties?limit=7&offset=${offset}${sort}&locations=${encodeURIComponent(JSON.stringify(areas))}`, t.key);
      const [byPolygon, byRectangle] = [await page(square), await page(rectangle)];
      expect(byPolygon.status).toBe(200);
      expect(byPolygon.body).toEqual(byRectangle.body);
      seen += byPolygon.body.data.length;
    }
  }
  expect(seen).toBeGreaterThan(30);
  const all = await get(t.app, `/properties?limit=1&locations=${encodeURIComponent(JSON.stringify(square))}`, t.key);
  expect(all.body.total).toBe(8 * 10);
});
