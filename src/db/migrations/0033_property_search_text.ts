/**
 * 0033: listings searched in the console without case or accents, fast at 200,000 listings
 * (issue 47, CONTRACT §14, §23).
 *
 * - properties.search_text: the listing's reference, its title in every language it holds, its
 *   address, approximate address, city and postal code, lower case, decomposed (NFD) and without
 *   combining marks, one space between them (domain/search-text.ts `listingSearchText`), written
 *   with the listing; the existing listings are filled here, 500 at a time.
 * - SQLite: properties_fts, an FTS5 index of the trigrams of search_text over the properties
 *   table (external content, rowid = properties.id), kept in step by three triggers; a search of
 *   3 characters or more asks it which rows hold the text.
 * - PostgreSQL: the pg_trgm extension (created where it is missing) and a GIN index of the
 *   trigrams of search_text (properties_search_text_trgm), which `search_text LIKE '%…%'` uses.
 *   The extension goes into `public` where it can (shared by every installation of the database),
 *   else into this installation's schema.
 *   Where the extension cannot be created (no right to), the migration goes on without the
 *   index and says so on stderr: the search gives the same answers, slower on a big catalogue.
 *
 * Frozen; imports nothing from the app (the fold is copied here as it was).
 */
import { type Kysely, PostgresAdapter, sql } from 'kysely';

function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

const fold = (fields: Array<string | null>): string | null => {
  const held = fields.filter((f): f is string => typeof f === 'string' && f.trim() !== '');
  return held.length === 0
    ? null
    : held
        .join(' ')
        .toLowerCase()
        .normalize('NFD')
        .replace(/\p{M}+/gu, '');
};

interface Row {
  id: number;
  external_ref: string;
  title: string | null;
  titles: string | null;
  address: string | null;
  address_approximate: string | null;
  city: string | null;
  postal_code: string | null;
}

const searchText = (row: Row): string | null => {
  const titles = new Set([row.title, ...(row.titles === null ? [] : Object.values(JSON.parse(row.titles) as Record<string, string>))]);
  return fold([row.external_ref, ...titles, row.address, row.address_approximate, row.city, row.postal_code]);
};

/** Rows per batch: two parameters each stays far below both engines' bind limits. */
const BATCH = 500;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await sql`alter table properties add column search_text text`.execute(db);
  for (let after = 0; ;) {
    const rows: Row[] = await db
      .selectFrom('properties')
      .select(['id', 'external_ref', 'title', 'titles', 'address', 'address_approximate', 'city', 'postal_code'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) break;
    // One statement per batch; `cast` gives PostgreSQL the types of the values' columns.
    const values = rows.map((row) => sql`(cast(${row.id} as integer), cast(${searchText(row)} as text))`);
    await sql`update properties set search_text = v.column2 from (values ${sql.join(values)}) as v
      where properties.id = v.column1`.execute(db);
    after = rows[rows.length - 1].id;
  }
  if (!postgres) {
    await sql`create virtual table properties_fts using fts5(
      search_text, content = 'properties', content_rowid = 'id', tokenize = 'trigram'
    )`.execute(db);
    await sql`create trigger properties_fts_insert after insert on properties begin
      insert into properties_fts (rowid, search_text) values (new.id, new.search_text);
    end`.execute(db);
    await sql`create trigger properties_fts_delete after delete on properties begin
      insert into properties_fts (properties_fts, rowid, search_text) values ('delete', old.id, old.search_text);
    end`.execute(db);
    await sql`create trigger properties_fts_update after update of search_text on properties
      when old.search_text is not new.search_text begin
      insert into properties_fts (properties_fts, rowid, search_text) values ('delete', old.id, old.search_text);
      insert into properties_fts (rowid, search_text) values (new.id, new.search_text);
    end`.execute(db);
    await sql`insert into properties_fts (properties_fts) values ('rebuild')`.execute(db);
    return;
  }
  // Created in `public` where it can be, so that dropping one installation's schema of a shared
  // database (DATABASE_URL=…?schema=) drops it from none of the others; else in this schema.
  // A failed statement would end the migration's transaction: each attempt has a savepoint.
  let failure: unknown = null;
  for (const where of [sql` schema public`, sql``]) {
    await sql`savepoint pg_trgm`.execute(db);
    try {
      await sql`create extension if not exists pg_trgm${where}`.execute(db);
      await sql`release savepoint pg_trgm`.execute(db);
      failure = null;
      break;
    } catch (error) {
      await sql`rollback to savepoint pg_trgm`.execute(db);
      failure = error;
    }
  }
  if (failure !== null) {
    const code = (failure as { code?: unknown }).code;
    process.stderr.write(
      `warning: migration 0033: the PostgreSQL extension pg_trgm could not be created (${typeof code === 'string' ? code : 'error'}); ` +
        'the console searches listings without its index, slower on a big catalogue\n',
    );
    return;
  }
  // The extension may live in another schema than this installation's (DATABASE_URL=…?schema=):
  // its operator class is named with its schema.
  const { rows } = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e
    join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
  await sql`create index properties_search_text_trgm on properties using gin (search_text ${sql.id(rows[0].schema, 'gin_trgm_ops')})`.execute(
    db,
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop index if exists properties_search_text_trgm`.execute(db);
  } else {
    for (const trigger of ['properties_fts_insert', 'properties_fts_delete', 'properties_fts_update'])
      await sql`drop trigger ${sql.id(trigger)}`.execute(db);
    await sql`drop table properties_fts`.execute(db);
  }
  await sql`alter table properties drop column search_text`.execute(db);
}
