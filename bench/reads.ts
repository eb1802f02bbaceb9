/**
 * The read benchmark (issue 14): every read of /v1/ext under wrk, beside baselines answered in
 * the same run, on one catalogue.
 *
 * inmo runs as four `inmo serve --no-worker` processes: page cache on and off, each with
 * request logs on (`LOG_LEVEL=info`, the default) and off (`warn`). Scenarios:
 *
 * - (a)(b)(c) cached: the three pages of bench/run.ts with the page cache on;
 * - (a)(b)(c) uncached: the same with the page cache off, against a raw better-sqlite3 server
 *   running the statement inmo runs (bench/raw-floor.ts): the floor of an uncached read;
 * - `GET /properties/{id}` over 1,000 random published ids (bench/random-id.lua);
 * - `GET /me`;
 * - `GET /leads?limit=100` (the catalogue's database has 20,000 leads);
 * - (a) cached revalidated with its ETag (`If-None-Match`: 304, no body), and (a) cached with
 *   `Accept-Encoding: br` (CONTRACT §13). The baselines send the same bytes with a 200: nothing
 *   for the 304, the compressed page for br.
 *
 * Each scenario is also answered by a bare node:http server and by a minimal Fastify server
 * sending the same bytes. Rounds are interleaved (median of three), so drift hits every side.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import SQLite from '../src/db/sqlite-binding.ts';
import { cityKey } from '../src/domain/catalogue/property-record.ts';
import type { PropertyQuery } from '../src/domain/catalogue/property-query.ts';
import { recordPageQuery } from './raw-floor.ts';
import { startProcess, stop } from './processes.ts';
import type { Load } from './wrk.ts';

/** A catalogue's database ready to serve. */
export interface ReadCatalogue {
  name: string;
  dbPath: string;
  key: string;
}

export interface ReadRow {
  scenario: string;
  /** inmo, request logs on (default settings). */
  logsOn: Load;
  /** inmo, request logs off. */
  logsOff: Load;
  bare: Load;
  fastify: Load;
  /** The raw SQLite floor, for uncached pages. */
  floor: Load | null;
  /** logs on / node:http of each interleaved round, for the figure's spread (bench/figures.ts). */
  onRatioRounds: number[];
  /** node:http's CPU per request / inmo's (logs on), each round: what a request costs, whatever limited wrk. */
  onCostRounds: number[];
}

export interface ReadResult {
  catalogue: string;
  rows: ReadRow[];
  /** Resident memory of the cached, logs-off server after its runs, MB (now / peak). */
  memory: { rss: number; peak: number };
}

const SOL_2KM = JSON.stringify([{ type: 'circle', center: { lat: 40.4168, lng: -3.7038 }, radius: 2000 }]);

/** The three pages: name, path, and the same query as inmo parses it (for the raw floor). */
export const PAGES: Array<[string, string, PropertyQuery]> = [
  ['(a) unfiltered', '/v1/ext/properties?limit=20', { limit: 20, offset: 0, areas: [] }],
  [
    '(b) venta+Madrid+2 bed, price_asc',
    '/v1/ext/properties?operation=venta&city=Madrid&min_bedrooms=2&sort=price_asc&limit=20',
    { limit: 20, offset: 0, areas: [], operation: 'venta', cityKey: cityKey('Madrid'), min_bedrooms: 2, sort: 'price_asc' },
  ],
  [
    '(c) 2 km circle, Sol',
    `/v1/ext/properties?limit=20&locations=${encodeURIComponent(SOL_2KM)}`,
    { limit: 20, offset: 0, areas: [{ kind: 'circle', lat: 40.4168, lon: -3.7038, radiusM: 2000 }] },
  ],
];

/** Resident memory of a process now and at its peak, MB (Linux /proc). */
function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** The run with the median req/s. */
function median(runs: Load[]): Load {
  return [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)];
}

/** How the benchmark loads a URL (bench/wrk.ts, pinned, 32 connections). */
export type LoadFn = (
  url: string,
  headers: Record<string, string>,
  options?: { duration?: number; connections?: number; script?: string; scriptArgs?: string[]; serverPid?: number },
) => Promise<Load>;

/**
 * Runs the read scenarios on one catalogue: every one, or those whose name `only` matches.
 * @param root the repository (bench scripts, bin/inmo.mjs); `work`: scratch folder (.bench).
 */
export async function readBench(
  root: string,
  work: string,
  catalogue: ReadCatalogue,
  load: LoadFn,
  rounds: number,
  only?: RegExp,
): Promise<ReadResult> {
  const bin = join(root, 'bin', 'inmo.mjs');
  const serve = (logLevel: string, pageCache: boolean) =>
    startProcess(
      [bin, 'serve', '--no-worker', '--port', '0', '--json'],
      {
        ...process.env,
        DATABASE_URL: `sqlite:${catalogue.dbPath}`,
        LOG_LEVEL: logLevel,
        ...(pageCache ? {} : { INMO_PAGE_CACHE_MB: '0' }),
      },
      root,
    );
  const servers = {
    cachedOn: await serve('info', true),
    cachedOff: await serve('warn', true),
    uncachedOn: await serve('info', false),
    uncachedOff: await serve('warn', false),
  };
  // inmo prints its URL, the baselines their port.
  const origin = (s: { info: Record<string, unknown> }) =>
    s.info.url === undefined ? `http://127.0.0.1:${String(s.info.port)}` : new URL(String(s.info.url)).origin;
  const headers = { 'x-api-key': catalogue.key };
  const ids = randomIds(catalogue.dbPath, 1000);
  const rows: ReadRow[] = [];

  const all: Array<{
    name: string;
    path: string;
    cached: boolean;
    query?: PropertyQuery;
    script?: { file: string; args: string[] };
    /** Request headers besides the key (the baselines ignore them). */
    headers?: Record<string, string>;
  }> = [
    ...PAGES.map(([name, path]) => ({ name: `${name}, cached`, path, cached: true })),
    ...PAGES.map(([name, path, query]) => ({ name: `${name}, uncached`, path, cached: false, query })),
    {
      name: 'GET /properties/{id}, random',
      path: `/v1/ext/properties/${ids[0]}`,
      cached: true,
      script: { file: join(root, 'bench', 'random-id.lua'), args: ['/v1/ext/properties/', ...ids.map(String)] },
    },
    { name: 'GET /me', path: '/v1/ext/me', cached: true },
    { name: 'GET /leads?limit=100', path: '/v1/ext/leads?limit=100', cached: true },
    {
      name: '(a) cached, If-None-Match → 304',
      path: PAGES[0][1],
      cached: true,
      headers: { 'if-none-match': (await rawGet(origin(servers.cachedOff) + PAGES[0][1], headers)).headers.etag as string },
    },
    { name: '(a) cached, Accept-Encoding: br', path: PAGES[0][1], cached: true, headers: { 'accept-encoding': 'br' } },
  ];
  const scenarios = only === undefined ? all : all.filter((scenario) => only.test(scenario.name));
  if (scenarios.length === 0) throw new Error(`no read scenario's name matches ${String(only)}`);
  try {
    for (const scenario of scenarios) {
      const [on, off] = scenario.cached ? [servers.cachedOn, servers.cachedOff] : [servers.uncachedOn, servers.uncachedOff];
      const sent = { ...headers, ...scenario.headers };
      const response = await rawGet(origin(off) + scenario.path, sent);
      const { body } = response;
      if (response.status !== (scenario.headers?.['if-none-match'] ? 304 : 200))
        throw new Error(`${scenario.name}: status ${response.status} ${body}`);
      const bodyFile = join(work, 'baseline-body.json');
      writeFileSync(bodyFile, body);
      const baselines = [
        await startProcess([join(root, 'bench', 'baseline-server.mjs'), bodyFile], process.env, root),
        await startProcess([join(root, 'bench', 'baseline-fastify.mjs'), bodyFile], process.env, root),
      ];
      if (scenario.query) {
        const pageFile = join(work, 'baseline-page.json');
        writeFileSync(pageFile, JSON.stringify(await recordPageQuery(catalogue.dbPath, scenario.query)));
        const floor = await startProcess([join(root, 'bench', 'baseline-sqlite.mjs'), catalogue.dbPath, pageFile], process.env, root);
        baselines.push(floor);
        const floorBody = Buffer.from(await (await fetch(`http://127.0.0.1:${floor.info.port}${scenario.path}`)).arrayBuffer());
        if (!floorBody.equals(body)) throw new Error(`${scenario.name}: the raw floor's bytes differ from inmo's`);
      }
      try {
        const processes = [on, off, ...baselines];
        const targets = processes.map((p) => `${origin(p)}${scenario.path}`);
        const options = scenario.script ? { script: scenario.script.file, scriptArgs: scenario.script.args } : {};
        for (const url of targets) await load(url, sent, { ...options, duration: 2 }); // warm-up
        const runs: Load[][] = targets.map(() => []);
        for (let round = 0; round < rounds; round++) {
          for (let i = 0; i < targets.length; i++)
            runs[i].push(await load(targets[i], sent, { ...options, serverPid: processes[i].child.pid }));
        }
        const [logsOn, logsOff, bare, fastify, floor] = runs.map(median);
        const onRatioRounds = runs[0].map((run, round) => run.rps / runs[2][round].rps);
        const onCostRounds = runs[0].map((run, round) => runs[2][round].serverCpuUs / run.serverCpuUs);
        rows.push({ scenario: scenario.name, logsOn, logsOff, bare, fastify, floor: floor ?? null, onRatioRounds, onCostRounds });
      } finally {
        for (const b of baselines) await stop(b.child);
      }
      const r = rows.at(-1)!;
      process.stderr.write(
        `  ${catalogue.name} ${r.scenario}: ${r.logsOn.rps.toFixed(0)} / ${r.logsOff.rps.toFixed(0)} req/s (node:http ${r.bare.rps.toFixed(0)}, fastify ${r.fastify.rps.toFixed(0)}${r.floor ? `, raw sqlite ${r.floor.rps.toFixed(0)}` : ''})\n`,
      );
    }
    return { catalogue: catalogue.name, rows, memory: memoryMb(servers.cachedOff.child.pid!) };
  } finally {
    for (const s of Object.values(servers)) await stop(s.child);
  }
}

/** A GET's status, headers and body bytes as sent (fetch would decompress them). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

/** `count` ids of published properties, in a fixed pseudo-random order. */
function randomIds(dbPath: string, count: number): number[] {
  const sqlite = new SQLite(dbPath, { readonly: true });
  try {
    const ids = sqlite
      .prepare('select id from properties where listed = 1 order by (id * 2654435761) % 4294967296 limit ?')
      .pluck()
      .all(count);
    return ids as number[];
  } finally {
    sqlite.close();
  }
}
