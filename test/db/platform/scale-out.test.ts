/**
 * Scale-out (issue 5): two `inmo serve --no-worker` processes and two `inmo worker`
 * processes on one database. 500 leads are sent at once across both API processes, every
 * phone twice (written two ways, one to each process); every lead must be created once,
 * every job done once, every welcome sent once (fake provider), every match run recorded once
 * and every follow-up scheduled once. Runs on each engine; PostgreSQL is the one this is built for.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { startFakeGraph, type FakeGraph } from '../../helpers/fake-graph.ts';
import { businessWithKey, freshDb, importRecords, listing, REPO_ROOT } from '../../helpers/db.ts';
import { INMO_ENTRY, startServe, type Served } from '../../helpers/processes.ts';

const PHONES = 250;

let db: Db;
let url: string;
let key: string;
let graph: FakeGraph;
const servers: Served[] = [];
const workers: ChildProcess[] = [];
const env = () => ({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn', INMO_WORKER_POLL_MS: '50', INMO_RATE_LIMIT_POST_PER_IP: '0' });

async function startApi(): Promise<Served> {
  const served = await startServe(env(), '--no-worker');
  servers.push(served);
  return served;
}

function startWorker(): void {
  workers.push(spawn(process.execPath, [INMO_ENTRY, 'worker'], { env: env(), cwd: REPO_ROOT, stdio: 'ignore' }));
}

/** SIGTERM to every process; their exit codes. */
function stopAll(): Promise<Array<number | null>> {
  const stopWorker = (child: ChildProcess) =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null) return resolve(child.exitCode);
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
  return Promise.all([...servers.map((s) => s.stop()), ...workers.map(stopWorker)]);
}

beforeAll(async () => {
  ({ db, url } = await freshDb());
  const business = await businessWithKey(db);
  key = business.key;
  graph = await startFakeGraph();
  await importRecords(db, business.businessId, [
    listing('r1', { operation: 'alquiler', price: null, price_rent: 800 }),
    listing('s1', { operation: 'venta', price: 200_000 }),
  ]);
  // The import queued a re-match of searching leads; there are none: only the leads' own jobs count here.
  await db.deleteFrom('jobs').execute();
  await connectChannel(
    db,
    {
      businessId: business.businessId,
      provider: 'whatsapp-cloud',
      phoneNumberId: '9',
      tokenEnv: 'T',
      template: 'hola',
      baseUrl: graph.baseUrl,
    },
    { T: 'token' },
  );
}, 120_000);

afterAll(async () => {
  await stopAll();
  await graph.close();
  await db.destroy();
});

it(`two API processes and two workers: ${PHONES * 2} concurrent leads, duplicates by phone, every effect once`, async () => {
  const [api1, api2] = await Promise.all([startApi(), startApi()]);
  startWorker();
  startWorker();
  const bases = [api1.base, api2.base];

  const digits = (i: number) => `6${String(30_000_000 + i * 7_919).padStart(8, '0')}`;
  // Half the phones come as inquiries, half as ingests; each twice, written two ways, once to each process.
  const sends = Array.from({ length: PHONES }, (_, i) => {
    const d = digits(i);
    const ways = [d, `+34 ${d.slice(0, 3)} ${d.slice(3, 6)} ${d.slice(6)}`];
    return ways.map((phone, copy) =>
      i % 2 === 0
        ? {
            base: bases[copy],
            path: '/leads/inquiries',
            body: { name: `Lead ${i}`, phone_number_1: phone, type: 'tenant', search_preferences: [{ operations: ['alquiler'] }] },
          }
        : {
            base: bases[copy],
            path: '/leads/ingest',
            body: {
              id: `s${i}`,
              createdAt: '2026-11-22T10:00:00Z',
              source: 'landing',
              sourcePage: 'https://example.com',
              contact: { name: `Lead ${i}`, phone },
              search: { budget: '900' },
            },
          },
    );
  }).flat();
  const statuses = await Promise.all(
    sends.map(async ({ base, path, body }) => {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      // The body is kept (cut short) so that a failure can say what an unexpected answer was.
      return { path, status: response.status, body: (await response.text()).slice(0, 200) };
    }),
  );
  const count = (path: string, status: number) => statuses.filter((s) => s.path === path && s.status === status).length;
  // Each inquiry phone: one 200 and one 409; each ingest phone: two 200s (the second changes nothing).
  // On a failure, every path and status received says what the servers answered instead.
  const tally = JSON.stringify(
    Object.fromEntries(
      [...new Set(statuses.map((s) => `${s.path} ${s.status}`))].map((k) => [
        k,
        statuses.filter((s) => `${s.path} ${s.status}` === k).length,
      ]),
    ),
  );
  const unexpected = statuses.find((s) => s.status !== 200 && s.status !== 409);
  const told = unexpected ? `${tally}; e.g. ${unexpected.path} ${unexpected.status}: ${unexpected.body}` : tally;
  expect(count('/leads/inquiries', 200), told).toBe(PHONES / 2);
  expect(count('/leads/inquiries', 409), told).toBe(PHONES / 2);
  expect(count('/leads/ingest', 200), told).toBe(PHONES);

  // The workers finish: every welcome received, and no job left but the follow-ups due in 30 days.
  const deadline = Date.now() + 90_000;
  for (;;) {
    const open = await db
      .selectFrom('jobs')
      .select('id')
      .where('state', 'in', ['pending', 'running'])
      .where('kind', '!=', 'follow_up')
      .execute();
    if (open.length === 0 && graph.requests.length >= PHONES) break;
    if (Date.now() > deadline) throw new Error(`${open.length} jobs still open, ${graph.requests.length} messages`);
    await new Promise((r) => setTimeout(r, 100));
  }

  const leads = await db.selectFrom('leads').select(['id', 'phone_number_1']).execute();
  expect(leads).toHaveLength(PHONES);
  expect(new Set(leads.map((l) => l.phone_number_1)).size).toBe(PHONES);

  const jobs = await db.selectFrom('jobs').select(['lead_id', 'kind', 'state', 'attempts']).where('lead_id', 'is not', null).execute();
  for (const kind of ['match_lead', 'send_welcome']) {
    const ofKind = jobs.filter((j) => j.kind === kind);
    expect(ofKind, kind).toHaveLength(PHONES);
    expect(new Set(ofKind.map((j) => j.lead_id)).size, kind).toBe(PHONES);
    // Done, however many runs that took (under load a run may fail, the database busy beyond its
    // wait, and be run again): each effect once is what is asserted, below.
    expect(
      ofKind.every((j) => j.state === 'done'),
      kind,
    ).toBe(true);
  }
  expect(jobs.filter((j) => j.kind === 'schedule_follow_ups' && j.state === 'done')).toHaveLength(PHONES / 2);

  for (const lead of leads) expect(graph.sendsTo(lead.phone_number_1), lead.phone_number_1).toBe(1);
  const messages = await db.selectFrom('messages').select('state').execute();
  expect(messages.map((m) => m.state)).toEqual(Array(PHONES).fill('sent'));

  const followUps = await db.selectFrom('follow_ups').select('lead_id').execute();
  expect(followUps).toHaveLength(PHONES / 2);
  expect(new Set(followUps.map((f) => f.lead_id)).size).toBe(PHONES / 2);
  expect(await db.selectFrom('lead_match_runs').select('lead_id').execute()).toHaveLength(PHONES);

  const codes = await stopAll();
  // A process that did not stop cleanly says why in its own output.
  expect(codes, servers.map((s) => s.output().slice(-4000)).join('\n')).toEqual([0, 0, 0, 0]);
}, 300_000);
