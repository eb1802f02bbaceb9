/**
 * `npm run bench`: read benchmarks of GET /v1/ext/properties against the real catalogues
 * (20,309 lines, in the folder `INMO_BENCH_DATA` names, by default ../shared/data beside the
 * repository; the parts that need them say they skipped when it lacks them) and a generated
 * 200,000-listing catalogue, with a bare
 * node:http server returning the same bytes as the baseline, measured in the same run.
 *
 * Scenarios (32 connections each): (a) `limit=20`, (b) `operation=venta&city=Madrid&
 * min_bedrooms=2&sort=price_asc&limit=20`, (c) a 2 km circle around Puerta del Sol.
 * Each page is served cached and uncached (bench/reads.ts). Then the changes feed followed from
 * the start over both catalogues (bench/feed.ts). Prints req/s, p50 and p99 latency,
 * the ratio to the baselines, import rates and the server's resident memory. Options:
 * `--duration S` per run (default 5), `--fresh` (rebuild the benchmark databases in .bench/
 * instead of reusing them).
 *
 * Then the lead-creation benchmark of bench/leads.ts, and the background-work benchmarks of
 * bench/background.ts (matching per lead on both catalogues; 1,000 ingests end to end).
 * Then the WhatsApp webhook benchmark of bench/webhooks.ts (acknowledgement latency and rate,
 * replies end to end), and the outgoing-webhook benchmark of bench/events.ts (10,000 events
 * delivered to a local receiver; a lead's POST to its signed webhook). `--only
 * reads|feed|leads|background|webhooks|events` runs one part. `--db postgres` runs instead the engine
 * comparison of bench/engines.ts: reads and ingests on SQLite and PostgreSQL, with one and
 * two API processes. `--only scale [--listings N] [--db sqlite|postgres|both]` runs the scale
 * benchmark of bench/scale.ts (20k real and N generated listings, default 1,000,000, on both
 * engines unless `--db` names one); it is not part of the default run (about 20 minutes at 1M).
 * `--only areas` sends the largest map areas the limits allow and times other requests
 * meanwhile (bench/areas.ts). `--only feeds` measures the Kyero feed's export, its import beside
 * NDJSON's, and a 200 MB feed's memory (bench/feeds.ts). `--only idealista` times the idealista feed of
 * 20,000 listings cold and warm, its 304 beside the Kyero feed's, a cached page and bare node:http,
 * and the heap while it is made (bench/idealista.ts). `--only reads --scenario REGEX` runs only the read scenarios whose name matches. `--only embed` times the website kit's
 * first card in Chromium, cold and warm (bench/embed.ts). `--only startup` times the CLI's start
 * beside Node's and npx's own (bench/startup.ts). `--only listings` times a console save until another process
 * shows it, and photo uploads with the server's memory (bench/listings.ts). `--only email-inbound`
 * posts portal e-mails to the inbound webhook until they are leads, beside servers answering 202
 * alone (bench/email-inbound.ts); `--only email-pull` pulls a dovecot mailbox of 1,000 and 5,000
 * messages over IMAP with its time and memory (bench/email-pull.ts). `--only email-hostile` posts
 * e-mails built to be slow to read while it times `/healthz` (bench/email-hostile.ts). `--only viewings` times
 * a listing's free viewing slots over 7 days with 10 agents and 2,000 viewings, on SQLite and
 * PostgreSQL (bench/viewings.ts). `--only calendar` times an agent's calendar of 5,000 viewings
 * cold and its 304 under load, on SQLite and PostgreSQL (bench/calendar.ts). `--only listing-search` times the console's listing search of
 * 203,090 listings with and without its index, on SQLite and PostgreSQL (bench/listing-search.ts).
 * `--only valuation [--listings N]` (not in the default run) values 50 homes over 200,000 listings on
 * both engines beside the candidates' query alone (bench/valuation.ts). `--only owner-reports [--owners N]`
 * (not in the default run) composes the reports of 10,000 owners with 20,000 listings on both engines,
 * with the event loop's delay meanwhile (bench/owner-reports.ts).
 * `--only alerts` (not in the default run: minutes at 100,000 leads) times a catalogue change
 * reaching 10,000 of 100,000 searching leads, queued and composed (bench/alerts.ts).
 *
 * Every run ends by printing the figures it keeps (the reads' and lead writes' same-run ratios
 * and p99) beside the last run's, from `bench/figures/<engine>.json`, marking falls beyond the
 * spread (exit status 1), then keeps this run's as the last (bench/figures.ts, issue 59).
 */
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createDb, migrate } from '../src/db/database.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { insertLeadId } from '../src/db/repositories/leads.ts';
import { SCOPES } from '../src/domain/access/api-key.ts';
import { nowRfc3339 } from '../src/domain/time.ts';
import { generateCatalogue } from '../src/demo/catalogue-generator.ts';
import { createApiKey } from '../src/services/access/api-keys.ts';
import { importCatalogueFile } from '../src/services/catalogue/import/import.ts';
import { areasBench } from './areas.ts';
import { listingsBench } from './listings.ts';
import { viewingsBench } from './viewings.ts';
import { calendarBench } from './calendar.ts';
import { valuationBench } from './valuation.ts';
import { ownerReportsBench } from './owner-reports.ts';
import { alertsBench } from './alerts.ts';
import { listingSearchBench } from './listing-search.ts';
import { feedsBench } from './feeds.ts';
import { idealistaBench } from './idealista.ts';
import { embedBench } from './embed.ts';
import { startupBench } from './startup.ts';
import { endToEndBench, matchingBench } from './background.ts';
import { engineBench, preparePostgres } from './engines.ts';
import { benchLead, eventCostBench, leadBench } from './leads.ts';
import { webhookBench } from './webhooks.ts';
import { emailInboundBench } from './email-inbound.ts';
import { emailHostileBench } from './email-hostile.ts';
import { emailPullBench } from './email-pull.ts';
import { eventBench } from './events.ts';
import { feedBench } from './feed.ts';
import { pinLoadToCpu1, startProcess, stop } from './processes.ts';
import { wrk, wrkVersion, type Load } from './wrk.ts';
import { readBench, type ReadResult } from './reads.ts';
import { scaleBench } from './scale.ts';
import { compareFigures, comparisonLines, nextFigureFile, readFigureFile, spreadOf, writeFigureFile, type Figure } from './figures.ts';

/**
 * How far the lead-write figures, each measured once, moved between runs of the same write path on
 * a quiet 2-core machine (2026-12-03: three runs, 09:11, 10:39 and 10:46 UTC, the last two of
 * 3e2e81a and of 886cf18, whose lead writes issue the same statements): on/bare ratios by up to
 * 0.27 of their value (SQLite inquiries 0.88, 0.69, 0.61), p99 latencies up to 4× (ingest 41,
 * 102, 179 ms). A fall smaller than this is not told from noise by one run; bench/figures.ts marks
 * only larger ones.
 */
const LEADS_RUN_TO_RUN = { ratio: 0.3, p99: 3 };

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORK = join(ROOT, '.bench');
// The channel token the background bench seals needs a key file: kept in .bench/ (ignored),
// never in the user's home; the servers it spawns inherit the setting.
process.env.INMO_SECRET_KEY_FILE ||= join(WORK, 'secret.key');
/** The full real catalogues: not in the repository (its tests read a sample of them, test/fixtures/catalogues). */
const DATA = resolve(ROOT, process.env.INMO_BENCH_DATA || join('..', 'shared', 'data'));
const CATALOGUES = ['catalogue-madrid-sale.ndjson', 'catalogue-zaragoza-rent.ndjson', 'catalogue-zaragoza-sale.ndjson'];
const MISSING_CATALOGUES = CATALOGUES.filter((file) => !existsSync(join(DATA, file)));

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    fresh: { type: 'boolean', default: false },
    only: { type: 'string' },
    db: { type: 'string' },
    listings: { type: 'string', default: '1000000' },
    owners: { type: 'string', default: '10000' },
    scenario: { type: 'string' },
  },
});
const DURATION = Number(options.duration);
if (!(DURATION > 0)) throw new Error(`--duration must be a number of seconds, got ${JSON.stringify(options.duration)}`);
const FRESH = options.fresh;
const ONLY = options.only ?? null;
if (
  ONLY !== null &&
  ![
    'reads',
    'feed',
    'leads',
    'background',
    'webhooks',
    'events',
    'areas',
    'listings',
    'feeds',
    'idealista',
    'embed',
    'startup',
    'email-inbound',
    'email-hostile',
    'email-pull',
    'viewings',
    'calendar',
    'listing-search',
    'alerts',
    'valuation',
    'owner-reports',
    'scale',
  ].includes(ONLY)
) {
  throw new Error(
    '--only must be reads, feed, leads, background, webhooks, events, areas, listings, feeds, idealista, embed, startup, email-inbound, email-hostile, email-pull, viewings, calendar, listing-search, alerts, valuation, owner-reports or scale',
  );
}
const ENGINE = options.db ?? (ONLY === 'scale' ? 'both' : 'sqlite');
if (ENGINE !== 'sqlite' && ENGINE !== 'postgres' && !(ENGINE === 'both' && ONLY === 'scale')) {
  throw new Error('--db must be sqlite or postgres (or both, with --only scale)');
}
const LISTINGS = Number(options.listings);
if (!Number.isInteger(LISTINGS) || LISTINGS < 1000)
  throw new Error(`--listings must be a whole number of at least 1000, got ${options.listings}`);
const PIN = pinLoadToCpu1();
const CONNECTIONS = 32;

const SOL_2KM = JSON.stringify([{ type: 'circle', center: { lat: 40.4168, lng: -3.7038 }, radius: 2000 }]);
const SCENARIOS: Array<[string, string]> = [
  ['(a) unfiltered', '/v1/ext/properties?limit=20'],
  ['(b) venta+Madrid+2 bed, price_asc', '/v1/ext/properties?operation=venta&city=Madrid&min_bedrooms=2&sort=price_asc&limit=20'],
  ['(c) 2 km circle, Sol', `/v1/ext/properties?limit=20&locations=${encodeURIComponent(SOL_2KM)}`],
];

interface Prepared {
  name: string;
  dbPath: string;
  key: string;
  importRate: number | null;
}

/** Builds (or reuses) a benchmark database: one business, a key, the catalogue. */
async function prepare(name: string, fill: (db: ReturnType<typeof createDb>, businessId: number) => Promise<number>): Promise<Prepared> {
  const dbPath = join(WORK, `${name}.db`);
  const keyPath = join(WORK, `${name}.key`);
  if (!FRESH && existsSync(dbPath) && existsSync(keyPath)) {
    return { name, dbPath, key: readFileSync(keyPath, 'utf8'), importRate: null };
  }
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  const db = createDb(`sqlite:${dbPath}`);
  await migrate(db);
  const business = await insertBusiness(db, `Bench ${name}`, nowRfc3339());
  const started = performance.now();
  const imported = await fill(db, business.id);
  const importRate = imported / ((performance.now() - started) / 1000);
  const { key } = await createApiKey(db, { businessId: business.id, scopes: [...SCOPES] });
  await db.destroy();
  writeFileSync(keyPath, key);
  return { name, dbPath, key, importRate };
}

function load(
  url: string,
  headers: Record<string, string>,
  options: { duration?: number; connections?: number; script?: string; scriptArgs?: string[]; serverPid?: number } = {},
): Promise<Load> {
  return wrk(url, headers, {
    connections: options.connections ?? CONNECTIONS,
    duration: options.duration ?? DURATION,
    pin: PIN,
    script: options.script,
    scriptArgs: options.scriptArgs,
    serverPid: options.serverPid,
  });
}

/** Rounds of (server, baselines) per scenario. */
const ROUNDS = 3;

/** Starts one of the baseline servers of bench/ on `bodyFile`. */
function startBaseline(script: string, bodyFile: string) {
  return startProcess([join(ROOT, 'bench', script), bodyFile], process.env, ROOT);
}

/**
 * What the load generator alone can do: wrk against a bare node:http server answering `{}`.
 * The figure is a floor of the generator's ceiling (the server may be what stops it); its CPU
 * use tells which side was the limit.
 */
async function generatorCeiling(): Promise<Load> {
  const bodyFile = join(WORK, 'ceiling-body.json');
  writeFileSync(bodyFile, '{}');
  const bare = await startBaseline('baseline-server.mjs', bodyFile);
  try {
    const url = `http://127.0.0.1:${bare.info.port}/`;
    await load(url, {}, { duration: 2 });
    return await load(url, {});
  } finally {
    await stop(bare.child);
  }
}

async function leads(): Promise<void> {
  process.stderr.write(`lead creation: ${CONNECTIONS} connections, ${DURATION} s per run after 2 s of warm-up\n`);
  const rows = await leadBench(WORK, join(ROOT, 'bin', 'inmo.mjs'), join(ROOT, 'bench', 'post-leads.lua'), load);
  const lines = [
    '',
    `POST, wrk, ${CONNECTIONS} connections, ${DURATION} s each after 2 s of warm-up, distinct phones, a fresh database per run, no worker;`,
    'logs on = default settings, logs off = LOG_LEVEL=warn; bare = node:http inserting the lead, its note and jobs in one transaction',
    'on a raw connection (bench/baseline-leads.mjs); raw = the same rows inserted through the repositories, one transaction per lead (SQLite)',
  ];
  lines.push(
    `${'engine'.padEnd(10)} ${'endpoint'.padEnd(36)} ${'logs on'.padStart(8)} ${'p99 ms'.padStart(7)} ${'logs off'.padStart(8)} ${'p99 ms'.padStart(7)} ${'bare'.padStart(8)} ${'p99 ms'.padStart(7)} ${'on/bare'.padStart(7)} ${'off/bare'.padStart(8)} ${'raw/s'.padStart(8)} errors`,
  );
  for (const r of rows) {
    lines.push(
      `${r.engine.padEnd(10)} ${r.endpoint.padEnd(36)} ${r.logsOn.rps.toFixed(0).padStart(8)} ${r.logsOn.p99.toFixed(1).padStart(7)} ${r.logsOff.rps.toFixed(0).padStart(8)} ${r.logsOff.p99.toFixed(1).padStart(7)} ${r.bare.rps.toFixed(0).padStart(8)} ${r.bare.p99.toFixed(1).padStart(7)} ${(r.logsOn.rps / r.bare.rps).toFixed(2).padStart(7)} ${(r.logsOff.rps / r.bare.rps).toFixed(2).padStart(8)} ${r.rawRate === null ? '       -' : r.rawRate.toFixed(0).padStart(8)} ${r.logsOn.errors + r.logsOn.non2xx + r.logsOff.errors + r.logsOff.non2xx}`,
    );
  }
  for (const r of rows) {
    figures.push(
      {
        name: `leads ${r.endpoint}: logs on / bare insert`,
        engine: r.engine,
        value: r.logsOn.rps / r.bare.rps,
        spread: null,
        better: 'higher',
        unit: '×',
        floor: LEADS_RUN_TO_RUN.ratio,
      },
      {
        name: `leads ${r.endpoint}: p99, logs on`,
        engine: r.engine,
        value: r.logsOn.p99,
        spread: null,
        better: 'lower',
        unit: 'ms',
        floor: LEADS_RUN_TO_RUN.p99,
      },
    );
  }
  for (const engine of new Set(rows.map((r) => r.engine))) {
    const plain = rows.find((r) => r.engine === engine && r.endpoint === '/leads/inquiries')!;
    const idempotent = rows.find((r) => r.engine === engine && r.endpoint.endsWith('Idempotency-Key'))!;
    lines.push(
      `${engine}: Idempotency-Key / plain inquiries: ${(idempotent.logsOn.rps / plain.logsOn.rps).toFixed(2)} (logs on), ${(idempotent.logsOff.rps / plain.logsOff.rps).toFixed(2)} (logs off); target ≥ 0.80`,
    );
  }
  lines.push('', ...(await eventCostBench(WORK)));
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function background(): Promise<void> {
  prepared ??= catalogues();
  const { real, generated } = await prepared;
  process.stderr.write('matching: one lead at a time\n');
  const lines = [
    '',
    'matching one lead (ms; match: median and p99 of 100 runs after a first; +store and sql: median of 15); baseline: one SQL query returning only the exact matches of the same search',
    `${'catalogue'.padEnd(15)} ${'lead'.padEnd(34)} ${'matches'.padStart(7)} ${'sql'.padStart(7)} ${'near'.padStart(7)} ${'match'.padStart(8)} ${'p99'.padStart(8)} ${'+store'.padStart(8)} ${'sql ms'.padStart(8)} ${'ratio'.padStart(7)}`,
    ...(await matchingBench('real-20k', `sqlite:${real.dbPath}`)),
    ...(await matchingBench('generated-200k', `sqlite:${generated.dbPath}`)),
  ];
  process.stderr.write('end to end: 1,000 ingests\n');
  lines.push('', 'end to end: inmo serve with its in-process worker, fake WhatsApp provider on loopback, real 20k catalogue');
  lines.push(...(await endToEndBench(WORK, join(ROOT, 'bin', 'inmo.mjs'), real.dbPath)));
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function webhooks(): Promise<void> {
  prepared ??= catalogues();
  const { real } = await prepared;
  process.stderr.write('webhooks: 1,000 signed deliveries, then 5,000 acknowledged only\n');
  const lines = ['', 'WhatsApp webhooks: inmo serve on the real 20k catalogue, fake WhatsApp provider on loopback'];
  lines.push(...(await webhookBench(WORK, join(ROOT, 'bin', 'inmo.mjs'), real.dbPath)));
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function feed(): Promise<void> {
  prepared ??= catalogues();
  const { real, generated } = await prepared;
  process.stderr.write('changes feed: whole catalogues from the start\n');
  const lines = ['', ...(await feedBench(ROOT, WORK, [real, generated]))];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function events(): Promise<void> {
  prepared ??= catalogues();
  const { real } = await prepared;
  process.stderr.write('outgoing webhooks: 10,000 events delivered, then 1,000 leads end to end\n');
  const lines = ['', 'outgoing webhooks (Standard Webhooks), every delivery verified by a receiver in this process on CPU 1'];
  lines.push(...(await eventBench(WORK, join(ROOT, 'bin', 'inmo.mjs'), real.dbPath)));
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function engines(): Promise<void> {
  if (!wrkVersion()) throw new Error('the engine benchmark needs wrk, a C load generator: apt-get install wrk');
  prepared ??= catalogues();
  const { real, generated } = await prepared;
  process.stderr.write('preparing PostgreSQL copies of the catalogues…\n');
  const pgReal = await preparePostgres(
    WORK,
    'real-20k',
    CATALOGUES.map((f) => join(DATA, f)),
    FRESH,
  );
  const pgGenerated = await preparePostgres(WORK, 'generated-200k', [join(WORK, 'generated-200k.ndjson')], FRESH);
  const sqliteOf = (p: Prepared) => ({ name: p.name, url: `sqlite:${p.dbPath}`, key: p.key, importRate: p.importRate });
  const lines = await engineBench({
    work: WORK,
    bin: join(ROOT, 'bin', 'inmo.mjs'),
    baselineServer: join(ROOT, 'bench', 'baseline-server.mjs'),
    catalogues: [
      { sqlite: sqliteOf(real), postgres: pgReal },
      { sqlite: sqliteOf(generated), postgres: pgGenerated },
    ],
    scenarios: SCENARIOS,
    load,
    postScript: join(ROOT, 'bench', 'post-leads.lua'),
    connections: CONNECTIONS,
    duration: DURATION,
  });
  lines.push('', 'PostgreSQL import rate (properties/s):');
  for (const p of [pgReal, pgGenerated]) {
    lines.push(`  ${p.name.padEnd(15)} ${p.importRate === null ? 'reused schema (run with --fresh to measure)' : p.importRate.toFixed(0)}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function scale(): Promise<void> {
  if (!wrkVersion()) throw new Error('the scale benchmark needs wrk, a C load generator: apt-get install wrk');
  const lines = await scaleBench({
    root: ROOT,
    work: WORK,
    realFiles: CATALOGUES.map((f) => join(DATA, f)),
    listings: LISTINGS,
    engines: ENGINE === 'both' ? ['sqlite', 'postgres'] : [ENGINE as 'sqlite' | 'postgres'],
    fresh: FRESH,
    load,
    connections: CONNECTIONS,
    duration: DURATION,
  });
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * Runs a part that needs the real catalogues, or says plainly that it skipped it when the folder
 * `INMO_BENCH_DATA` names (by default ../shared/data) lacks them.
 */
async function withCatalogues(part: string, run: () => Promise<void>): Promise<void> {
  if (MISSING_CATALOGUES.length === 0) return run();
  process.stdout.write(
    `\n${part}: skipped: it needs the real catalogues, and ${DATA} lacks ${MISSING_CATALOGUES.join(', ')} ` +
      '(set INMO_BENCH_DATA to the folder that holds them; docs/performance.md)\n',
  );
}

/** The figures this run measured, compared with the last ones at the end (bench/figures.ts). */
const figures: Figure[] = [];

/**
 * Prints each figure beside its last value, marking falls, and keeps this run's as the last ones
 * in `bench/figures/<engine>.json` (commit them with the change they measure). A fall sets the
 * exit status to 1.
 */
function compareWithLast(): void {
  const at = new Date().toISOString();
  for (const engine of ['sqlite', 'postgres'] as const) {
    const measured = figures.filter((f) => f.engine === engine);
    if (measured.length === 0) continue;
    const file = join(ROOT, 'bench', 'figures', `${engine}.json`);
    const last = readFigureFile(file);
    const comparisons = compareFigures(measured, last);
    const fell = comparisons.filter((c) => c.fell);
    process.stdout.write(
      `\n${[`figures on ${engine} beside the last run's (${last ? last.measured_at : 'none yet'}), bench/figures/${engine}.json:`, ...comparisonLines(comparisons)].join('\n')}\n`,
    );
    if (fell.length > 0) {
      process.stderr.write(`\nFELL on ${engine}, by more than the spread: ${fell.map((c) => c.figure.name).join('; ')}\n`);
      process.exitCode = 1;
    }
    writeFigureFile(file, nextFigureFile(measured, last, at));
  }
}

async function main() {
  mkdirSync(WORK, { recursive: true });
  if (ONLY === 'scale') return withCatalogues('scale', scale);
  if (ENGINE === 'postgres') return withCatalogues('engines (--db postgres)', engines);
  if (ONLY === null || ONLY === 'reads') await withCatalogues('reads', reads);
  if (ONLY === null || ONLY === 'feed') await withCatalogues('feed', feed);
  if (ONLY === null || ONLY === 'leads') await leads();
  if (ONLY === null || ONLY === 'background') await withCatalogues('background', background);
  if (ONLY === null || ONLY === 'webhooks') await withCatalogues('webhooks', webhooks);
  if (ONLY === null || ONLY === 'events') await withCatalogues('events', events);
  if (ONLY === null || ONLY === 'areas') await withCatalogues('areas', areas);
  if (ONLY === null || ONLY === 'listings') await withCatalogues('listings', listings);
  if (ONLY === null || ONLY === 'feeds') await withCatalogues('feeds', feeds);
  if (ONLY === null || ONLY === 'idealista') await idealista();
  if (ONLY === null || ONLY === 'embed') await withCatalogues('embed', embed);
  if (ONLY === null || ONLY === 'startup') process.stdout.write(`\n${startupBench(ROOT).join('\n')}\n`);
  if (ONLY === null || ONLY === 'email-inbound') await emailInbound();
  if (ONLY === null || ONLY === 'email-hostile') await emailHostile();
  if (ONLY === null || ONLY === 'email-pull') await emailPull();
  if (ONLY === null || ONLY === 'viewings') await viewings();
  if (ONLY === null || ONLY === 'calendar') await calendar();
  if (ONLY === null || ONLY === 'listing-search') await withCatalogues('listing-search', listingSearch);
  // Minutes at 100,000 leads: only when asked for, as the scale benchmark.
  if (ONLY === 'alerts') await alerts();
  // A minute or two seeding 200,000 listings per engine: only when asked for (issue 58).
  if (ONLY === 'valuation') {
    const count = options.listings === '1000000' ? 200_000 : Number(options.listings);
    process.stdout.write(`\n${(await valuationBench(WORK, count)).join('\n')}\n`);
  }
  // Seeding 10,000 owners and 20,000 listings per engine: only when asked for (issue 58).
  if (ONLY === 'owner-reports') {
    const owners = Number(options.owners);
    if (!Number.isInteger(owners) || owners < 1) throw new Error(`--owners must be a whole number of at least 1, got ${options.owners}`);
    process.stdout.write(`\n${(await ownerReportsBench(WORK, owners)).join('\n')}\n`);
  }
  compareWithLast();
}

async function emailInbound(): Promise<void> {
  const version = wrkVersion();
  if (!version) throw new Error('the inbound e-mail benchmark needs wrk, a C load generator: apt-get install wrk');
  process.stderr.write('email-inbound: portal e-mails to the webhook, to leads and acknowledged only\n');
  const ceiling = await generatorCeiling();
  const context = { root: ROOT, work: WORK, bin: join(ROOT, 'bin', 'inmo.mjs'), pin: PIN, connections: CONNECTIONS };
  const lines = ['', ...(await emailInboundBench(context, ceiling, version))];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function emailHostile(): Promise<void> {
  process.stderr.write('email-hostile: e-mails built to be slow to read, /healthz timed meanwhile\n');
  const lines = ['', ...(await emailHostileBench({ root: ROOT, work: WORK, bin: join(ROOT, 'bin', 'inmo.mjs') }))];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function emailPull(): Promise<void> {
  process.stderr.write('email-pull: a dovecot mailbox of 1,000 and 5,000 messages pulled over IMAP\n');
  const lines = ['', ...(await emailPullBench({ root: ROOT, work: WORK }))];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function viewings(): Promise<void> {
  process.stderr.write("viewings: a listing's free slots over 7 days, 10 agents, 2,000 viewings\n");
  process.stdout.write(`\n${(await viewingsBench(ROOT, WORK)).join('\n')}\n`);
}

async function calendar(): Promise<void> {
  if (!wrkVersion()) throw new Error('the calendar benchmark needs wrk, a C load generator: apt-get install wrk');
  process.stderr.write("calendar: an agent's calendar of 5,000 viewings, cold and 304\n");
  process.stdout.write(`\n${(await calendarBench(ROOT, WORK, PIN, DURATION)).join('\n')}\n`);
}

async function alerts(): Promise<void> {
  process.stderr.write('alerts: a catalogue change reaching a tenth of the searching leads, queued and composed\n');
  process.stdout.write(`\n${(await alertsBench(WORK)).join('\n')}\n`);
}

async function listingSearch(): Promise<void> {
  process.stderr.write(`listing-search: the console's search of 203,090 listings, with and without its index\n`);
  process.stdout.write(`\n${(await listingSearchBench(WORK, DATA, CATALOGUES)).join('\n')}\n`);
}

async function embed(): Promise<void> {
  const real = await prepareReal();
  process.stderr.write("embed: the website kit's time to the first card\n");
  const lines = ['', ...(await embedBench(ROOT, real.dbPath))];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function areas(): Promise<void> {
  // The real catalogue only: the generated one is not needed here.
  const real = await prepareReal();
  process.stderr.write('map areas: the largest locations the limits allow\n');
  const lines = ['', ...(await areasBench(ROOT, real.dbPath, real.key))];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function feeds(): Promise<void> {
  const real = await prepareReal();
  process.stderr.write('feeds: Kyero export, import and a 200 MB feed\n');
  const lines = ['', ...(await feedsBench(ROOT, WORK, real.dbPath, real.key, PIN, DURATION))];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function idealista(): Promise<void> {
  process.stderr.write(`idealista: the feed of 20,000 listings, cold, 304 and memory${FRESH ? ' (fresh)' : ''}\n`);
  const lines = ['', ...(await idealistaBench(ROOT, WORK, PIN, DURATION, FRESH))];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function listings(): Promise<void> {
  const real = await prepareReal();
  process.stderr.write('listings: console saves seen by another process, photo uploads\n');
  const lines = ['', ...(await listingsBench(ROOT, WORK, real.dbPath, real.key))];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The three real catalogues (`INMO_BENCH_DATA`) in one business, built on first use (or with --fresh). */
function prepareReal(): Promise<Prepared> {
  return prepare('real-20k', async (db, businessId) => {
    let n = 0;
    for (const file of CATALOGUES) {
      const s = await importCatalogueFile(db, businessId, join(DATA, file));
      n += s.created + s.updated;
    }
    return n;
  });
}

/** The two benchmark catalogues, built on first use (or with --fresh) and reused after. */
async function catalogues(): Promise<{ real: Prepared; generated: Prepared }> {
  process.stderr.write(`preparing benchmark databases in ${WORK}${FRESH ? ' (fresh)' : ''}…\n`);
  const real = await prepareReal();
  const generatedFile = join(WORK, 'generated-200k.ndjson');
  if (FRESH || !existsSync(generatedFile)) {
    // Written before the import is timed: the rate measures the import, not the generator.
    const out = createWriteStream(generatedFile);
    for (const record of generateCatalogue(200_000, 7, 'bench')) {
      if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain');
    }
    await new Promise((resolve) => out.end(resolve));
  }
  const generated = await prepare('generated-200k', async (db, businessId) => {
    const s = await importCatalogueFile(db, businessId, generatedFile);
    return s.created + s.updated;
  });
  for (const p of [real, generated]) await ensureLeads(p.dbPath, LEADS);
  return { real, generated };
}

/** Gives the benchmark database `count` leads (for GET /leads), once. */
/** Leads of each benchmark database: GET /leads?limit=100 pages through 20,000 (issue 32). */
const LEADS = 20_000;

async function ensureLeads(dbPath: string, count: number): Promise<void> {
  const db = createDb(`sqlite:${dbPath}`);
  try {
    await migrate(db);
    const { n } = await db
      .selectFrom('leads')
      .select((e) => e.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const business = await db.selectFrom('businesses').select('id').orderBy('id').executeTakeFirstOrThrow();
    await db.transaction().execute(async (trx) => {
      for (let i = Number(n); i < count; i++) await insertLeadId(trx, benchLead(business.id, i, nowRfc3339()));
    });
  } finally {
    await db.destroy();
  }
}

let prepared: Promise<{ real: Prepared; generated: Prepared }> | null = null;

/**
 * A baseline this close to the generator's ceiling (or wrk this close to a full core) measured
 * the generator: its ratios mean nothing.
 */
const CEILING_MARGIN = 0.9;

async function reads() {
  prepared ??= catalogues();
  const { real, generated } = await prepared;

  const version = wrkVersion();
  if (!version) throw new Error('the read benchmark needs wrk, a C load generator: apt-get install wrk');
  process.stderr.write(`load: ${version}, ${CONNECTIONS} connections, ${DURATION} s per run\n`);
  const ceiling = await generatorCeiling();
  const results: ReadResult[] = [];
  for (const catalogue of [real, generated])
    results.push(
      await readBench(ROOT, WORK, catalogue, load, ROUNDS, options.scenario === undefined ? undefined : new RegExp(options.scenario)),
    );

  const fmt = (n: number, d = 0) => n.toFixed(d).padStart(8);
  const pct = (n: number) => `${Number.isNaN(n) ? '?' : (n * 100).toFixed(0)}%`.padStart(6);
  const ratio = (a: number, b: number) => (a / b).toFixed(2).padStart(6);
  const lines: string[] = [];
  lines.push(
    '',
    `GET /v1/ext, ${CONNECTIONS} connections, median of ${ROUNDS} interleaved ${DURATION} s runs${PIN ? ', servers on CPU 0 and wrk on CPU 1' : ' (not pinned: taskset missing)'}`,
    `load generator: ${version}, 1 thread; its ceiling is at least ${ceiling.rps.toFixed(0)} req/s (bare node:http answering {}, wrk at ${pct(ceiling.generatorCpu).trim()} of its core)`,
    'logs on = inmo with default settings (one request log line each); logs off = LOG_LEVEL=warn; node:http, fastify = bare servers sending the same bytes;',
    'raw sqlite = node:http running the statement inmo runs for the page on raw better-sqlite3 (uncached pages only); gen = wrk CPU during the logs-on runs;',
    'µs on, µs node = server CPU (all threads) per request, logs on and node:http; cost = µs node / µs on, which holds when wrk is the limit',
    `${'catalogue'.padEnd(15)} ${'scenario'.padEnd(45)} ${'logs on'.padStart(8)} ${'p99 ms'.padStart(7)} ${'logs off'.padStart(8)} ${'p99 ms'.padStart(7)} ${'node:http'.padStart(9)} ${'fastify'.padStart(8)} ${'raw sql'.padStart(8)} ${'on/node'.padStart(7)} ${'off/node'.padStart(8)} ${'/raw'.padStart(6)} ${'gen'.padStart(6)} ${'µs on'.padStart(6)} ${'µs node'.padStart(7)} ${'cost'.padStart(5)} errors`,
  );
  const saturated: string[] = [];
  for (const { catalogue, rows } of results) {
    for (const r of rows) {
      const floor = r.floor;
      lines.push(
        `${catalogue.padEnd(15)} ${r.scenario.padEnd(45)} ${fmt(r.logsOn.rps)} ${r.logsOn.p99.toFixed(1).padStart(7)} ${fmt(r.logsOff.rps)} ${r.logsOff.p99.toFixed(1).padStart(7)} ${fmt(r.bare.rps).padStart(9)} ${fmt(r.fastify.rps)} ${floor ? fmt(floor.rps) : '       -'} ${ratio(r.logsOn.rps, r.bare.rps).padStart(7)} ${ratio(r.logsOff.rps, r.bare.rps).padStart(8)} ${floor ? ratio(r.logsOff.rps, floor.rps) : '     -'} ${pct(r.logsOn.generatorCpu)} ${r.logsOn.serverCpuUs.toFixed(1).padStart(6)} ${r.bare.serverCpuUs.toFixed(1).padStart(7)} ${(r.bare.serverCpuUs / r.logsOn.serverCpuUs).toFixed(2).padStart(5)} ${r.logsOn.errors + r.logsOn.non2xx + r.logsOff.errors + r.logsOff.non2xx}`,
      );
      figures.push({
        name: `reads ${catalogue} ${r.scenario}: logs on / node:http`,
        engine: 'sqlite',
        value: r.logsOn.rps / r.bare.rps,
        spread: spreadOf(r.onRatioRounds),
        better: 'higher',
        unit: '×',
      });
      figures.push({
        name: `reads ${catalogue} ${r.scenario}: CPU per request, node:http / logs on`,
        engine: 'sqlite',
        value: r.bare.serverCpuUs / r.logsOn.serverCpuUs,
        spread: spreadOf(r.onCostRounds),
        better: 'higher',
        unit: '×',
      });
      // wrk itself near a full core during a baseline's run, or the baseline as fast as wrk could
      // go against `{}` while wrk was the limit there: the baseline measured the generator.
      const ceilingBound = ceiling.generatorCpu >= CEILING_MARGIN && r.bare.rps >= CEILING_MARGIN * ceiling.rps;
      if (r.bare.generatorCpu >= CEILING_MARGIN || ceilingBound) saturated.push(`${catalogue} ${r.scenario}`);
    }
  }
  lines.push('', 'server resident memory after the runs (cached, logs off; MB, now / peak):');
  for (const r of results) lines.push(`  ${r.catalogue.padEnd(15)} ${r.memory.rss.toFixed(0)} / ${r.memory.peak.toFixed(0)}`);
  lines.push('', 'import rate (properties/s):');
  for (const p of [real, generated]) {
    lines.push(
      `  ${p.name.padEnd(15)} ${p.importRate === null ? 'reused database (run with --fresh to measure)' : p.importRate.toFixed(0)}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (saturated.length > 0) {
    process.stderr.write(
      `\nFAILED: the load generator was the limit of the bare node:http baseline (within ${Math.round((1 - CEILING_MARGIN) * 100)} % of its ceiling, or wrk at ${Math.round(CEILING_MARGIN * 100)} % of its core or more) in: ${saturated.join('; ')}.\nThose ratios measure wrk, not the servers. Run on a quieter machine, or give wrk a core of its own.\n`,
    );
    process.exitCode = 1;
  }
}

await main();
