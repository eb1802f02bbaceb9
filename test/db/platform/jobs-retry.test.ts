/**
 * Running a failed job again (issue 15: `inmo jobs retry`, the console's retry button): the job
 * and its failed message go back to pending and the lead gets the message once; a message that
 * WhatsApp may have taken is never sent twice; a job that has not failed, or of another
 * business, is refused. On this process's engine, with a fake Graph API on loopback.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.ts';
import type { Db } from '../../../src/db/database.ts';
import { findWelcome } from '../../../src/db/repositories/messaging.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { listFailedJobs, retryJob } from '../../../src/services/failed-jobs.ts';
import { startFakeGraph, type FakeGraph } from '../../helpers/fake-graph.ts';
import { businessWithKey, freshDb } from '../../helpers/db.ts';
import { post } from '../../helpers/http.ts';

let db: Db;
let app: FastifyInstance;
let graph: FakeGraph;
let businessId: number;
let key: string;

const drain = () => new Worker({ db, settings: { pollMs: 20, maxAttempts: 1 } }).drain();

beforeEach(async () => {
  ({ db } = await freshDb());
  ({ businessId, key } = await businessWithKey(db));
  app = await buildApp({ db });
  graph = await startFakeGraph();
  await connectChannel(
    db,
    { businessId, provider: 'whatsapp-cloud', phoneNumberId: '3491100', tokenEnv: 'T', template: 'bienvenida', baseUrl: graph.baseUrl },
    { T: 'token-used-only-in-tests' },
  );
});
afterEach(async () => {
  await app.close();
  await graph.close();
  await db.destroy();
});

/** A lead whose welcome WhatsApp rejected: its send_welcome job failed, its message failed. */
async function leadWithRejectedWelcome(phone: string) {
  graph.script.push({ status: 400, body: { error: { message: '(#131026) Message undeliverable', code: 131026 } } });
  const created = await post(app, '/leads/ingest', key, {
    id: 'x',
    createdAt: '2026-11-20T10:00:00Z',
    source: 'web',
    sourcePage: 'https://agencia.example/alquiler',
    contact: { name: 'Ana', phone },
    search: { budget: '700-900', location: { name: 'Zaragoza' } },
  });
  expect(created.status).toBe(200);
  await drain();
  const lead = await db.selectFrom('leads').select('id').where('phone_number_1', '=', phone).executeTakeFirstOrThrow();
  const job = await db
    .selectFrom('jobs')
    .selectAll()
    .where('lead_id', '=', lead.id)
    .where('kind', '=', 'send_welcome')
    .executeTakeFirstOrThrow();
  expect(job.state).toBe('failed');
  expect((await findWelcome(db, lead.id))!.state).toBe('failed');
  return { leadId: lead.id, jobId: job.id };
}

describe('retrying a failed job', () => {
  it('sends a rejected welcome again once, and then refuses a second retry', async () => {
    const { leadId, jobId } = await leadWithRejectedWelcome('+34611000001');
    expect((await listFailedJobs(db, businessId)).map((j) => j.id)).toContain(jobId);
    expect(await retryJob(db, jobId)).toEqual({ id: jobId, kind: 'send_welcome', state: 'pending' });
    const job = await db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(job).toMatchObject({ state: 'pending', attempts: 0, last_error: null });
    expect((await findWelcome(db, leadId))!.state).toBe('pending');
    await drain();
    expect((await findWelcome(db, leadId))!.state).toBe('sent');
    expect(graph.sendsTo('+34611000001')).toBe(2);
    await expect(retryJob(db, jobId)).rejects.toThrow(`Job ${jobId} has not failed: it is done`);
    await drain();
    expect(graph.sendsTo('+34611000001')).toBe(2);
  });

  it('never retries a job whose message WhatsApp may have taken', async () => {
    const { leadId, jobId } = await leadWithRejectedWelcome('+34611000002');
    const welcome = (await findWelcome(db, leadId))!;
    await db.updateTable('messages').set({ state: 'needs_reconciliation' }).where('id', '=', welcome.id).execute();
    await expect(retryJob(db, jobId)).rejects.toThrow('its message is needs_reconciliation');
    expect((await db.selectFrom('jobs').select('state').where('id', '=', jobId).executeTakeFirstOrThrow()).state).toBe('failed');
    await drain();
    expect(graph.sendsTo('+34611000002')).toBe(1);
  });

  it("refuses another business's job as unknown", async () => {
    const { jobId } = await leadWithRejectedWelcome('+34611000003');
    await expect(retryJob(db, jobId, { businessId: businessId + 1 })).rejects.toThrow(`No job with id ${jobId}`);
    await expect(retryJob(db, 999_999)).rejects.toThrow('No job with id 999999');
    expect((await db.selectFrom('jobs').select('state').where('id', '=', jobId).executeTakeFirstOrThrow()).state).toBe('failed');
  });
});
