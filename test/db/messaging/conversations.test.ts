/**
 * Conversations (CONTRACT §10) on both engines: Meta's handshake and signed deliveries, the
 * lead's replies stored once and answered once by the assistant in Spanish and English,
 * statuses (and the reconciliation they settle), opt-out, hand-off, the 24-hour window, and
 * agents' replies.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import type { Db } from '../../../src/db/database.ts';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { Worker, type WorkerLogger } from '../../../src/jobs/worker.ts';
import { configureAssistant, connectChannel, saveAssistantSettings } from '../../../src/services/messaging/channels.ts';
import { listConversations, replyAsAgent, setAnswerer, showConversation } from '../../../src/services/messaging/conversations.ts';
import { leadInFull } from '../../../src/services/leads/leads.ts';
import { InmoError } from '../../../src/errors.ts';
import { toRfc3339 } from '../../../src/domain/time.ts';
import { startFakeGraph, type FakeGraph } from '../../helpers/fake-graph.ts';
import { businessWithKey, freshDb, importRecords, listing, snapshot } from '../../helpers/db.ts';
import { post } from '../../helpers/http.ts';
import { APP_SECRET, deliver, inbound, PHONE_NUMBER_ID, status } from '../../helpers/whatsapp.ts';
import { startFakeChat, type FakeChat } from '../../helpers/fake-chat.ts';

const TOKEN = 'EAAG-token-of-the-conversation-tests';
const LISTING_URL = 'https://agency.example/inmueble/{id}';

let db: Db;
let app: FastifyInstance;
let graph: FakeGraph;
let key: string;
let businessId: number;
let clock: ManualClock;
let verifyToken: string;
let logged: string[];

const logger: WorkerLogger = {
  info: (obj, msg) => logged.push(`${msg} ${JSON.stringify(obj)}`),
  warn: (obj, msg) => logged.push(`${msg} ${JSON.stringify(obj)}`),
  error: (obj, msg) => logged.push(`${msg} ${JSON.stringify(obj)}`),
};
const worker = () => new Worker({ db, clock, logger, settings: { pollMs: 20, backoffMs: 60_000, maxAttempts: 3 } });
const drain = () => worker().drain();

beforeEach(async () => {
  ({ db } = await freshDb());
  ({ key, businessId } = await businessWithKey(db));
  app = await buildApp({ db });
  graph = await startFakeGraph();
  clock = new ManualClock(new Date(Date.now() + 60_000));
  logged = [];
  await importRecords(db, businessId, [
    listing('z-1', {
      operation: 'alquiler',
      price: null,
      price_rent: 850,
      bedrooms: 2,
      city: 'Zaragoza',
      province: 'Zaragoza',
      specs: { district: 'Delicias' },
      title: 'Piso luminoso en Delicias',
      titles: { es: 'Piso luminoso en Delicias', en: 'Bright flat in Delicias' },
    }),
    listing('z-2', {
      operation: 'alquiler',
      price: null,
      price_rent: 1200,
      bedrooms: 3,
      city: 'Zaragoza',
      province: 'Zaragoza',
      specs: { district: 'Centro' },
      title: 'Ático en el Centro',
    }),
    listing('z-3', {
      operation: 'venta',
      price: 180_000,
      bedrooms: 3,
      city: 'Zaragoza',
      province: 'Zaragoza',
      specs: { district: 'Delicias' },
      title: 'Piso a la venta en Delicias',
    }),
    listing('m-1', { operation: 'alquiler', price: null, price_rent: 950, bedrooms: 3, title: 'Piso en Madrid centro' }),
  ]);
  const connected = await connectChannel(
    db,
    {
      businessId,
      provider: 'whatsapp-cloud',
      phoneNumberId: PHONE_NUMBER_ID,
      tokenEnv: 'WA_TOKEN',
      appSecretEnv: 'WA_APP_SECRET',
      template: 'bienvenida',
      baseUrl: graph.baseUrl,
      listingUrl: LISTING_URL,
    },
    { WA_TOKEN: TOKEN, WA_APP_SECRET: APP_SECRET },
  );
  verifyToken = connected.verify_token;
  await drain();
});

afterEach(async () => {
  await app.close();
  await graph.close();
  await db.destroy();
});

/** A renter (≤ 1,000 €/month) who got the welcome template. */
async function renter(phone = '612345678', extra: Record<string, unknown> = {}) {
  const response = await post(app, '/leads/inquiries', key, {
    name: 'Lucía Pérez',
    phone_number_1: phone,
    type: 'demandante',
    search_preferences: [{ operations: ['alquiler'], property_types: ['apartamento'], apartamento: { price_rent_max: 1000 } }],
    ...extra,
  });
  expect(response.status).toBe(200);
  await drain();
  return { leadId: response.body.lead_id as number, waId: `34${phone}`, e164: `+34${phone}` };
}

/** The texts the fake Graph API received, in order. */
const texts = () => graph.requests.filter((r) => r.body?.type === 'text').map((r) => r.body.text.body as string);

async function says(waId: string, text: string, options: Partial<Parameters<typeof inbound>[0]> = {}) {
  const response = await deliver(app, inbound({ from: waId, text, ...options }));
  expect(response.statusCode).toBe(200);
  await drain();
}

describe('the webhook endpoint', () => {
  it("answers Meta's handshake with the challenge for a connected channel's verify token, and 403 otherwise", async () => {
    const handshake = (query: string) => app.inject({ method: 'GET', url: `/webhooks/whatsapp?${query}` });
    const ok = await handshake(`hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=1158201444`);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain/);
    expect(ok.body).toBe('1158201444');
    for (const query of [
      `hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1`,
      `hub.mode=unsubscribe&hub.verify_token=${verifyToken}&hub.challenge=1`,
      `hub.mode=subscribe&hub.challenge=1`,
      '',
    ]) {
      const refused = await handshake(query);
      expect(refused.statusCode, query).toBe(403);
      expect(refused.json()).toEqual({ detail: 'Verification failed' });
    }
  });

  it('a missing or wrong signature is 401 and stores nothing', async () => {
    const before = await snapshot(db);
    const payload = inbound({ from: '34600111222', text: 'hola' });
    const body = JSON.stringify(payload);
    for (const signatureHeader of [null, 'sha256=' + '0'.repeat(64), 'sha256=zz', 'sha1=abc', '']) {
      const response = await deliver(app, body, { signature: signatureHeader });
      expect(response.statusCode, String(signatureHeader)).toBe(401);
      expect(response.json()).toEqual({ detail: 'Invalid or missing X-Hub-Signature-256' });
    }
    // Signed with another secret, or over other bytes than those sent.
    expect((await deliver(app, body, { secret: 'another-apps-secret' })).statusCode).toBe(401);
    const signedOther = (await import('../../../src/channels/whatsapp-webhook.ts')).signature(body.replace('hola', 'adiós'), APP_SECRET);
    expect((await deliver(app, body, { signature: signedOther })).statusCode).toBe(401);
    await drain();
    expect(await snapshot(db)).toBe(before);
    expect(graph.requests.filter((r) => r.body?.type === 'text')).toHaveLength(0);
  });

  it('a phone number id connected by one business cannot be connected by another: its webhooks must reach one business', async () => {
    const other = await businessWithKey(db, 'Otra agencia');
    await expect(
      connectChannel(
        db,
        { businessId: other.businessId, provider: 'whatsapp-cloud', phoneNumberId: PHONE_NUMBER_ID, tokenEnv: 'T', template: 't' },
        { T: 'x' },
      ),
    ).rejects.toMatchObject({ code: 'CHANNEL_PHONE_NUMBER_ID_TAKEN' });
  });

  it('deliveries processed out of order never move the window back; an absurd timestamp is no time', async () => {
    const { leadId, waId } = await renter();
    const now = Math.floor(clock.now().getTime() / 1000);
    await deliver(app, inbound({ from: waId, text: 'Hola', timestamp: String(now) }));
    await drain();
    const window = (await showConversation(db, leadId)).window_open_until;
    await deliver(app, inbound({ from: waId, text: 'Hola otra vez', timestamp: String(now - 3600) }));
    await drain();
    expect((await showConversation(db, leadId)).window_open_until).toBe(window);
    const { readWebhook } = await import('../../../src/channels/whatsapp-webhook.ts');
    for (const timestamp of ['999999999999', '0', '1.5', 'ayer']) {
      expect(readWebhook(inbound({ from: waId, text: 'x', timestamp }))[0].messages[0].sentAt, timestamp).toBeNull();
    }
  });

  it('a delivery for a phone number id no channel has is acknowledged, logged and dropped', async () => {
    const before = await snapshot(db);
    const response = await deliver(app, inbound({ from: '34600111222', text: 'hola', phoneNumberId: '5550000' }));
    expect(response.statusCode).toBe(200);
    expect(await snapshot(db)).toBe(before);
  });

  it('the same delivery three times is stored once and answered once', async () => {
    const { waId } = await renter();
    const payload = inbound({ from: waId, text: 'Sí, me interesa' });
    for (let i = 0; i < 3; i++) expect((await deliver(app, payload)).statusCode).toBe(200);
    await drain();
    // And again after it was processed, as Meta retries for days.
    expect((await deliver(app, payload)).statusCode).toBe(200);
    // The same message in a new delivery (other bytes, same wamid): still one.
    const again = structuredClone(payload);
    (again.entry[0].changes[0].value as any).contacts[0].profile.name = 'Lucía P.';
    expect((await deliver(app, again)).statusCode).toBe(200);
    await drain();
    const inboundRows = await db.selectFrom('messages').select('id').where('direction', '=', 'in').execute();
    expect(inboundRows).toHaveLength(1);
    expect(await db.selectFrom('webhook_events').select('id').execute()).toHaveLength(2);
    expect(texts()).toHaveLength(1);
  });
});

describe('inbound messages', () => {
  it('text, button and list replies are stored on the lead with their ids and times; other types by their type', async () => {
    const { leadId, waId } = await renter();
    await says(waId, 'Hola');
    // One at a time: a thread is in the order inmo received its messages.
    for (const [type, part] of [
      ['button', { text: 'Ver pisos', payload: 'SEE' }],
      ['interactive', { type: 'list_reply', list_reply: { id: 'r1', title: 'Alquiler' } }],
      ['image', { id: 'media1', mime_type: 'image/jpeg', caption: 'mi salón' }],
      ['location', { latitude: 41.64, longitude: -0.9, name: 'Plaza del Pilar' }],
    ] as const) {
      await deliver(app, inbound({ from: waId, type, part }));
      await drain();
    }
    const conversation = await showConversation(db, leadId);
    const received = conversation.messages.filter((m) => m.direction === 'in');
    expect(received.map((m) => [m.kind, m.text, m.state])).toEqual([
      ['text', 'Hola', 'received'],
      ['button', 'Ver pisos', 'received'],
      ['interactive', 'Alquiler', 'received'],
      ['image', 'mi salón', 'received'],
      ['location', 'Plaza del Pilar', 'received'],
    ]);
    expect(received.every((m) => m.provider_message_id?.startsWith('wamid.in'))).toBe(true);
    expect(received.every((m) => m.sent_at !== null && /^\d{4}-.*\+00:00$/.test(m.sent_at))).toBe(true);
    expect(conversation.window_open_until).not.toBeNull();
    // The welcome template opens the thread.
    expect(conversation.messages[0]).toMatchObject({ direction: 'out', kind: 'template', author: 'welcome', state: 'sent' });
  });

  it('a number with no lead becomes an unnamed lead from WhatsApp, which a later inquiry completes without a welcome template', async () => {
    await says('34699887766', 'Hola, buenas', { name: 'Javier' });
    const lead = await db.selectFrom('leads').selectAll().where('phone_number_1', '=', '+34699887766').executeTakeFirstOrThrow();
    expect(lead).toMatchObject({ name: null, source: 'whatsapp', status: 'new', business_id: businessId });
    const full = (await leadInFull(db, lead.id))!;
    expect(full.notes.map((n) => n.text).join('\n')).toContain('Javier');
    expect(full.message).toBeNull();
    expect(full.conversation.messages.map((m) => m.direction)).toEqual(['in', 'out']);

    const completed = await post(app, '/leads/inquiries', key, { name: 'Javier Gil', phone_number_1: '+34699887766', type: 'demandante' });
    expect(completed.status).toBe(200);
    expect(completed.body.lead_id).toBe(lead.id);
    await drain();
    const after = (await leadInFull(db, lead.id))!;
    expect(after.lead.name).toBe('Javier Gil');
    // Already in a conversation: no template on top of it.
    expect(after.message).toBeNull();
    expect(graph.requests.filter((r) => r.body?.type === 'template' && r.body.to === '+34699887766')).toHaveLength(0);
  });
});

describe('the built-in assistant', () => {
  it('wants to see properties (Spanish): the top matches with price, city and the listing link', async () => {
    const { leadId, waId, e164 } = await renter();
    await says(waId, 'Sí, me interesa el piso');
    const [answer] = texts();
    expect(answer).toContain('Estas son las opciones');
    expect(answer).toContain('Piso luminoso en Delicias');
    expect(answer).toContain('850 €/mes');
    expect(answer).toContain('Piso en Madrid centro');
    expect(answer).not.toContain('Ático en el Centro'); // 1,200 €: not a match
    const ids = (await db.selectFrom('properties').select(['id', 'external_ref']).execute()).reduce<Record<string, number>>(
      (all, p) => ({ ...all, [p.external_ref]: p.id }),
      {},
    );
    expect(answer).toContain(`https://agency.example/inmueble/${ids['z-1']}`);
    const reply = graph.requests.find((r) => r.body?.type === 'text')!;
    expect(reply.body.to).toBe(e164);
    const conversation = await showConversation(db, leadId);
    const out = conversation.messages.at(-1)!;
    expect(out).toMatchObject({ direction: 'out', author: 'assistant', kind: 'text', state: 'sent' });
    expect(reply.body.biz_opaque_callback_data).toBe(String(out.id));
    expect(out.reply_to).toBe(conversation.messages.at(-2)!.id);
  });

  it('wants to see properties (English), answered in English for a lead whose preferred language is gb', async () => {
    const { waId } = await renter('612000111', { preferred_language: 'gb' });
    await says(waId, 'Yes please, show me what you have');
    const [answer] = texts();
    expect(answer).toContain('These are the properties');
    expect(answer).toContain('€/month');
    // The listing's English title (issue 46), not its Spanish one.
    expect(answer).toContain('Bright flat in Delicias');
    expect(answer).not.toContain('Piso luminoso en Delicias');
  });

  it('says so when there are no matches', async () => {
    const { waId } = await renter('612000222', {
      search_preferences: [{ operations: ['alquiler'], property_types: ['apartamento'], apartamento: { price_rent_max: 300 } }],
    });
    await says(waId, 'me interesa, ¿qué opciones hay?');
    expect(texts()[0]).toContain('no tenemos inmuebles que encajen');
  });

  it('refines the search ("hasta 900", "3 habitaciones", "en Delicias", "para comprar"), matches again and answers with the new matches', async () => {
    const { leadId, waId } = await renter();
    await says(waId, 'Mejor hasta 900');
    let lead = (await leadInFull(db, leadId))!;
    expect(lead.lead.search_preferences).toEqual([
      { operations: ['alquiler'], property_types: ['apartamento'], apartamento: { price_rent_max: 900 } },
    ]);
    expect(texts()[0]).toContain('hasta 900 €/mes');
    expect(texts()[0]).toContain('Piso luminoso en Delicias');
    expect(texts()[0]).not.toContain('Piso en Madrid centro'); // 950 €

    await says(waId, 'Que tenga 3 habitaciones, en Delicias, para comprar');
    lead = (await leadInFull(db, leadId))!;
    expect(lead.lead.search_preferences).toEqual([
      {
        operations: ['venta'],
        property_types: ['apartamento'],
        apartamento: { price_rent_max: 900, bedrooms_min: 3 },
        locations: [{ name: 'Delicias' }],
      },
    ]);
    const ids = lead.matches.map((m) => m.property_id);
    const z3 = (await db.selectFrom('properties').select('id').where('external_ref', '=', 'z-3').executeTakeFirstOrThrow()).id;
    expect(ids).toEqual([z3]);
    expect(texts()[1]).toContain('Piso a la venta en Delicias');
    expect(texts()[1]).toContain('180.000 €');
  });

  it('refines in English too ("up to 1,000", "2 bedrooms")', async () => {
    const { leadId, waId } = await renter('612000333', { preferred_language: 'gb' });
    await says(waId, 'Something up to 1,000 with 2 bedrooms');
    const lead = (await leadInFull(db, leadId))!;
    expect(lead.lead.search_preferences).toEqual([
      { operations: ['alquiler'], property_types: ['apartamento'], apartamento: { price_rent_max: 1000, bedrooms_min: 2 } },
    ]);
    expect(texts()[0]).toContain('Done, I have updated your search (up to 1,000 €/month, 2+ bedrooms)');
  });

  for (const [language, text, answer] of [
    ['Spanish', 'Quiero visitarlo, ¿me puede llamar un agente?', 'un agente de la agencia se pondrá en contacto'],
    ['English', 'Can I book a visit? Please have someone call me', 'an agent from the agency will get in touch'],
  ] as const) {
    it(`wants a person (${language}): hands off, and then falls silent`, async () => {
      const { leadId, waId } = await renter('612000444', language === 'English' ? { preferred_language: 'gb' } : {});
      await says(waId, text);
      expect(texts()).toEqual([expect.stringContaining(answer)]);
      expect((await showConversation(db, leadId)).state).toBe('waiting_for_agent');
      await says(waId, 'Sí, ver pisos');
      expect(texts()).toHaveLength(1);
      const jobs = await db.selectFrom('jobs').select('kind').where('lead_id', '=', leadId).where('kind', '=', 'assistant_reply').execute();
      expect(jobs).toHaveLength(1);
      // Given back, the assistant answers again.
      await setAnswerer(db, leadId, 'assistant');
      await says(waId, 'Sí, ver pisos');
      expect(texts()).toHaveLength(2);
    });
  }

  for (const [language, text] of [
    ['Spanish', 'Por favor no me escribáis más'],
    ['Spanish', 'BAJA'],
    ['English', 'STOP'],
    ['English', 'unsubscribe'],
  ] as const) {
    it(`opts out (${language}: "${text}"): no message of any kind is sent to the lead again`, async () => {
      const { leadId, waId } = await renter('612000555');
      await says(waId, text);
      expect((await showConversation(db, leadId)).state).toBe('opted_out');
      await says(waId, 'Sí, quiero ver pisos');
      expect(texts()).toEqual([]);
      await expect(replyAsAgent(db, leadId, 'Hola', toRfc3339(clock.now()))).rejects.toMatchObject({ code: 'REPLY_OPTED_OUT' });
      // Resumed only when the lead asked to be contacted again.
      await expect(setAnswerer(db, leadId, 'assistant')).rejects.toMatchObject({ code: 'RESUME_OPTED_OUT' });
      expect((await setAnswerer(db, leadId, 'assistant', { optedIn: true })).state).toBe('assistant');
    });
  }

  it('an opt-out also stops a welcome template that was still waiting to be sent', async () => {
    // The lead writes before its welcome went out (its send is waiting for a retry).
    const response = await post(app, '/leads/inquiries', key, { name: 'Ana', phone_number_1: '612000666', type: 'demandante' });
    const leadId = response.body.lead_id as number;
    const later = toRfc3339(new Date(clock.now().getTime() + 3_600_000));
    await db.updateTable('jobs').set({ run_at: later }).where('lead_id', '=', leadId).where('kind', '=', 'send_welcome').execute();
    await deliver(app, inbound({ from: '34612000666', text: 'stop' }));
    await drain();
    clock.advanceDays(1);
    await drain();
    const full = (await leadInFull(db, leadId))!;
    expect(full.message).toMatchObject({ state: 'failed', last_error: 'the lead opted out of messages' });
    expect(graph.requests).toHaveLength(0);
  });

  it('anything else gets one short help message; a second unrecognised message hands off', async () => {
    const { leadId, waId } = await renter('612000777');
    await says(waId, '¿Aceptáis mascotas?');
    expect(texts()[0]).toContain('Soy el asistente de la agencia');
    expect((await showConversation(db, leadId)).state).toBe('assistant');
    await says(waId, '¿Y el garaje?');
    expect(texts()[1]).toContain('le paso la conversación a un agente');
    expect((await showConversation(db, leadId)).state).toBe('waiting_for_agent');
  });

  it('help in English for an English message from a lead with no preferred language', async () => {
    await says('447700900123', 'Hello there, what is this about?', { name: 'Tom' });
    await says('447700900123', 'ok, show me the listings');
    const answers = texts();
    expect(answers[0]).toContain('I am the agency');
    expect(answers[1]).toContain('Right now we have no properties');
  });

  it('outside the 24-hour window nothing is sent', async () => {
    const { leadId, waId } = await renter('612000888');
    const dayAndAHourAgo = String(Math.floor(clock.now().getTime() / 1000) - 25 * 3600);
    await says(waId, 'Sí, me interesa', { timestamp: dayAndAHourAgo });
    expect(texts()).toEqual([]);
    const conversation = await showConversation(db, leadId);
    expect(conversation.messages.filter((m) => m.direction === 'in')).toHaveLength(1);
    expect(conversation.window_open_until! < toRfc3339(clock.now())).toBe(true);
    await expect(replyAsAgent(db, leadId, 'Hola Lucía', toRfc3339(clock.now()))).rejects.toMatchObject({
      code: 'REPLY_WINDOW_CLOSED',
      message: expect.stringContaining(conversation.window_open_until!),
    });
  });
});

describe('statuses', () => {
  it('sent, delivered and read move the message forward only; failed records the error code and title', async () => {
    const { leadId, waId } = await renter();
    const welcome = (await leadInFull(db, leadId))!.message!;
    expect(welcome.state).toBe('sent');
    const wamid = welcome.provider_message_id!;
    const at = async () => (await leadInFull(db, leadId))!.message!.state;
    await deliver(app, status({ id: wamid, status: 'read', recipient: waId }));
    await drain();
    expect(await at()).toBe('read');
    // Out of order, late: not backwards.
    await deliver(app, status({ id: wamid, status: 'delivered', recipient: waId }));
    await drain();
    expect(await at()).toBe('read');

    await says(waId, 'Sí, me interesa');
    const reply = (await showConversation(db, leadId)).messages.at(-1)!;
    await deliver(
      app,
      status({
        id: reply.provider_message_id!,
        status: 'failed',
        recipient: waId,
        errors: [{ code: 131047, title: 'Re-engagement message' }],
      }),
    );
    await drain();
    expect((await showConversation(db, leadId)).messages.at(-1)).toMatchObject({
      state: 'failed',
      error: 'WhatsApp: 131047 Re-engagement message',
    });
  });

  it('a status settles a welcome left needs_reconciliation by a crash, by the callback data: it is never sent again', async () => {
    for (const [phone, outcome, settled] of [
      ['612100001', 'delivered', 'delivered'],
      ['612100002', 'failed', 'failed'],
    ] as const) {
      const response = await post(app, '/leads/inquiries', key, { name: 'Ana', phone_number_1: phone, type: 'demandante' });
      const leadId = response.body.lead_id as number;
      // As a worker that died between calling the provider and recording its answer leaves it.
      await db.updateTable('messages').set({ state: 'sending' }).where('lead_id', '=', leadId).execute();
      await drain();
      const welcome = (await leadInFull(db, leadId))!.message!;
      expect(welcome.state).toBe('needs_reconciliation');
      expect(welcome.provider_message_id).toBeNull();
      await deliver(
        app,
        status({
          id: `wamid.lost${phone}`,
          status: outcome,
          recipient: `34${phone}`,
          callbackData: String(welcome.id),
          errors: outcome === 'failed' ? [{ code: 131026, title: 'Message undeliverable' }] : undefined,
        }),
      );
      await drain();
      const after = (await leadInFull(db, leadId))!.message!;
      expect(after).toMatchObject({ state: settled, provider_message_id: `wamid.lost${phone}` });
    }
    expect(graph.requests.filter((r) => r.body?.type === 'template')).toHaveLength(0);
  });

  it("a status of another business's message, named in the callback data, changes nothing", async () => {
    const other = await businessWithKey(db, 'Otra agencia');
    const lead = await db
      .insertInto('leads')
      .values({
        business_id: other.businessId,
        name: 'X',
        type: 'demandante',
        status: 'new',
        active: 1,
        rating: 3,
        phone_number_1: '+34699000111',
        created_at: 'x',
        updated_at: 'x',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('messages')
      .values({
        business_id: other.businessId,
        lead_id: lead.id,
        direction: 'out',
        kind: 'template',
        author: 'welcome',
        template: 't',
        state: 'needs_reconciliation',
        created_at: 'x',
        updated_at: 'x',
      })
      .execute();
    const message = await db.selectFrom('messages').select('id').where('lead_id', '=', lead.id).executeTakeFirstOrThrow();
    await deliver(app, status({ id: 'wamid.x', status: 'delivered', recipient: '34699000111', callbackData: String(message.id) }));
    await drain();
    expect((await db.selectFrom('messages').select('state').where('id', '=', message.id).executeTakeFirstOrThrow()).state).toBe(
      'needs_reconciliation',
    );
  });
});

describe('agents', () => {
  it("an agent's reply inside the window is sent once, and the assistant stays silent until resumed", async () => {
    const { leadId, waId, e164 } = await renter();
    await says(waId, 'Sí, me interesa');
    const id = await replyAsAgent(db, leadId, 'Hola Lucía, soy Marta. ¿Te viene bien el jueves?', toRfc3339(clock.now()));
    await drain();
    const sent = graph.requests.filter((r) => r.body?.type === 'text' && r.body.text.body.includes('soy Marta'));
    expect(sent).toHaveLength(1);
    expect(sent[0].body).toMatchObject({ to: e164, biz_opaque_callback_data: String(id) });
    const conversation = await showConversation(db, leadId);
    expect(conversation.state).toBe('waiting_for_agent');
    expect(conversation.messages.at(-1)).toMatchObject({ id, author: 'agent', state: 'sent' });
    await says(waId, 'Sí, el jueves');
    expect(texts()).toHaveLength(2);
  });

  it('conversations are listed waiting for an agent first, then the most recent first (CONTRACT §10)', async () => {
    const first = await renter('612300001');
    const second = await renter('612300002');
    const third = await renter('612300003');
    await says(third.waId, 'Hola');
    await says(second.waId, 'Quiero hablar con un agente');
    clock.advanceDays(0.01);
    // The oldest lead wrote last: recency, not the lead's id, orders the rest.
    await says(first.waId, 'Hola');
    const listed = await listConversations(db, { businessId });
    expect(listed.data.map((c) => [c.lead_id, c.state])).toEqual([
      [second.leadId, 'waiting_for_agent'],
      [first.leadId, 'assistant'],
      [third.leadId, 'assistant'],
    ]);
    expect((await listConversations(db, { businessId, waiting: true })).data.map((c) => c.lead_id)).toEqual([second.leadId]);
    expect((await listConversations(db, { businessId: businessId + 1 })).data).toEqual([]);
  });

  it('replies are refused with a clear error: blank, too long, unknown lead, never written', async () => {
    const { leadId } = await renter();
    const now = toRfc3339(clock.now());
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: InmoError) => e.code,
      );
    expect(await codeOf(replyAsAgent(db, leadId, '   ', now))).toBe('REPLY_BLANK');
    expect(await codeOf(replyAsAgent(db, leadId, 'x'.repeat(4097), now))).toBe('REPLY_TOO_LONG');
    expect(await codeOf(replyAsAgent(db, 999_999, 'hola', now))).toBe('LEAD_NOT_FOUND');
    expect(await codeOf(replyAsAgent(db, leadId, 'hola', now))).toBe('REPLY_WINDOW_CLOSED');
    expect(await codeOf(setAnswerer(db, leadId, 'assistant'))).toBe('CONVERSATION_NOT_FOUND');
  });
});

describe('a chat-completions assistant', () => {
  let chat: FakeChat;
  beforeEach(async () => {
    chat = await startFakeChat();
    await configureAssistant(db, businessId, { url: chat.baseUrl, model: 'gpt-test', keyEnv: 'LLM_KEY' }, { LLM_KEY: 'sk-test-key' });
  });
  afterEach(() => chat.close());

  it("is given the lead's searches, matches with links and the conversation, and its answer goes out", async () => {
    const { waId } = await renter();
    chat.script.push({ status: 200, content: 'Tengo dos pisos para ti: el de Delicias por 850 €/mes es ideal.' });
    await says(waId, 'Sí, me interesa');
    expect(texts()).toEqual(['Tengo dos pisos para ti: el de Delicias por 850 €/mes es ideal.']);
    const [request] = chat.requests;
    expect(request.authorization).toBe('Bearer sk-test-key');
    expect(request.body.model).toBe('gpt-test');
    const system = request.body.messages[0].content as string;
    expect(system).toContain('price_rent_max');
    expect(system).toContain('Piso luminoso en Delicias');
    expect(system).toContain('https://agency.example/inmueble/');
    expect(request.body.messages.at(-1)).toEqual({ role: 'user', content: 'Sí, me interesa' });
  });

  it('when the endpoint fails, the built-in assistant answers instead', async () => {
    const { waId } = await renter();
    chat.script.push({ status: 500, content: '' });
    await says(waId, 'Sí, me interesa');
    expect(texts()[0]).toContain('Estas son las opciones');
    expect(logged.join('\n')).toContain('the configured assistant failed');
    expect(logged.join('\n')).not.toContain('sk-test-key');
  });

  it('opt-outs and hand-offs stay the built-in rules, whatever the model', async () => {
    const { leadId, waId } = await renter();
    await says(waId, 'baja');
    expect(chat.requests).toHaveLength(0);
    expect((await showConversation(db, leadId)).state).toBe('opted_out');
  });
});

describe('the assistant switched off (CONTRACT §16)', () => {
  it('answers nothing: each conversation waits for an agent, and an opt-out still opts out', async () => {
    await saveAssistantSettings(db, businessId, { enabled: false, listingUrl: LISTING_URL, url: '', model: '', apiKey: '' });
    const { leadId, waId } = await renter('612000777');
    await says(waId, 'Sí, quiero ver pisos');
    expect(texts()).toEqual([]);
    expect((await showConversation(db, leadId)).state).toBe('waiting_for_agent');
    const waiting = await db.selectFrom('events').select('data').where('type', '=', 'conversation.waiting').execute();
    expect(waiting.map((e) => JSON.parse(e.data))).toEqual([{ lead_id: leadId }]);

    const other = await renter('612000778');
    await says(other.waId, 'BAJA');
    expect((await showConversation(db, other.leadId)).state).toBe('opted_out');
    expect(texts()).toEqual([]);

    // Switched on again, a new conversation is answered.
    await saveAssistantSettings(db, businessId, { enabled: true, listingUrl: LISTING_URL, url: '', model: '', apiKey: '' });
    const third = await renter('612000779');
    await says(third.waId, 'Sí, quiero ver pisos');
    expect(texts()).toHaveLength(1);
  });
});
