/** Shared test set-up: real SQLite files in a temp folder, the app built on them, fixtures. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.ts';
import { createDb, migrate, type Db } from '../src/db/database.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { SCOPES, type Scope } from '../src/domain/api-key.ts';
import { nowRfc3339 } from '../src/domain/time.ts';
import { createApiKey } from '../src/services/api-keys.ts';
import { importCatalogueLines, type ImportSummary } from '../src/services/catalogue-import.ts';

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

/** The app as `inmo serve` builds it: count and page caches on. */
export async function appOn(db: Db): Promise<FastifyInstance> {
  return buildApp({ db, countCacheSize: 2000, pageCacheMb: 8 });
}

/** Status, body (JSON when it parses, else text) and headers of an injected response. */
function outcome(response: LightMyRequestResponse) {
  let body: unknown;
  try {
    body = response.json();
  } catch {
    body = response.body;
  }
  return { status: response.statusCode, body: body as any, headers: response.headers };
}

/** GET with a key; returns status, parsed body and headers. */
export async function get(app: FastifyInstance, url: string, key?: string, headers: Record<string, string> = {}) {
  return outcome(await app.inject({ method: 'GET', url: `/v1/ext${url}`, headers: key ? { 'x-api-key': key, ...headers } : headers }));
}

/** Removes every lead with its notes, jobs and background results (between tests of one file). */
export async function clearLeads(db: Db): Promise<void> {
  await db.deleteFrom('jobs').execute();
  for (const table of ['lead_matches', 'lead_match_runs', 'lead_messages', 'follow_ups'] as const) await db.deleteFrom(table).execute();
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

/** Snapshot of every table's rows, to prove a request changed nothing. */
export async function snapshot(db: Db): Promise<string> {
  const tables = [
    'businesses',
    'api_keys',
    'properties',
    'property_docs',
    'property_images',
    'property_videos',
    'leads',
    'lead_notes',
    'jobs',
    'lead_matches',
    'lead_match_runs',
    'channels',
    'lead_messages',
    'follow_up_rules',
    'follow_ups',
  ] as const;
  const out: Record<string, unknown> = {};
  for (const t of tables) out[t] = await db.selectFrom(t).selectAll().execute();
  return JSON.stringify(out);
}

/** The shared real catalogues (../shared/data). */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
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

/** POST a JSON body (or raw text) with a key; returns status, parsed body and headers. */
export async function post(
  app: FastifyInstance,
  url: string,
  key: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return outcome(
    await app.inject({
      method: 'POST',
      url: `/v1/ext${url}`,
      headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}), ...headers },
      payload,
    }),
  );
}

const run = promisify(execFile);

/** The `inmo` entry point. */
export const BIN = join(REPO_ROOT, 'bin', 'inmo.mjs');

/** Runs `inmo ARGS…` as a child process; `json` is stdout parsed when it is JSON. */
export async function inmo(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number; json: any; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env, cwd: REPO_ROOT });
    return { code: 0, json: safeJson(stdout), stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, json: safeJson(e.stdout), stdout: e.stdout, stderr: e.stderr };
  }
}
function safeJson(text: string) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A running `inmo serve` child process. */
export interface Served {
  child: ChildProcess;
  /** The summary it printed (`url`, `docs`, and the demo's key when seeded). */
  info: Record<string, any>;
  /** The API base, `http://127.0.0.1:PORT/v1/ext`. */
  base: string;
  /** Resolves with the exit code when the process ends. */
  exited: Promise<number | null>;
  /** Everything it has written so far, stdout and stderr. */
  output: () => string;
  /** SIGTERM, then its exit code. */
  stop: () => Promise<number | null>;
}

/**
 * Starts `inmo serve ARGS… --port 0 --json` and resolves once it prints its summary: the JSON
 * line with a `url` (log lines are JSON too).
 */
export function startServe(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args, '--port', '0', '--json'], { env, cwd: REPO_ROOT });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let out = '';
  child.stderr.on('data', (chunk) => (out += chunk));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('{"url"'));
      if (!line) return;
      const info = JSON.parse(line) as Record<string, any>;
      const stop = async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        return exited;
      };
      resolve({ child, info, base: info.url as string, exited, output: () => out, stop });
    });
    void exited.then((code) => reject(new Error(`serve exited ${code} before listening: ${out}`)));
  });
}
