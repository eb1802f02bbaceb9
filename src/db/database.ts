/**
 * The database factory: the only module that knows which engine `DATABASE_URL` names.
 *
 * `sqlite:<path>` opens (and creates) an embedded SQLite file in WAL mode;
 * `postgres://…` is reserved for the PostgreSQL engine (not available in this build).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { migrationProvider } from './migrations/index.ts';
import type { Database } from './types.ts';

export type Db = Kysely<Database>;

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
    return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  }
  throw new Error(`Unsupported DATABASE_URL ${JSON.stringify(url.split('@').pop())}: only sqlite:<path> is available in this build`);
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
