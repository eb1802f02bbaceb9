/**
 * The worker on a real SQLite file (CONTRACT §7): jobs run once, matching is stored, the
 * welcome template reaches a fake Graph API exactly once, retries back off, failures park,
 * dead workers' jobs are taken back, and two workers never run one job twice.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import type { Db } from '../../../src/db/database.ts';
import { CompiledQuery, sql } from 'kysely';
import { claimJobs, dueJobIds, listJobs } from '../../../src/db/repositories/jobs.ts';
import { toRfc3339 } from '../../../src/domain/time.ts';
import { ManualClock } from '../../../src/jobs/clock.ts';
import type { WorkerSettings } from '../../../src/jobs/settings.ts';
import { backoffDelayMs, Worker, type WorkerLogger } from '../../../src/jobs/worker.ts';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { leadInFull } from '../../../src/services/leads/leads.ts';
import { startFakeGraph, type FakeGraph } from '../../helpers/fake-graph.ts';
import { inmoProcess } from '../../helpers/cli.ts';
import { businessWithKey, ENGINE, freshDb, importRecords, listing } from '../../helpers/db.ts';
import { post, API_ONLY } from '../../helpers/http.ts';

const TOKEN = 'EAAG-secret-token-do-not-print';
const SETTINGS: Partial<WorkerSettings> = { backoffMs: 60_000, maxBackoffMs: 3_600_000, maxAttempts: 3, leaseMs: 60_000, pollMs: 20 };

let db: Db;
let url: string;
let app: FastifyInstance;
let graph: FakeGraph;
let key: string;
let businessId: number;
let clock: ManualClock;
let logged: string[];
let logger: WorkerLogger;

beforeEach(async () => {
  ({ db, url } = await freshDb());
  ({ key, businessId } = await businessWithKey(db));
  app = await buildApp({ surfaces: API_ONLY, db });
  graph = await startFakeGraph();
  // The API stamps jobs with the real time; the worker's clock starts a little later so they are due.
  clock = new ManualClock(new Date(Date.now() + 5 * 60_000));
  logged = [];
  const record = (obj: object, msg: string) =>
    logged.push(`${msg} ${JSON.stringify(obj, (_k, v) => (v instanceof Error ? v.message : v))}`);
  logger = { info: record, warn: record, error: record };
  await importRecords(db, businessId, [
    listing('sol-1', { operation: 'alquiler', price: null, price_rent: 850, bedrooms: 2 }),
    listing('sol-2', { operation: 'alquiler', price: null, price_rent: 1400, bedrooms: 3 }),
    listing('sol-3', { operation: 'venta', price: 240_000 }),
  ]);
  // The import queued a re-match of searching leads (there are none yet): out of the way.
  expect(await worker().drain()).toBe(1);
});

afterEach(async () => {
  await app.close();
  await graph.close();
  await db.destroy();
});

const worker = (settings: Partial<WorkerSettings> = {}, onDb = db) =>
  new Worker({ db: onDb, clock, logger, settings: { ...SETTINGS, ...settings } });

async function connect(languages?: Record<string, string>) {
  await connectChannel(
    db,
    {
      businessId,
      provider: 'whatsapp-cloud',
      phoneNumberId: '1099887766',
      tokenEnv: 'WA_TOKEN',
      template: 'bienvenida',
      baseUrl: graph.baseUrl,
      languages,
    },
    { WA_TOKEN: TOKEN },
  );
}

async function ingest(phone: string, budget = '900') {
  const response = await post(app, '/leads/ingest', key, ingestBody(phone, { budget, habs: '2', location: { name: 'Madrid' } }));
  expect(response.status).toBe(200);
  const lead = await db.selectFrom('leads').select('id').where('phone_number_1', '=', `+34${phone}`).executeTakeFirstOrThrow();
  return lead.id;
}

function ingestBody(phone: string, search: Record<string, unknown> = {}) {
  return {
    id: 'sub-1',
    createdAt: '2026-11-22T10:00:00Z',
    source: 'landing',
    sourcePage: 'https://example.com/alquiler',
    contact: { name: 'Lucía', phone },
    search,
  };
}

async function inquiry(phone: string, extra: Record<string, unknown> = {}) {
  const response = await post(app, '/leads/inquiries', key, {
    name: 'Marco Rossi',
    phone_number_1: phone,
    type: 'buyer',
    search_preferences: [{ operations: ['venta'], property_types: ['apartamento'], apartamento: { price_max: 250_000 } }],
    ...extra,
  });
  expect(response.status).toBe(200);
  return response.body.lead_id as number;
}

describe('a lead’s background work', () => {
  it('matches, sends the template once to the Graph API, and schedules follow-ups', async () => {
    await connect();
    const leadId = await inquiry('612345678', { preferred_language: 'gb' });
    const ran = await worker().drain();
    expect(ran).toBe(3); // match, welcome, schedule follow-ups

    expect(graph.requests).toHaveLength(1);
    const full0 = (await leadInFull(db, leadId))!;
    const [request] = graph.requests;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/v21.0/1099887766/messages');
    expect(request.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request.contentType).toBe('application/json');
    expect(request.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '+34612345678',
      // inmo's own message id: every status webhook of the message carries it back (CONTRACT §10).
      biz_opaque_callback_data: String(full0.message!.id),
      type: 'template',
      template: { name: 'bienvenida', language: { code: 'en' } },
    });

    const full = (await leadInFull(db, leadId))!;
    expect(full.message).toMatchObject({ state: 'sent', template: 'bienvenida', language: 'en', provider_message_id: 'wamid.fake1' });
    expect(full.matches).toEqual([{ property_id: 3, search_index: 0 }]);
    // The rentals meet the sale price bound (it does not apply to rent) and miss only the operation.
    expect(full.near_misses).toEqual([
      { property_id: 1, search_index: 0, failed: 'operation' },
      { property_id: 2, search_index: 0, failed: 'operation' },
    ]);
    expect(full.follow_ups).toHaveLength(1);
    expect((await listJobs(db, { limit: 100 })).every((j) => j.state === 'done' || j.kind === 'follow_up')).toBe(true);

    // Nothing is due any more: running again sends nothing.
    expect(await worker().drain()).toBe(0);
    expect(graph.requests).toHaveLength(1);
  });

  it('stores matches and near misses of an ingest lead', async () => {
    const leadId = await ingest('622000111');
    await worker().drain();
    const full = (await leadInFull(db, leadId))!;
    // 850 € with 2 bedrooms matches; 1,400 € misses only price_rent_max; the sale misses the operation.
    expect(full.matches).toEqual([{ property_id: 1, search_index: 0 }]);
    expect(full.near_misses).toEqual([
      { property_id: 2, search_index: 0, failed: 'price_rent_max' },
      { property_id: 3, search_index: 0, failed: 'operation' },
    ]);
    expect(full.matching).toMatchObject({ matches_total: 1, near_misses_total: 2 });
  });

  it('with no channel sends nothing, and the lead is unaffected', async () => {
    const leadId = await ingest('633000111');
    const before = await db.selectFrom('leads').selectAll().where('id', '=', leadId).executeTakeFirstOrThrow();
    await worker().drain();
    const full = (await leadInFull(db, leadId))!;
    expect(full.message).toBeNull();
    expect(graph.requests).toHaveLength(0);
    expect(await db.selectFrom('leads').selectAll().where('id', '=', leadId).executeTakeFirstOrThrow()).toEqual(before);
    expect((await db.selectFrom('jobs').select('state').where('lead_id', '=', leadId).execute()).map((j) => j.state)).toEqual([
      'done',
      'done',
    ]);
  });

  it('a changed catalogue matches searching leads again', async () => {
    const leadId = await ingest('644000111');
    await worker().drain();
    expect((await leadInFull(db, leadId))!.matches).toHaveLength(1);
    await importRecords(db, businessId, [listing('sol-4', { operation: 'alquiler', price: null, price_rent: 700, bedrooms: 2 })]);
    // The import queued, in its own transaction, one re-match of the business, due a moment later.
    const queued = await listJobs(db, { state: 'pending', limit: 10 });
    expect(queued.map((j) => [j.kind, j.lead_id])).toEqual([['rematch_catalogue', null]]);
    // That one job matches again the searching leads the change reaches.
    expect(await worker().drain()).toBe(1);
    const full = (await leadInFull(db, leadId))!;
    expect(full.matches.map((m) => m.property_id).sort()).toEqual([1, 4]);
  });

  it('a channel connected after the lead arrived does not message it', async () => {
    const leadId = await ingest('655111222');
    await connect();
    await worker().drain();
    expect(graph.requests).toHaveLength(0);
    expect((await leadInFull(db, leadId))!.message).toBeNull();
  });

  it('the message is pending from the moment the lead is stored, in the language of preferred_language', async () => {
    await connect({ gb: 'en_GB' });
    const cases: Array<[string | null, string]> = [
      ['es', 'es'],
      ['gb', 'en_GB'],
      ['fr', 'fr'],
      ['ge', 'de'],
      ['it', 'it'],
      [null, 'es'],
    ];
    for (const [i, [preferred, language]] of cases.entries()) {
      const leadId = await inquiry(`61100010${i}`, preferred ? { preferred_language: preferred } : {});
      expect((await leadInFull(db, leadId))!.message, String(preferred)).toMatchObject({
        state: 'pending',
        template: 'bienvenida',
        language,
      });
    }
    await worker().drain();
    // Sent concurrently: compared by recipient.
    const sentLanguage = new Map(graph.requests.map((r) => [r.body.to, r.body.template.language.code]));
    expect(cases.map((_, i) => sentLanguage.get(`+3461100010${i}`))).toEqual(cases.map(([, language]) => language));
  });

  it('the in-process worker is woken when a request commits jobs', async () => {
    let wakes = 0;
    const woken = await buildApp({ surfaces: API_ONLY, db, onJobsQueued: () => wakes++ });
    expect((await post(woken, '/leads/ingest', key, ingestBody('655000111'))).status).toBe(200);
    // An existing phone changes nothing and queues nothing.
    expect((await post(woken, '/leads/ingest', key, ingestBody('655000111'))).status).toBe(200);
    await woken.close();
    expect(wakes).toBe(1);
  });
});

describe('retries and failures', () => {
  it('429 and 5xx are retried with backoff until the provider accepts; one message in the end', async () => {
    await connect();
    graph.script.push({ status: 503 }, { status: 429 });
    const leadId = await ingest('666000111');
    await worker().drain();
    expect(graph.requests).toHaveLength(1);
    let full = (await leadInFull(db, leadId))!;
    expect(full.message).toMatchObject({ state: 'pending' });
    expect(full.message!.last_error).toContain('HTTP 503');
    const [welcome] = await db.selectFrom('jobs').selectAll().where('kind', '=', 'send_welcome').execute();
    expect(welcome.state).toBe('pending');
    const delay = Date.parse(welcome.run_at) - clock.now().getTime();
    // First retry: 60 s with jitter between half and all of it.
    expect(delay).toBeGreaterThanOrEqual(30_000);
    expect(delay).toBeLessThanOrEqual(60_000);

    // Not due yet: nothing happens.
    await worker().drain();
    expect(graph.requests).toHaveLength(1);

    clock.advanceDays(1 / 24);
    await worker().drain();
    expect(graph.requests).toHaveLength(2);
    clock.advanceDays(1 / 24);
    await worker().drain();
    expect(graph.requests).toHaveLength(3);
    full = (await leadInFull(db, leadId))!;
    expect(full.message).toMatchObject({ state: 'sent', last_error: null });
    expect(graph.sendsTo('+34666000111')).toBe(3);
    expect(await db.selectFrom('jobs').select(['state', 'attempts']).where('kind', '=', 'send_welcome').executeTakeFirstOrThrow()).toEqual({
      state: 'done',
      attempts: 3,
    });
  });

  it('a 4xx other than 429 fails at once, visibly, and is not retried', async () => {
    await connect();
    graph.script.push({ status: 400, body: { error: { message: 'Template name does not exist in the translation', code: 132001 } } });
    const leadId = await ingest('677000111');
    await worker().drain();
    clock.advanceDays(1);
    await worker().drain();
    expect(graph.requests).toHaveLength(1);
    const full = (await leadInFull(db, leadId))!;
    expect(full.message).toMatchObject({ state: 'failed' });
    expect(full.message!.last_error).toBe('HTTP 400: Template name does not exist in the translation (code 132001)');
    const failed = await listJobs(db, { state: 'failed', limit: 10 });
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ kind: 'send_welcome', lead_id: leadId, attempts: 1 });
    expect(failed[0].last_error).toContain('rejected');
  });

  it('a job that keeps failing is parked as failed after the last attempt', async () => {
    await connect();
    graph.script.push({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    const leadId = await ingest('688000111');
    for (let i = 0; i < 5; i++) {
      await worker().drain();
      clock.advanceDays(1);
    }
    expect(graph.requests).toHaveLength(3);
    expect((await leadInFull(db, leadId))!.message).toMatchObject({ state: 'failed' });
    const [job] = await listJobs(db, { state: 'failed', limit: 10 });
    expect(job).toMatchObject({ kind: 'send_welcome', attempts: 3 });
    expect(job.last_error).toMatch(/^gave up after 3 attempts: HTTP 500/);
  });

  it('a provider that does not answer leaves the lead for reconciliation, never sent again', async () => {
    await connect();
    graph.script.push('hang');
    const leadId = await ingest('699000111');
    await worker({ sendTimeoutMs: 300 }).drain();
    clock.advanceDays(1);
    await worker().drain();
    expect(graph.requests).toHaveLength(1);
    const full = (await leadInFull(db, leadId))!;
    expect(full.message).toMatchObject({ state: 'needs_reconciliation' });
    expect(full.message!.last_error).toContain('may have sent');
  });

  it('an unreachable provider is certainly not sent to: retried', async () => {
    const closed = await startFakeGraph();
    await closed.close();
    await connectChannel(
      db,
      { businessId, provider: 'whatsapp-cloud', phoneNumberId: '1', tokenEnv: 'T', template: 'bienvenida', baseUrl: closed.baseUrl },
      { T: TOKEN },
    );
    const leadId = await ingest('611222333');
    await worker().drain();
    expect((await leadInFull(db, leadId))!.message).toMatchObject({ state: 'pending' });
    expect((await leadInFull(db, leadId))!.message!.last_error).toContain('ECONNREFUSED');
  });

  it('the token is never logged', async () => {
    await connect();
    // A provider that echoes the token back in its error.
    graph.script.push({ status: 401, body: { error: { message: `Invalid OAuth access token ${TOKEN}.`, code: 190 } } }, { status: 500 });
    await ingest('611000222');
    await ingest('611000333');
    await worker().drain();
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join('\n')).not.toContain(TOKEN);
    const errors = (await db.selectFrom('messages').select('last_error').execute()).map((m) => m.last_error).join('\n');
    expect(errors).toContain('Invalid OAuth access token [token].');
    expect(errors).not.toContain(TOKEN);
  });

  it('backoff doubles from the base up to the cap, with jitter in the upper half', () => {
    const settings = { backoffMs: 1000, maxBackoffMs: 10_000 };
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(n, settings, () => 1))).toEqual([1000, 2000, 4000, 8000, 10_000]);
    expect(backoffDelayMs(3, settings, () => 0)).toBe(2000);
  });
});

describe('several workers and dead workers', () => {
  it('a job held by a worker that died is taken back when its lease runs out', async () => {
    await connect();
    const leadId = await ingest('622333444');
    const lease = toRfc3339(new Date(clock.now().getTime() + 60_000));
    const taken = await claimJobs(db, 'dead-worker', 10, toRfc3339(clock.now()), lease);
    expect(taken).toHaveLength(2);
    // While the lease lasts, no other worker touches them.
    expect(await worker().tick()).toBe(0);
    // The dead worker got as far as recording the send.
    await db.updateTable('messages').set({ state: 'sending' }).where('lead_id', '=', leadId).execute();
    clock.advanceDays(1);
    await worker().drain();
    expect(graph.requests).toHaveLength(0);
    const full = (await leadInFull(db, leadId))!;
    expect(full.message).toMatchObject({ state: 'needs_reconciliation' });
    expect(full.matches).toHaveLength(1);
    const jobs = await db.selectFrom('jobs').select(['state', 'attempts']).where('lead_id', '=', leadId).execute();
    expect(jobs.map((j) => [j.state, j.attempts])).toEqual([
      ['done', 2],
      ['done', 2],
    ]);
  });

  it('three workers in three processes run every job exactly once', async () => {
    await connect();
    const phones = Array.from({ length: 40 }, (_, i) => `6${String(10_000_000 + i * 7919).padStart(8, '0')}`);
    for (const phone of phones) await ingest(phone);
    const env = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' };
    // Workers are separate processes in production: one in-process (this test's) and two children.
    const [here, one, two] = await Promise.all([
      worker({ concurrency: 2 }).drain(),
      inmoProcess(env, 'worker', '--until-idle', '--concurrency', '2', '--json'),
      inmoProcess(env, 'worker', '--until-idle', '--concurrency', '2', '--json'),
    ]);
    expect(one.code).toBe(0);
    expect(two.code).toBe(0);
    expect(here + one.json.jobs_run + two.json.jobs_run).toBe(80);
    expect(graph.requests).toHaveLength(40);
    for (const phone of phones) expect(graph.sendsTo(`+34${phone}`)).toBe(1);
    const jobs = await listJobs(db, { limit: 200 });
    expect(jobs.every((j) => j.state === 'done' && j.attempts === 1)).toBe(true);
  });

  it('stop() stops claiming and waits for the job in flight to finish', async () => {
    await connect();
    // The first send is answered when the test says so.
    let answer!: () => void;
    graph.script.push({ status: 200, until: new Promise<void>((resolve) => (answer = resolve)) });
    await ingest('633444555');
    await ingest('633444556');
    const w = worker({ pollMs: 10, concurrency: 1 });
    w.start();
    await expect.poll(() => graph.requests.length).toBe(1);
    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    // While the send waits for its answer, so does stop().
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stopped).toBe(false);
    answer();
    await stopping;
    // stop() resolved only once the send had been answered and recorded.
    const messages = await db.selectFrom('messages').select(['recipient', 'state']).orderBy('lead_id').execute();
    expect(messages.map((m) => m.state)).toContain('sent');
    expect(await db.selectFrom('jobs').select('id').where('state', '=', 'running').execute()).toEqual([]);
    // The second lead's welcome was not started: it waits for the next worker.
    expect(graph.requests).toHaveLength(1);
  });

  it('a job parked when its worker dies on the last attempt leaves its message for reconciliation', async () => {
    await connect();
    const leadId = await ingest('644555666');
    const lease = toRfc3339(new Date(clock.now().getTime() + 60_000));
    await claimJobs(db, 'dead-worker', 10, toRfc3339(clock.now()), lease);
    await db.updateTable('jobs').set({ attempts: 3 }).where('lead_id', '=', leadId).execute();
    await db.updateTable('messages').set({ state: 'sending' }).where('lead_id', '=', leadId).execute();
    clock.advanceDays(1);
    await worker().drain();
    const failed = await listJobs(db, { state: 'failed', limit: 10 });
    expect(failed.map((j) => j.kind).sort()).toEqual(['match_lead', 'send_welcome']);
    expect(failed[0].last_error).toContain('lease expired');
    expect((await leadInFull(db, leadId))!.message).toMatchObject({ state: 'needs_reconciliation' });
    expect(graph.requests).toHaveLength(0);
  });
});

describe('claiming', () => {
  it('reads due jobs in run_at order from the jobs_due index, never by sorting the backlog (migration 0013)', async () => {
    // A backlog as 3,000 queued webhook deliveries leave it: due at once, plus later ones.
    const now = toRfc3339(clock.now());
    const later = toRfc3339(new Date(clock.now().getTime() + 3_600_000));
    const rows = Array.from({ length: 3000 }, (_, i) => ({
      business_id: businessId,
      lead_id: null,
      kind: 'deliver_webhook',
      payload: JSON.stringify({ delivery_id: i }),
      state: i % 3 === 0 ? 'done' : 'pending',
      run_at: i % 5 === 0 ? later : toRfc3339(new Date(clock.now().getTime() - (3000 - i) * 1000)),
      created_at: now,
      updated_at: now,
    }));
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto('jobs')
        .values(rows.slice(i, i + 500))
        .execute();
    const query = dueJobIds(db, 4, now).compile();
    const plan =
      ENGINE === 'sqlite'
        ? (await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]))).rows
            .map((r) => r.detail)
            .join('\n')
        : await (async () => {
            await sql`analyze jobs`.execute(db);
            const explained = await db.executeQuery<{ 'QUERY PLAN': string }>(
              CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
            );
            return explained.rows.map((r) => r['QUERY PLAN']).join('\n');
          })();
    expect(plan).toContain('jobs_due');
    // A sort here is a sort of every pending job, on each claim.
    expect(plan).not.toMatch(/TEMP B-TREE|Sort/);
    // And it is the right rows: the earliest due pending jobs.
    const expected = rows
      .map((r, i) => ({ ...r, i }))
      .filter((r) => r.state === 'pending' && r.run_at <= now)
      .slice(0, 4)
      .map((r) => JSON.parse(r.payload).delivery_id);
    const claimed = await claimJobs(db, 'w', 4, now, later);
    // UPDATE … RETURNING gives no order: the set is what counts.
    expect(claimed.map((j) => JSON.parse(j.payload!).delivery_id as number).sort((a, b) => a - b)).toEqual(expected);
  });
});
