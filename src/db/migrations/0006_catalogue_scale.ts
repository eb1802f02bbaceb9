/**
 * 0006: the catalogue's indexes for a million listings (issue 14, "Scale"), and the table
 * that lets a first import build them once at the end.
 *
 * **Covering order indexes.** A page is read by walking the index of its order and stopping
 * once it is full. Before, every entry walked past cost a lookup of its table row to test
 * the filters (`op_venta`, `bedrooms`, the map position…): 2,000–3,000 lookups for a city
 * page sorted by price or a 2 km circle on a generated 1M catalogue, 5–9 ms each page, and
 * seconds to count a filter. The indexes of the orders websites use (newest first and sale or
 * rent price, catalogue-wide and per city, and the price of any operation, which a map sorted
 * by price uses) now carry the filter columns after the order columns, so SQLite tests them
 * on the index entry and reads a table row only for an entry that matches (its deferred
 * seek), and PostgreSQL can answer with an index-only scan. The filter columns are those of
 * the common filters: the three operations, featured, bedrooms, type, the sale and rent
 * prices, the published position. Their order does not matter: they are tested, not ranged.
 *
 * The map box and type indexes also carry `updated_at, id`, so a query served by one of them
 * sorts its matches from the index without reading rows. The traspaso price orders keep their
 * lean indexes: rare, and few listings to walk.
 *
 * **Deferred indexes.** `deferred_indexes` keeps the definition of every index a bulk load
 * dropped (db/deferred-indexes.ts), in the transaction that drops it, until it is built
 * again; a load that dies half way leaves its definitions there, and the next start of any
 * inmo process builds them.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

const ORDER = 'updated_at desc, id desc';
const FILTERS = ['op_venta', 'op_alquiler', 'op_traspaso', 'is_featured', 'bedrooms', 'type', 'price', 'price_rent', 'pub_lat', 'pub_lon'];

/** The filter columns an index of `price` order does not already hold. */
const filtersBesides = (price?: string) => FILTERS.filter((column) => column !== price).join(', ');

function indexes(): Array<[name: string, columns: string]> {
  const list: Array<[string, string]> = [
    ['properties_default_order', `business_id, ${ORDER}, ${filtersBesides()}`],
    ['properties_city', `business_id, city_key, ${ORDER}, ${filtersBesides()}`],
  ];
  for (const price of ['price', 'price_rent', 'price_any']) {
    for (const direction of ['asc', 'desc']) {
      // `(x is null)` first puts properties without that price last in both directions.
      const order = `(${price} is null), ${price} ${direction}, ${ORDER}`;
      list.push([`properties_${price}_${direction}`, `business_id, ${order}, ${filtersBesides(price)}`]);
      if (price !== 'price_any') {
        list.push([`properties_city_${price}_${direction}`, `business_id, city_key, ${order}, ${filtersBesides(price)}`]);
      }
    }
  }
  for (const price of ['price_transfer']) {
    for (const direction of ['asc', 'desc']) {
      list.push([`properties_${price}_${direction}`, `business_id, (${price} is null), ${price} ${direction}, ${ORDER}`]);
    }
  }
  list.push(['properties_type', `business_id, type, subtype, ${ORDER}`]);
  list.push(['properties_bbox', `business_id, pub_lat, pub_lon, ${ORDER}`]);
  return list;
}

/** The indexes of 0001, replaced here. */
const REPLACED = [
  'properties_default_order',
  ...['price', 'price_rent', 'price_transfer', 'price_any'].flatMap((p) => [`properties_${p}_asc`, `properties_${p}_desc`]),
  'properties_city',
  ...['price', 'price_rent'].flatMap((p) => [`properties_city_${p}_asc`, `properties_city_${p}_desc`]),
  'properties_type',
  'properties_bbox',
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table deferred_indexes (
    name text primary key,
    table_name text not null,
    definition text not null
  )`.execute(db);
  for (const name of REPLACED) await sql`drop index ${sql.id(name)}`.execute(db);
  // Every index is partial on `listed = 1`, like those it replaces: the API reads nothing else.
  for (const [name, columns] of indexes()) {
    await sql`create index ${sql.id(name)} on properties (${sql.raw(columns)}) where listed = 1`.execute(db);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of indexes()) await sql`drop index ${sql.id(name)}`.execute(db);
  const listedIndex = (name: string, columns: string) =>
    sql`create index ${sql.id(name)} on properties (${sql.raw(columns)}) where listed = 1`.execute(db);
  await listedIndex('properties_default_order', `business_id, ${ORDER}`);
  for (const price of ['price', 'price_rent', 'price_transfer', 'price_any']) {
    await listedIndex(`properties_${price}_asc`, `business_id, (${price} is null), ${price} asc, ${ORDER}`);
    await listedIndex(`properties_${price}_desc`, `business_id, (${price} is null), ${price} desc, ${ORDER}`);
  }
  await listedIndex('properties_city', `business_id, city_key, ${ORDER}`);
  for (const price of ['price', 'price_rent']) {
    await listedIndex(`properties_city_${price}_asc`, `business_id, city_key, (${price} is null), ${price} asc, ${ORDER}`);
    await listedIndex(`properties_city_${price}_desc`, `business_id, city_key, (${price} is null), ${price} desc, ${ORDER}`);
  }
  await listedIndex('properties_type', 'business_id, type, subtype');
  await listedIndex('properties_bbox', 'business_id, pub_lat, pub_lon');
  await sql`drop table deferred_indexes`.execute(db);
}
