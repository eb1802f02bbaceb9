/**
 * Test databases and what goes in them: a new database per test file on the engine of this
 * process (a SQLite file in a temp folder, or a PostgreSQL schema of this run), businesses
 * and keys, catalogue fixtures, the real catalogues of ../shared/data, and a snapshot of every
 * table to prove a request changed nothing.
 */
import { sql } from 'kysely';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createDb, migrate, type Db } from '../../src/db/database.ts';
import { insertBusiness } from '../../src/db/repositories/businesses.ts';
import { SCOPES, type Scope } from '../../src/domain/api-key.ts';
import { nowRfc3339 } from '../../src/domain/time.ts';
import { createApiKey } from '../../src/services/api-keys.ts';
import { importCatalogueLines, type ImportSummary } from '../../src/services/catalogue-import.ts';

/** The engine this test process runs on (vitest.config.ts runs every file once per engine). */
export const ENGINE: 'sqlite' | 'postgres' = process.env.INMO_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

let schemas = 0;

/**
 * A new, empty database URL on this process's engine: a SQLite file in a new temp folder, or
 * a new PostgreSQL schema of this run (dropped when the run ends, test/global-setup.ts).
 */
export async function freshDatabaseUrl(): Promise<string> {
  if (ENGINE === 'sqlite') return `sqlite:${join(mkdtempSync(join(tmpdir(), 'inmo-test-')), 'inmo.db')}`;
  const base = process.env.INMO_TEST_POSTGRES_URL!;
  const schema = `inmo_test_${process.env.INMO_TEST_RUN ?? 'local'}_${process.pid}_${++schemas}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`create schema "${schema}"`);
  } finally {
    await admin.end();
  }
  return `${base}${base.includes('?') ? '&' : '?'}schema=${schema}`;
}

/** A new, migrated database on this process's engine; `path` is the SQLite file (null on PostgreSQL). */
export async function freshDb(): Promise<{ db: Db; path: string | null; url: string }> {
  const url = await freshDatabaseUrl();
  const db = createDb(url);
  await migrate(db);
  return { db, path: url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : null, url };
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
 * nothing. On PostgreSQL only the tables of this database's own schema: the introspection sees
 * every schema, those of other test runs (and other versions of the code) too.
 */
export async function snapshot(db: Db): Promise<string> {
  const own =
    db.engine === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0].schema : undefined;
  const tables = (await db.introspection.getTables())
    .filter((t) => own === undefined || t.schema === own)
    .map((t) => t.name)
    .sort();
  // A snapshot of nothing would prove nothing.
  if (!tables.includes('leads') || !tables.includes('events'))
    throw new Error(`snapshot: the database's tables were not found (${tables.join(', ')})`);
  const out: Record<string, unknown> = {};
  for (const t of tables)
    out[t] = await db
      .selectFrom(t as 'leads')
      .selectAll()
      .execute();
  return JSON.stringify(out);
}

/** The shared real catalogues (../shared/data). */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SHARED_DATA = join(REPO_ROOT, '..', 'shared', 'data');
export const CATALOGUES = ['catalogue-madrid-sale.ndjson', 'catalogue-zaragoza-rent.ndjson', 'catalogue-zaragoza-sale.ndjson'].map((f) =>
  join(SHARED_DATA, f),
);
export function readCatalogue(path: string): Array<Record<string, any>> {
  statSync(path);
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}
