/**
 * `npm run bench -- --only scale [--listings N] [--db sqlite|postgres|both]` (issue 14,
 * "Scale"): the catalogue at 20k real listings and at N generated ones (default 1,000,000,
 * `generateCatalogue(N, 7)`), one business, on each engine.
 *
 * For each: the import (seconds, listings/s, bytes written, database size, their ratio), the
 * three pages (a)(b)(c) served cached and uncached (`INMO_PAGE_CACHE_MB=0`: every request
 * runs the page query; counts stay cached, keyed by catalogue version) with wrk at 32
 * connections, and on SQLite the raw floor of each uncached page (the same statement on a bare
 * server, bench/raw-floor.ts), the server's resident memory, and matching one lead (bench/background.ts).
 *
 * Bytes written: on SQLite, what the importing process (this one) sent to storage
 * (`write_bytes` of /proc/self/io: the WAL and its checkpoints); on PostgreSQL, the WAL the
 * import generated (`pg_current_wal_lsn`), the server's own write-ahead volume.
 *
 * A database is built once and reused with the figures of its import, kept beside it in
 * `.bench/scale-*.json`; `--fresh` builds it again.
 */
import { createWriteStream, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { createDb, migrate } from '../src/db/database.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { SCOPES } from '../src/domain/access/api-key.ts';
import { nowRfc3339 } from '../src/domain/time.ts';
import { generateCatalogue } from '../src/demo/catalogue-generator.ts';
import { createApiKey } from '../src/services/access/api-keys.ts';
import { importCatalogueFile } from '../src/services/catalogue/import/import.ts';
import { matchingBench } from './background.ts';
import { POSTGRES_URL } from './engines.ts';
import { startProcess, stop } from './processes.ts';
import { PAGES, type LoadFn } from './reads.ts';
import { recordPageQuery } from './raw-floor.ts';
import type { PropertyQuery } from '../src/domain/catalogue/property-query.ts';
import type { Load } from './wrk.ts';

export type ScaleEngine = 'sqlite' | 'postgres';

/** What the import of one catalogue did. */
interface ImportFigures {
  listings: number;
  seconds: number;
  /** Bytes written (see the module's note), and the database's size after, bytes. */
  written: number;
  size: number;
}

interface Built {
  engine: ScaleEngine;
  catalogue: string;
  url: string;
  key: string;
  figures: ImportFigures;
}

const writeBytes = () => Number(/write_bytes: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? NaN);

async function adminQuery<R extends pg.QueryResultRow>(text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

const schemaUrl = (schema: string) => `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`;

/** Builds (or reuses, with the figures of its build) one catalogue's database on one engine. */
async function build(work: string, engine: ScaleEngine, catalogue: string, files: string[], fresh: boolean): Promise<Built> {
  const tag = `scale-${engine}-${catalogue}`;
  const saved = join(work, `${tag}.json`);
  const url =
    engine === 'sqlite' ? `sqlite:${join(work, `${tag}.db`)}` : schemaUrl(`inmo_bench_${tag.toLowerCase().replace(/[^a-z0-9]/g, '_')}`);
  if (!fresh && existsSync(saved)) {
    const built = JSON.parse(readFileSync(saved, 'utf8')) as Built;
    if (built.url === url) return built;
  }
  if (engine === 'sqlite') {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${url.slice('sqlite:'.length)}${suffix}`, { force: true });
  } else {
    const schema = new URL(url).searchParams.get('schema')!;
    await adminQuery(`drop schema if exists "${schema}" cascade`);
    await adminQuery(`create schema "${schema}"`);
  }
  const db = createDb(url);
  try {
    await migrate(db);
    const business = await insertBusiness(db, `Bench ${catalogue}`, nowRfc3339());
    const walBefore = engine === 'postgres' ? await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(db) : null;
    const bytesBefore = writeBytes();
    const started = performance.now();
    let listings = 0;
    for (const file of files) {
      let last = 0;
      const summary = await importCatalogueFile(db, business.id, file, (lines, _bytes, stage) => {
        if (stage === 'indexing' || performance.now() - last > 15_000) {
          last = performance.now();
          process.stderr.write(
            `  ${engine} ${catalogue}: ${lines} lines, ${((last - started) / 1000).toFixed(0)} s${stage ? ', building the indexes' : ''}\n`,
          );
        }
      });
      listings += summary.created + summary.updated;
    }
    const seconds = (performance.now() - started) / 1000;
    let written: number;
    let size: number;
    if (engine === 'postgres') {
      const { rows } = await sql<{ wal: string; size: string }>`
        select pg_wal_lsn_diff(pg_current_wal_lsn(), ${walBefore!.rows[0].lsn}::pg_lsn)::bigint::text as wal,
               (select sum(pg_total_relation_size(c.oid))::bigint::text from pg_class c
                  join pg_namespace n on n.oid = c.relnamespace
                  where n.nspname = current_schema() and c.relkind in ('r', 't', 'm')) as size`.execute(db);
      written = Number(rows[0].wal);
      size = Number(rows[0].size);
    } else {
      written = writeBytes() - bytesBefore;
      const path = url.slice('sqlite:'.length);
      size = ['', '-wal'].reduce((sum, suffix) => sum + (existsSync(path + suffix) ? statSync(path + suffix).size : 0), 0);
    }
    const { key } = await createApiKey(db, { businessId: business.id, scopes: [...SCOPES] });
    const built: Built = { engine, catalogue, url, key, figures: { listings, seconds, written, size } };
    writeFileSync(saved, JSON.stringify(built));
    return built;
  } finally {
    await db.destroy();
  }
}

/** `count` generated listings in the import format, written once to `.bench/generated-<count>.ndjson`. */
async function generatedFile(work: string, count: number, fresh: boolean): Promise<string> {
  const file = join(work, `generated-${count}.ndjson`);
  if (fresh || !existsSync(file)) {
    const out = createWriteStream(file);
    for (const record of generateCatalogue(count, 7, 'bench')) {
      if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain');
    }
    await new Promise((resolve) => out.end(resolve));
  }
  return file;
}

/** Resident memory of a process now and at its peak, MB (Linux /proc). */
function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

interface PageRow {
  page: string;
  cached: Load;
  uncached: Load;
  /** SQLite: the raw floor of the uncached page (bench/raw-floor.ts), the same statement on a bare server. */
  floor: Load | null;
}

/** Serves `built` twice (page cache on and off, request logs off) and loads the three pages on each. */
async function pages(
  root: string,
  work: string,
  built: Built,
  load: LoadFn,
): Promise<{ rows: PageRow[]; memory: { cached: { rss: number; peak: number }; uncached: { rss: number; peak: number } } }> {
  const serve = (pageCache: boolean) =>
    startProcess(
      [join(root, 'bin', 'inmo.mjs'), 'serve', '--no-worker', '--port', '0', '--json'],
      { ...process.env, DATABASE_URL: built.url, LOG_LEVEL: 'warn', ...(pageCache ? {} : { INMO_PAGE_CACHE_MB: '0' }) },
      root,
    );
  const cached = await serve(true);
  const uncached = await serve(false);
  try {
    const headers = { 'x-api-key': built.key };
    const rows: PageRow[] = [];
    for (const [page, path, query] of PAGES) {
      const runs: Load[] = [];
      for (const server of [cached, uncached]) {
        const url = new URL(String(server.info.url)).origin + path;
        const response = await fetch(url, { headers });
        if (response.status !== 200) throw new Error(`${page}: status ${response.status} ${await response.text()}`);
        await load(url, headers, { duration: 2 }); // warm-up
        runs.push(await load(url, headers));
      }
      const floor = built.engine === 'sqlite' ? await rawFloor(root, work, built.url.slice('sqlite:'.length), path, query, load) : null;
      rows.push({ page, cached: runs[0], uncached: runs[1], floor });
      process.stderr.write(
        `  ${built.engine} ${built.catalogue} ${page}: cached ${runs[0].rps.toFixed(0)} req/s, uncached ${runs[1].rps.toFixed(0)} req/s p99 ${runs[1].p99.toFixed(1)} ms${floor ? `, raw floor ${floor.rps.toFixed(0)} req/s p99 ${floor.p99.toFixed(1)} ms` : ''}\n`,
      );
    }
    return { rows, memory: { cached: memoryMb(cached.child.pid!), uncached: memoryMb(uncached.child.pid!) } };
  } finally {
    await stop(cached.child);
    await stop(uncached.child);
  }
}

/** The raw SQLite floor of an uncached page (bench/raw-floor.ts) under the same load, after the same warm-up. */
async function rawFloor(root: string, work: string, dbPath: string, path: string, query: PropertyQuery, load: LoadFn): Promise<Load> {
  const pageFile = join(work, 'scale-floor-page.json');
  writeFileSync(pageFile, JSON.stringify(await recordPageQuery(dbPath, query)));
  const floor = await startProcess([join(root, 'bench', 'baseline-sqlite.mjs'), dbPath, pageFile], process.env, root);
  try {
    const url = `http://127.0.0.1:${String(floor.info.port)}${path}`;
    await load(url, {}, { duration: 2 });
    return await load(url, {});
  } finally {
    await stop(floor.child);
  }
}

/**
 * Runs the scale benchmark.
 * @param realFiles the real catalogues (`INMO_BENCH_DATA`, by default ../shared/data); `listings`: size of the generated one.
 * @returns the printable report.
 */
export async function scaleBench(options: {
  root: string;
  work: string;
  realFiles: string[];
  listings: number;
  engines: ScaleEngine[];
  fresh: boolean;
  load: LoadFn;
  connections: number;
  duration: number;
}): Promise<string[]> {
  const { root, work, realFiles, listings, engines, fresh, load } = options;
  const big = `generated-${listings >= 1e6 && listings % 1e6 === 0 ? `${listings / 1e6}M` : `${Math.round(listings / 1000)}k`}`;
  const bigFile = await generatedFile(work, listings, fresh);
  const results: Array<{ built: Built; pages: Awaited<ReturnType<typeof pages>>; matching: string[] }> = [];
  for (const engine of engines) {
    for (const [catalogue, files] of [
      ['real-20k', realFiles],
      [big, [bigFile]],
    ] as Array<[string, string[]]>) {
      process.stderr.write(`scale: ${engine} ${catalogue}…\n`);
      const built = await build(work, engine, catalogue, files, fresh);
      results.push({
        built,
        pages: await pages(root, work, built, load),
        matching: await matchingBench(`${engine} ${catalogue}`, built.url),
      });
    }
  }

  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
  const lines = [
    '',
    `scale: one business; pages with wrk, ${options.connections} connections, ${options.duration} s, request logs off; uncached = INMO_PAGE_CACHE_MB=0 (counts stay cached); floor = the same statement on a bare node:http + better-sqlite3 server (SQLite)`,
    'written: SQLite = bytes the importing process wrote (WAL and checkpoints); PostgreSQL = WAL generated by the import',
    `${'engine'.padEnd(9)} ${'catalogue'.padEnd(14)} ${'listings'.padStart(9)} ${'import s'.padStart(9)} ${'per s'.padStart(7)} ${'written'.padStart(10)} ${'db size'.padStart(10)} ${'w/size'.padStart(7)} ${'RSS cached'.padStart(11)} ${'RSS uncached'.padStart(13)}`,
  ];
  for (const { built, pages: p } of results) {
    const f = built.figures;
    lines.push(
      `${built.engine.padEnd(9)} ${built.catalogue.padEnd(14)} ${String(f.listings).padStart(9)} ${f.seconds.toFixed(1).padStart(9)} ${(f.listings / f.seconds).toFixed(0).padStart(7)} ${mb(f.written).padStart(10)} ${mb(f.size).padStart(10)} ${(f.written / f.size).toFixed(1).padStart(7)} ${`${p.memory.cached.peak.toFixed(0)} MB`.padStart(11)} ${`${p.memory.uncached.peak.toFixed(0)} MB`.padStart(13)}`,
    );
  }
  lines.push(
    '',
    `${'engine'.padEnd(9)} ${'catalogue'.padEnd(14)} ${'page'.padEnd(36)} ${'cached/s'.padStart(9)} ${'p99 ms'.padStart(7)} ${'uncached/s'.padStart(11)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'floor/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'cached cost vs 20k'.padStart(19)}`,
  );
  for (const { built, pages: p } of results) {
    const small = results.find((r) => r.built.engine === built.engine && r.built.catalogue === 'real-20k')!;
    for (const row of p.rows) {
      const at20k = small.pages.rows.find((r) => r.page === row.page)!;
      lines.push(
        `${built.engine.padEnd(9)} ${built.catalogue.padEnd(14)} ${row.page.padEnd(36)} ${row.cached.rps.toFixed(0).padStart(9)} ${row.cached.p99.toFixed(1).padStart(7)} ${row.uncached.rps.toFixed(0).padStart(11)} ${row.uncached.p50.toFixed(1).padStart(7)} ${row.uncached.p99.toFixed(1).padStart(7)} ${(row.floor?.rps.toFixed(0) ?? '-').padStart(8)} ${(row.floor?.p50.toFixed(1) ?? '-').padStart(7)} ${(row.floor?.p99.toFixed(1) ?? '-').padStart(7)} ${`${(at20k.cached.rps / row.cached.rps).toFixed(2)}×`.padStart(19)}`,
      );
    }
  }
  lines.push(
    '',
    'matching one lead (ms; match: median and p99 of 100 runs after a first; +store and sql: median of 15)',
    `${'catalogue'.padEnd(15)} ${'lead'.padEnd(34)} ${'matches'.padStart(7)} ${'sql'.padStart(7)} ${'near'.padStart(7)} ${'match'.padStart(8)} ${'p99'.padStart(8)} ${'+store'.padStart(8)} ${'sql ms'.padStart(8)} ${'ratio'.padStart(7)}`,
  );
  for (const { matching } of results) lines.push(...matching);
  return lines;
}
