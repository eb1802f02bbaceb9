/**
 * The assistant's viewings (CONTRACT §20, §10) on both engines, through the WhatsApp fakes: a
 * lead who asks to visit is offered three free slots as an interactive list, the choice books a
 * `scheduled` viewing (source `assistant`) for the listing's agent and hands the conversation to
 * that agent; no free slot hands off with a plain message; a slot taken between the offer and the
 * choice is never booked twice.
 *
 * The worker's clock is fixed on Monday 7 January 2030, 08:00 in Madrid (07:00 UTC, winter
 * time), and the lead's messages carry that time, so the slots below never depend on today.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import type { Db } from '../../../src/db/database.ts';
import { toRfc3339 } from '../../../src/domain/time.ts';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { Worker, type WorkerLogger } from '../../../src/jobs/worker.ts';
import { createUser } from '../../../src/services/access/console-users.ts';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { showConversation } from '../../../src/services/messaging/conversations.ts';
import { businessWithKey, freshDb, importRecords, listing, propertyId } from '../../helpers/db.ts';
import { startFakeGraph, type FakeGraph } from '../../helpers/fake-graph.ts';
import { post } from '../../helpers/http.ts';
import { APP_SECRET, deliver, inbound, PHONE_NUMBER_ID } from '../../helpers/whatsapp.ts';

const NOW = '2030-01-07T07:00:00Z';

let db: Db;
let app: FastifyInstance;
let graph: FakeGraph;
let key: string;
let businessId: number;
let clock: ManualClock;
/** The listing's agent, and another user of the business. */
let bea: number;
let ana: number;

const quiet: WorkerLogger = { info: () => {}, warn: () => {}, error: () => {} };
const drain = () => new Worker({ db, clock, logger: quiet, settings: { pollMs: 20, backoffMs: 60_000, maxAttempts: 3 } }).drain();

beforeEach(async () => {
  ({ db } = await freshDb());
  ({ key, businessId } = await businessWithKey(db));
  app = await buildApp({ db });
  graph = await startFakeGraph();
  clock = new ManualClock(NOW);
  ana = (await createUser(db, { businessId, email: 'ana@agencia.example', role: 'owner', name: 'Ana Ruiz' })).id;
  bea = (await createUser(db, { businessId, email: 'bea@agencia.example', role: 'agent', name: 'Bea Martín' })).id;
  await importRecords(db, businessId, [
    listing('Z-1', { title: 'Piso luminoso en Delicias', titles: { es: 'Piso luminoso en Delicias', en: 'Bright flat in Delicias' } }),
    listing('Z-2', { title: 'Ático en el Centro' }),
  ]);
  await db
    .updateTable('properties')
    .set({ agent_user_id: bea })
    .where('id', '=', await propertyId(db, 'Z-1'))
    .execute();
  await connectChannel(
    db,
    {
      businessId,
      provider: 'whatsapp-cloud',
      phoneNumberId: PHONE_NUMBER_ID,
      tokenEnv: 'WA_TOKEN',
      appSecretEnv: 'WA_APP_SECRET',
      template: 'bienvenida',
      baseUrl: graph.baseUrl,
    },
    { WA_TOKEN: 'EAAG-token-of-the-viewing-tests', WA_APP_SECRET: APP_SECRET },
  );
});

afterEach(async () => {
  await app.close();
  await graph.close();
  await db.destroy();
});

/** A lead who asked about a listing on the website kit (its notes say `Ref. <id>`), and got the welcome. */
async function inquirer(phone: string, extra: Record<string, unknown> = {}) {
  const response = await post(app, '/leads/inquiries', key, {
    name: 'Lucía Pérez',
    phone_number_1: phone,
    type: 'demandante',
    notes: `Me interesa este piso.\nRef. ${await propertyId(db, 'Z-1')}`,
    ...extra,
  });
  expect(response.status).toBe(200);
  await drain();
  return { leadId: response.body.lead_id as number, waId: `34${phone}` };
}

/** The lead's messages carry the worker's time: WhatsApp's 24-hour window runs from it. */
const timestamp = () => String(Math.floor(clock.now().getTime() / 1000));

async function says(waId: string, text: string) {
  expect((await deliver(app, inbound({ from: waId, text, timestamp: timestamp() }))).statusCode).toBe(200);
  await drain();
}

interface Row {
  id: string;
  title: string;
  description: string;
}

/** The interactive lists the fake Graph API received, in order. */
const lists = () =>
  graph.requests
    .filter((r) => r.body?.type === 'interactive')
    .map(
      (r) => r.body.interactive as { type: string; body: { text: string }; action: { button: string; sections: Array<{ rows: Row[] }> } },
    );
const texts = () => graph.requests.filter((r) => r.body?.type === 'text').map((r) => r.body.text.body as string);

async function chooses(waId: string, row: Row) {
  const part = { type: 'list_reply', list_reply: row };
  expect((await deliver(app, inbound({ from: waId, type: 'interactive', part, timestamp: timestamp() }))).statusCode).toBe(200);
  await drain();
}

const viewingsOf = (leadId?: number) => {
  let query = db.selectFrom('viewings').selectAll().orderBy('id');
  if (leadId !== undefined) query = query.where('lead_id', '=', leadId);
  return query.execute();
};

describe('a lead who asks to visit', () => {
  it('is offered three slots as a list, picks the second, and has a scheduled viewing with the listing’s agent, who gets the conversation', async () => {
    const { leadId, waId } = await inquirer('612300001');
    await says(waId, 'Hola, ¿podría visitarlo esta semana?');

    const [offer] = lists();
    expect(lists()).toHaveLength(1);
    expect(offer.type).toBe('list');
    expect(offer.action.button).toBe('Ver horarios');
    const rows = offer.action.sections[0].rows;
    // The first free slot of each of the next days, two hours' notice: Monday 10:30, Tuesday and Wednesday 10:00.
    expect(rows.map((r) => r.title)).toEqual(['Lunes 7 ene, 10:30', 'Martes 8 ene, 10:00', 'Miércoles 9 ene, 10:00']);
    expect(rows.every((r) => r.title.length <= 24 && r.id.length <= 200)).toBe(true);
    expect(offer.body.text).toContain('«Piso luminoso en Delicias» (ref. Z-1)');
    expect(offer.body.text).toContain('• martes 8 de enero, 10:00');
    // Offered, the conversation is still the assistant's.
    const offered = await showConversation(db, leadId);
    expect(offered.state).toBe('assistant');
    expect(offered.messages.at(-1)).toMatchObject({ direction: 'out', kind: 'interactive', author: 'assistant', state: 'sent' });
    expect(offered.messages.at(-1)!.text).toBe(offer.body.text);

    await chooses(waId, rows[1]);

    const viewings = await viewingsOf(leadId);
    expect(viewings).toHaveLength(1);
    expect(viewings[0]).toMatchObject({
      property_id: await propertyId(db, 'Z-1'),
      user_id: bea,
      status: 'scheduled',
      source: 'assistant',
    });
    expect(new Date(viewings[0].starts_at).toISOString()).toBe('2030-01-08T09:00:00.000Z');
    expect(new Date(viewings[0].ends_at).toISOString()).toBe('2030-01-08T09:30:00.000Z');
    const scheduled = await db.selectFrom('events').select('data').where('type', '=', 'viewing.scheduled').execute();
    expect(scheduled.map((e) => JSON.parse(e.data).viewing.source)).toEqual(['assistant']);

    expect(texts().at(-1)).toBe(
      '¡Hecho! Tienes la visita a «Piso luminoso en Delicias» (ref. Z-1) reservada para el martes 8 de enero, 10:00. ' +
        'Bea Martín, de la agencia, te acompañará y te escribirá para cualquier detalle.',
    );
    const after = await showConversation(db, leadId);
    expect(after.state).toBe('waiting_for_agent');
    expect(after.messages.filter((m) => m.direction === 'in').map((m) => [m.kind, m.text])).toEqual([
      ['text', 'Hola, ¿podría visitarlo esta semana?'],
      ['interactive', 'Martes 8 ene, 10:00'],
    ]);
    const lead = await db.selectFrom('leads').select('assigned_user_id').where('id', '=', leadId).executeTakeFirstOrThrow();
    expect(lead.assigned_user_id).toBe(bea);
    expect(await db.selectFrom('events').select('id').where('type', '=', 'conversation.waiting').execute()).toHaveLength(1);

    // The agent has it now: the assistant stays silent, and the same choice again books nothing.
    const sent = graph.requests.length;
    await chooses(waId, rows[1]);
    await says(waId, 'Gracias');
    expect(graph.requests).toHaveLength(sent);
    expect(await viewingsOf()).toHaveLength(1);
  });

  it('in English, the listing named by its reference, the weekday named first: three times that Friday', async () => {
    const { leadId, waId } = await inquirer('612300002', { notes: undefined, preferred_language: 'gb' });
    await says(waId, 'Hi! Can I see Z-2 on Friday?');
    const rows = lists()[0].action.sections[0].rows;
    expect(rows.map((r) => r.title)).toEqual(['Friday 11 Jan, 10:00', 'Friday 11 Jan, 12:00', 'Friday 11 Jan, 16:00']);
    expect(lists()[0].action.button).toBe('See times');
    expect(lists()[0].body.text).toContain('visit “Ático en el Centro” (ref. Z-2)');
    expect(lists()[0].body.text).toContain('• Friday 11 January, 12:00');

    await chooses(waId, rows[2]);
    const [viewing] = await viewingsOf(leadId);
    // Z-2 has no agent of its own: any active user, the lowest id first.
    expect(viewing).toMatchObject({ property_id: await propertyId(db, 'Z-2'), user_id: ana, status: 'scheduled', source: 'assistant' });
    expect(new Date(viewing.starts_at).toISOString()).toBe('2030-01-11T15:00:00.000Z');
    expect(texts().at(-1)).toContain('Your viewing of “Ático en el Centro” (ref. Z-2) is booked for Friday 11 January, 16:00.');
  });

  it('with no free slot in the next 7 days: a plain message, and the conversation waits for an agent', async () => {
    const { leadId, waId } = await inquirer('612300003');
    const z1 = await propertyId(db, 'Z-1');
    const at = toRfc3339(new Date());
    // Bea, Z-1's agent, is busy all of her viewing hours for eight days (Madrid is UTC+1 in January).
    for (let day = 7; day <= 14; day++) {
      const date = `2030-01-${String(day).padStart(2, '0')}`;
      for (const [from, to] of [
        ['09:00', '13:00'],
        ['15:00', '19:00'],
      ]) {
        await db
          .insertInto('viewings')
          .values({
            business_id: businessId,
            lead_id: leadId,
            property_id: z1,
            user_id: bea,
            starts_at: toRfc3339(new Date(`${date}T${from}:00Z`)),
            ends_at: toRfc3339(new Date(`${date}T${to}:00Z`)),
            status: 'confirmed',
            source: 'console',
            feedback: null,
            created_at: at,
            updated_at: at,
          })
          .execute();
      }
    }
    await says(waId, 'Quiero visitar el piso');
    expect(lists()).toEqual([]);
    expect(texts()).toEqual([
      'Ahora mismo no tengo huecos libres para visitar «Piso luminoso en Delicias» (ref. Z-1) en los próximos días, así que le paso ' +
        'la conversación a un agente de la agencia, que te propondrá un momento lo antes posible.',
    ]);
    expect((await showConversation(db, leadId)).state).toBe('waiting_for_agent');
    expect(await viewingsOf()).toHaveLength(16);
  });

  it('with no listing known, hands off as a request for an agent does', async () => {
    const { leadId, waId } = await inquirer('612300004', { notes: 'Busco algo por el centro.' });
    await says(waId, '¿Puedo verlo el jueves?');
    expect(lists()).toEqual([]);
    expect(texts()).toEqual([expect.stringContaining('un agente de la agencia se pondrá en contacto')]);
    expect((await showConversation(db, leadId)).state).toBe('waiting_for_agent');
  });

  it('a slot taken between the offer and the choice is not booked twice: the next free slots are offered again', async () => {
    const { leadId, waId } = await inquirer('612300005');
    await says(waId, '¿Se puede visitar?');
    const rows = lists()[0].action.sections[0].rows;
    const taken = '2030-01-08T09:00:00Z';
    // Someone else takes Tuesday 10:00 through the API meanwhile: Bea is the only one who shows Z-1.
    const other = await post(app, '/leads/inquiries', key, { name: 'Otro', phone_number_1: '612399999', type: 'demandante' });
    // Booked at the worker's time: a start years after the real clock is beyond the horizon (INMO_VIEWING_HORIZON_DAYS).
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(clock.now());
    const booked = await post(app, '/viewings', key, {
      property_id: await propertyId(db, 'Z-1'),
      starts_at: taken,
      lead_id: other.body.lead_id,
    }).finally(() => vi.useRealTimers());
    expect(booked.status).toBe(201);

    await chooses(waId, rows[1]);
    const atThatTime = (await viewingsOf()).filter((v) => Date.parse(v.starts_at) === Date.parse(taken));
    expect(atThatTime).toHaveLength(1);
    expect(atThatTime[0].lead_id).toBe(other.body.lead_id);
    expect(await viewingsOf(leadId)).toEqual([]);
    expect(lists()).toHaveLength(2);
    const again = lists()[1];
    expect(again.body.text).toMatch(/^Vaya, ese hueco se acaba de ocupar/);
    const newRows = again.action.sections[0].rows;
    expect(newRows.map((r) => r.title)).toEqual(['Lunes 7 ene, 10:30', 'Martes 8 ene, 10:30', 'Miércoles 9 ene, 10:00']);
    expect((await showConversation(db, leadId)).state).toBe('assistant');

    await chooses(waId, newRows[1]);
    const [viewing] = await viewingsOf(leadId);
    expect(viewing).toMatchObject({ user_id: bea, status: 'scheduled', source: 'assistant' });
    expect(new Date(viewing.starts_at).toISOString()).toBe('2030-01-08T09:30:00.000Z');
    expect((await showConversation(db, leadId)).state).toBe('waiting_for_agent');
  });

  it('a time chosen after it passed is not booked: the next free times are offered, saying so', async () => {
    const { leadId, waId } = await inquirer('612300006');
    await says(waId, 'Quiero visitarlo');
    const [monday] = lists()[0].action.sections[0].rows;
    // The lead answers on Monday afternoon: 10:30 has passed.
    clock.set('2030-01-07T15:00:00Z');
    await chooses(waId, monday);
    expect(await viewingsOf(leadId)).toEqual([]);
    expect(lists()).toHaveLength(2);
    expect(lists()[1].body.text).toMatch(
      /^Ese horario ya ha pasado\. Estos son los próximos libres para visitar «Piso luminoso en Delicias»/,
    );
    // Two hours ahead of 16:00 in Madrid: Monday 18:30 first.
    expect(lists()[1].action.sections[0].rows.map((r) => r.title)).toEqual([
      'Lunes 7 ene, 18:30',
      'Martes 8 ene, 10:00',
      'Miércoles 9 ene, 10:00',
    ]);
    expect((await showConversation(db, leadId)).state).toBe('assistant');
  });
});
