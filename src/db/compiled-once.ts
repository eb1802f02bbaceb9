/**
 * Queries on the lead-creation path, compiled to SQL once per engine instead of on every call.
 *
 * Kysely builds and compiles a query each time it runs it, which on this path cost about as
 * much as SQLite's own work. A query is compiled once with marker values; each marker's place
 * among the compiled parameters tells where each value goes, so the same SQL text (with the
 * engine's own placeholders) is reused with new values. The SQL is still Kysely's, for
 * whichever engine the handle uses. On PostgreSQL each is also a named prepared statement
 * (database.ts prepareOnce), parsed and planned once per connection.
 */
import { CompiledQuery, PostgresAdapter, type Compilable, type DialectAdapter, type Generated, type Kysely } from 'kysely';
import { prepareOnce, type Executor } from './database.ts';
import type { Database } from './types.ts';

interface Template {
  sql: string;
  /** For each compiled parameter, the index of the value it takes. */
  slots: number[];
}

/**
 * Templates per dialect adapter (one per database handle, shared by its transactions): the
 * SQL text and placeholders are the engine's own.
 */
const templates = new WeakMap<DialectAdapter, Map<string, Template>>();

/** A marker no real value equals. */
const marker = (i: number) => `\u0000inmo-param-${i}\u0000`;

/**
 * Runs the query that `build(markers)` builds, with `values` in place of the markers.
 * @param key names the query's shape: the same key must always build the same SQL.
 * @param build builds the query from one marker per value, in `values` order.
 */
export async function runCompiledOnce<R>(
  db: Executor,
  key: string,
  values: unknown[],
  build: (params: string[]) => Compilable<R>,
): Promise<R[]> {
  const adapter = db.getExecutor().adapter;
  let ofAdapter = templates.get(adapter);
  if (!ofAdapter) templates.set(adapter, (ofAdapter = new Map()));
  let template = ofAdapter.get(key);
  if (!template) {
    const markers = values.map((_, i) => marker(i));
    const compiled = build(markers).compile();
    template = { sql: compiled.sql, slots: compiled.parameters.map((p) => markers.indexOf(p as string)) };
    if (template.slots.includes(-1)) throw new Error(`query ${key} has a parameter that is not one of its values`);
    ofAdapter.set(key, template);
    if (adapter instanceof PostgresAdapter) prepareOnce(template.sql);
  }
  const result = await db.executeQuery<R>(
    CompiledQuery.raw(
      template.sql,
      template.slots.map((slot) => values[slot]),
    ),
  );
  return result.rows;
}

/** Tables whose rows have an integer `id` made by the database. */
type TableWithId = { [T in keyof Database]: Database[T] extends { id: Generated<number> } ? T : never }[keyof Database];

/**
 * Inserts `row` into `table` and returns its new `id`, compiled once per table and set of
 * columns (the ones `row` defines; undefined ones are left to their defaults).
 */
export async function insertReturningId(db: Executor, table: TableWithId, row: Record<string, unknown>): Promise<number> {
  const columns = Object.keys(row).filter((c) => row[c] !== undefined);
  const rows = await runCompiledOnce<{ id: number }>(
    db,
    `insert:${table}:${columns.join(',')}`,
    columns.map((c) => row[c]),
    (params) =>
      (db as Kysely<Database>)
        .insertInto(table)
        .values(Object.fromEntries(columns.map((c, i) => [c, params[i]])) as never)
        .returning('id' as never) as unknown as Compilable<{ id: number }>,
  );
  return rows[0].id;
}
