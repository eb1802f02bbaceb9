/**
 * SQL of the GET /properties filters (CONTRACT §4). Portable: SQLite (with its math
 * functions, built into better-sqlite3) and PostgreSQL run the same text.
 *
 * Map areas are tested against the published position (`pub_lat`, `pub_lon`): exact for
 * public addresses, rounded to 2 decimals otherwise, so that no run of small circles can
 * locate a listing more precisely than the listing itself shows. Each area is a bounding
 * box (served by the `properties_bbox` index) and the exact test, the twin of domain/catalogue/geo.ts.
 */
import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';
import { boundingBox, haversineLimit, type MapArea, polygonEdges } from '../../domain/catalogue/geo.ts';
import { priceColumnFor, type PropertyQuery } from '../../domain/catalogue/property-query.ts';

const lit = (n: number) => sql.lit(n);

/**
 * `parts` joined by `op` as a balanced tree of parentheses, not a chain: SQLite refuses an
 * expression nested more than 1,000 deep (`Expression tree is too large`), which a chain of a
 * 1,000-vertex polygon's edges was (CONTRACT §8 allows 1,000); balanced, it nests about 10 deep.
 */
function balanced(parts: RawBuilder<unknown>[], op: 'or' | '+'): RawBuilder<unknown> {
  if (parts.length === 1) return parts[0];
  const half = Math.ceil(parts.length / 2);
  return sql`(${balanced(parts.slice(0, half), op)} ${sql.raw(op)} ${balanced(parts.slice(half), op)})`;
}

/** Largest value of an `integer` column on both engines. */
const MAX_INT32 = 2_147_483_647;

function bboxCondition(area: MapArea, hide: boolean): RawBuilder<SqlBool> {
  const b = boundingBox(area);
  // Both hidden: PostgreSQL would otherwise range over the box index's longitude alone.
  const lat = hide ? sql`(pub_lat + 0)` : sql`pub_lat`;
  const lon = hide ? sql`(pub_lon + 0)` : sql`pub_lon`;
  const lonRange =
    b.west <= b.east ? sql`${lon} between ${lit(b.west)} and ${lit(b.east)}` : sql`(${lon} >= ${lit(b.west)} or ${lon} <= ${lit(b.east)})`;
  return sql<SqlBool>`(${lat} between ${lit(b.south)} and ${lit(b.north)} and ${lonRange})`;
}

function exactCondition(area: MapArea): RawBuilder<SqlBool> | null {
  switch (area.kind) {
    case 'rectangle':
      return null; // the bounding box is the rectangle
    case 'circle': {
      const cosLat = Math.cos((area.lat * Math.PI) / 180);
      return sql<SqlBool>`(power(sin(radians(pub_lat - ${lit(area.lat)}) / 2), 2) + ${lit(cosLat)} * cos(radians(pub_lat)) * power(sin(radians(pub_lon - ${lit(area.lon)}) / 2), 2)) <= ${lit(haversineLimit(area.radiusM))}`;
    }
    case 'polygon': {
      // The twin of domain/catalogue/geo.ts pointInPolygon, operation for operation on the same doubles:
      // every literal is a JS double printed exactly (shortest round trip) from polygonEdges,
      // and each meets a double precision column or term, so PostgreSQL converts it to double
      // precision alone (numeric to float8, correctly rounded) before any arithmetic; SQLite
      // reads it as a REAL. On an edge or a vertex is inside, else the crossing number decides.
      const edges = polygonEdges(area.ring);
      const onEdges = edges.map(
        (e) =>
          sql`(pub_lat between ${lit(e.south)} and ${lit(e.north)} and pub_lon between ${lit(e.west)} and ${lit(e.east)} and abs((${lit(e.dx)}) * (pub_lat - ${lit(e.yi)}) - (pub_lon - ${lit(e.xi)}) * (${lit(e.dy)})) <= ${lit(e.slack)})`,
      );
      // A horizontal edge never crosses the ray (and would divide by zero).
      const crossings = edges
        .filter((e) => e.dy !== 0)
        .map(
          (e) =>
            sql`case when ((${lit(e.yi)} > pub_lat) <> (${lit(e.yj)} > pub_lat)) and pub_lon < (${lit(e.dx)}) * (pub_lat - ${lit(e.yi)}) / (${lit(e.dy)}) + ${lit(e.xi)} then 1 else 0 end`,
        );
      const inside = crossings.length ? sql`${balanced(crossings, '+')} % 2 = 1` : sql`1 = 0`;
      return sql<SqlBool>`(${balanced(onEdges, 'or')} or ${inside})`;
    }
  }
}

/** Whether the published position lies in the bounding box of at least one of the areas (served by `properties_bbox`). */
export function boxesCondition(areas: MapArea[]): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${balanced(
    areas.map((area) => bboxCondition(area, false)),
    'or',
  )})`;
}

/** Whether the published position lies in at least one of the areas. */
export function areasCondition(areas: MapArea[], hideIndex = false): RawBuilder<SqlBool> {
  const parts = areas.map((area) => {
    const exact = exactCondition(area);
    const box = bboxCondition(area, hideIndex);
    return exact ? sql`(${box} and ${exact})` : box;
  });
  return sql<SqlBool>`(${balanced(parts, 'or')})`;
}

/**
 * How a page is found. `planner`: the engine may use any index, typically a filter's (type,
 * map box) and then sorts what matched. `order-index`: those filters are written so that
 * their index does not apply (`type || ''`, `pub_lat + 0`, `pub_lon + 0`: same values, not indexable),
 * leaving the index of the requested order, walked until the page is full. Engines do not
 * weigh that early stop, so the choice is made from the (cached) counts by the caller.
 * A city filter is never hidden: city indexes also carry the order, so they are right either way.
 */
export type ScanPlan = 'planner' | 'order-index';

/** Every condition of the query (besides business and `listed`), to be AND-ed. */
export function filterConditions(q: PropertyQuery, plan: ScanPlan = 'planner'): Array<Expression<SqlBool>> {
  const where: Array<Expression<SqlBool>> = [];
  const hide = plan === 'order-index';
  const text = (column: string) => (hide ? sql`(${sql.ref(column)} || '')` : sql.ref(column));
  if (q.status !== undefined) where.push(sql<SqlBool>`status = ${q.status}`);
  if (q.operation !== undefined) where.push(sql<SqlBool>`${sql.ref(`op_${q.operation}`)} = 1`);
  if (q.rental_type === 'temporal') where.push(sql<SqlBool>`op_alquiler = 1 and rental_type = 'temporal'`);
  if (q.rental_type === 'anual') {
    where.push(sql<SqlBool>`op_alquiler = 1 and (rental_type is null or rental_type not in ('temporal', 'vacacional'))`);
  }
  if (q.type !== undefined) where.push(sql<SqlBool>`${text('type')} = ${q.type}`);
  if (q.subtype !== undefined) where.push(sql<SqlBool>`${text('subtype')} = ${q.subtype}`);
  if (q.cityKey !== undefined) where.push(sql<SqlBool>`city_key = ${q.cityKey}`);
  const price = sql.ref(priceColumnFor(q.operation));
  if (q.min_price !== undefined) where.push(sql<SqlBool>`${price} >= ${q.min_price}`);
  if (q.max_price !== undefined) where.push(sql<SqlBool>`${price} <= ${q.max_price}`);
  // `bedrooms` is a 32-bit integer column: PostgreSQL refuses to compare it with a larger
  // number, and no listing has more than the largest, so the bound is clamped (found by fuzzing).
  if (q.min_bedrooms !== undefined) where.push(sql<SqlBool>`bedrooms >= ${Math.min(q.min_bedrooms, MAX_INT32)}`);
  if (q.is_featured !== undefined) where.push(sql<SqlBool>`is_featured = ${q.is_featured ? 1 : 0}`);
  if (q.areas.length) where.push(areasCondition(q.areas, hide));
  return where;
}

/** The terms an order is written on: the table's own, or the page subquery's names for them. */
interface OrderTerms {
  priceMissing: RawBuilder<unknown>;
  price: RawBuilder<unknown>;
  updatedAt: RawBuilder<unknown>;
  id: RawBuilder<unknown>;
}

function orderOn(q: PropertyQuery, t: OrderTerms): RawBuilder<unknown> {
  if (q.sort) {
    const direction = sql.raw(q.sort === 'price_asc' ? 'asc' : 'desc');
    return sql`${t.priceMissing} asc, ${t.price} ${direction}, ${t.updatedAt} desc, ${t.id} desc`;
  }
  return sql`${t.updatedAt} desc, ${t.id} desc`;
}

/** ORDER BY of the query: price (missing prices last) or `updated_at`, ties by `updated_at` desc, `id` desc. */
export function orderBy(q: PropertyQuery): RawBuilder<unknown> {
  const price = sql.ref(priceColumnFor(q.operation));
  return orderOn(q, { priceMissing: sql`(${price} is null)`, price: sql`${price}`, updatedAt: sql`updated_at`, id: sql`id` });
}

/**
 * The same order as {@link orderBy}, on the columns the page subquery of
 * repositories/properties.ts listPublished selects under these names.
 */
export function pageOrder(q: PropertyQuery): RawBuilder<unknown> {
  return orderOn(q, {
    priceMissing: sql`page.price_missing`,
    price: sql`page.sort_price`,
    updatedAt: sql`page.updated_at`,
    id: sql`page.id`,
  });
}
