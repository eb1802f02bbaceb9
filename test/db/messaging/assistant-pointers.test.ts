/**
 * The assistant remembers what it just listed (issue 57 item 9; CONTRACT §10, §20), on both
 * engines, through the WhatsApp fakes: after it lists three flats, "¿Puedo ir a visitar el
 * primero?" (or "the second one", "le troisième", "den ersten", "l'ultimo") is offered the free
 * slots of that flat, as when a listing is named; "el quinto" of three, or "ese" of several, gets
 * the question "which one?" and no hand-off, and the answer "el segundo" is then offered the
 * second's slots. A pointer is read against the assistant's most recent message that listed
 * listings, not against the offers in between.
 *
 * The worker's clock is fixed on Monday 7 January 2030, 08:00 in Madrid, as in
 * test/db/messaging/assistant-viewings.test.ts.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import type { Db } from '../../../src/db/database.ts';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { Worker, type WorkerLogger } from '../../../src/jobs/worker.ts';
import { createUser } from '../../../src/services/access/console-users.ts';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { showConversation } from '../../../src/services/messaging/conversations.ts';
import { businessWithKey, freshDb, importRecords, listing } from '../../helpers/db.ts';
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

const quiet: WorkerLogger = { info: () => {}, warn: () => {}, error: () => {} };
const drain = () => new Worker({ db, clock, logger: quiet, settings: { pollMs: 20, backoffMs: 60_000, maxAttempts: 3 } }).drain();

/** Three flats to rent that the lead's search matches, and one too dear. */
const FLATS = {
  'A-1': 'Piso luminoso en Delicias',
  'A-2': 'Ático en el Centro',
  'A-3': 'Estudio junto al Ebro',
};

beforeEach(async () => {
  ({ db } = await freshDb());
  ({ key, businessId } = await businessWithKey(db));
  app = await buildApp({ db });
  graph = await startFakeGraph();
  clock = new ManualClock(NOW);
  // The agent who shows the flats: free all week.
  await createUser(db, { businessId, email: 'ana@agencia.example', role: 'owner', name: 'Ana Ruiz' });
  await importRecords(db, businessId, [
    ...Object.entries(FLATS).map(([ref, title], i) =>
      listing(ref, { operation: 'alquiler', price: null, price_rent: 700 + i * 50, title, city: 'Zaragoza', province: 'Zaragoza' }),
    ),
    listing('CARO', { operation: 'alquiler', price: null, price_rent: 2500, title: 'Chalet con piscina' }),
  ]);
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
    { WA_TOKEN: 'EAAG-token-of-the-pointer-tests', WA_APP_SECRET: APP_SECRET },
  );
});

afterEach(async () => {
  await app.close();
  await graph.close();
  await db.destroy();
});

/** A renter up to 1,000 €/month who got the welcome, with no listing of an inquiry. */
async function renter(phone: string, priceRentMax = 1000) {
  const response = await post(app, '/leads/inquiries', key, {
    name: 'Lucía Pérez',
    phone_number_1: phone,
    type: 'demandante',
    search_preferences: [{ operations: ['alquiler'], property_types: ['apartamento'], apartamento: { price_rent_max: priceRentMax } }],
  });
  expect(response.status).toBe(200);
  await drain();
  return { leadId: response.body.lead_id as number, waId: `34${phone}` };
}

const timestamp = () => String(Math.floor(clock.now().getTime() / 1000));

async function says(waId: string, text: string) {
  expect((await deliver(app, inbound({ from: waId, text, timestamp: timestamp() }))).statusCode).toBe(200);
  await drain();
}

/** What the fake Graph API was last sent: an interactive list's text, or a text. */
const lastSent = () => {
  const body = graph.requests.at(-1)!.body;
  return body.type === 'interactive' ? { list: body.interactive.body.text as string } : { text: body.text.body as string };
};
const texts = () => graph.requests.filter((r) => r.body?.type === 'text').map((r) => r.body.text.body as string);

/** How the assistant names a listing in an offer. */
const named = (ref: keyof typeof FLATS) => `«${FLATS[ref]}» (ref. ${ref})`;

/** The references of the listings an answer lists, in its order ("1. Piso…", "2. …"). */
function listedRefs(text: string): Array<keyof typeof FLATS> {
  const refs = Object.keys(FLATS) as Array<keyof typeof FLATS>;
  return text
    .split('\n')
    .filter((line) => /^\d+\. /.test(line))
    .map((line) => refs.find((ref) => line.includes(FLATS[ref]))!);
}

/** The lead asks to see flats and is shown three. @returns their references, as numbered. */
async function shownThree(waId: string): Promise<Array<keyof typeof FLATS>> {
  await says(waId, 'Sí, me interesa');
  const shown = listedRefs(texts().at(-1)!);
  expect(shown).toHaveLength(3);
  expect(new Set(shown)).toEqual(new Set(Object.keys(FLATS)));
  return shown;
}

describe('a lead who points at a listing the assistant just showed', () => {
  it('"¿Puedo ir a visitar el primero?" is offered the first one’s slots, and "el último" the last one’s after that offer', async () => {
    const { leadId, waId } = await renter('612400001');
    const shown = await shownThree(waId);

    await says(waId, '¿Puedo ir a visitar el primero?');
    const offer = lastSent();
    expect(offer.list).toContain(`Estos son los próximos huecos libres para visitar ${named(shown[0])}`);
    const conversation = await showConversation(db, leadId);
    expect(conversation.state).toBe('assistant');
    expect(conversation.messages.at(-1)).toMatchObject({ direction: 'out', kind: 'interactive', author: 'assistant' });

    // The offer lists no listings: "el último" is still the last of the three.
    await says(waId, 'Mejor el último, ¿se puede visitar?');
    expect(lastSent().list).toContain(`para visitar ${named(shown[2])}`);
    expect((await showConversation(db, leadId)).state).toBe('assistant');
  });

  it.each([
    ['Can I visit the second one?', 1],
    ['Puis-je visiter le troisième ?', 2],
    ['Kann ich den ersten besichtigen?', 0],
    ["Posso visitare l'ultimo?", 2],
    ['Quiero ver ese piso, el segundo', 1],
  ])('%j is offered the slots of the listing it points at', async (message, index) => {
    const { leadId, waId } = await renter('612400002');
    const shown = await shownThree(waId);
    await says(waId, message);
    // Named in the reply's language: «…» in Spanish, “…” in English.
    expect(lastSent().list).toContain(`${FLATS[shown[index]]}${message.startsWith('Can') ? '”' : '»'} (ref. ${shown[index]})`);
    expect((await showConversation(db, leadId)).state).toBe('assistant');
  });

  it('"el quinto" of three is asked which one, with no hand-off; the answer "el segundo" is offered the second’s slots', async () => {
    const { leadId, waId } = await renter('612400003');
    const shown = await shownThree(waId);

    await says(waId, '¿Puedo visitar el quinto?');
    expect(lastSent()).toEqual({
      text: [
        'Solo te he enseñado 3 inmuebles:',
        shown.map((ref, i) => `${i + 1}. ${named(ref)}`).join('\n'),
        '¿Cuál quieres visitar? Dime su número («el primero», «el segundo», «el tercero»…) o su referencia.',
      ].join('\n\n'),
    });
    const asked = await showConversation(db, leadId);
    expect(asked.state).toBe('assistant');
    expect(await db.selectFrom('viewings').select('id').execute()).toEqual([]);

    await says(waId, 'El segundo');
    expect(lastSent().list).toContain(`para visitar ${named(shown[1])}`);
    expect((await showConversation(db, leadId)).state).toBe('assistant');
  });

  it('"ese" when three were listed is asked which one; when one was listed, it is that one', async () => {
    const { leadId, waId } = await renter('612400004');
    const shown = await shownThree(waId);
    await says(waId, '¿Puedo visitar ese?');
    expect(lastSent().text).toMatch(/^Te he enseñado varios inmuebles:\n\n1\. /);
    expect(lastSent().text).toContain(`3. ${named(shown[2])}`);
    expect((await showConversation(db, leadId)).state).toBe('assistant');

    // Another lead, whose search at most 720 €/month matches one flat alone.
    const one = await renter('612400005', 720);
    await says(one.waId, 'Sí, me interesa');
    expect(listedRefs(texts().at(-1)!)).toEqual(['A-1']);
    await says(one.waId, '¿Puedo visitar ese?');
    expect(lastSent().list).toContain(`para visitar ${named('A-1')}`);
  });

  it('a pointer with nothing listed before hands off as a visit with no listing known did', async () => {
    const { leadId, waId } = await renter('612400006');
    await says(waId, '¿Puedo visitar el primero?');
    expect(lastSent().text).toContain('un agente de la agencia se pondrá en contacto');
    expect((await showConversation(db, leadId)).state).toBe('waiting_for_agent');
  });
});
