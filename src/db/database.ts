/**
 * The database factory: the only module that knows which engine `DATABASE_URL` names.
 *
 * `sqlite:<path>` opens (and creates) an embedded SQLite file in WAL mode;
 * `postgres://…` is reserved for the PostgreSQL engine (not available in this build).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { LRUCache } from 'lru-cache';
import { migrationProvider } from './migrations/index.ts';
import type { Database } from './types.ts';

export type Db = Kysely<Database>;

/** Prepared statements kept per connection (by SQL text). */
const STATEMENT_CACHE_SIZE = 500;

/**
 * better-sqlite3 compiles a statement on every `prepare`, and Kysely prepares every query it
 * runs; compiling the same SQL again cost more than running it. This keeps compiled
 * statements by SQL text (least recently used out first).
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const cache = new LRUCache<string, SQLite.Statement>({ max: STATEMENT_CACHE_SIZE });
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

/**
 * Opens the database named by `url`.
 * @throws Error for an unsupported URL.
 */
export function createDb(url: string): Db {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length) || ':memory:';
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const sqlite = new SQLite(path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 10000');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('cache_size = -65536');
    return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  }
  throw new Error(`Unsupported DATABASE_URL ${JSON.stringify(url.split('@').pop())}: only sqlite:<path> is available in this build`);
}

/** Whether the engine can lock rows and skip locked ones (`FOR UPDATE SKIP LOCKED`): PostgreSQL. */
export function locksRows(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter.constructor.name === 'PostgresAdapter';
}

/**
 * Brings the schema up to the newest migration.
 * @returns the names of the migrations applied by this call.
 * @throws the migration's error when one fails (nothing of it is kept).
 */
export async function migrate(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
