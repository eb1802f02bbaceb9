/**
 * `npm run bench -- --db postgres` (issue 5): the read and ingest benchmarks on PostgreSQL
 * side by side with SQLite, in the same run, with one and with two API processes
 * (`inmo serve --no-worker`; two processes share the connections, one wrk process each). Load
 * comes from wrk on CPU 1 (bench/wrk.ts); the API processes share CPU 0, so two processes show
 * what sharing one database costs, not what a second core adds.
 *
 * Reads: scenarios (a), (b), (c) of bench/run.ts on the real 20k catalogue and the generated
 * 200k one, each against the bare node:http baseline returning the same bytes. Ingest:
 * POST /leads/ingest with distinct phones into a fresh database per configuration.
 * PostgreSQL databases are schemas `inmo_bench_*` of the database `INMO_BENCH_POSTGRES_URL`
 * names (default postgres://postgres@127.0.0.1:5432/test), built on first use and reused
 * (rebuilt with `--fresh`).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createDb, migrate } from '../src/db/database.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { SCOPES } from '../src/domain/access/api-key.ts';
import { nowRfc3339 } from '../src/domain/time.ts';
import { createApiKey } from '../src/services/access/api-keys.ts';
import { importCatalogueFile } from '../src/services/catalogue/import/import.ts';
import { startProcess, stop } from './processes.ts';
import type { LoadFn } from './reads.ts';
import type { Load } from './wrk.ts';

export const POSTGRES_URL = process.env.INMO_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A database ready to serve: its URL and a key with every scope. */
export interface BenchDatabase {
  name: string;
  url: string;
  key: string;
  importRate: number | null;
}

const schemaUrl = (schema: string) => `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`;

async function adminQuery(text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * A new empty PostgreSQL schema `inmo_bench_<name>` (dropped first if it exists).
 * @returns its `DATABASE_URL`, or null when the server does not answer.
 */
export async function emptyPostgresSchema(name: string): Promise<string | null> {
  const schema = `inmo_bench_${name.replace(/[^a-z0-9]/g, '_')}`;
  try {
    await adminQuery(`drop schema if exists "${schema}" cascade`);
    await adminQuery(`create schema "${schema}"`);
  } catch {
    return null;
  }
  return schemaUrl(schema);
}

/** Builds (or reuses) a PostgreSQL schema with one business, a key and the catalogue files. */
export async function preparePostgres(work: string, name: string, files: string[], fresh: boolean): Promise<BenchDatabase> {
  const schema = `inmo_bench_${name.replace(/[^a-z0-9]/g, '_')}`;
  const keyPath = join(work, `pg-${name}.key`);
  const exists = (await adminQuery(`select 1 from pg_namespace where nspname = '${schema}'`)).rowCount === 1;
  if (!fresh && exists && existsSync(keyPath))
    return { name, url: schemaUrl(schema), key: readFileSync(keyPath, 'utf8'), importRate: null };
  await adminQuery(`drop schema if exists "${schema}" cascade`);
  await adminQuery(`create schema "${schema}"`);
  const db = createDb(schemaUrl(schema));
  try {
    await migrate(db);
    const business = await insertBusiness(db, `Bench ${name}`, nowRfc3339());
    const started = performance.now();
    let imported = 0;
    for (const file of files) {
      const summary = await importCatalogueFile(db, business.id, file);
      imported += summary.created + summary.updated;
    }
    const importRate = imported / ((performance.now() - started) / 1000);
    const { key } = await createApiKey(db, { businessId: business.id, scopes: [...SCOPES] });
    writeFileSync(keyPath, key);
    return { name, url: schemaUrl(schema), key, importRate };
  } finally {
    await db.destroy();
  }
}

/** A fresh empty database for the ingest runs: a SQLite file or a PostgreSQL schema. */
async function freshIngestDatabase(work: string, engine: 'sqlite' | 'postgres', tag: string): Promise<{ url: string; key: string }> {
  let url: string;
  if (engine === 'sqlite') {
    url = `sqlite:${join(work, `ingest-${tag}.db`)}`;
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${url.slice('sqlite:'.length)}${suffix}`, { force: true });
  } else {
    const schema = `inmo_bench_ingest_${tag}`;
    await adminQuery(`drop schema if exists "${schema}" cascade`);
    await adminQuery(`create schema "${schema}"`);
    url = schemaUrl(schema);
  }
  const db = createDb(url);
  try {
    await migrate(db);
    const { id } = await insertBusiness(db, 'Bench ingest', nowRfc3339());
    const { key } = await createApiKey(db, { businessId: id, scopes: [...SCOPES] });
    return { url, key };
  } finally {
    await db.destroy();
  }
}

/** Starts `count` API processes (no worker) on one database. */
async function apis(bin: string, url: string, count: number) {
  const env = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' };
  return Promise.all(
    Array.from({ length: count }, () => startProcess([bin, 'serve', '--no-worker', '--port', '0', '--json'], env, process.cwd())),
  );
}

/**
 * Loads the URLs together with wrk, one wrk process each, the connections split between them
 * (`scriptArgs(i)`: the Lua script's arguments for the i-th); req/s summed, latencies the worst.
 */
async function loadAll(
  load: LoadFn,
  urls: string[],
  headers: Record<string, string>,
  connections: number,
  options: { duration?: number; script?: string; scriptArgs?: (i: number) => string[] } = {},
): Promise<Load> {
  const results = await Promise.all(
    urls.map((url, i) =>
      load(url, headers, {
        duration: options.duration,
        connections: Math.max(1, Math.floor(connections / urls.length)),
        script: options.script,
        scriptArgs: options.scriptArgs?.(i),
      }),
    ),
  );
  return {
    rps: results.reduce((sum, r) => sum + r.rps, 0),
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    generatorCpu: Math.max(...results.map((r) => r.generatorCpu)),
    serverCpuUs: NaN,
  };
}

const fmt = (n: number, d = 0) => n.toFixed(d).padStart(8);

/**
 * The side-by-side runs.
 * @param catalogues SQLite and PostgreSQL databases of each catalogue.
 * @returns printable lines.
 */
export async function engineBench(options: {
  work: string;
  bin: string;
  baselineServer: string;
  catalogues: Array<{ sqlite: BenchDatabase; postgres: BenchDatabase }>;
  scenarios: Array<[string, string]>;
  /** wrk, pinned (bench/run.ts). */
  load: LoadFn;
  /** The Lua script that posts leads with distinct phones (bench/post-leads.lua). */
  postScript: string;
  connections: number;
  duration: number;
}): Promise<string[]> {
  const { work, bin, connections, duration, load } = options;
  const lines = [
    '',
    `SQLite vs PostgreSQL, GET /v1/ext/properties, ${connections} connections, one ${duration} s run each (after a 2 s warm-up); API processes run --no-worker`,
    `${'catalogue'.padEnd(15)} ${'scenario'.padEnd(36)} ${'engine'.padEnd(14)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'base r/s'.padStart(8)} ${'ratio'.padStart(8)} errors`,
  ];
  for (const { sqlite, postgres } of options.catalogues) {
    for (const [scenario, path] of options.scenarios) {
      const configs: Array<[string, BenchDatabase, number]> = [
        ['sqlite ×1', sqlite, 1],
        ['sqlite ×2', sqlite, 2],
        ['postgres ×1', postgres, 1],
        ['postgres ×2', postgres, 2],
      ];
      let baseline: Load | null = null;
      for (const [label, database, count] of configs) {
        const servers = await apis(bin, database.url, count);
        try {
          const urls = servers.map((s) => `${new URL(String(s.info.url)).origin}${path}`);
          const headers = { 'x-api-key': database.key };
          if (baseline === null) {
            const response = await fetch(urls[0], { headers });
            const bodyFile = join(work, 'baseline-body.json');
            writeFileSync(bodyFile, Buffer.from(await response.arrayBuffer()));
            const base = await startProcess([options.baselineServer, bodyFile], process.env, process.cwd());
            try {
              const baseUrl = `http://127.0.0.1:${base.info.port}${path}`;
              await loadAll(load, [baseUrl], headers, connections, { duration: 2 });
              baseline = await loadAll(load, [baseUrl], headers, connections);
            } finally {
              await stop(base.child);
            }
          }
          await loadAll(load, urls, headers, connections, { duration: 2 });
          const result = await loadAll(load, urls, headers, connections);
          lines.push(
            `${database.name.padEnd(15)} ${scenario.padEnd(36)} ${label.padEnd(14)} ${fmt(result.rps)} ${fmt(result.p50, 1)} ${fmt(result.p99, 1)} ${fmt(baseline.rps)} ${fmt(result.rps / baseline.rps, 2)} ${result.errors + result.non2xx}`,
          );
          process.stderr.write(`  ${database.name} ${scenario} ${label}: ${result.rps.toFixed(0)} req/s\n`);
        } finally {
          await Promise.all(servers.map((s) => stop(s.child)));
        }
      }
    }
  }

  lines.push(
    '',
    `SQLite vs PostgreSQL, POST /leads/ingest, ${connections} connections, ${duration} s, distinct phones, a fresh database each`,
    `${'engine'.padEnd(14)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'leads'.padStart(8)} errors`,
  );
  for (const [label, engine, count] of [
    ['sqlite ×1', 'sqlite', 1],
    ['sqlite ×2', 'sqlite', 2],
    ['postgres ×1', 'postgres', 1],
    ['postgres ×2', 'postgres', 2],
  ] as const) {
    const { url, key } = await freshIngestDatabase(work, engine, `${engine}${count}`);
    const servers = await apis(bin, url, count);
    try {
      // Each wrk process numbers its phones with its own digit: distinct in this fresh database.
      const result = await loadAll(
        load,
        servers.map((s) => `${String(s.info.url)}/leads/ingest`),
        { 'x-api-key': key },
        connections,
        { script: options.postScript, scriptArgs: (i) => ['ingest', String(i + 1)] },
      );
      const db = createDb(url);
      const leads = await db
        .selectFrom('leads')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      await db.destroy();
      lines.push(
        `${label.padEnd(14)} ${fmt(result.rps)} ${fmt(result.p50, 1)} ${fmt(result.p99, 1)} ${String(leads.n).padStart(8)} ${result.errors + result.non2xx}`,
      );
      process.stderr.write(`  ingest ${label}: ${result.rps.toFixed(0)} req/s\n`);
    } finally {
      await Promise.all(servers.map((s) => stop(s.child)));
    }
  }
  return lines;
}
