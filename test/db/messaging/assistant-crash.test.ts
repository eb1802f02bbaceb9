/**
 * Crash safety of the conversation's jobs (CONTRACT §10): while signed webhook deliveries
 * keep arriving (each one twice), a worker process is killed with SIGKILL at every step of
 * `process_webhook` and `assistant_reply` (src/jobs/failpoints.ts), at each of its first two hits
 * (`INMO_CRASH_RUNS` rounds in all: 12 by default, 50 in `npm run test:soak`); then one more
 * worker runs to the end. Every inbound message must be stored once and get exactly one
 * reply, and no reply may reach the provider twice: a kill between the provider call and its
 * record leaves the reply for reconciliation instead.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import type { Db } from '../../../src/db/database.ts';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { startFakeGraph, type FakeGraph } from '../../helpers/fake-graph.ts';
import { businessWithKey, freshDb, importRecords, listing } from '../../helpers/db.ts';
import { crashRuns, expectKillsAtEveryStep, runCrashableWorker, type Round } from '../../helpers/processes.ts';
import { APP_SECRET, deliver, inbound, PHONE_NUMBER_ID } from '../../helpers/whatsapp.ts';
import { API_ONLY } from '../../helpers/http.ts';

const FAILPOINTS = ['job:claimed', 'assistant:decided', 'assistant:recorded', 'message:sending', 'message:called', 'job:finished'];
/** Each failpoint fires at its 1st or 2nd hit in turn. */
const HITS = 2;
const RUNS = crashRuns(FAILPOINTS.length * HITS);

let db: Db;
let url: string;
let app: FastifyInstance;
let graph: FakeGraph;

beforeAll(async () => {
  ({ db, url } = await freshDb());
  const business = await businessWithKey(db);
  app = await buildApp({ surfaces: API_ONLY, db });
  graph = await startFakeGraph();
  await importRecords(db, business.businessId, [listing('a', { operation: 'alquiler', price: null, price_rent: 800 })]);
  await db.deleteFrom('jobs').execute();
  await connectChannel(
    db,
    {
      businessId: business.businessId,
      provider: 'whatsapp-cloud',
      phoneNumberId: PHONE_NUMBER_ID,
      tokenEnv: 'T',
      appSecretEnv: 'S',
      template: 'hola',
      baseUrl: graph.baseUrl,
    },
    { T: 'token', S: APP_SECRET },
  );
});

afterAll(async () => {
  await app.close();
  await graph.close();
  await db.destroy();
});

const runWorker = (failpoint: string | null) => runCrashableWorker(db, url, failpoint);

it(`killed with SIGKILL at every step, ${RUNS} times, the assistant answers every message once and never twice`, async () => {
  const rounds: Round[] = [];
  let previous: unknown = null;
  for (let run = 0; run < RUNS; run++) {
    const payload = inbound({
      from: `3461${String(1_000_000 + run * 7919).padStart(7, '0')}`,
      text: 'Sí, me interesa',
      name: `Lead ${run}`,
    });
    expect((await deliver(app, payload)).statusCode).toBe(200);
    // Meta retries: the last delivery comes again.
    if (previous !== null) expect((await deliver(app, previous)).statusCode).toBe(200);
    previous = payload;
    const failpoint = FAILPOINTS[run % FAILPOINTS.length];
    const hit = 1 + (Math.floor(run / FAILPOINTS.length) % HITS);
    rounds.push({ failpoint, hit, killed: (await runWorker(`${failpoint}:${hit}`)) === 'SIGKILL' });
  }
  expect(await runWorker(null)).toBeNull();
  expectKillsAtEveryStep(rounds, FAILPOINTS);

  const jobs = await db.selectFrom('jobs').select(['kind', 'state']).execute();
  expect(jobs.filter((j) => j.state !== 'done')).toEqual([]);
  expect(jobs.filter((j) => j.kind === 'process_webhook')).toHaveLength(RUNS);
  expect(jobs.filter((j) => j.kind === 'assistant_reply')).toHaveLength(RUNS);

  const received = await db.selectFrom('messages').select(['id', 'lead_id']).where('direction', '=', 'in').execute();
  expect(received).toHaveLength(RUNS);
  const replies = await db
    .selectFrom('messages')
    .select(['id', 'reply_to', 'state', 'recipient'])
    .where('author', '=', 'assistant')
    .execute();
  expect(replies.map((r) => r.reply_to).sort((a, b) => a! - b!)).toEqual(received.map((m) => m.id).sort((a, b) => a - b));

  // Never two sends of one reply; a reply recorded as sent reached the provider once.
  const sends = new Map<string, number>();
  for (const request of graph.requests) {
    const id = String(request.body?.biz_opaque_callback_data);
    sends.set(id, (sends.get(id) ?? 0) + 1);
  }
  let reconcile = 0;
  for (const reply of replies) {
    const count = sends.get(String(reply.id)) ?? 0;
    expect(count, `reply ${reply.id}`).toBeLessThanOrEqual(1);
    expect(graph.sendsTo(reply.recipient!)).toBeLessThanOrEqual(1);
    if (reply.state === 'sent') expect(count).toBe(1);
    else {
      expect(reply.state).toBe('needs_reconciliation');
      reconcile++;
    }
  }
  // A kill between the provider's call and its record (asserted above to have happened) leaves
  // one for reconciliation.
  expect(reconcile).toBeGreaterThan(0);
}, 600_000);
