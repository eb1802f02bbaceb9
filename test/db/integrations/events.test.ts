/**
 * The event log and outgoing webhooks (CONTRACT §13; services/integrations/events.ts,
 * services/integrations/outgoing-webhooks.ts): GET /events, Standard Webhooks deliveries verified with the
 * `standardwebhooks` reference implementation, order per lead, retries, replay, rotation, and
 * the refusal of private destinations.
 */
import { outboundPolicy } from '../../../src/config.ts';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { createApiKey } from '../../../src/services/access/api-keys.ts';
import { recordLeadEvent } from '../../../src/services/integrations/events.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import {
  addWebhook,
  disableWebhook,
  listWebhookDeliveries,
  replayDelivery,
  rotateWebhookSecret,
  RETRY_SCHEDULE_MS,
} from '../../../src/services/integrations/outgoing-webhooks.ts';
import { inmo } from '../../helpers/cli.ts';
import { businessWithKey, importRecords, listing, INTERACTION_TABLES, snapshot } from '../../helpers/db.ts';
import { get, post, withApp, API_ONLY } from '../../helpers/http.ts';

const t = withApp({ surfaces: API_ONLY, each: true });

/** A local receiver: records every POST; answers `status` (changeable) with `reply`. */
interface Receiver {
  url: string;
  received: Array<{ headers: IncomingHttpHeaders; body: string }>;
  status: number;
  reply: string;
  server: Server;
}

let receiver: Receiver;

beforeEach(async () => {
  const state = { received: [], status: 200, reply: 'ok' } as unknown as Receiver;
  state.server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      state.received.push({ headers: request.headers, body });
      response.writeHead(state.status, { 'content-type': 'text/plain' }).end(state.reply);
    });
  });
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}/hooks`;
  receiver = state;
});

/** The policy of an operator who allows no private destinations (the suite's default allows them). */
const strict = outboundPolicy({});

afterEach(async () => {
  await new Promise((resolve) => receiver.server.close(resolve));
});

const inquiry = (phone: string, extra: Record<string, unknown> = {}) =>
  post(t.app, '/leads/inquiries', t.key, { name: 'Nora', type: 'buyer', phone_number_1: phone, ...extra });
const madrid = { search_preferences: [{ operations: ['venta'], property_types: ['apartamento'], locations: [{ name: 'Madrid' }] }] };

/**
 * The events a receiver got, verified: throws when a signature does not check out. With
 * `sentLater`, each is verified as its receiver would have at the time it was sent (deliveries
 * driven by a manual clock carry its time, and the library refuses timestamps 5 min off).
 */
function verified(secret: string, sentLater = false) {
  const webhook = new Webhook(secret);
  return receiver.received.map(({ headers, body }) => {
    const clock = sentLater ? vi.spyOn(Date, 'now').mockReturnValue(Number(headers['webhook-timestamp']) * 1000) : null;
    try {
      const payload = webhook.verify(body, headers as Record<string, string>) as {
        type: string;
        timestamp: string;
        data: Record<string, any>;
      };
      return { id: headers['webhook-id'] as string, ...payload };
    } finally {
      clock?.mockRestore();
    }
  });
}

describe('GET /events', () => {
  it('logs lead.created, lead.updated and match.found, oldest first, pages with after, and needs events:read', async () => {
    await importRecords(t.db, t.businessId, [listing('M-1')]);
    // The listing's property.changed comes first (tested with the catalogue): read after it.
    const start = (await get(t.app, '/events', t.key)).body.next_cursor;
    const first = await inquiry('+34611400001', madrid);
    await post(t.app, '/leads/inquiries', t.key, { type: 'buyer', phone_number_1: '+34611400002' }); // refused: no name
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    const all = await get(t.app, `/events?after=${start}`, t.key);
    expect(all.status).toBe(200);
    const types = all.body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(['lead.created', 'match.found']);
    const [created, matched] = all.body.data;
    expect(created.id).toMatch(/^evt_\d+$/);
    expect(created.data.lead).toEqual((await get(t.app, `/leads/${first.body.lead_id}`, t.key)).body);
    expect(matched.data).toEqual({ lead_id: first.body.lead_id, matches: [expect.any(Number)], near_misses: 0 });
    expect(all.body).toMatchObject({ next_cursor: matched.id, has_more: false });

    const page = await get(t.app, `/events?after=${start}&limit=1`, t.key);
    expect([page.body.data.length, page.body.has_more, page.body.next_cursor]).toEqual([1, true, created.id]);
    expect((await get(t.app, `/events?after=${page.body.next_cursor}`, t.key)).body.data.map((e: { id: string }) => e.id)).toEqual([
      matched.id,
    ]);
    expect((await get(t.app, `/events?after=${matched.id}`, t.key)).body).toEqual({ data: [], next_cursor: matched.id, has_more: false });

    const other = await businessWithKey(t.db, 'Otra');
    expect((await get(t.app, '/events', other.key)).body.data).toEqual([]);
    const noScope = await createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:read'] });
    expect((await get(t.app, '/events', noScope.key)).body.detail).toBe('API key lacks the scope this operation requires: events:read');
    const bad = await get(t.app, '/events?after=42', t.key);
    expect([bad.status, bad.body.detail[0].type, bad.body.detail[0].loc]).toEqual([422, 'value_error', ['query', 'after']]);
  });

  it('logs lead.updated when an inquiry completes an unnamed lead, in the same transaction; a 409 logs lead.contacted_again only', async () => {
    await post(t.app, '/leads/ingest', t.key, {
      id: 'x',
      createdAt: 'x',
      source: 's',
      sourcePage: 'p',
      contact: { name: '', phone: '+34611400010' },
      search: {},
    });
    await inquiry('+34611400010');
    const before = await snapshot(t.db, INTERACTION_TABLES);
    expect((await inquiry('+34611400010')).status).toBe(409);
    expect(await snapshot(t.db, INTERACTION_TABLES)).toBe(before);
    const { body } = await get(t.app, '/events', t.key);
    expect(body.data.map((e: { type: string }) => e.type)).toEqual(['lead.created', 'lead.updated', 'lead.contacted_again']);
    expect(body.data[1].data.lead.name).toBe('Nora');
    expect(body.data[2].data).toEqual({ id: body.data[1].data.lead.id, source: 'inquiry' });
  });
});

describe('webhooks', () => {
  it('POSTs each event signed as Standard Webhooks, verified by the reference implementation, within one drain', async () => {
    // The listing first: its property.changed is before the endpoint exists.
    await importRecords(t.db, t.businessId, [listing('M-1')]);
    const { secret } = await addWebhook(t.db, { businessId: t.businessId, url: receiver.url });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const lead = await inquiry('+34611400020', madrid);
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    const events = verified(secret);
    expect(events.map((e) => e.type)).toEqual(['lead.created', 'match.found']);
    expect(events[0].data.lead.id).toBe(lead.body.lead_id);
    const logged = (await get(t.app, '/events', t.key)).body.data.filter((e: { type: string }) => e.type !== 'property.changed');
    expect(events.map((e) => e.id)).toEqual(logged.map((e: { id: string }) => e.id));
    const { headers } = receiver.received[0];
    expect(Number(headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    expect(headers['content-type']).toBe('application/json');
    // A wrong secret does not verify.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(receiver.received[0].body, headers as never),
    ).toThrow();
  });

  it('queues an event written while the delivery ahead of it ends: on PostgreSQL the two transactions run at once', async () => {
    const { secret } = await addWebhook(t.db, { businessId: t.businessId, url: receiver.url, events: ['lead.created', 'lead.updated'] });
    const lead = await inquiry('+34611400025', madrid);
    // lead.updated is written in a transaction held open while lead.created's delivery ends.
    let written!: () => void;
    let commit!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    const held = new Promise<void>((resolve) => (commit = resolve));
    const writing = t.db.transaction().execute(async (trx) => {
      await recordLeadEvent(trx, t.businessId, lead.body.lead_id, 'lead.updated', nowRfc3339());
      written();
      await held;
    });
    await wrote;
    const drained = new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    // Commit once lead.created has been received and its delivery is ending (SQLite: the worker waits for the writer instead).
    await vi.waitFor(() => expect(receiver.received.length > 0 || t.db.engine === 'sqlite').toBe(true), { timeout: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    commit();
    await writing;
    await drained;
    expect(verified(secret).map((e) => e.type)).toEqual(['lead.created', 'lead.updated']);
    expect(await t.db.selectFrom('webhook_deliveries').select('state').execute()).toEqual([{ state: 'delivered' }, { state: 'delivered' }]);
  });

  it('sends only the event types asked for', async () => {
    const { secret } = await addWebhook(t.db, { businessId: t.businessId, url: receiver.url, events: ['match.found'] });
    await importRecords(t.db, t.businessId, [listing('M-1')]);
    await inquiry('+34611400030', madrid);
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    expect(verified(secret).map((e) => e.type)).toEqual(['match.found']);
  });

  it('sends property.changed when an import publishes, changes or withdraws a listing, in order for each listing', async () => {
    const { secret } = await addWebhook(t.db, { businessId: t.businessId, url: receiver.url, events: ['property.changed'] });
    await importRecords(t.db, t.businessId, [listing('P-1'), listing('P-2', { public: false })]);
    await importRecords(t.db, t.businessId, [listing('P-1', { status: 'vendida' })]);
    // A listing's deliveries go one after another: the second waits until the first has ended.
    const queued = await t.db.selectFrom('jobs').select('id').where('kind', '=', 'deliver_webhook').execute();
    expect(queued).toHaveLength(1);
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    const [id] = (await t.db.selectFrom('properties').select('id').where('external_ref', '=', 'P-1').execute()).map((r) => r.id);
    expect(verified(secret).map((e) => [e.type, e.data])).toEqual([
      ['property.changed', { id, change: 'upsert' }],
      ['property.changed', { id, change: 'delete' }],
    ]);
  });

  it('retries a receiver that is down, and once it is back delivers everything once, in order for each lead', async () => {
    // The listing first: its property.changed is before the endpoint exists.
    await importRecords(t.db, t.businessId, [listing('M-1')]);
    const { id: endpointId, secret } = await addWebhook(t.db, { businessId: t.businessId, url: receiver.url });
    receiver.status = 503;
    const a = await inquiry('+34611400040', madrid);
    const b = await inquiry('+34611400041', madrid);
    const clock = new ManualClock(new Date(Date.now() + 1000));
    const worker = () => new Worker({ db: t.db, clock, settings: { pollMs: 20 } }).drain();
    await worker();
    await worker();
    // Each lead's first event was tried once; its match.found waits behind it.
    expect(receiver.received).toHaveLength(2);
    for (const wait of RETRY_SCHEDULE_MS.slice(0, 3)) {
      clock.set(new Date(clock.now().getTime() + wait));
      await worker();
    }
    expect(receiver.received).toHaveLength(8);
    const log = await listWebhookDeliveries(t.db, endpointId);
    expect(log.filter((d) => d.state === 'pending' && d.attempts === 4)).toHaveLength(2);
    expect(log.find((d) => d.attempts === 4)).toMatchObject({ status: 503, response: 'ok', error: null });
    receiver.status = 200;
    receiver.received = [];
    clock.set(new Date(clock.now().getTime() + RETRY_SCHEDULE_MS[3]));
    await worker();
    const events = verified(secret, true);
    const ofLead = (leadId: number) => events.filter((e) => (e.data.lead?.id ?? e.data.lead_id) === leadId).map((e) => e.type);
    expect(ofLead(a.body.lead_id)).toEqual(['lead.created', 'match.found']);
    expect(ofLead(b.body.lead_id)).toEqual(['lead.created', 'match.found']);
    expect(new Set(events.map((e) => e.id)).size).toBe(4);
    expect((await listWebhookDeliveries(t.db, endpointId)).every((d) => d.state === 'delivered')).toBe(true);
    // Nothing more arrives later.
    clock.set(new Date(clock.now().getTime() + 100 * 3_600_000));
    await worker();
    expect(receiver.received).toHaveLength(4);
  });

  it('gives up after about 77 hours, and records status, latency and the first 1 KB of each answer', async () => {
    const { id: endpointId } = await addWebhook(t.db, { businessId: t.businessId, url: receiver.url });
    receiver.status = 500;
    receiver.reply = 'x'.repeat(3000);
    await inquiry('+34611400050');
    const clock = new ManualClock(new Date(Date.now() + 1000));
    const started = clock.now().getTime();
    for (let i = 0; i <= RETRY_SCHEDULE_MS.length; i++) {
      await new Worker({ db: t.db, clock, settings: { pollMs: 20 } }).drain();
      clock.set(new Date(clock.now().getTime() + (RETRY_SCHEDULE_MS[i] ?? 0)));
    }
    expect(RETRY_SCHEDULE_MS.reduce((sum, ms) => sum + ms, 0)).toBeGreaterThan(72 * 3_600_000);
    const [delivery] = await listWebhookDeliveries(t.db, endpointId);
    expect(delivery).toMatchObject({ state: 'failed', attempts: RETRY_SCHEDULE_MS.length + 1, status: 500 });
    expect(delivery.response).toHaveLength(1024);
    expect(delivery.latency_ms).toBeGreaterThanOrEqual(0);
    expect(receiver.received).toHaveLength(RETRY_SCHEDULE_MS.length + 1);
    expect(clock.now().getTime() - started).toBeGreaterThan(72 * 3_600_000);
  });

  it('replays a delivery on request, with the same webhook-id', async () => {
    const { id: endpointId, secret } = await addWebhook(t.db, { businessId: t.businessId, url: receiver.url });
    await inquiry('+34611400060');
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    const [delivery] = await listWebhookDeliveries(t.db, endpointId);
    await replayDelivery(t.db, delivery.id);
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    const events = verified(secret);
    expect(events.map((e) => e.type)).toEqual(['lead.created', 'lead.created']);
    expect(events[0].id).toBe(events[1].id);
    await expect(replayDelivery(t.db, 999_999)).rejects.toThrow('No webhook delivery with id 999999');
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const { id, secret: old } = await addWebhook(t.db, { businessId: t.businessId, url: receiver.url });
    const { secret: fresh } = await rotateWebhookSecret(t.db, id);
    expect(fresh).not.toBe(old);
    await inquiry('+34611400070');
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    expect(receiver.received[0].headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verified(old)).toHaveLength(1);
    expect(verified(fresh)).toHaveLength(1);
    // A day later, the previous secret signs no more.
    await t.db
      .updateTable('webhook_endpoints')
      .set({ previous_secret_until: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', id)
      .execute();
    await inquiry('+34611400071');
    receiver.received = [];
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    expect(receiver.received[0].headers['webhook-signature']).toMatch(/^v1,\S+$/);
    expect(verified(fresh)).toHaveLength(1);
    expect(() => verified(old)).toThrow();
  });

  it('stops at a disabled endpoint', async () => {
    const { id } = await addWebhook(t.db, { businessId: t.businessId, url: receiver.url });
    await inquiry('+34611400080');
    await disableWebhook(t.db, id);
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    expect(receiver.received).toHaveLength(0);
    expect((await listWebhookDeliveries(t.db, id))[0]).toMatchObject({ state: 'failed', error: 'the endpoint is disabled' });
  });
});

describe('webhook destinations', () => {
  it.each([
    'http://127.0.0.1:9/hooks',
    'https://10.0.0.8/hooks',
    'https://[::1]/hooks',
    'https://169.254.169.254/latest',
    'https://[::127.0.0.1]/hooks',
    'https://[::a9fe:a9fe]/latest',
    'http://example.com/x',
    'ftp://example.com/',
    'https://localhost/x',
    'not a url',
  ])('refuses %s unless INMO_ALLOW_PRIVATE_NETWORK=1', async (url) => {
    await expect(addWebhook(t.db, { businessId: t.businessId, url }, strict)).rejects.toMatchObject({ code: 'WEBHOOK_URL' });
  });

  it('takes INMO_WEBHOOKS_ALLOW_PRIVATE=1 as the older name of INMO_ALLOW_PRIVATE_NETWORK=1', async () => {
    await expect(addWebhook(t.db, { businessId: t.businessId, url: receiver.url }, strict)).rejects.toMatchObject({ code: 'WEBHOOK_URL' });
    const alias = outboundPolicy({ INMO_WEBHOOKS_ALLOW_PRIVATE: '1' });
    expect((await addWebhook(t.db, { businessId: t.businessId, url: receiver.url }, alias)).id).toBeGreaterThan(0);
  });

  it('accepts https on a public name, and never connects to a private address at delivery time', async () => {
    expect((await addWebhook(t.db, { businessId: t.businessId, url: 'https://crm.example.com/hooks' }, strict)).id).toBeGreaterThan(0);
    // Added while allowed, delivered while not: refused before anything is sent.
    const { id } = await addWebhook(
      t.db,
      { businessId: t.businessId, url: receiver.url },
      outboundPolicy({ INMO_ALLOW_PRIVATE_NETWORK: '1' }),
    );
    await inquiry('+34611400090');
    await new Worker({ db: t.db, settings: { pollMs: 20 }, outbound: strict }).drain();
    expect(receiver.received).toHaveLength(0);
    const [delivery] = await listWebhookDeliveries(t.db, id);
    expect(delivery.state).toBe('pending');
    expect(delivery.error).toContain('is not a public address (INMO_ALLOW_PRIVATE_NETWORK=1 allows it)');
  });

  it('inmo webhooks add prints {id, secret} once, and list never shows a secret', async () => {
    const env = { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn' };
    const add = (...args: string[]) => inmo(env, 'webhooks', 'add', '--business', String(t.businessId), '--url', receiver.url, ...args);
    const added = await add('--events', 'lead.created,match.found', '--json');
    expect(added.code).toBe(0);
    expect(Object.keys(added.json)).toEqual(['id', 'secret']);
    expect(added.json.secret).toMatch(/^whsec_/);
    const listed = await inmo(env, 'webhooks', 'list', '--business', String(t.businessId), '--json');
    expect(listed.json).toEqual([
      { id: added.json.id, url: receiver.url, events: ['lead.created', 'match.found'], created_at: expect.any(String), disabled_at: null },
    ]);
    expect(listed.stdout).not.toContain('whsec_');
    const refused = await add('--events', 'lead.deleted');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      '--events must list event types among: lead.created, lead.updated, match.found, message.status, conversation.waiting',
    );
  });
});

describe('the event log keeps 30 days', () => {
  it('a worker deletes older events, with their deliveries', async () => {
    const { id } = await addWebhook(t.db, { businessId: t.businessId, url: receiver.url });
    await inquiry('+34611400100');
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    expect(await listWebhookDeliveries(t.db, id)).toHaveLength(1);
    const old = new Date(Date.now() - 31 * 24 * 3_600_000).toISOString().replace('Z', '+00:00');
    await t.db.updateTable('events').set({ created_at: old }).execute();
    await inquiry('+34611400101');
    // The purge runs once an hour between all the workers (jobs/schedules.ts): an hour later.
    await new Worker({ db: t.db, clock: new ManualClock(new Date(Date.now() + 3_600_000)), settings: { pollMs: 20 } }).drain();
    const left = await t.db.selectFrom('events').select('lead_id').execute();
    expect(left).toHaveLength(1);
    expect((await listWebhookDeliveries(t.db, id)).map((d) => d.event_id)).toEqual([
      `evt_${(await t.db.selectFrom('events').select('id').executeTakeFirstOrThrow()).id}`,
    ]);
  });
});
