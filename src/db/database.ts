/**
 * The database factory: the only module that knows which engine `DATABASE_URL` names.
 *
 * - `sqlite:<path>` opens (and creates) an embedded SQLite file in WAL mode;
 * - `postgres://user@host:port/db` (or `postgresql://`) opens a PostgreSQL connection pool.
 *   TLS comes from the URL as libpq spells it (`sslmode=require`, `sslrootcert=…`,
 *   `sslcert=…`, `sslkey=…`); `schema=NAME` (ours) sets the `search_path` of every
 *   connection, so that several installations, or test files, can share one database.
 *
 * Both engines run the same queries: timestamps are canonical RFC 3339 text, booleans 0/1
 * integers, ids `integer`, and PostgreSQL's 64-bit integers (`count(*)`) are read as
 * JavaScript numbers, so results look the same on either.
 */
import { DEFAULT_POOL_SETTINGS, type PoolSettings } from './pool-settings.ts';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresAdapter, PostgresDialect, sql, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type Pg from 'pg';
import { LRUCache } from 'lru-cache';
import { migrationProvider } from './migrations/index.ts';
import { restoreDeferredIndexes } from './deferred-indexes.ts';
import SQLite from './sqlite-binding.ts';
import type { Database, Db, Executor } from './types.ts';

// The handle's types live with the row types, so that modules this one imports (db/deferred-indexes.ts) need not import it back.
export type { Db, Engine, Executor } from './types.ts';

/**
 * Whether `id` can name a row: ids are `integer` (32-bit) on SQLite and PostgreSQL alike, so a
 * larger one names nothing (and PostgreSQL would refuse to compare it with the column).
 */
export function isRowId(id: number): boolean {
  return Number.isSafeInteger(id) && id >= 1 && id <= 2_147_483_647;
}

/**
 * What lies under a handle, for the few modules that need the engine's own client
 * (db/change-watch.ts): the SQLite connection, or how to open one more PostgreSQL connection.
 */
export type Connection =
  { engine: 'sqlite'; sqlite: BetterSqlite3.Database } | { engine: 'postgres'; config: Pg.ClientConfig; schema: string | null };

const connections = new WeakMap<Kysely<Database>, Connection>();

function onEngine(db: Kysely<Database>, connection: Connection): Db {
  connections.set(db, connection);
  return Object.assign(db, { engine: connection.engine } as const);
}

/** The engine's own client under a handle made by {@link createDb}. @throws Error for another handle. */
export function connectionOf(db: Db): Connection {
  const connection = connections.get(db);
  if (!connection) throw new Error('not a handle made by createDb');
  return connection;
}

/** Prepared statements kept per connection (by SQL text). */
const STATEMENT_CACHE_SIZE = 500;

/**
 * better-sqlite3 compiles a statement on every `prepare`, and Kysely prepares every query it
 * runs; compiling the same SQL again cost more than running it. This keeps compiled
 * statements by SQL text (least recently used out first).
 */
function withStatementCache(sqlite: BetterSqlite3.Database): SqliteDatabase {
  const cache = new LRUCache<string, BetterSqlite3.Statement>({ max: STATEMENT_CACHE_SIZE });
  return {
    close: () => sqlite.close(),
    prepare: (sql: string) => {
      let statement = cache.get(sql);
      if (!statement) {
        statement = sqlite.prepare(sql);
        cache.set(sql, statement);
      }
      return statement as unknown as SqliteStatement;
    },
  };
}

const INT8_OID = 20;

/**
 * node-postgres, required when a PostgreSQL database is first opened: a process on SQLite never
 * loads it (a CommonJS package, so it loads synchronously, as createDb must).
 */
let pgModule: typeof Pg | undefined;
export const loadPg = (): typeof Pg => (pgModule ??= createRequire(import.meta.url)('pg') as typeof Pg);

/** Type parsers of our pools: `bigint` (what `count(*)` returns) as a number, not a string. */
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : loadPg().types.getTypeParser(oid, format)) as typeof Pg.types.getTypeParser,
};

function createPostgres(url: string, settings: PoolSettings): Db {
  const pg = loadPg();
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  if (schema !== null && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema))
    throw new Error('the schema= of DATABASE_URL must be a plain identifier');
  const config: Pg.ClientConfig = {
    connectionString: parsed.toString(),
    types: pgTypes,
    ...(settings.statementTimeoutMs > 0 ? { statement_timeout: settings.statementTimeoutMs } : {}),
  };
  const pool = new pg.Pool({ ...config, max: settings.poolSize });
  // Clients of the pool run the hot statements as named prepared statements (see prepareOnce).
  pool.on('connect', (client) => preparesNamed(client));
  // A connection that breaks while idle (server restart, network) is dropped by the pool and
  // replaced on the next query; without a listener the 'error' event would end the process.
  pool.on('error', () => undefined);
  // Each new connection's settings, in one statement queued before any other query of it.
  // No JIT compilation: it pays off for long analytic queries, never here. A page walking a
  // million-row index has a large cost estimate (it stops after 20 rows), which made
  // PostgreSQL spend 5 ms compiling a 1 ms query.
  const sessionSettings = ['set jit = off', ...(schema === null ? [] : [`set search_path to "${schema}"`])];
  pool.on('connect', (client) => void client.query(sessionSettings.join('; ')));
  return onEngine(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), { engine: 'postgres', config, schema });
}

/** SQLite's page cache per connection, KiB: the hot pages of a million-listing catalogue's reads. */
export const SQLITE_PAGE_CACHE_KIB = 65_536;

/**
 * Runs `work` with the SQLite connection's page cache at `kib` KiB, then gives it back its size.
 * A bulk write touches each page once or twice: a large cache would only fill with pages it
 * never reads again, and a server's memory would grow by the whole cache (the pages beyond
 * the smaller size are freed at once). No effect on PostgreSQL, whose cache is the server's.
 */
export async function withPageCache<T>(db: Db, kib: number, work: () => Promise<T>): Promise<T> {
  const connection = connectionOf(db);
  if (connection.engine !== 'sqlite') return work();
  connection.sqlite.pragma(`cache_size = -${kib}`);
  try {
    return await work();
  } finally {
    connection.sqlite.pragma(`cache_size = -${SQLITE_PAGE_CACHE_KIB}`);
  }
}

/** Tries of an erasure's WAL truncation that finds another checkpoint running. */
const TRUNCATE_ATTEMPTS = 5;

/**
 * Runs `work` (an erasure, CONTRACT §18) so that what it deletes does not stay readable in the
 * SQLite file: with `secure_delete` on, SQLite overwrites deleted content with zeros, and then
 * the write-ahead log, which still holds the pages as they were before, is checkpointed and
 * truncated. Best effort for the log: a reader in another connection at that moment leaves it
 * to a later checkpoint, and SQLite reuses it from the start. On PostgreSQL the deleted rows
 * are dead tuples until VACUUM reclaims them (autovacuum; docs/operators.md).
 */
export async function withSecureDelete<T>(db: Db, work: () => Promise<T>): Promise<T> {
  const connection = connectionOf(db);
  if (connection.engine !== 'sqlite') return work();
  const before = connection.sqlite.pragma('secure_delete', { simple: true }) as number;
  connection.sqlite.pragma('secure_delete = on');
  try {
    const result = await work();
    // Another connection's checkpoint running (inmo serve's thread, db/checkpoints.ts) makes this
    // one busy at once: tried again a few times.
    for (let attempt = 1; attempt <= TRUNCATE_ATTEMPTS; attempt++) {
      try {
        const [outcome] = connection.sqlite.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
        if (!outcome?.busy) break;
      } catch {
        // Committed already: a checkpoint that cannot run now (another statement of this
        // connection in progress) is left to SQLite's own, later.
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return result;
  } finally {
    connection.sqlite.pragma(`secure_delete = ${before}`);
  }
}

/** SQL text → statement name, for the statements worth preparing once per connection. */
const namedStatements = new Map<string, string>();

/**
 * Asks PostgreSQL connections to prepare `sql` once and reuse it on every later run instead of
 * parsing and planning it again (the hot statements of the request path: db/compiled-once.ts).
 * The name, `inmo_<24 hex digits of the text's SHA-256>`, is the same for the same text. Only
 * fixed SQL texts may be named, so each connection keeps a bounded set. No effect on SQLite,
 * whose statements are already kept compiled.
 */
export function prepareOnce(sql: string): void {
  if (!namedStatements.has(sql)) namedStatements.set(sql, `inmo_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`);
}

/** Makes a pool client send {@link prepareOnce}'s statements as named ones. */
function preparesNamed(client: Pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((...args: unknown[]) => {
    const [text, values] = args;
    const name = typeof text === 'string' ? namedStatements.get(text) : undefined;
    return name === undefined ? query(...args) : query({ name, text, values });
  }) as typeof client.query;
}

/**
 * Opens the database named by `url`.
 * @param pool settings of the PostgreSQL pool (ignored for SQLite).
 * @throws Error for an unsupported URL.
 */
export function createDb(url: string, pool: PoolSettings = DEFAULT_POOL_SETTINGS): Db {
  const db = openUrl(url, pool);
  if (!/^sqlite:(:memory:)?$/.test(url)) openedFrom.set(db, { url, pool });
  return db;
}

/** How each handle made by {@link createDb} was opened, unless in memory. */
const openedFrom = new WeakMap<Db, { url: string; pool: PoolSettings }>();

/**
 * What opens the same database as `db` again, in another thread (services/catalogue/import/import-thread.ts):
 * `createDb(url, pool)`. Null for an in-memory SQLite database, which no other connection sees.
 */
export function reopenable(db: Db): { url: string; pool: PoolSettings } | null {
  return openedFrom.get(db) ?? null;
}

function openUrl(url: string, pool: PoolSettings): Db {
  if (/^postgres(ql)?:\/\//.test(url)) return createPostgres(url, pool);
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length) || ':memory:';
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const sqlite = new SQLite(path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 10000');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`cache_size = -${SQLITE_PAGE_CACHE_KIB}`);
    return onEngine(new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) }), {
      engine: 'sqlite',
      sqlite,
    });
  }
  throw new Error(`Unsupported DATABASE_URL ${JSON.stringify(url.split('@').pop())}: use sqlite:<path> or postgres://…`);
}

/** Whether the engine can lock rows and skip locked ones (`FOR UPDATE SKIP LOCKED`): PostgreSQL. */
export function locksRows(db: Db): boolean {
  return db.engine === 'postgres';
}

/**
 * Whether a read that decides a write, in a transaction of `executor`, must lock the rows it
 * reads (`FOR UPDATE`): on PostgreSQL transactions write at once, and another one may change
 * those rows before this one commits; a SQLite write transaction already holds the only
 * writer's lock. Works on a handle or any of its transactions.
 */
export function readsMustLock(executor: Executor): boolean {
  return executor.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Whether concurrent write transactions each commit well on their own (PostgreSQL, whose WAL
 * flushes are shared), rather than queueing for one writer (SQLite): group commit runs units
 * concurrently then, and batches them otherwise.
 */
export function commitsConcurrently(db: Db): boolean {
  return db.engine === 'postgres';
}

/** Whether the engine keeps migration tables per schema (PostgreSQL's `search_path`). */
function hasSchemas(db: Db): boolean {
  return db.engine === 'postgres';
}

/**
 * Brings the schema up to the newest migration, and builds the indexes a bulk load that did
 * not finish left deferred.
 * @returns the names of the migrations applied by this call.
 * @throws the migration's error when one fails (nothing of it is kept).
 */
export async function migrate(db: Db): Promise<string[]> {
  const { error, results } = await (await migrator(db)).migrateToLatest();
  if (error) throw error;
  // A bulk load that died half way left indexes to build (db/deferred-indexes.ts).
  await restoreDeferredIndexes(db);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Asks the database one trivial question (`select 1`): resolves when it answers (`GET /readyz`, CONTRACT §11). @throws the driver's error when it does not. */
export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

/**
 * Names of the migrations this release has that the database has not applied yet: not
 * empty while an older release's schema is in place (`GET /readyz`, CONTRACT §11).
 */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const migrations = await (await migrator(db)).getMigrations();
  return migrations.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

async function migrator(db: Db): Promise<Migrator> {
  // On PostgreSQL, Kysely looks for its own migration tables in every schema: name ours, so
  // that installations sharing a database (schema=…) keep their own.
  const migrationTableSchema = hasSchemas(db)
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0].schema
    : undefined;
  return new Migrator({ db, provider: migrationProvider, migrationTableSchema });
}
