/**
 * Consent at intake (issue 31, CONTRACT §18): the optional `consent` of both POSTs is stored
 * with its time and the form's page, shown on the lead's console page, and `whatsapp: false`
 * means no WhatsApp message is ever sent to the lead (the welcome fails saying why; nothing
 * reaches the provider). A request without it is handled as before; a bad one changes nothing.
 * Access: GET /leads/{id}/export and the console's download hold everything kept on the lead.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { CONSENT_TEXT_CHARS } from '../../../src/schemas/lead-requests.ts';
import { startFakeGraph, type FakeGraph } from '../../helpers/fake-graph.ts';
import { Browser, userWithPassword } from '../../helpers/console.ts';
import { businessWithKey, importRecords, listing, snapshot } from '../../helpers/db.ts';
import { addLeadNote } from '../../../src/services/leads/pipeline.ts';
import { createApiKey } from '../../../src/services/access/api-keys.ts';
import { get, post, withApp } from '../../helpers/http.ts';
import { expectDocumented } from '../../helpers/openapi.ts';

const t = withApp({ each: true });
let graph: FakeGraph;

beforeEach(async () => {
  graph = await startFakeGraph();
  await connectChannel(
    t.db,
    {
      businessId: t.businessId,
      provider: 'whatsapp-cloud',
      phoneNumberId: '1099',
      tokenEnv: 'WA_TOKEN',
      template: 'bienvenida',
      baseUrl: graph.baseUrl,
    },
    { WA_TOKEN: 'token' },
  );
});
afterEach(async () => {
  await graph.close();
});

const wording = 'Acepto que Inmo me escriba por WhatsApp sobre mi búsqueda.';
const madrid = { search_preferences: [{ operations: ['venta'], property_types: ['apartamento'], locations: [{ name: 'Madrid' }] }] };
const inquiry = (phone: string, consent?: unknown, extra: object = {}) =>
  post(t.app, '/leads/inquiries', t.key, {
    name: 'Nora',
    type: 'buyer',
    phone_number_1: phone,
    sourcePage: 'https://agencia.example/contacto',
    ...(consent === undefined ? {} : { consent }),
    ...extra,
  });
const ingest = (phone: string, consent?: unknown) =>
  post(t.app, '/leads/ingest', t.key, {
    id: 'f-1',
    createdAt: '2026-11-24T10:00:00Z',
    source: 'landing',
    sourcePage: 'https://agencia.example/alquiler',
    contact: { name: 'Lucía', phone },
    search: { budget: '900' },
    ...(consent === undefined ? {} : { consent }),
  });
const drain = () => new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
/** The welcome message of the lead with `phone`. */
const welcome = async (phone: string) =>
  t.db
    .selectFrom('messages')
    .innerJoin('leads', 'leads.id', 'messages.lead_id')
    .select(['messages.state', 'messages.last_error'])
    .where('leads.phone_number_1', '=', phone)
    .executeTakeFirstOrThrow();

describe('consent at intake', () => {
  it('is stored with the time and the form’s page on both POSTs, and shown on the lead’s console page', async () => {
    const asked = await inquiry('+34611500001', { marketing: true, whatsapp: true, text: wording, version: '2026-11' });
    expect(asked.status).toBe(200);
    const rented = await ingest('+34611500002', { marketing: false, whatsapp: true });
    expect(rented.status).toBe(200);
    const rows = await t.db.selectFrom('lead_consents').selectAll().orderBy('id').execute();
    expect(rows).toEqual([
      expect.objectContaining({
        lead_id: asked.body.lead_id,
        marketing: 1,
        whatsapp: 1,
        text: wording,
        version: '2026-11',
        source_page: 'https://agencia.example/contacto',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/),
      }),
      expect.objectContaining({ marketing: 0, whatsapp: 1, text: null, version: null, source_page: 'https://agencia.example/alquiler' }),
    ]);
    await userWithPassword(t.db, t.businessId, 'agente@uno.example', 'agent');
    const browser = new Browser(t.app);
    await browser.login('agente@uno.example');
    const page = (await browser.get(`/console/leads/${asked.body.lead_id}`)).body;
    expect(page).toContain('WhatsApp: sí');
    expect(page).toContain('Comunicaciones comerciales: sí');
    expect(page).toContain('versión 2026-11');
    expect(page).toContain(wording);
  });

  it('with whatsapp: false, no WhatsApp message is sent: the welcome fails saying why, and the provider hears nothing', async () => {
    expect((await ingest('+34611500003', { marketing: true, whatsapp: false })).status).toBe(200);
    expect((await inquiry('+34611500004', { marketing: false, whatsapp: false, text: wording })).status).toBe(200);
    // A lead without consent is greeted as before.
    expect((await ingest('+34611500005')).status).toBe(200);
    await drain();
    for (const phone of ['+34611500003', '+34611500004']) {
      expect(await welcome(phone)).toEqual({ state: 'failed', last_error: 'the lead did not consent to WhatsApp messages' });
    }
    // One request reached the provider: the third lead's welcome.
    expect(graph.requests.length).toBe(1);
    expect((await welcome('+34611500005')).state).toBe('sent');
    expect(graph.sendsTo('+34611500005')).toBe(1);
  });

  it('refuses a consent it cannot read with the validation error, and stores nothing', async () => {
    const before = await snapshot(t.db);
    const long = await inquiry('+34611500006', { marketing: true, whatsapp: true, text: 'x'.repeat(CONSENT_TEXT_CHARS + 1) });
    expect(long.status).toBe(422);
    expect(long.body.detail[0].loc).toEqual(['body', 'consent', 'text']);
    const missing = await ingest('+34611500007', { marketing: true });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['body', 'consent', 'whatsapp']);
    expect(await snapshot(t.db)).toBe(before);
  });
});

describe('access: everything held on a lead', () => {
  it('GET /leads/{id}/export holds the lead, its consent, searches, notes, matches, messages, follow-ups, history and events; the console gives owners the same file', async () => {
    await importRecords(t.db, t.businessId, [listing('EXP-1', { title: 'Piso en Madrid' })]);
    const asked = await inquiry('+34611500010', { marketing: true, whatsapp: true, text: wording, version: 'v1' }, madrid);
    const leadId = asked.body.lead_id as number;
    await drain();
    const owner = await userWithPassword(t.db, t.businessId, 'duena@uno.example', 'owner');
    await addLeadNote(t.db, { userId: owner.id, role: 'owner', businessId: t.businessId }, leadId, 'Llamar el lunes');
    const { status, body } = await get(t.app, `/leads/${leadId}/export`, t.key);
    expect(status).toBe(200);
    expect(body.lead).toEqual((await get(t.app, `/leads/${leadId}`, t.key)).body);
    expect(body.consents).toEqual([expect.objectContaining({ marketing: 1, whatsapp: 1, text: wording, version: 'v1' })]);
    expect(body.searches).toEqual([expect.objectContaining({ operations: ['venta'] })]);
    expect(body.notes.map((n: { text: string }) => n.text)).toEqual([expect.stringContaining('contacto'), 'Llamar el lunes']);
    expect(body.matches).toEqual([expect.objectContaining({ failed: null })]);
    expect(body.messages).toEqual([expect.objectContaining({ direction: 'out', author: 'welcome', state: 'sent' })]);
    expect(body.follow_ups.length).toBeGreaterThan(0);
    expect(body.history).toEqual([expect.objectContaining({ change: 'note' })]);
    expect(body.events.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(['lead.created', 'match.found', 'lead.updated']),
    );
    expect(JSON.stringify(body)).not.toContain('"business_id"');
    // What the OpenAPI document promises, every key of it and no other.
    await expectDocumented(t.app, 'get', '/leads/{lead_id}/export', 200, body);

    // Another business's key finds nothing, and the export needs leads:read.
    const other = await businessWithKey(t.db, 'Otra');
    expect((await get(t.app, `/leads/${leadId}/export`, other.key)).status).toBe(404);
    const noScope = await createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:ingest'] });
    expect((await get(t.app, `/leads/${leadId}/export`, noScope.key)).body.detail).toBe(
      'API key lacks the scope this operation requires: leads:read',
    );

    // The console: owners download the same document; agents cannot.
    const browser = new Browser(t.app);
    await browser.login('duena@uno.example');
    expect((await browser.get(`/console/leads/${leadId}`)).body).toContain(`/console/leads/${leadId}/export`);
    const file = await browser.get(`/console/leads/${leadId}/export`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-disposition']).toBe(`attachment; filename="lead-${leadId}.json"`);
    const downloaded = JSON.parse(file.body);
    expect({ ...downloaded, exported_at: null }).toEqual({ ...body, exported_at: null });
    await userWithPassword(t.db, t.businessId, 'agente@uno.example', 'agent');
    const agent = new Browser(t.app);
    await agent.login('agente@uno.example');
    expect((await agent.get(`/console/leads/${leadId}/export`)).statusCode).toBe(403);
  });
});
