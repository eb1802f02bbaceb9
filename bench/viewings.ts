/**
 * Viewings (issue 44), `npm run bench -- --only viewings`: free slots of a listing over 7 days
 * with 10 agents and 2,000 viewings, on SQLite and (when it answers) PostgreSQL.
 *
 * The agenda: one published listing with no agent of its own (so every agent's time counts),
 * 10 active agents, 2,000 viewings on distinct free slots of the 4 weeks from the Monday after
 * next (about 500 of them in the 7 days asked for, a tenth cancelled), seeded so runs compare.
 *
 * - **Over HTTP**: `inmo serve --no-worker` (CPU 0) is asked `GET /v1/ext/viewings/availability
 *   ?property_id=…&from=<that Monday>&days=7` 2,000 times, one request at a time after 200 of
 *   warm-up, alternating with the baseline measured in the same run: `GET /v1/ext/me`, the
 *   floor of any keyed request on that server (key check, routing, a JSON body).
 * - **In process**: the service alone (services/viewings/availability.ts), 2,000 calls, beside
 *   the business's clock read alone (one indexed row) as its baseline.
 *
 * Prints p50, p99 and max in ms, the ratios to the baselines, and whether the p99 meets the
 * target (< 20 ms).
 */
import { rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createDb, migrate, type Db } from '../src/db/database.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { insertViewing } from '../src/db/repositories/viewings.ts';
import { SCOPES } from '../src/domain/access/api-key.ts';
import { addDays, candidateSlots, DEFAULT_VIEWING_HOURS, localDate } from '../src/domain/viewings/hours.ts';
import { nowRfc3339, toRfc3339 } from '../src/domain/time.ts';
import { createApiKey } from '../src/services/access/api-keys.ts';
import { createUser } from '../src/services/access/console-users.ts';
import { importCatalogueLines } from '../src/services/catalogue/import/import.ts';
import { createLeadByHand } from '../src/services/leads/leads.ts';
import { viewingAvailability } from '../src/services/viewings/availability.ts';
import { businessClock } from '../src/services/viewings/clock.ts';
import { emptyPostgresSchema } from './engines.ts';
import { startProcess, stop } from './processes.ts';

const AGENTS = 10;
const VIEWINGS = 2_000;
const REQUESTS = 2_000;
const WARM_UP = 200;
const TARGET_P99_MS = 20;
const ZONE = 'Europe/Madrid';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const ms = (n: number) => n.toFixed(2);

/** A small seeded generator (mulberry32): the same agenda every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The Monday at least 7 days after today, in Madrid. */
function nextMondayAfterAWeek(): string {
  let day = addDays(localDate(Date.now(), ZONE), 7);
  while (new Date(`${day}T12:00:00Z`).getUTCDay() !== 1) day = addDays(day, 1);
  return day;
}

/** Fills `db`: the business, its listing, agents, leads, viewings and a key. */
async function seed(db: Db, monday: string): Promise<{ businessId: number; propertyId: number; key: string }> {
  await migrate(db);
  const business = await insertBusiness(db, 'Bench viewings', nowRfc3339(), ZONE);
  await importCatalogueLines(db, business.id, [
    JSON.stringify({
      external_ref: 'visita-1',
      public: true,
      status: 'disponible',
      operation: 'venta',
      type: 'apartamento',
      title: 'Piso con terraza',
      price: 250000,
      city: 'Madrid',
      address_privacy: 'public',
      images: [],
      videos: [],
      features: [],
      specs: {},
    }),
  ]);
  const { id: propertyId } = await db.selectFrom('properties').select('id').executeTakeFirstOrThrow();
  const agents: number[] = [];
  for (let i = 1; i <= AGENTS; i++)
    agents.push((await createUser(db, { businessId: business.id, email: `agente${i}@bench.example`, role: 'agent' })).id);
  const leads: number[] = [];
  for (let i = 0; i < 50; i++)
    leads.push((await createLeadByHand(db, { businessId: business.id, phone: `+3461300${String(i).padStart(4, '0')}` })).id);
  const slots = candidateSlots({ zone: ZONE, hours: DEFAULT_VIEWING_HOURS, from: monday, days: 28, after: 0 });
  const pairs = agents.flatMap((agent) => slots.map((slot) => ({ agent, slot })));
  const next = random(44);
  for (let i = pairs.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [pairs[i], pairs[j]] = [pairs[j], pairs[i]];
  }
  const at = nowRfc3339();
  await db.transaction().execute(async (trx) => {
    for (const [n, { agent, slot }] of pairs.slice(0, VIEWINGS).entries()) {
      await insertViewing(trx, {
        business_id: business.id,
        lead_id: leads[n % leads.length],
        property_id: propertyId,
        user_id: agent,
        starts_at: toRfc3339(new Date(slot.start)),
        ends_at: toRfc3339(new Date(slot.end)),
        status: n % 10 === 0 ? 'cancelled' : 'scheduled',
        source: 'console',
        feedback: null,
        created_at: at,
        updated_at: at,
      });
    }
  });
  const { key } = await createApiKey(db, { businessId: business.id, scopes: [...SCOPES] });
  return { businessId: business.id, propertyId, key };
}

/** p50, p99, max of `samples` (ms). */
function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1)! };
}

/** One engine's rows of the report. */
async function onEngine(root: string, engine: string, url: string, monday: string): Promise<string[]> {
  const db = createDb(url);
  try {
    const { businessId, propertyId, key } = await seed(db, monday);
    const { child, info } = await startProcess(
      ['bin/inmo.mjs', 'serve', '--no-worker', '--port', '0', '--json'],
      { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
      root,
    );
    const base = info.url as string;
    const availability = `${base}/viewings/availability?property_id=${propertyId}&from=${monday}&days=7`;
    let offered = 0;
    const timed = async (url: string, check?: (body: { data: unknown[] }) => void) => {
      const started = performance.now();
      const response = await fetch(url, { headers: { 'x-api-key': key } });
      const body = (await response.json()) as { data: unknown[] };
      const took = performance.now() - started;
      if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
      check?.(body);
      return took;
    };
    const http = { availability: [] as number[], me: [] as number[] };
    try {
      for (let i = 0; i < WARM_UP; i++) {
        await timed(availability);
        await timed(`${base}/me`);
      }
      for (let i = 0; i < REQUESTS; i++) {
        http.availability.push(await timed(availability, (body) => (offered = body.data.length)));
        http.me.push(await timed(`${base}/me`));
      }
    } finally {
      await stop(child);
    }
    const inProcess = { availability: [] as number[], clock: [] as number[] };
    // CPU time (user + system) of this process per call: what load on the machine does not inflate.
    const cpu = { availability: 0, clock: 0 };
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1000;
    };
    for (let i = 0; i < WARM_UP + REQUESTS; i++) {
      let started = performance.now();
      let cpuStart = process.cpuUsage();
      await viewingAvailability(db, businessId, { propertyId, from: monday, days: 7, listedOnly: true });
      const took = performance.now() - started;
      const tookCpu = cpuMs(cpuStart);
      started = performance.now();
      cpuStart = process.cpuUsage();
      await businessClock(db, businessId);
      if (i >= WARM_UP) {
        inProcess.availability.push(took);
        inProcess.clock.push(performance.now() - started);
        cpu.availability += tookCpu;
        cpu.clock += cpuMs(cpuStart);
      }
    }
    const held = await db
      .selectFrom('viewings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '!=', 'cancelled')
      .where('starts_at', '>=', toRfc3339(new Date(`${monday}T00:00:00+01:00`)))
      .where('starts_at', '<', toRfc3339(new Date(`${addDays(monday, 7)}T00:00:00+01:00`)))
      .executeTakeFirstOrThrow();
    const rows: Array<[string, ReturnType<typeof summary>, ReturnType<typeof summary>]> = [
      ['HTTP, availability vs GET /me', summary(http.availability), summary(http.me)],
      ['in process, service vs clock read', summary(inProcess.availability), summary(inProcess.clock)],
    ];
    return [
      `${engine}: ${AGENTS} agents, ${VIEWINGS.toLocaleString('en')} viewings (${Number(held.n)} holding time in the week asked), ${offered} free slots offered; CPU per call in process: service ${ms(cpu.availability / REQUESTS)} ms, clock read ${ms(cpu.clock / REQUESTS)} ms`,
      ...rows.map(
        ([what, a, b]) =>
          `| ${engine} | ${what} | ${ms(a.p50)} | ${ms(a.p99)} | ${ms(a.max)} | ${ms(b.p50)} | ${ms(b.p99)} | ${(a.p50 / b.p50).toFixed(1)} | ${(a.p99 / b.p99).toFixed(1)} | ${a.p99 < TARGET_P99_MS ? 'yes' : 'NO'} |`,
      ),
    ];
  } finally {
    await db.destroy();
  }
}

/** Runs the part; returns the report's lines. */
export async function viewingsBench(root: string, work: string): Promise<string[]> {
  const monday = nextMondayAfterAWeek();
  const sqlitePath = join(work, 'viewings.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(sqlitePath + suffix, { force: true });
  const engines: Array<[string, string | null]> = [
    ['sqlite', `sqlite:${sqlitePath}`],
    ['postgres', await emptyPostgresSchema('viewings')],
  ];
  const head = [
    `viewings: GET /v1/ext/viewings/availability, 7 days from ${monday}, ${REQUESTS.toLocaleString('en')} requests one at a time after ${WARM_UP} of warm-up; baselines in the same run`,
    `| engine | measured vs baseline | p50 ms | p99 ms | max ms | baseline p50 ms | baseline p99 ms | p50 ratio | p99 ratio | p99 < ${TARGET_P99_MS} ms |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const notes: string[] = [];
  const rows: string[] = [];
  for (const [engine, url] of engines) {
    if (url === null) {
      notes.push(`${engine}: skipped, the server did not answer (INMO_BENCH_POSTGRES_URL)`);
      continue;
    }
    const [note, ...lines] = await onEngine(root, engine, url, monday);
    notes.push(note);
    rows.push(...lines);
  }
  const [load] = loadavg();
  notes.push(`load average when done: ${load.toFixed(1)} on ${cpus().length} CPUs (latencies grow with it; CPU per call does not)`);
  return [...head, ...rows, ...notes];
}
