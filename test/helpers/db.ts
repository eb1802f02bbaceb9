/**
 * Test databases and what goes in them: a new database per test file on the engine of this
 * process (a SQLite file in a temp folder, or a PostgreSQL database of this run), businesses
 * and keys, catalogue fixtures, a sample of the real catalogues (test/fixtures/catalogues), and a snapshot of every
 * table to prove a request changed nothing.
 */
import { sql } from 'kysely';
import { copyFileSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDb, loadPg, migrate, type Db } from '../../src/db/database.ts';
import { insertBusiness } from '../../src/db/repositories/businesses.ts';
import { SCOPES, type Scope } from '../../src/domain/access/api-key.ts';
import { nowRfc3339 } from '../../src/domain/time.ts';
import { createApiKey } from '../../src/services/access/api-keys.ts';
import { importCatalogueLines, type ImportSummary } from '../../src/services/catalogue/import/import.ts';

/** The engine this test process runs on (vitest.config.ts runs every file once per engine). */
export const ENGINE: 'sqlite' | 'postgres' = process.env.INMO_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

let databases = 0;

/**
 * A new, empty database URL on this process's engine: a SQLite file in a new temp folder, or
 * a new PostgreSQL database of this run (`inmo_test_<run>_<pid>_<n>`, dropped when the run
 * ends, test/global-setup.ts).
 * @param template on PostgreSQL, the database to copy (default: PostgreSQL's empty `template1`).
 */
export async function freshDatabaseUrl(template?: string): Promise<string> {
  if (ENGINE === 'sqlite') return `sqlite:${join(mkdtempSync(join(tmpdir(), 'inmo-test-')), 'inmo.db')}`;
  const base = process.env.INMO_TEST_POSTGRES_URL!;
  const name = `inmo_test_${process.env.INMO_TEST_RUN ?? 'local'}_${process.pid}_${++databases}`;
  const admin = new (loadPg().Client)({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"${template ? ` template "${template}"` : ''}`);
  } finally {
    await admin.end();
  }
  return postgresUrlOf(base, name);
}

/** `base` (a PostgreSQL URL) pointed at the database `name`, its other parts kept. */
export function postgresUrlOf(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A new, migrated database on this process's engine, copied from the run's migrated template
 * (test/global-setup.ts) rather than migrated again: a file copy on SQLite, `create database …
 * template` on PostgreSQL. `path` is the SQLite file (null on PostgreSQL).
 */
export async function freshDb(): Promise<{ db: Db; path: string | null; url: string }> {
  const template = ENGINE === 'sqlite' ? process.env.INMO_TEST_SQLITE_TEMPLATE : process.env.INMO_TEST_POSTGRES_TEMPLATE;
  let url: string;
  if (ENGINE === 'sqlite' && template) {
    url = await freshDatabaseUrl();
    copyFileSync(template, url.slice('sqlite:'.length));
  } else url = await freshDatabaseUrl(template);
  const db = createDb(url);
  // Without a template (a test file run outside vitest's global setup) this migrates; with one it
  // only checks that the copy is at the newest migration.
  await migrate(db);
  return { db, path: url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : null, url };
}

/**
 * A business row written with the columns every migration has (name, created_at), for tests
 * that stop the schema at an earlier migration, where the repository's insert would name
 * columns that do not exist yet.
 */
export async function insertBusinessAtAnyMigration(db: Db, name: string): Promise<{ id: number }> {
  return db.insertInto('businesses').values({ name, created_at: nowRfc3339() }).returning('id').executeTakeFirstOrThrow();
}

/** A business and a key for it (all scopes unless given). */
export async function businessWithKey(db: Db, name = 'Inmobiliaria Test', scopes: Scope[] = [...SCOPES]) {
  const business = await insertBusiness(db, name, nowRfc3339());
  const key = await createApiKey(db, { businessId: business.id, scopes });
  return { businessId: business.id, key: key.key, keyId: key.key_id };
}

/** Imports records (objects or raw lines) into a business. */
export async function importRecords(db: Db, businessId: number, records: Array<object | string>): Promise<ImportSummary> {
  return importCatalogueLines(
    db,
    businessId,
    records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))),
  );
}

/** The id of the listing with this external ref (of any business). */
export async function propertyId(db: Db, ref: string): Promise<number> {
  return (await db.selectFrom('properties').select('id').where('external_ref', '=', ref).executeTakeFirstOrThrow()).id;
}

/** Removes every lead with its notes, jobs and background results (between tests of one file). */
export async function clearLeads(db: Db): Promise<void> {
  await db.deleteFrom('jobs').execute();
  for (const table of ['lead_matches', 'lead_match_runs', 'messages', 'conversations', 'webhook_events', 'follow_ups'] as const)
    await db.deleteFrom(table).execute();
  await db.deleteFrom('lead_notes').execute();
  await db.deleteFrom('leads').execute();
}

/** A listable property in the import format; override any field. */
export function listing(ref: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_ref: ref,
    public: true,
    status: 'disponible',
    operation: 'venta',
    type: 'apartamento',
    subtype: 'piso',
    title: `Piso ${ref}`,
    description: '<p>Bonito piso</p>',
    price: 100000,
    size_total: 80,
    bedrooms: 2,
    bathrooms: 1,
    address: 'Calle Mayor 1, Madrid',
    address_approximate: 'Centro, Madrid',
    postal_code: '28013',
    city: 'Madrid',
    province: 'Madrid',
    country: 'España',
    lat: 40.4165123,
    lon: -3.7055456,
    address_privacy: 'public',
    images: [],
    videos: [],
    features: [],
    specs: {},
    is_featured: false,
    created_at: '2026-01-01T10:00:00+00:00',
    updated_at: '2026-01-02T10:00:00+00:00',
    ...overrides,
  };
}

/**
 * Snapshot of every table's rows (every table the migrations made), to prove a request changed
 * nothing. On PostgreSQL only the tables of the connection's own schema (a database may hold
 * other schemas: `DATABASE_URL=…?schema=`). `except`: tables left out, for a request that may
 * write only to them (a known person's request kept as an interaction, CONTRACT §22).
 */
export async function snapshot(db: Db, except: readonly string[] = []): Promise<string> {
  const out: Record<string, unknown> = {};
  for (const t of (await tablesOf(db)).filter((name) => !except.includes(name)))
    out[t] = await db
      .selectFrom(t as 'leads')
      .selectAll()
      .execute();
  return JSON.stringify(out);
}

const tableLists = new WeakMap<Db, Promise<string[]>>();

/** The tables of `db`, read once per handle: the schema does not change under a test. */
function tablesOf(db: Db): Promise<string[]> {
  let tables = tableLists.get(db);
  if (!tables) {
    tables = readTables(db);
    tableLists.set(db, tables);
  }
  return tables;
}

async function readTables(db: Db): Promise<string[]> {
  const own =
    db.engine === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0].schema : undefined;
  const tables = (await db.introspection.getTables())
    .filter((t) => own === undefined || t.schema === own)
    .map((t) => t.name)
    .sort();
  // A snapshot of nothing would prove nothing.
  if (!tables.includes('leads') || !tables.includes('events'))
    throw new Error(`snapshot: the database's tables were not found (${tables.join(', ')})`);
  return tables;
}

/** What a request about a known person may write (CONTRACT §22): its interaction, the consent it carried, the event saying so. */
export const INTERACTION_TABLES = ['lead_interactions', 'lead_consents', 'events'] as const;

/** The repository's root folder. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * A sample of the three real catalogues (test/fixtures/catalogues/README.md says its source and
 * how it was drawn); the full catalogues are for the benchmarks (`INMO_BENCH_DATA`).
 */
export const SAMPLE_CATALOGUES = join(REPO_ROOT, 'test', 'fixtures', 'catalogues');
export const CATALOGUES = ['catalogue-madrid-sale.ndjson', 'catalogue-zaragoza-rent.ndjson', 'catalogue-zaragoza-sale.ndjson'].map((f) =>
  join(SAMPLE_CATALOGUES, f),
);
export function readCatalogue(path: string): Array<Record<string, any>> {
  statSync(path);
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}
