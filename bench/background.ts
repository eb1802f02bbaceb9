/**
 * Background-work benchmarks (issue 4), run by `npm run bench` (or `--only background`):
 *
 * 1. **Matching one lead** against the real 20k catalogue and the generated 200k one, for three
 *    lead profiles: the pure match (warm catalogue snapshot; median and 99th percentile of 100
 *    runs after a first), match + store (in a transaction
 *    rolled back afterwards), and the cold snapshot load (its time, and the longest it held the event loop). Baseline, same run: one SQL query
 *    returning only the exact matches of the same profile through the catalogue's indexes
 *    (what a matcher without near misses would run). Targets: < 50 ms and < 200 ms per lead.
 * 2. **End to end**: `inmo serve` (worker in-process) on a copy of the real catalogue with a
 *    WhatsApp channel pointed at a fake Graph API in this process; 1,000 ingests are posted with
 *    32 connections, and the clock runs from the first request to the last message received.
 *    Baseline, same run: 1,000 bare sends to the same fake provider, 4 at a time (the worker's
 *    concurrency), i.e. the cost of the messages alone.
 */
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createDb, type Db } from '../src/db/database.ts';
import { replaceLeadMatches } from '../src/db/repositories/matches.ts';
import { SCOPES } from '../src/domain/access/api-key.ts';
import { nowRfc3339 } from '../src/domain/time.ts';
import { connectChannel } from '../src/services/messaging/channels.ts';
import { createApiKey } from '../src/services/access/api-keys.ts';
import { CatalogueSnapshots, matchSearchPreferences } from '../src/services/leads/matching.ts';
import { startFakeGraph } from '../test/helpers/fake-graph.ts';
import { startProcess, stop } from './processes.ts';

interface Profile {
  name: string;
  entry: Record<string, unknown>;
  /** The exact matches of `entry`, in SQL over the indexed columns. */
  baseline: (businessId: number) => ReturnType<typeof sql>;
}

const PROFILES: Profile[] = [
  {
    name: 'buyer, Madrid, ≤300k €, 2+ bed',
    entry: {
      operations: ['venta'],
      property_types: ['apartamento'],
      locations: [{ name: 'Madrid' }],
      apartamento: { price_max: 300_000, bedrooms_min: 2 },
    },
    baseline: (b) =>
      sql`select id from properties where business_id = ${b} and listed = 1 and status = 'disponible' and op_venta = 1
          and type = 'apartamento' and price <= 300000 and bedrooms >= 2 and (city_key = 'madrid' or lower(province) = 'madrid')
          order by updated_at desc, id desc`,
  },
  {
    name: 'renter, Zaragoza, ≤900 €, 2+ bed',
    entry: {
      operations: ['alquiler'],
      property_types: ['apartamento', 'casa'],
      locations: [{ name: 'Zaragoza' }],
      apartamento: { price_rent_max: 900, bedrooms_min: 2 },
      casa: { price_rent_max: 900, bedrooms_min: 2 },
    },
    baseline: (b) =>
      sql`select id from properties where business_id = ${b} and listed = 1 and status = 'disponible' and op_alquiler = 1
          and type in ('apartamento', 'casa') and price_rent <= 900 and bedrooms >= 2 and (city_key = 'zaragoza' or lower(province) = 'zaragoza')
          order by updated_at desc, id desc`,
  },
  {
    name: '2 km around Sol, 60+ m², lift',
    entry: {
      operations: ['venta'],
      property_types: ['apartamento'],
      locations: [{ type: 'circle', center: { lat: 40.4168, lng: -3.7038 }, radius: 2000 }],
      apartamento: { size_min: 60, features: ['ascensor'] },
    },
    baseline: (b) =>
      sql`select id from properties where business_id = ${b} and listed = 1 and status = 'disponible' and op_venta = 1
          and type = 'apartamento' and size_total >= 60 and features like '%"ascensor"%'
          and pub_lat between 40.3988 and 40.4348 and pub_lon between -3.7274 and -3.6802
          order by updated_at desc, id desc`,
  },
];

/** The times of `runs` runs of `work`, ms, ascending. */
async function timesMs(runs: number, work: () => Promise<unknown> | unknown): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

const timeMs = async (runs: number, work: () => Promise<unknown> | unknown) => (await timesMs(runs, work))[Math.floor(runs / 2)];

/** Runs of the pure match, after the first: enough for a 99th percentile. */
const MATCH_RUNS = 100;

class Rollback extends Error {}

/** Matching benchmark on one prepared database (its `DATABASE_URL`). @returns printable rows. */
export async function matchingBench(name: string, url: string, runs = 15): Promise<string[]> {
  const db = createDb(url);
  try {
    const businessId = 1;
    const coldStarted = performance.now();
    const snapshots = new CatalogueSnapshots();
    // The longest the event loop waited while the snapshot loaded: what a server sharing the process waits.
    let [longestPause, last] = [0, performance.now()];
    const ticks = setInterval(() => {
      const now = performance.now();
      longestPause = Math.max(longestPause, now - last);
      last = now;
    }, 5);
    const snapshot = await snapshots.get(db, businessId);
    clearInterval(ticks);
    longestPause = Math.max(longestPause, performance.now() - last);
    const coldMs = performance.now() - coldStarted;
    const rows = [
      `${name.padEnd(15)} snapshot of ${snapshot.index.size} listings loaded in ${coldMs.toFixed(0)} ms (once per catalogue change), the event loop held at most ${longestPause.toFixed(0)} ms at a time`,
    ];
    for (const profile of PROFILES) {
      const searches = JSON.stringify([profile.entry]);
      const result = matchSearchPreferences(searches, snapshot, 200);
      const matchTimes = await timesMs(MATCH_RUNS, () => matchSearchPreferences(searches, snapshot, 200));
      const [matchMs, matchP99] = [matchTimes[Math.floor(MATCH_RUNS / 2)], matchTimes[Math.ceil(MATCH_RUNS * 0.99) - 1]];
      const storeMs = await timeMs(runs, () => matchAndStore(db, businessId, searches, snapshots));
      const exact = await sql`select count(*) as n from (${profile.baseline(businessId)}) as m`.execute(db);
      const baselineMs = await timeMs(runs, () => profile.baseline(businessId).execute(db));
      rows.push(
        `${name.padEnd(15)} ${profile.name.padEnd(34)} ${String(result.matchesTotal).padStart(7)} ${String((exact.rows[0] as { n: number }).n).padStart(7)} ${String(result.nearMissesTotal).padStart(7)} ${matchMs.toFixed(1).padStart(8)} ${matchP99.toFixed(1).padStart(8)} ${storeMs.toFixed(1).padStart(8)} ${baselineMs.toFixed(1).padStart(8)} ${(matchMs / baselineMs).toFixed(2).padStart(7)}`,
      );
    }
    return rows;
  } finally {
    await db.destroy();
  }
}

/** What the match_lead job does for one lead, in a transaction rolled back at the end. */
async function matchAndStore(db: Db, businessId: number, searches: string, snapshots: CatalogueSnapshots): Promise<void> {
  // As the task does: the snapshot is read outside the write transaction.
  const snapshot = await snapshots.get(db, businessId);
  await db
    .transaction()
    .execute(async (trx) => {
      const now = nowRfc3339();
      const lead = await trx
        .insertInto('leads')
        .values({
          business_id: businessId,
          type: 'demandante',
          status: 'searching_property',
          active: 1,
          phone_number_1: '+34600000000',
          rating: 3,
          search_preferences: searches,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const result = matchSearchPreferences(searches, snapshot, 200);
      await replaceLeadMatches(
        trx,
        lead.id,
        [
          ...result.matches.map(([property_id, search_index]) => ({ property_id, search_index, failed: null })),
          ...result.nearMisses.map(([property_id, search_index, failed]) => ({ property_id, search_index, failed })),
        ],
        {
          catalogue_version: snapshot.version,
          matched_at: now,
          matches_total: result.matchesTotal,
          near_misses_total: result.nearMissesTotal,
        },
      );
      throw new Rollback();
    })
    .catch((error) => {
      if (!(error instanceof Rollback)) throw error;
    });
}

/** End-to-end benchmark: 1,000 ingests → matched and messaged. */
export async function endToEndBench(work: string, bin: string, sourceDb: string, leads = 1000, connections = 32): Promise<string[]> {
  const dbPath = join(work, 'e2e.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  copyFileSync(sourceDb, dbPath);
  const graph = await startFakeGraph();
  const db = createDb(`sqlite:${dbPath}`);
  await db.deleteFrom('jobs').execute();
  const { key } = await createApiKey(db, { businessId: 1, scopes: [...SCOPES] });
  await connectChannel(
    db,
    { businessId: 1, provider: 'whatsapp-cloud', phoneNumberId: '1', tokenEnv: 'T', template: 'hola', baseUrl: graph.baseUrl },
    { T: 'bench' },
  );
  await db.destroy();

  const { child, info } = await startProcess(
    [bin, 'serve', '--port', '0', '--json'],
    { ...process.env, DATABASE_URL: `sqlite:${dbPath}`, LOG_LEVEL: 'warn' },
    process.cwd(),
  );
  const rows: string[] = [];
  try {
    const url = `${String(info.url)}/leads/ingest`;
    let next = 0;
    const started = performance.now();
    const post = async () => {
      while (next < leads) {
        const i = next++;
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({
            id: `e2e-${i}`,
            createdAt: '2026-11-22T10:00:00Z',
            source: 'bench',
            sourcePage: 'https://bench.example/alquiler',
            contact: { name: 'Cliente', phone: `+34 6${String(i).padStart(8, '0')}` },
            search: { budget: '700-900', habs: '2', location: { name: 'Zaragoza' } },
          }),
        });
        if (response.status !== 200) throw new Error(`ingest answered ${response.status}`);
        await response.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: connections }, post));
    const posted = performance.now() - started;
    while (graph.requests.length < leads) {
      if (performance.now() - started > 300_000) throw new Error(`only ${graph.requests.length} of ${leads} messages after 300 s`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const total = performance.now() - started;

    const check = createDb(`sqlite:${dbPath}`);
    const states = await check
      .selectFrom('jobs')
      .select(['state'])
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .groupBy('state')
      .execute();
    const matched = await check
      .selectFrom('lead_match_runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    await check.destroy();

    // Baseline: the sends alone, 4 at a time.
    const baseline = await startFakeGraph();
    let sent = 0;
    const baseStarted = performance.now();
    const send = async () => {
      while (sent < leads) {
        sent++;
        const r = await fetch(`${baseline.baseUrl}/1/messages`, {
          method: 'POST',
          headers: { authorization: 'Bearer x', 'content-type': 'application/json' },
          body: '{}',
        });
        await r.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 4 }, send));
    const baseMs = performance.now() - baseStarted;
    await baseline.close();

    const jobs = leads * 2;
    rows.push(
      `${leads} ingests with ${connections} connections posted in ${(posted / 1000).toFixed(2)} s; last message received ${(total / 1000).toFixed(2)} s after the first request`,
      `jobs: ${jobs} (match_lead + send_welcome) → ${(jobs / (total / 1000)).toFixed(0)} jobs/s end to end; ${(leads / (total / 1000)).toFixed(0)} leads matched and messaged per second`,
      `leads matched: ${matched.n}; messages received by the fake provider: ${graph.requests.length}; job states: ${states.map((s) => `${s.state} ${s.n}`).join(', ')}`,
      `baseline: ${leads} bare sends to the fake provider, 4 at a time: ${(baseMs / 1000).toFixed(2)} s → end-to-end / sends-alone time ratio ${(total / baseMs).toFixed(2)}`,
    );
  } finally {
    await stop(child);
    await graph.close();
  }
  return rows;
}
