/** Map areas (CONTRACT §4): parsing of every shape, distances, bounding boxes. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  areaContains,
  boundingBox,
  distanceM,
  onPolygonEdge,
  parseMapArea,
  polygonEdges,
  type MapArea,
} from '../../src/domain/catalogue/geo.ts';

describe('parseMapArea', () => {
  it.each([
    [
      { type: 'circle', center: { lat: 40.4, lng: -3.7 }, radius: 1500 },
      { kind: 'circle', lat: 40.4, lon: -3.7, radiusM: 1500 },
    ],
    [
      { type: 'circle', center: { lat: 40.4, lon: -3.7 }, radius: 10 },
      { kind: 'circle', lat: 40.4, lon: -3.7, radiusM: 10 },
    ],
    [
      { type: 'point', lat: 40.4, lng: -3.7 },
      { kind: 'circle', lat: 40.4, lon: -3.7, radiusM: 500 },
    ],
    [
      { type: 'marker', lat: 40.4, lng: -3.7, radius: 300 },
      { kind: 'circle', lat: 40.4, lon: -3.7, radiusM: 300 },
    ],
    [
      { type: 'rectangle', bounds: { south: 40.4, west: -3.72, north: 40.43, east: -3.68 } },
      { kind: 'rectangle', south: 40.4, west: -3.72, north: 40.43, east: -3.68 },
    ],
    [
      { geometry: { type: 'Point', coordinates: [-3.7, 40.4] }, radius: 50 },
      { kind: 'circle', lat: 40.4, lon: -3.7, radiusM: 50 },
    ],
    [
      {
        type: 'polygon',
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [-3.7, 40.4],
              [-3.6, 40.4],
              [-3.6, 40.5],
              [-3.7, 40.4],
            ],
          ],
        },
      },
      {
        kind: 'polygon',
        ring: [
          [40.4, -3.7],
          [40.4, -3.6],
          [40.5, -3.6],
        ],
      },
    ],
  ])('reads %j', (entry, expected) => {
    expect(parseMapArea(entry)).toEqual(expected);
  });

  it.each([
    null,
    'circle',
    { type: 'circle', center: { lat: 40.4 }, radius: 10 },
    { type: 'circle', center: { lat: 40.4, lng: -3.7 } },
    { type: 'circle', center: { lat: 40.4, lng: -3.7 }, radius: -5 },
    { type: 'point', lat: 91, lng: 0 },
    { type: 'rectangle', bounds: { south: 41, west: 0, north: 40, east: 1 } },
    {
      type: 'polygon',
      coordinates: [
        { lat: 1, lng: 1 },
        { lat: 2, lng: 2 },
      ],
    },
    { type: 'hexagon' },
    { geometry: { type: 'LineString', coordinates: [] } },
  ])('ignores %j', (entry) => {
    expect(parseMapArea(entry)).toBeNull();
  });
});

describe('distances and boxes', () => {
  it('measures great-circle distances in metres', () => {
    // Puerta del Sol to Plaza del Pilar (Zaragoza): about 274 km.
    expect(distanceM(40.4168, -3.7038, 41.6566, -0.8786) / 1000).toBeCloseTo(274.5, 0);
    expect(distanceM(40, -3, 40, -3)).toBe(0);
  });

  it('never leaves a point of a circle outside its bounding box', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -80, max: 80, noNaN: true }),
        fc.double({ min: -179, max: 179, noNaN: true }),
        fc.double({ min: 1, max: 200_000, noNaN: true }),
        fc.double({ min: 0, max: 2 * Math.PI, noNaN: true }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        (lat, lon, radiusM, bearing, fraction) => {
          const circle: MapArea = { kind: 'circle', lat, lon, radiusM };
          // A point at `fraction` of the radius along `bearing` (spherical destination formula).
          const d = (radiusM * fraction) / 6371008.8;
          const φ1 = (lat * Math.PI) / 180;
          const λ1 = (lon * Math.PI) / 180;
          const φ2 = Math.asin(Math.sin(φ1) * Math.cos(d) + Math.cos(φ1) * Math.sin(d) * Math.cos(bearing));
          const λ2 = λ1 + Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(φ1), Math.cos(d) - Math.sin(φ1) * Math.sin(φ2));
          const pLat = (φ2 * 180) / Math.PI;
          let pLon = (λ2 * 180) / Math.PI;
          if (pLon > 180) pLon -= 360;
          if (pLon < -180) pLon += 360;
          expect(areaContains(circle, pLat, pLon)).toBe(true);
          const box: MapArea = { kind: 'rectangle', ...boundingBox(circle) };
          expect(areaContains(box, pLat, pLon)).toBe(true);
        },
      ),
      { seed: 42, numRuns: 2000 },
    );
  });

  it('tests polygons by crossing number, concave ones included', () => {
    const ring: Array<[number, number]> = [
      [0, 0],
      [0, 10],
      [10, 10],
      [10, 0],
      [5, 5],
    ];
    const area: MapArea = { kind: 'polygon', ring };
    expect(areaContains(area, 8, 5)).toBe(true);
    expect(areaContains(area, 5, 2)).toBe(false); // in the notch
    expect(areaContains(area, 2, 5)).toBe(true);
  });
});

describe('polygons are closed (CONTRACT §4)', () => {
  /** Whole hundredths of a degree → the double a decimal such as `40.02` reads as. */
  const deg = (hundredths: number) => hundredths / 100;
  const gcd = (a: number, b: number): number => (b === 0 ? Math.abs(a) : gcd(b, a % b));
  const step = fc.integer({ min: -60, max: 60 }).filter((n) => n !== 0);

  it('every 0.01° position on a slanted edge is inside the polygons on both sides of it, in both windings', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -8900, max: 8900 }),
        fc.integer({ min: -17900, max: 17900 }),
        step,
        step,
        fc.nat(),
        (i0, j0, di, dj, pick) => {
          const n = gcd(di, dj);
          fc.pre(n >= 2 && Math.abs(i0 + di) <= 9000 && Math.abs(i0 + dj) <= 9000 && Math.abs(i0 - dj) <= 9000);
          const k = 1 + (pick % (n - 1)); // a position strictly between the corners
          const [pi, pj] = [i0 + (k * di) / n, j0 + (k * dj) / n];
          const from: [number, number] = [deg(i0), deg(j0)];
          const to: [number, number] = [deg(i0 + di), deg(j0 + dj)];
          // A corner on each side of the edge (it turned ±90°), so the position is on both boundaries.
          for (const apex of [
            [deg(i0 + dj), deg(j0 - di)],
            [deg(i0 - dj), deg(j0 + di)],
          ] as Array<[number, number]>) {
            for (const ring of [
              [from, to, apex],
              [apex, to, from],
            ]) {
              expect(areaContains({ kind: 'polygon', ring }, deg(pi), deg(pj)), `${deg(pi)},${deg(pj)} in ${JSON.stringify(ring)}`).toBe(
                true,
              );
            }
          }
          // A position one step off the line, within the edge's box, is not on the edge.
          const edge = polygonEdges([to, from])[0];
          const [qi, qj] = [pi + Math.sign(di), pj];
          if ((qi - i0) * dj !== (qj - j0) * di) expect(onPolygonEdge(deg(qi), deg(qj), edge)).toBe(false);
        },
      ),
      { seed: 11, numRuns: 2000 },
    );
  });
});
