/**
 * Agents' calendars (issue 44), `npm run bench -- --only calendar`: one agent with 5,000
 * viewings (from 80 days back to about three years ahead, a tenth cancelled, on 20 listings and
 * 500 leads, seeded so runs compare, then analysed), on SQLite and (when it answers) PostgreSQL.
 *
 * - **Cold**: `GET /calendar/<token>.ics` of `inmo serve --no-worker` (CPU 0), time to the first
 *   byte and to the whole document: the first request of the process, then three times the first
 *   after one of the agent's viewings changed (its `sequence` raised in the database), and a
 *   repeat with nothing changed (the document kept).
 * - **304**: `If-None-Match` of the current ETag under wrk (a phone polling), beside a cached
 *   `GET /v1/ext/properties?limit=20` of the same server and a bare node:http server answering an
 *   empty 200 (bench/baseline-server.mjs), in the same run: three interleaved rounds, the median
 *   of each, and the ratio to the bare server.
 * - **In process**: what a poll costs (services/viewings/calendar.ts `calendarDocument` with
 *   nothing changed: the owner's row and the row of aggregates it is fingerprinted by) beside a
 *   read of the viewings' rows and a build from them (domain/viewings/calendar.ts
 *   `agentCalendar`), 20 calls each.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createDb, migrate, type Db } from '../src/db/database.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { listCalendarViewings } from '../src/db/repositories/calendar-urls.ts';
import { insertViewing } from '../src/db/repositories/viewings.ts';
import { agentCalendar } from '../src/domain/viewings/calendar.ts';
import { nowRfc3339, toRfc3339 } from '../src/domain/time.ts';
import { createApiKey } from '../src/services/access/api-keys.ts';
import { createUser } from '../src/services/access/console-users.ts';
import { importCatalogueLines } from '../src/services/catalogue/import/import.ts';
import { createLeadByHand } from '../src/services/leads/leads.ts';
import { calendarDocument, calendarWindowStart, makeCalendarUrl } from '../src/services/viewings/calendar.ts';
import { emptyPostgresSchema } from './engines.ts';
import { timed } from './feeds.ts';
import { startProcess, stop } from './processes.ts';
import { wrk, type Load } from './wrk.ts';

const VIEWINGS = 5_000;
const LISTINGS = 20;
const LEADS = 500;
const ZONE = 'Europe/Madrid';
/** Cold builds after a change. */
const COLD_RUNS = 3;
/** Rounds of the 304 and baseline loads, interleaved; the median run of each is reported. */
const LOAD_ROUNDS = 3;
/** Calls of each in-process measure. */
const CALLS = 20;

const ms = (n: number) => n.toFixed(1);
const DAY_MS = 86_400_000;

/** Fills `db`: the business, listings, leads, the agent and their viewings, a key and the agent's calendar URL. */
async function seed(db: Db): Promise<{ businessId: number; agent: number; key: string; path: string; viewingId: number }> {
  await migrate(db);
  const business = await insertBusiness(db, 'Bench calendar', nowRfc3339(), ZONE);
  await importCatalogueLines(
    db,
    business.id,
    Array.from({ length: LISTINGS }, (_, i) =>
      JSON.stringify({
        external_ref: `cal-${i}`,
        public: true,
        status: 'disponible',
        operation: 'venta',
        type: 'apartamento',
        title: `Piso luminoso con terraza, ${i + 1}`,
        price: 200000 + i * 1000,
        address: `Calle Mayor ${i + 1}, 3ºB`,
        address_approximate: 'Centro, Madrid',
        city: 'Madrid',
        address_privacy: (['public', 'approximate', 'hidden'] as const)[i % 3],
        images: [],
        videos: [],
        features: [],
        specs: {},
      }),
    ),
  );
  const listings = (await db.selectFrom('properties').select('id').orderBy('id').execute()).map((r) => r.id);
  const agent = (await createUser(db, { businessId: business.id, email: 'agente@bench.example', role: 'agent' })).id;
  const leads: number[] = [];
  for (let i = 0; i < LEADS; i++)
    leads.push(
      (await createLeadByHand(db, { businessId: business.id, phone: `+3461300${String(i).padStart(4, '0')}`, name: `Cliente ${i + 1}` }))
        .id,
    );
  // One viewing every 5 hours from 80 days back: about 1,040 days, 5,000 viewings.
  const first = Math.floor((Date.now() - 80 * DAY_MS) / 3_600_000) * 3_600_000;
  const at = nowRfc3339();
  let viewingId = 0;
  await db.transaction().execute(async (trx) => {
    for (let n = 0; n < VIEWINGS; n++) {
      const start = first + n * 5 * 3_600_000;
      const row = await insertViewing(trx, {
        business_id: business.id,
        lead_id: leads[n % leads.length],
        property_id: listings[n % listings.length],
        user_id: agent,
        starts_at: toRfc3339(new Date(start)),
        ends_at: toRfc3339(new Date(start + 30 * 60_000)),
        status: n % 10 === 0 ? 'cancelled' : n % 7 === 0 ? 'requested' : 'scheduled',
        source: 'console',
        feedback: null,
        created_at: at,
        updated_at: at,
      });
      if (n === VIEWINGS - 1) viewingId = row.id;
    }
  });
  // The planner's statistics of the tables as filled, as autovacuum (PostgreSQL) or a checkpoint's
  // analysis (SQLite) would have them after such a load.
  await sql`analyze`.execute(db);
  const { key } = await createApiKey(db, { businessId: business.id, scopes: ['properties:read'] });
  const { path } = await makeCalendarUrl(db, agent, business.id);
  return { businessId: business.id, agent, key, path, viewingId };
}

/** A change to one of the agent's viewings, as any change is stored: its sequence raised. */
async function touch(db: Db, id: number): Promise<void> {
  await db
    .updateTable('viewings')
    .set((eb) => ({ sequence: eb('sequence', '+', 1), updated_at: nowRfc3339() }))
    .where('id', '=', id)
    .execute();
}

/** One engine's lines of the report. */
async function onEngine(root: string, work: string, engine: string, url: string, pin: boolean, duration: number): Promise<string[]> {
  const db = createDb(url);
  try {
    const { businessId, agent, key, path, viewingId } = await seed(db);
    const { child, info } = await startProcess(
      ['bin/inmo.mjs', 'serve', '--no-worker', '--port', '0', '--json'],
      { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
      root,
    );
    const origin = new URL(info.url as string).origin;
    const lines: string[] = [];
    try {
      const firstOfProcess = await timed(origin + path);
      if (firstOfProcess.status !== 200) throw new Error(`${path} answered ${firstOfProcess.status}`);
      const cold = [];
      for (let run = 0; run < COLD_RUNS; run++) {
        await touch(db, viewingId);
        cold.push(await timed(origin + path));
      }
      const kept = await timed(origin + path);
      const etag = kept.etag!;
      // A 304 has no body to stream: timed whole.
      const started = performance.now();
      const answer = await fetch(origin + path, { headers: { 'if-none-match': etag } });
      await answer.arrayBuffer();
      const notModified = { first: performance.now() - started, total: performance.now() - started };
      if (answer.status !== 304) throw new Error(`If-None-Match answered ${answer.status}`);
      const events = (
        Buffer.from(await (await fetch(origin + path)).arrayBuffer())
          .toString()
          .match(/BEGIN:VEVENT/g) ?? []
      ).length;

      const emptyBody = join(work, 'calendar-empty-body');
      writeFileSync(emptyBody, '');
      const bare = await startProcess([join(root, 'bench', 'baseline-server.mjs'), emptyBody], process.env, root);
      const targets: Array<[string, string, Record<string, string>]> = [
        ['calendar 304 (If-None-Match)', origin + path, { 'if-none-match': etag }],
        ['calendar 200, nothing changed (document kept)', origin + path, {}],
        ['cached GET /v1/ext/properties?limit=20', `${origin}/v1/ext/properties?limit=20`, { 'x-api-key': key }],
        ['bare node:http, an empty 200', `http://127.0.0.1:${bare.info.port}/`, {}],
      ];
      const runs = new Map<string, Load[]>(targets.map(([name]) => [name, []]));
      try {
        for (const [, target, headers] of targets) await wrk(target, headers, { connections: 8, duration: 1, pin });
        for (let round = 0; round < LOAD_ROUNDS; round++)
          for (const [name, target, headers] of targets)
            runs.get(name)!.push(await wrk(target, headers, { connections: 8, duration, pin }));
      } finally {
        await stop(bare.child);
      }
      const median = (list: Load[]) => [...list].sort((a, b) => a.rps - b.rps)[Math.floor(list.length / 2)];
      const loads: Array<[string, Load]> = targets.map(([name]) => [name, median(runs.get(name)!)]);
      const baseline = loads[loads.length - 1][1].rps;
      const bestCold = Math.min(...cold.map((c) => c.total));
      lines.push(
        `${engine}: one agent, ${VIEWINGS.toLocaleString('en')} viewings (${events.toLocaleString('en')} in the window), ` +
          `${(firstOfProcess.bytes / 1024 / 1024).toFixed(2)} MB; inmo serve --no-worker on CPU 0`,
        '| request | first byte ms | whole ms |',
        '| --- | --- | --- |',
        `| first of the process | ${ms(firstOfProcess.first)} | ${ms(firstOfProcess.total)} |`,
        ...cold.map((c, i) => `| cold after a viewing changed, run ${i + 1} | ${ms(c.first)} | ${ms(c.total)} |`),
        `| 200 again, nothing changed (document kept) | ${ms(kept.first)} | ${ms(kept.total)} |`,
        `| 304 (If-None-Match) | ${ms(notModified.first)} | ${ms(notModified.total)} |`,
        `cold / 304, best cold: ${(bestCold / notModified.total).toFixed(1)}`,
        '',
        `| wrk, 8 connections, median of ${LOAD_ROUNDS} interleaved ${duration} s runs | req/s | p50 ms | p99 ms | / bare node:http | non-2xx/3xx |`,
        '| --- | --- | --- | --- | --- | --- |',
        ...loads.map(
          ([name, l]) =>
            `| ${name} | ${Math.round(l.rps).toLocaleString('en')} | ${l.p50.toFixed(2)} | ${l.p99.toFixed(2)} | ${(l.rps / baseline).toFixed(3)} | ${l.non2xx} |`,
        ),
      );
    } finally {
      await stop(child);
    }

    // In process: a poll with nothing changed, beside a build from the same rows.
    const token = path.slice('/calendar/'.length, -'.ics'.length);
    const poll: number[] = [];
    const read: number[] = [];
    const build: number[] = [];
    await calendarDocument(db, token, { host: 'bench', origin: 'http://bench' });
    for (let i = 0; i < CALLS; i++) {
      let started = performance.now();
      await calendarDocument(db, token, { host: 'bench', origin: 'http://bench' });
      poll.push(performance.now() - started);
      started = performance.now();
      const rows = await listCalendarViewings(db, businessId, agent, calendarWindowStart(Date.now(), ZONE));
      read.push(performance.now() - started);
      started = performance.now();
      agentCalendar({ name: 'Bench', zone: ZONE, host: 'bench', origin: 'http://bench' }, rows);
      build.push(performance.now() - started);
    }
    const p50 = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
    lines.push(
      `${engine}, in process, p50 of ${CALLS}: a poll with nothing changed (owner + fingerprint) ${ms(p50(poll))} ms; ` +
        `reading the rows ${ms(p50(read))} ms; building from them ${ms(p50(build))} ms; ` +
        `(read + build) / poll ${((p50(read) + p50(build)) / p50(poll)).toFixed(1)}`,
    );
    return lines;
  } finally {
    await db.destroy();
  }
}

/** Runs the part; returns the report's lines. */
export async function calendarBench(root: string, work: string, pin: boolean, duration: number): Promise<string[]> {
  const sqlitePath = join(work, 'calendar.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(sqlitePath + suffix, { force: true });
  const engines: Array<[string, string | null]> = [
    ['sqlite', `sqlite:${sqlitePath}`],
    ['postgres', await emptyPostgresSchema('calendar')],
  ];
  const lines = [`calendar: GET /calendar/<token>.ics of one agent with ${VIEWINGS.toLocaleString('en')} viewings`];
  for (const [engine, url] of engines) {
    lines.push('');
    if (url === null) lines.push(`${engine}: skipped, the server did not answer (INMO_BENCH_POSTGRES_URL)`);
    else lines.push(...(await onEngine(root, work, engine, url, pin, duration)));
  }
  return lines;
}
