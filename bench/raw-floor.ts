/**
 * The honest floor of an uncached read (issue 14): the SQL statement inmo runs for a page,
 * recorded once here, then run by bench/baseline-sqlite.mjs on a raw better-sqlite3
 * connection for every request, with the same rows made into the same bytes. What inmo adds
 * above that is its own cost; the statement's cost is SQLite's.
 */
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type { Db } from '../src/db/database.ts';
import SQLite from '../src/db/sqlite-binding.ts';
import type { Database } from '../src/db/types.ts';
import type { PropertyQuery } from '../src/domain/catalogue/property-query.ts';
import { CatalogueReader } from '../src/services/catalogue/published.ts';

/** The statement that returns a page's rows, its parameters, and the page's `total`. */
export interface RecordedPage {
  sql: string;
  params: unknown[];
  total: number;
  limit: number;
  offset: number;
}

/**
 * Runs `q` through inmo's own catalogue reader (no caches) on `dbPath`, recording each
 * statement, and returns the one that read the documents (`api_doc`).
 * @throws Error when no such statement ran (the page was empty).
 */
export async function recordPageQuery(dbPath: string, q: PropertyQuery): Promise<RecordedPage> {
  const sqlite = new SQLite(dbPath, { readonly: true });
  const statements: Array<{ sql: string; params: unknown[] }> = [];
  const recording: SqliteDatabase = {
    close: () => sqlite.close(),
    prepare: (text: string) => {
      const statement = sqlite.prepare(text);
      return {
        reader: statement.reader,
        all: (params: ReadonlyArray<unknown>) => {
          statements.push({ sql: text, params: [...params] });
          return statement.all(...params);
        },
        run: (params: ReadonlyArray<unknown>) => statement.run(...params),
        iterate: (params: ReadonlyArray<unknown>) => statement.iterate(...params),
      } as unknown as SqliteStatement;
    },
  };
  const db = Object.assign(new Kysely<Database>({ dialect: new SqliteDialect({ database: recording }) }), {
    engine: 'sqlite' as const,
  }) as Db;
  try {
    const business = sqlite.prepare('select id, catalogue_version from businesses order by id limit 1').get() as {
      id: number;
      catalogue_version: number;
    };
    const body = await new CatalogueReader(db, 0, 0).listPage(business.id, business.catalogue_version, q);
    const page = statements.find((s) => s.sql.includes('api_doc'));
    if (!page) throw new Error('the page is empty: no statement read documents');
    return { ...page, total: JSON.parse(body.toString()).total as number, limit: q.limit, offset: q.offset };
  } finally {
    await db.destroy();
  }
}
