/**
 * The outbox (issue 56): one place queues a message to a person (services/messaging/outbox.ts)
 * and one delivery path sends it, with the send-once claim in one place
 * (services/messaging/delivery.ts). Two deliveries of the same queued message send it once;
 * a job of the kinds messages were queued with before the outbox still runs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { outboundPolicy } from '../../../src/config.ts';
import { findWelcome } from '../../../src/db/repositories/messaging.ts';
import { transact } from '../../../src/db/transaction.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { deliverQueuedMessage, type DeliveryContext } from '../../../src/services/messaging/delivery.ts';
import { queueMessage } from '../../../src/services/messaging/outbox.ts';
import { DEFAULT_WORKER_SETTINGS } from '../../../src/worker-settings.ts';
import { startFakeGraph, type FakeGraph } from '../../helpers/fake-graph.ts';
import { API_ONLY, post, withApp } from '../../helpers/http.ts';
import { connectFakeChannel } from '../../helpers/whatsapp.ts';

const t = withApp({ surfaces: API_ONLY, each: true });
let graph: FakeGraph;

beforeEach(async () => {
  graph = await startFakeGraph();
  await connectFakeChannel(t.db, t.businessId, graph.baseUrl);
});
afterEach(async () => {
  await graph.close();
});

const context = (): DeliveryContext => ({
  db: t.db,
  now: () => new Date().toISOString(),
  outbound: outboundPolicy(),
  sendTimeoutMs: DEFAULT_WORKER_SETTINGS.sendTimeoutMs,
  attempts: 1,
  finalAttempt: false,
});

const templatesSent = () => graph.requests.filter((r) => r.body?.type === 'template').length;

/** A new lead, whose welcome template is queued (`pending`). @returns the lead's and its welcome's ids. */
async function leadWithWelcome(phone: string): Promise<{ leadId: number; welcomeId: number }> {
  const created = await post(t.app, '/leads/inquiries', t.key, { name: 'Olga', type: 'buyer', phone_number_1: phone });
  const leadId = created.body.lead_id as number;
  const welcome = await findWelcome(t.db, leadId);
  expect(welcome?.state).toBe('pending');
  return { leadId, welcomeId: welcome!.id };
}

describe('the outbox', () => {
  it('sends a queued message once, however many deliveries of it run, at once or one after another', async () => {
    const { welcomeId } = await leadWithWelcome('+34611800001');
    await Promise.all([deliverQueuedMessage(context(), welcomeId), deliverQueuedMessage(context(), welcomeId)]);
    await deliverQueuedMessage(context(), welcomeId);
    expect(templatesSent()).toBe(1);
    const message = await t.db.selectFrom('messages').select(['state']).where('id', '=', welcomeId).executeTakeFirstOrThrow();
    // The second run may have found it `sending` while the first waited for the provider: then its outcome is not known to it.
    expect(['sent', 'needs_reconciliation']).toContain(message.state);
  });

  it('never sends again a message an earlier run claimed: found `sending`, it needs reconciliation', async () => {
    const { welcomeId } = await leadWithWelcome('+34611800002');
    await t.db.updateTable('messages').set({ state: 'sending' }).where('id', '=', welcomeId).execute();
    await deliverQueuedMessage(context(), welcomeId);
    expect(templatesSent()).toBe(0);
    const message = await t.db.selectFrom('messages').select(['state', 'last_error']).where('id', '=', welcomeId).executeTakeFirstOrThrow();
    expect(message.state).toBe('needs_reconciliation');
    expect(message.last_error).toMatch(/may have been sent/);
  });

  it("queues a message with its send_message job in the caller's transaction, or not at all", async () => {
    const { leadId } = await leadWithWelcome('+34611800003');
    const lead = { id: leadId, business_id: t.businessId };
    const at = new Date().toISOString();
    const queued = { lead, purpose: 'reply' as const, kind: 'text' as const, body: 'Hola', recipient: '+34611800003', at };
    await expect(
      transact(t.db, async (trx) => {
        await queueMessage(trx, queued);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const countOf = async () =>
      (await t.db.selectFrom('jobs').select('payload').where('lead_id', '=', leadId).where('kind', '=', 'send_message').execute()).length;
    expect(await countOf()).toBe(0);
    const id = await transact(t.db, (trx) => queueMessage(trx, queued));
    const jobs = await t.db.selectFrom('jobs').select('payload').where('lead_id', '=', leadId).where('kind', '=', 'send_message').execute();
    expect(jobs.map((j) => JSON.parse(j.payload!))).toEqual([{ message_id: id }]);
    const row = await t.db.selectFrom('messages').select(['author', 'state', 'body']).where('id', '=', id!).executeTakeFirstOrThrow();
    expect(row).toEqual({ author: 'agent', state: 'pending', body: 'Hola' });
  });

  it('still runs the jobs of the kinds messages were queued with before it (send_alert, send_viewing_notice), sending once', async () => {
    const { leadId, welcomeId } = await leadWithWelcome('+34611800004');
    const now = new Date().toISOString();
    await t.db.deleteFrom('jobs').where('lead_id', '=', leadId).where('kind', '=', 'send_welcome').execute();
    for (const kind of ['send_alert', 'send_viewing_notice']) {
      await t.db
        .insertInto('jobs')
        .values({
          business_id: t.businessId,
          lead_id: leadId,
          kind,
          payload: JSON.stringify({ message_id: welcomeId }),
          state: 'pending',
          run_at: now,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    expect(templatesSent()).toBe(1);
    const jobs = await t.db
      .selectFrom('jobs')
      .select(['kind', 'state'])
      .where('lead_id', '=', leadId)
      .where('kind', 'like', 'send_%')
      .execute();
    expect(jobs.map((j) => j.state)).toEqual(['done', 'done']);
  });
});
