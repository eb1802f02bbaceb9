/**
 * Map areas of the `locations` filter (spec §4.4, CONTRACT §4): parsing of the accepted
 * shapes, bounding boxes, and the exact tests (great-circle distance in metres, point in
 * polygon). The SQL twins of these tests live in db/repositories/property-filters.ts.
 */

/** Mean Earth radius, metres (IUGG), used for every great-circle distance. */
export const EARTH_RADIUS_M = 6371008.8;
/** Radius of `point` and `marker` areas, and of GeoJSON `Point`s, without one: metres. */
export const DEFAULT_POINT_RADIUS_M = 500;

/** A circle: centre in decimal degrees, radius in metres. */
export interface CircleArea {
  kind: 'circle';
  lat: number;
  lon: number;
  radiusM: number;
}
/** A rectangle in decimal degrees; `west > east` crosses the antimeridian. */
export interface RectangleArea {
  kind: 'rectangle';
  south: number;
  west: number;
  north: number;
  east: number;
}
/** A polygon's outer ring as `[lat, lon]` pairs, decimal degrees, not closed. */
export interface PolygonArea {
  kind: 'polygon';
  ring: Array<[number, number]>;
}
export type MapArea = CircleArea | RectangleArea | PolygonArea;

/** A latitude/longitude box in decimal degrees; `west > east` crosses the antimeridian. */
export interface BoundingBox {
  south: number;
  west: number;
  north: number;
  east: number;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const validLat = (v: unknown): v is number => isNum(v) && v >= -90 && v <= 90;
const validLon = (v: unknown): v is number => isNum(v) && v >= -180 && v <= 180;
const validRadius = (v: unknown): v is number => isNum(v) && v > 0 && v <= Math.PI * EARTH_RADIUS_M;

/** `lng`, or its other spelling `lon`. */
function lngOf(o: Json): unknown {
  return o.lng ?? o.lon;
}

function radiusOf(o: Json): number | null {
  if (o.radius === undefined || o.radius === null) return DEFAULT_POINT_RADIUS_M;
  return validRadius(o.radius) ? o.radius : null;
}

function ringFromLatLngObjects(points: unknown): Array<[number, number]> | null {
  if (!Array.isArray(points)) return null;
  const ring: Array<[number, number]> = [];
  for (const p of points) {
    if (!isObject(p) || !validLat(p.lat) || !validLon(lngOf(p))) return null;
    ring.push([p.lat, lngOf(p) as number]);
  }
  return closedRingTrimmed(ring);
}

function ringFromGeoJson(coordinates: unknown): Array<[number, number]> | null {
  if (!Array.isArray(coordinates) || !Array.isArray(coordinates[0])) return null;
  const ring: Array<[number, number]> = [];
  for (const p of coordinates[0] as unknown[]) {
    if (!Array.isArray(p) || p.length < 2 || !validLon(p[0]) || !validLat(p[1])) return null;
    ring.push([p[1], p[0]]);
  }
  return closedRingTrimmed(ring);
}

/** Drops a closing vertex equal to the first; a ring needs three distinct corners. */
function closedRingTrimmed(ring: Array<[number, number]>): Array<[number, number]> | null {
  if (ring.length > 1) {
    const [first, last] = [ring[0], ring[ring.length - 1]];
    if (first[0] === last[0] && first[1] === last[1]) ring.pop();
  }
  return ring.length >= 3 ? ring : null;
}

/**
 * One entry of the `locations` array → a map area, or null when it is not a recognised area
 * (such entries are ignored, CONTRACT §4). Accepts `circle`, `point`, `marker`, `rectangle`,
 * `polygon`, and any of them carrying a GeoJSON `geometry` (`Point` or `Polygon`).
 */
export function parseMapArea(entry: unknown): MapArea | null {
  if (!isObject(entry)) return null;
  const geometry = entry.geometry;
  if (isObject(geometry)) {
    if (geometry.type === 'Point' && Array.isArray(geometry.coordinates)) {
      const [lon, lat] = geometry.coordinates as unknown[];
      const radiusM = radiusOf(entry);
      if (!validLat(lat) || !validLon(lon) || radiusM === null) return null;
      return { kind: 'circle', lat, lon, radiusM };
    }
    if (geometry.type === 'Polygon') {
      const ring = ringFromGeoJson(geometry.coordinates);
      return ring ? { kind: 'polygon', ring } : null;
    }
    return null;
  }
  switch (entry.type) {
    case 'circle': {
      const center = entry.center;
      if (!isObject(center) || !validLat(center.lat) || !validLon(lngOf(center)) || !validRadius(entry.radius)) {
        return null;
      }
      return { kind: 'circle', lat: center.lat, lon: lngOf(center) as number, radiusM: entry.radius };
    }
    case 'point':
    case 'marker': {
      const radiusM = radiusOf(entry);
      if (!validLat(entry.lat) || !validLon(lngOf(entry)) || radiusM === null) return null;
      return { kind: 'circle', lat: entry.lat, lon: lngOf(entry) as number, radiusM };
    }
    case 'rectangle': {
      const b = entry.bounds;
      if (!isObject(b) || !validLat(b.south) || !validLat(b.north) || !validLon(b.west) || !validLon(b.east)) {
        return null;
      }
      if (b.south > b.north) return null;
      return { kind: 'rectangle', south: b.south, west: b.west, north: b.north, east: b.east };
    }
    case 'polygon': {
      const ring = ringFromLatLngObjects(entry.coordinates);
      return ring ? { kind: 'polygon', ring } : null;
    }
    default:
      return null;
  }
}

/**
 * The `locations` query text → its JSON entries, or null when the filter is off: text that
 * is not JSON or not an array (CONTRACT §4).
 */
export function parseLocationsJson(text: string): unknown[] | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return Array.isArray(value) ? value : null;
}

/** Great-circle distance between two points in decimal degrees, metres (haversine). */
export function distanceM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  return 2 * EARTH_RADIUS_M * Math.asin(Math.sqrt(haversineTerm(lat1, lon1, lat2, lon2)));
}

/** `sin²(Δφ/2) + cos φ1 cos φ2 sin²(Δλ/2)`: compared with {@link haversineLimit} it avoids asin. */
export function haversineTerm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  return Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
}

/** The haversine term at exactly `radiusM` metres: a point is inside when its term is <= this. */
export function haversineLimit(radiusM: number): number {
  return Math.sin(radiusM / (2 * EARTH_RADIUS_M)) ** 2;
}

/** Bounding box of an area, for an index range scan before the exact test. */
export function boundingBox(area: MapArea): BoundingBox {
  switch (area.kind) {
    case 'rectangle':
      return { south: area.south, west: area.west, north: area.north, east: area.east };
    case 'polygon': {
      const lats = area.ring.map((p) => p[0]);
      const lons = area.ring.map((p) => p[1]);
      return { south: Math.min(...lats), north: Math.max(...lats), west: Math.min(...lons), east: Math.max(...lons) };
    }
    case 'circle': {
      const angular = area.radiusM / EARTH_RADIUS_M; // radians
      const deg = 180 / Math.PI;
      const south = area.lat - angular * deg;
      const north = area.lat + angular * deg;
      if (south <= -90 || north >= 90) {
        return { south: Math.max(south, -90), north: Math.min(north, 90), west: -180, east: 180 };
      }
      const dLon = Math.asin(Math.sin(angular) / Math.cos(area.lat / deg)) * deg;
      let west = area.lon - dLon;
      let east = area.lon + dLon;
      if (west < -180) west += 360;
      if (east > 180) east -= 360;
      return { south, north, west, east };
    }
  }
}

/**
 * How far from a polygon's edge a position still counts as on it: 1e-9 degrees (about 0.1 mm),
 * measured across the edge in the latitude/longitude plane. Decimal coordinates are not exact
 * doubles, so a position on a slanted edge drawn between decimal corners (40.02,-3.68 on the
 * edge from 40.01,-3.69 to 40.03,-3.67) is off the edge's line by 3e-15° in binary, and an
 * exact test misses most such positions. Such errors stay below 1e-13° anywhere on Earth, and
 * nothing a map shows is as small as the tolerance. Along an edge none is needed: its bounding
 * box compares decimals, which keep their order in binary.
 */
export const POLYGON_EDGE_TOLERANCE_DEG = 1e-9;

/**
 * One edge of a polygon ring, from `[yi, xi]` to `[yj, xj]` (latitude, longitude; decimal
 * degrees), with the numbers its tests use. The SQL filter (db/repositories/property-filters.ts)
 * prints these same doubles as literals, so both sides compute alike (CONTRACT §4).
 */
export interface PolygonEdge {
  yi: number;
  xi: number;
  yj: number;
  xj: number;
  /** `yj - yi` and `xj - xi`, degrees. */
  dy: number;
  dx: number;
  /** The edge's bounding box, degrees, inclusive. */
  south: number;
  north: number;
  west: number;
  east: number;
  /**
   * Largest `|dx·(lat − yi) − (lon − xi)·dy|` of a position on the edge: that cross product is
   * the distance from the edge's line times the edge's length, so this is
   * {@link POLYGON_EDGE_TOLERANCE_DEG} times the length (degrees²).
   */
  slack: number;
}

/** Edges of parsed rings, which are never changed: matching tests one ring against every listing. */
const edgesOfRing = new WeakMap<ReadonlyArray<readonly [number, number]>, PolygonEdge[]>();

/**
 * The edges of a polygon ring (`[lat, lon]` pairs, decimal degrees, not closed): edge `i` runs
 * from vertex `i` to vertex `i − 1`, the last closing the ring. Computed once per ring.
 */
export function polygonEdges(ring: ReadonlyArray<readonly [number, number]>): PolygonEdge[] {
  let edges = edgesOfRing.get(ring);
  if (edges === undefined) {
    edges = ring.map(([yi, xi], i) => {
      const [yj, xj] = ring[(i + ring.length - 1) % ring.length];
      const dy = yj - yi;
      const dx = xj - xi;
      return {
        yi,
        xi,
        yj,
        xj,
        dy,
        dx,
        south: Math.min(yi, yj),
        north: Math.max(yi, yj),
        west: Math.min(xi, xj),
        east: Math.max(xi, xj),
        slack: POLYGON_EDGE_TOLERANCE_DEG * Math.hypot(dx, dy),
      };
    });
    edgesOfRing.set(ring, edges);
  }
  return edges;
}

/**
 * Whether a position (decimal degrees) lies on a polygon edge: within its bounding box and
 * within {@link POLYGON_EDGE_TOLERANCE_DEG} of its line. Multiplies instead of dividing, so
 * a position on an axis-parallel edge, or on a vertex, is on it exactly.
 */
export function onPolygonEdge(lat: number, lon: number, e: PolygonEdge): boolean {
  return (
    lat >= e.south && lat <= e.north && lon >= e.west && lon <= e.east && Math.abs(e.dx * (lat - e.yi) - (lon - e.xi) * e.dy) <= e.slack
  );
}

/**
 * Whether a point lies in a closed polygon (`[lat, lon]` pairs, decimal degrees, either
 * winding): a point on an edge or a vertex is inside ({@link onPolygonEdge}), as the bounds of
 * a rectangle and the radius of a circle are (CONTRACT §4); elsewhere, the crossing number of
 * a ray to the east decides (even-odd). The SQL filter applies the same rule with the same
 * arithmetic, operation for operation, so the API and matching agree on every position.
 */
export function pointInPolygon(lat: number, lon: number, ring: ReadonlyArray<readonly [number, number]>): boolean {
  return inEdges(lat, lon, polygonEdges(ring));
}

/** {@link pointInPolygon} on a polygon's edges, computed once by the caller. */
function inEdges(lat: number, lon: number, edges: readonly PolygonEdge[]): boolean {
  let inside = false;
  for (const e of edges) {
    if (onPolygonEdge(lat, lon, e)) return true;
    // A horizontal edge never crosses the ray (and would divide by zero).
    if (e.dy !== 0 && e.yi > lat !== e.yj > lat && lon < (e.dx * (lat - e.yi)) / e.dy + e.xi) inside = !inside;
  }
  return inside;
}

/**
 * {@link areaContains} for one area and many points: a polygon's edges are worked out once.
 * @returns `(lat, lon) => whether the point lies in the area`.
 */
export function areaTest(area: MapArea): (lat: number, lon: number) => boolean {
  if (area.kind !== 'polygon') return (lat, lon) => areaContains(area, lat, lon);
  const edges = polygonEdges(area.ring);
  return (lat, lon) => inEdges(lat, lon, edges);
}

/** Whether a point lies in an area (the same rule the SQL filter applies). */
export function areaContains(area: MapArea, lat: number, lon: number): boolean {
  switch (area.kind) {
    case 'circle':
      return haversineTerm(area.lat, area.lon, lat, lon) <= haversineLimit(area.radiusM);
    case 'rectangle':
      return (
        lat >= area.south &&
        lat <= area.north &&
        (area.west <= area.east ? lon >= area.west && lon <= area.east : lon >= area.west || lon <= area.east)
      );
    case 'polygon':
      return pointInPolygon(lat, lon, area.ring);
  }
}
