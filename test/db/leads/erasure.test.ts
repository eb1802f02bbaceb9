/**
 * Erasure (issue 31, CONTRACT §18; GDPR Art. 17): DELETE /leads/{id}, `inmo leads erase` and the
 * console's button remove every trace of the person from every table, cancel what was queued
 * for them, answer 404 afterwards, tell subscribers with `lead.erased`, and may be repeated.
 *
 * "Every trace" is checked by reading every row of every table the migrations made, so a table
 * added later cannot escape the check: before the erasure the same scan finds the person in
 * the tables that hold them, which proves it can.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Db } from '../../../src/db/database.ts';
import { findWelcome } from '../../../src/db/repositories/messaging.ts';
import { deliverQueuedMessage } from '../../../src/services/messaging/delivery.ts';
import { DEFAULT_WORKER_SETTINGS } from '../../../src/jobs/settings.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { outboundPolicy } from '../../../src/config.ts';
import { addWebhook } from '../../../src/services/integrations/outgoing-webhooks.ts';
import { setFollowUpRule } from '../../../src/services/leads/follow-ups.ts';
import { addLeadNote, changeLeadStatus } from '../../../src/services/leads/pipeline.ts';
import { eraseLead } from '../../../src/services/leads/erasure.ts';
import { CLI } from '../../../src/services/access/audit.ts';
import { createApiKey } from '../../../src/services/access/api-keys.ts';
import { startFakeGraph, type FakeGraph } from '../../helpers/fake-graph.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { inmo } from '../../helpers/cli.ts';
import { businessWithKey, ENGINE, importRecords, listing, snapshot } from '../../helpers/db.ts';
import { get, post, withApp } from '../../helpers/http.ts';
import { connectFakeChannel, deliver, inbound, status } from '../../helpers/whatsapp.ts';

const t = withApp({ each: true });
let graph: FakeGraph;
let hooks: { server: Server; url: string; received: Array<{ type: string; data: Record<string, unknown> }> };

beforeEach(async () => {
  graph = await startFakeGraph();
  await connectFakeChannel(t.db, t.businessId, graph.baseUrl);
  const received: typeof hooks.received = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push(JSON.parse(body) as (typeof received)[number]);
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hooks = { server, received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
  await addWebhook(t.db, { businessId: t.businessId, url: hooks.url });
  await setFollowUpRule(t.db, t.businessId, 'buyer', 7);
  await importRecords(t.db, t.businessId, [listing('M-1')]);
});
afterEach(async () => {
  await graph.close();
  await new Promise((resolve) => hooks.server.close(resolve));
});

const drain = () => new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();

/** A person, and every piece of them inmo may hold. */
function person(n: number) {
  const phone = `+3461170000${n}`;
  return {
    name: `Zoraida${n} Quintanilla`,
    phone,
    second: `+3462270000${n}`,
    landline: `+3497670000${n}`,
    personal: `zoraida${n}.q@example.net`,
    work: `zq${n}@trabajo.example`,
    dni: `1234567${n}Z`,
    note: `Quiere vivir junto al parque Grande, pregunta por Zoraida${n}`,
    page: `https://agencia.example/contacto-zoraida${n}`,
    said: `Hola, soy Zoraida${n}, ¿sigue disponible el piso?`,
    agentNote: `Llamada con Zoraida${n}: visita el jueves`,
    again: `Vuelvo a escribir, soy Zoraida${n}: ¿y el ático?`,
    waId: phone.slice(1),
  };
}
type Person = ReturnType<typeof person>;
/** What a scan looks for: every piece of the person, the phones also as WhatsApp writes them (digits). */
const needles = (p: Person) => [
  p.name,
  p.phone,
  p.waId,
  p.second,
  p.second.slice(1),
  p.landline,
  p.landline.slice(1),
  p.personal,
  p.work,
  p.dni,
  p.note,
  p.page,
  p.said,
  p.agentNote,
  p.again,
];

/**
 * Every table of the database (as the migrations made them, read from the engine's catalogue)
 * where one of `pieces` appears in any column of any row: `{table: [pieces found]}`.
 */
async function traces(db: Db, pieces: string[]): Promise<Record<string, string[]>> {
  const own =
    db.engine === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0].schema : undefined;
  const tables = (await db.introspection.getTables())
    .filter((table) => own === undefined || table.schema === own)
    .map((table) => table.name);
  expect(tables).toEqual(expect.arrayContaining(['leads', 'messages', 'events', 'webhook_events', 'lead_consents', 'audit_log']));
  const found: Record<string, string[]> = {};
  for (const table of tables) {
    const rows = await db
      .selectFrom(table as 'leads')
      .selectAll()
      .execute();
    const text = JSON.stringify(rows);
    const hits = pieces.filter((piece) => text.includes(piece) || text.includes(JSON.stringify(piece).slice(1, -1)));
    if (hits.length) found[table] = hits;
  }
  return found;
}

/** The SQLite file under test, or null on PostgreSQL. */
const sqliteFile = ENGINE === 'sqlite' ? () => t.url.replace(/^sqlite:/, '') : null;

/** Which of `pieces` the SQLite file or its write-ahead log hold, as UTF-8 bytes anywhere. */
async function inFile(pieces: string[]): Promise<string[]> {
  const path = sqliteFile!();
  const bytes = Buffer.concat([await readFile(path), await readFile(`${path}-wal`).catch(() => Buffer.alloc(0))]);
  return pieces.filter((piece) => bytes.includes(Buffer.from(piece, 'utf8')));
}

/** A lead with something of the person in every place inmo keeps it. @returns its id. */
async function everywhere(p: Person, businessId = t.businessId): Promise<number> {
  const created = await post(
    t.app,
    '/leads/inquiries',
    t.key,
    {
      name: p.name,
      type: 'buyer',
      phone_number_1: p.phone,
      phone_number_2: p.second,
      landline_phone: p.landline,
      personal_email: p.personal,
      professional_email: p.work,
      dni: p.dni,
      notes: p.note,
      sourcePage: p.page,
      consent: { marketing: true, whatsapp: true, text: 'Acepto que me escriban por WhatsApp.', version: 'v1' },
      search_preferences: [{ operations: ['venta'], property_types: ['apartamento'], locations: [{ name: 'Madrid' }] }],
    },
    { 'idempotency-key': `inquiry-form-${p.dni.length}-${Date.now()}` },
  );
  expect(created.status).toBe(200);
  const leadId = created.body.lead_id as number;
  // The person writes again: a 409 that keeps the request as an interaction (CONTRACT §22).
  const again = await post(t.app, '/leads/inquiries', t.key, { name: p.name, type: 'buyer', phone_number_1: p.phone, notes: p.again });
  expect(again.status).toBe(409);
  await drain();
  const welcome = graph.requests.find((r) => r.body?.to === p.waId || r.body?.to === p.phone);
  expect(welcome).toBeDefined();
  const sent = await findWelcome(t.db, leadId);
  expect((await deliver(t.app, status({ id: sent!.provider_message_id!, status: 'delivered', recipient: p.waId }))).statusCode).toBe(200);
  expect((await deliver(t.app, inbound({ from: p.waId, text: p.said, name: p.name }))).statusCode).toBe(200);
  const owner = await t.db
    .selectFrom('users')
    .select('id')
    .where('business_id', '=', businessId)
    .where('role', '=', 'owner')
    .executeTakeFirst();
  const actor = { userId: owner!.id, role: 'owner' as const, businessId };
  await addLeadNote(t.db, actor, leadId, p.agentNote);
  await changeLeadStatus(t.db, actor, leadId, 'searching_property');
  await drain();
  return leadId;
}

describe('DELETE /leads/{lead_id}', () => {
  it('leaves none of the person in any table, on this engine, and keeps everyone else', async () => {
    await userWithPassword(t.db, t.businessId, 'owner@agencia.example', 'owner');
    const zoraida = person(1);
    const other = person(2);
    const leadId = await everywhere(zoraida);
    const kept = await everywhere(other);

    // The scan sees the person where inmo keeps them: the check below can fail.
    const before = await traces(t.db, needles(zoraida));
    expect(Object.keys(before)).toEqual(
      expect.arrayContaining(['leads', 'lead_notes', 'lead_consents', 'lead_interactions', 'messages', 'events', 'webhook_events']),
    );
    expect((await t.db.selectFrom('idempotency_keys').select('lead_id').execute()).map((r) => r.lead_id)).toContain(leadId);
    if (sqliteFile) expect(await inFile(needles(zoraida))).toContain(zoraida.said);

    const erased = await t.app.inject({ method: 'DELETE', url: `/v1/ext/leads/${leadId}`, headers: { 'x-api-key': t.key } });
    expect(erased.statusCode).toBe(200);
    const body = erased.json();
    expect(body).toEqual({ status: 'ok', lead_id: leadId, erased_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });

    expect(await traces(t.db, needles(zoraida))).toEqual({});
    // SQLite: nor in the file's bytes, free pages and write-ahead log included.
    if (sqliteFile) expect(await inFile(needles(zoraida))).toEqual([]);
    expect(await t.db.selectFrom('idempotency_keys').select('lead_id').where('lead_id', '=', leadId).execute()).toEqual([]);
    for (const table of ['jobs', 'follow_ups', 'messages', 'conversations', 'lead_matches', 'lead_notes'] as const) {
      expect(await t.db.selectFrom(table).select('lead_id').where('lead_id', '=', leadId).execute(), table).toEqual([]);
    }
    // The other person is all there.
    expect(Object.keys(await traces(t.db, needles(other)))).toEqual(
      expect.arrayContaining(['leads', 'messages', 'lead_notes', 'webhook_events']),
    );
    expect((await get(t.app, `/leads/${kept}`, t.key)).status).toBe(200);
  });

  it('answers 404 for the lead everywhere afterwards, drops it from GET /leads, tells subscribers, and may be repeated', async () => {
    const zoraida = person(3);
    const created = await post(t.app, '/leads/inquiries', t.key, { name: zoraida.name, type: 'buyer', phone_number_1: zoraida.phone });
    const leadId = created.body.lead_id as number;
    await drain();
    hooks.received.length = 0;

    const first = await t.app.inject({ method: 'DELETE', url: `/v1/ext/leads/${leadId}`, headers: { 'x-api-key': t.key } });
    expect(first.statusCode).toBe(200);
    for (const path of [`/leads/${leadId}`, `/leads/${leadId}/matches`, `/leads/${leadId}/export`]) {
      const read = await get(t.app, path, t.key);
      expect([path, read.status, read.body]).toEqual([path, 404, { detail: 'Lead not found' }]);
    }
    expect((await get(t.app, '/leads', t.key)).body.data.map((l: { id: number }) => l.id)).not.toContain(leadId);

    // Again: the same answer, and nothing changes.
    const before = await snapshot(t.db);
    const again = await t.app.inject({ method: 'DELETE', url: `/v1/ext/leads/${leadId}`, headers: { 'x-api-key': t.key } });
    expect([again.statusCode, again.json()]).toEqual([200, first.json()]);
    expect(await snapshot(t.db)).toBe(before);

    await drain();
    expect(hooks.received).toEqual([expect.objectContaining({ type: 'lead.erased', data: { id: leadId } })]);
    const events = (await get(t.app, '/events', t.key)).body.data as Array<{ type: string; data: Record<string, unknown> }>;
    expect(
      events.filter(
        (e) =>
          (e.type === 'lead.erased' && e.data.id === leadId) ||
          e.data.lead_id === leadId ||
          (e.data.lead as { id?: number })?.id === leadId,
      ),
    ).toEqual([expect.objectContaining({ type: 'lead.erased', data: { id: leadId } })]);
    // A person who writes in again is a new lead.
    const back = await post(t.app, '/leads/inquiries', t.key, { name: zoraida.name, type: 'buyer', phone_number_1: zoraida.phone });
    expect([back.status, back.body.lead_id === leadId]).toEqual([200, false]);
  });

  it('is refused without leads:erase, for another business’s lead and for no lead, changing nothing', async () => {
    const created = await post(t.app, '/leads/inquiries', t.key, { name: 'Nora', type: 'buyer', phone_number_1: '+34611700009' });
    const leadId = created.body.lead_id as number;
    const reader = await createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:read', 'leads:ingest', 'events:read'] });
    const elsewhere = await businessWithKey(t.db, 'Otra Inmobiliaria');
    const before = await snapshot(t.db);
    const erase = (id: number | string, key: string) =>
      t.app.inject({ method: 'DELETE', url: `/v1/ext/leads/${id}`, headers: { 'x-api-key': key } });

    const unscoped = await erase(leadId, reader.key);
    expect([unscoped.statusCode, unscoped.json().detail]).toEqual([401, expect.stringContaining('leads:erase')]);
    expect((await erase(leadId, elsewhere.key)).statusCode).toBe(404);
    expect((await erase(leadId + 1000, t.key)).statusCode).toBe(404);
    expect((await erase('abc', t.key)).statusCode).toBe(422);
    expect(await snapshot(t.db)).toBe(before);
  });
});

describe('a queued send', () => {
  it('never happens when the erasure commits between the job reading the message and claiming the send', async () => {
    // Channel up, a new lead: its welcome is queued. The worker's task has read the message.
    const created = await post(t.app, '/leads/inquiries', t.key, { name: 'Nora', type: 'buyer', phone_number_1: '+34611700010' });
    const leadId = created.body.lead_id as number;
    const welcome = await findWelcome(t.db, leadId);
    expect(welcome?.state).toBe('pending');
    const job = await t.db
      .selectFrom('jobs')
      .select(['id', 'business_id', 'lead_id', 'kind', 'payload', 'attempts'])
      .where('kind', '=', 'send_welcome')
      .where('lead_id', '=', leadId)
      .executeTakeFirstOrThrow();

    await eraseLead(t.db, leadId, { actor: CLI });
    const now = () => new Date().toISOString();
    await deliverQueuedMessage(
      {
        db: t.db,
        now,
        outbound: outboundPolicy(),
        sendTimeoutMs: DEFAULT_WORKER_SETTINGS.sendTimeoutMs,
        attempts: job.attempts,
        finalAttempt: false,
      },
      welcome!.id,
    );
    await drain();
    expect(graph.requests.filter((r) => r.body?.type === 'template')).toEqual([]);
  });
});

describe('inmo leads erase and the console', () => {
  it('erases from the command line, as JSON, and again', async () => {
    const created = await post(t.app, '/leads/inquiries', t.key, { name: 'Nora', type: 'buyer', phone_number_1: '+34611700011' });
    const leadId = created.body.lead_id as number;
    const first = await inmo({ DATABASE_URL: t.url }, 'leads', 'erase', String(leadId), '--json');
    expect(first.code).toBe(0);
    const answer = JSON.parse(first.stdout);
    expect(answer).toEqual({ status: 'ok', lead_id: leadId, erased_at: expect.any(String) });
    const again = await inmo({ DATABASE_URL: t.url }, 'leads', 'erase', String(leadId), '--json');
    expect(JSON.parse(again.stdout)).toEqual(answer);
    const missing = await inmo({ DATABASE_URL: t.url }, 'leads', 'erase', '99999');
    expect([missing.code, missing.stderr]).toEqual([expect.any(Number), expect.stringContaining('99999')]);
    expect(missing.code).not.toBe(0);
  });

  it('has a button on the lead’s page for owners, behind a confirmation, and none for agents', async () => {
    await userWithPassword(t.db, t.businessId, 'owner@agencia.example', 'owner');
    await userWithPassword(t.db, t.businessId, 'agent@agencia.example', 'agent');
    const created = await post(t.app, '/leads/inquiries', t.key, { name: 'Nora Erasable', type: 'buyer', phone_number_1: '+34611700012' });
    const leadId = created.body.lead_id as number;

    const agent = await loggedIn(t.app, 'agent@agencia.example');
    expect((await agent.request('GET', `/console/leads/${leadId}`)).body).not.toContain(`/console/leads/${leadId}/erase`);
    expect((await agent.request('GET', `/console/leads/${leadId}/erase`)).statusCode).toBe(403);

    const owner = await loggedIn(t.app, 'owner@agencia.example');
    expect((await owner.request('GET', `/console/leads/${leadId}`)).body).toContain(`href="/console/leads/${leadId}/erase"`);
    const confirm = await owner.request('GET', `/console/leads/${leadId}/erase`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('Nora Erasable');
    // Without the form's CSRF token, nothing happens.
    expect((await owner.request('POST', `/console/leads/${leadId}/erase`, {})).statusCode).toBe(403);
    expect((await get(t.app, `/leads/${leadId}`, t.key)).status).toBe(200);

    const done = await owner.submit(`/console/leads/${leadId}/erase`, `/console/leads/${leadId}/erase`, {});
    expect([done.statusCode, done.headers.location]).toEqual([303, `/console/leads?erased=${leadId}`]);
    expect((await get(t.app, `/leads/${leadId}`, t.key)).status).toBe(404);
    const list = await owner.request('GET', `/console/leads?erased=${leadId}`);
    expect(list.body).not.toContain('Nora Erasable');
    expect(list.body).toContain(`#${leadId}`);
    expect((await owner.request('GET', `/console/leads/${leadId}`)).statusCode).toBe(404);
  });
});
