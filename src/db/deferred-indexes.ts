/**
 * Bulk loading a table without its secondary indexes, then building each once (issue 14,
 * "Scale").
 *
 * Every row inserted into a table with indexes adds an entry to each of them, at a place
 * that is random for most (a price, a date): a first import of a million listings rewrote the
 * same index pages again and again, 46 times the final file in bytes written. Built after the
 * load, an index is one sort and one sequential write.
 *
 * The definitions come from the engine's own catalogue (`sqlite_schema`, `pg_index`), so the
 * set of indexes stays the migrations' alone. They are kept in `deferred_indexes` in the
 * transaction that drops them, and removed as each is built again: a load that dies half way
 * leaves them there, and {@link restoreDeferredIndexes} (run by every `migrate`) builds them.
 * Indexes that back a constraint (unique, primary key) are never dropped.
 */
import { availableParallelism } from 'node:os';
import { sql } from 'kysely';
import type { Db, Engine, Executor } from './types.ts';

/** A secondary index: its name and the engine's CREATE INDEX statement. */
interface IndexDefinition {
  name: string;
  definition: string;
}

async function secondaryIndexes(db: Executor, engine: Engine, table: string): Promise<IndexDefinition[]> {
  if (engine === 'postgres') {
    const { rows } = await sql<IndexDefinition>`
      select i.relname as name, pg_get_indexdef(i.oid) as definition
      from pg_index x
      join pg_class i on i.oid = x.indexrelid
      join pg_class t on t.oid = x.indrelid
      join pg_namespace n on n.oid = t.relnamespace
      where t.relname = ${table} and n.nspname = current_schema()
        and not x.indisunique and not x.indisprimary
      order by i.relname`.execute(db);
    return rows;
  }
  // Indexes SQLite made for a constraint have no SQL; unique ones written out are kept too.
  const { rows } = await sql<IndexDefinition>`
    select name, sql as definition from sqlite_schema
    where type = 'index' and tbl_name = ${table} and sql is not null and lower(sql) not like 'create unique%'
    order by name`.execute(db);
  return rows;
}

/**
 * Drops the secondary indexes of `table`, keeping their definitions in `deferred_indexes`,
 * in one transaction. Reads keep their answers meanwhile, only slower.
 * @returns names of the indexes dropped.
 */
export async function deferIndexes(db: Db, table: string): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const indexes = await secondaryIndexes(trx, db.engine, table);
    for (const { name, definition } of indexes) {
      await trx.insertInto('deferred_indexes').values({ name, table_name: table, definition }).execute();
      await sql`drop index ${sql.id(name)}`.execute(trx);
    }
    return indexes.map((i) => i.name);
  });
}

/**
 * Builds every index a bulk load deferred, each in its own transaction with the removal of
 * its definition; another process building the same one at once makes this a no-op for it.
 * @returns names of the indexes built.
 */
export async function restoreDeferredIndexes(db: Db): Promise<string[]> {
  const deferred = await db.selectFrom('deferred_indexes').select(['name', 'definition']).orderBy('name').execute();
  // SQLite sorts an index's entries with helper threads when allowed: a fifth faster on 2 cores.
  if (deferred.length > 0 && db.engine === 'sqlite')
    await sql`pragma threads = ${sql.lit(Math.min(4, availableParallelism()))}`.execute(db);
  for (const { name, definition } of deferred) {
    await db.transaction().execute(async (trx) => {
      // `if not exists`: a concurrent restore may have built it first.
      await sql.raw(definition.replace(/^create index /i, 'create index if not exists ')).execute(trx);
      await trx.deleteFrom('deferred_indexes').where('name', '=', name).execute();
    });
  }
  return deferred.map((d) => d.name);
}
