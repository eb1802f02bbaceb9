/**
 * Valuation visits (issue 58 item 2; CONTRACT §20, §24) on both engines: a viewing of kind
 * `valuation` is an agent's visit to an owner's home, booked for a `propietario` lead at a listing
 * linked to it (published or not), through the API or the owner's console page; it moves the
 * owner along the pipeline by itself (booked → `valuation_scheduled`, done → `valued`, the last
 * one cancelled → back to `new`; never out of `lost`, never backwards); the owner is told in words
 * of a valuation (the channel's `valuation_*` template, else an e-mail with the home's address,
 * whatever the listing's privacy); the agenda, the viewing's page and the agent's calendar say
 * it is one. What is refused is a 422 that stores nothing.
 *
 * "Now" is vitest's fake `Date` (only `Date`): Friday 20 March 2026, 10:00 in Madrid; the visits
 * are on Monday 23 March.
 */
import type { ParsedMail } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { createApiKey } from '../../../src/services/access/api-keys.ts';
import { createUser } from '../../../src/services/access/console-users.ts';
import { moveOwnerStage } from '../../../src/services/leads/owners.ts';
import { connectEmail } from '../../../src/services/messaging/email.ts';
import { makeCalendarUrl } from '../../../src/services/viewings/calendar.ts';
import { changeViewing } from '../../../src/services/viewings/transitions.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { get, post, withApp } from '../../helpers/http.ts';
import { leadOfType, linkOwner } from '../../helpers/leads.ts';
import { withNoticeServers } from '../../helpers/notice-servers.ts';
import { connectFakeChannel } from '../../helpers/whatsapp.ts';

const NOW = '2026-03-20T09:00:00Z';
/** Monday 23 March 2026 in Madrid (+01:00). */
const MONDAY_10 = '2026-03-23T10:00:00+01:00';
const MONDAY_11 = '2026-03-23T11:00:00+01:00';

const t = withApp({
  each: true,
  seed: async ({ db, businessId }) => {
    await importRecords(db, businessId, [
      // An owner's home before the mandate: not published, its address hidden from the public.
      listing('CASA-1', { title: 'Piso en Delicias', public: false, address_privacy: 'hidden' }),
      listing('CASA-2', { title: 'Ático en el Centro' }),
    ]);
    await createUser(db, { businessId, email: 'bea@inmo.example', role: 'agent' });
  },
});

const servers = withNoticeServers(NOW);
let phones = 0;

const drain = () =>
  new Worker({
    db: t.db,
    clock: new ManualClock(new Date(Date.parse(NOW) + 60_000)),
    settings: { pollMs: 20, backoffMs: 60_000, maxAttempts: 3, viewingReminderHours: 24 },
  }).drain();

/** A lead of `type` with an e-mail address and `language` (the spec's codes: `gb` is English); a `propietario` owns the listings `refs`. @returns its id. */
async function leadWith(type: 'propietario' | 'demandante', refs: string[] = [], language = 'es'): Promise<number> {
  const id = await leadOfType(t.db, t.businessId, type, `+3461290${String(++phones).padStart(4, '0')}`, 'Pedro Propietario');
  await t.db
    .updateTable('leads')
    .set({ personal_email: `pedro${phones}@example.com`, preferred_language: language })
    .where('id', '=', id)
    .execute();
  await linkOwner(t.db, id, refs);
  return id;
}

const bookValuation = async (leadId: number, ref = 'CASA-1', startsAt = MONDAY_10, key = t.key) =>
  post(t.app, '/viewings', key, { property_id: await propertyId(t.db, ref), starts_at: startsAt, lead_id: leadId, kind: 'valuation' });

const stage = async (id: number) =>
  (await t.db.selectFrom('leads').select('owner_stage').where('id', '=', id).executeTakeFirstOrThrow()).owner_stage ?? 'new';

/** The owner's stage moves as its history says them: `[from, to, by a user?]`. */
const moves = async (id: number) =>
  (
    await t.db
      .selectFrom('lead_history')
      .select(['detail', 'user_id'])
      .where('lead_id', '=', id)
      .where('change', '=', 'owner_stage')
      .orderBy('id')
      .execute()
  ).map((h) => {
    const { from, to } = JSON.parse(h.detail ?? '{}') as { from: string; to: string };
    return [from, to, h.user_id !== null];
  });

describe('booking a valuation', () => {
  it('books one for an owner at its own unpublished listing, as kind valuation, and moves the owner to valuation_scheduled', async () => {
    const owner = await leadWith('propietario', ['CASA-1']);
    const eventsBefore = (await t.db.selectFrom('events').select('id').execute()).length;
    const booked = await bookValuation(owner);
    expect(booked.status, JSON.stringify(booked.body)).toBe(201);
    expect(booked.body).toEqual({ id: expect.any(Number), status: 'scheduled' });
    const listed = await get(t.app, `/viewings?lead_id=${owner}`, t.key);
    expect(listed.body.data.map((v: { kind: string; status: string }) => [v.kind, v.status])).toEqual([['valuation', 'scheduled']]);
    expect((await get(t.app, `/leads/${owner}`, t.key)).body.owner_stage).toBe('valuation_scheduled');
    expect(await moves(owner)).toEqual([['new', 'valuation_scheduled', false]]);
    // Subscribers learn of the viewing and of the owner's move.
    const events = (await t.db.selectFrom('events').select(['type', 'data']).orderBy('id').execute()).slice(eventsBefore);
    expect(events.map((e) => e.type)).toEqual(['viewing.scheduled', 'lead.updated']);
    expect(JSON.parse(events[0].data).viewing.kind).toBe('valuation');
    // A visit by a searching lead is of kind visit, and the list filters by kind.
    const searcher = await leadWith('demandante');
    const visit = await post(t.app, '/viewings', t.key, {
      property_id: await propertyId(t.db, 'CASA-2'),
      starts_at: MONDAY_11,
      lead_id: searcher,
    });
    expect(visit.status).toBe(201);
    const valuations = await get(t.app, '/viewings?kind=valuation', t.key);
    expect(valuations.body.data.map((v: { lead_id: number }) => v.lead_id)).toEqual([owner]);
    expect((await get(t.app, '/viewings?kind=visit', t.key)).body.data.map((v: { kind: string }) => v.kind)).toEqual(['visit']);
    expect((await get(t.app, '/viewings?kind=tasacion', t.key)).status).toBe(422);
  });

  it('refuses with 422 and stores nothing a valuation of a searching lead, of another owner’s listing, for a new person, or from a website', async () => {
    const owner = await leadWith('propietario', ['CASA-1']);
    const searcher = await leadWith('demandante');
    const publishable = (
      await createApiKey(t.db, {
        businessId: t.businessId,
        scopes: ['properties:read', 'leads:ingest', 'viewings:write'],
        origins: ['https://agencia.example'],
      })
    ).key;
    const before = await snapshot(t.db);
    const refusals = [
      await bookValuation(searcher),
      await bookValuation(owner, 'CASA-2'),
      await post(t.app, '/viewings', t.key, {
        property_id: await propertyId(t.db, 'CASA-1'),
        starts_at: MONDAY_10,
        kind: 'valuation',
        lead: { name: 'Nadie', phone_number_1: '+34612999001', consent: { marketing: false, whatsapp: true, text: 'Sí', version: 'v1' } },
      }),
      await post(
        t.app,
        '/viewings',
        publishable,
        {
          property_id: await propertyId(t.db, 'CASA-2'),
          starts_at: MONDAY_10,
          kind: 'valuation',
          lead: { name: 'Nadie', phone_number_1: '+34612999002', consent: { marketing: false, whatsapp: true, text: 'Sí', version: 'v1' } },
        },
        { origin: 'https://agencia.example' },
      ),
    ];
    for (const refused of refusals) {
      expect(refused.status, JSON.stringify(refused.body)).toBe(422);
      expect(refused.body).toEqual({
        detail: 'A valuation visit is booked for an owner (a propietario lead given by lead_id) at a listing linked to that owner',
      });
    }
    const unknown = await post(t.app, '/viewings', t.key, {
      property_id: await propertyId(t.db, 'CASA-1'),
      starts_at: MONDAY_10,
      lead_id: owner,
      kind: 'tasacion',
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(['body', 'kind']);
    expect(await snapshot(t.db)).toBe(before);
  });
});

describe('the owner’s stage moves with its valuations', () => {
  it('done moves it to valued; the last one cancelled takes valuation_scheduled back to new, not while another is booked', async () => {
    const owner = await leadWith('propietario', ['CASA-1', 'CASA-2']);
    const first = (await bookValuation(owner)).body.id as number;
    const second = (await bookValuation(owner, 'CASA-2', MONDAY_11)).body.id as number;
    expect(await stage(owner)).toBe('valuation_scheduled');
    await changeViewing(t.db, t.businessId, first, { action: 'cancel' });
    expect(await stage(owner)).toBe('valuation_scheduled');
    await changeViewing(t.db, t.businessId, second, { action: 'cancel' });
    expect(await stage(owner)).toBe('new');

    const third = (await bookValuation(owner, 'CASA-1', MONDAY_11)).body.id as number;
    await changeViewing(t.db, t.businessId, third, { action: 'done' });
    expect(await stage(owner)).toBe('valued');
    expect(await moves(owner)).toEqual([
      ['new', 'valuation_scheduled', false],
      ['valuation_scheduled', 'new', false],
      ['new', 'valuation_scheduled', false],
      ['valuation_scheduled', 'valued', false],
    ]);
  });

  it('never moves an owner back from a later stage, nor out of lost', async () => {
    const signed = await leadWith('propietario', ['CASA-1']);
    const lost = await leadWith('propietario', ['CASA-2']);
    const actor = { type: 'cli' } as const;
    await moveOwnerStage(t.db, { businessId: t.businessId, leadId: signed, stage: 'mandate_signed', actor });
    await moveOwnerStage(t.db, { businessId: t.businessId, leadId: lost, stage: 'lost', actor });
    const a = (await bookValuation(signed)).body.id as number;
    const b = (await bookValuation(lost, 'CASA-2', MONDAY_11)).body.id as number;
    await changeViewing(t.db, t.businessId, a, { action: 'done' });
    await changeViewing(t.db, t.businessId, b, { action: 'cancel' });
    expect([await stage(signed), await stage(lost)]).toEqual(['mandate_signed', 'lost']);
    expect([(await moves(signed)).length, (await moves(lost)).length]).toEqual([1, 1]);
  });
});

/** The confirm link of a notice's e-mail, as a path. */
function confirmLink(mail: ParsedMail): string {
  const link = /Confirmar: (\S+)/.exec(mail.text ?? '')?.[1];
  expect(link, mail.text).toBeTruthy();
  return new URL(link!).pathname;
}

describe('the owner is told of a valuation', () => {
  it('by the channel’s valuation template when it names one, with the home’s address though the listing hides it', async () => {
    await connectFakeChannel(t.db, t.businessId, servers.graph.baseUrl, {
      templates: { viewing_scheduled: 'visita_programada', valuation_scheduled: 'valoracion_programada' },
    });
    const owner = await leadWith('propietario', ['CASA-1']);
    expect((await bookValuation(owner)).status).toBe(201);
    await drain();
    const templates = servers.graph.requests.filter((r) => r.body?.type === 'template').map((r) => r.body.template);
    expect(templates.map((tpl) => tpl.name)).toEqual(['valoracion_programada']);
    expect(templates[0].components[0].parameters.map((p: { text: string }) => p.text)).toEqual([
      'lunes, 23 de marzo',
      '10:00',
      'Piso en Delicias',
      'Calle Mayor 1, Madrid',
    ]);
  });

  it('else by e-mail in words of a valuation, in the owner’s language, whose link page asks about the valuation', async () => {
    await connectEmail(t.db, { businessId: t.businessId, url: servers.smtp.url, from: 'hola@agency.example', replyTo: null });
    const owner = await leadWith('propietario', ['CASA-1']);
    const english = await leadWith('propietario', ['CASA-2'], 'gb');
    expect((await bookValuation(owner)).status).toBe(201);
    expect((await bookValuation(english, 'CASA-2', MONDAY_11)).status).toBe(201);
    await drain();
    const [es] = servers.smtp.received.filter((r) => r.mail.subject?.startsWith('Visita de valoración')).map((r) => r.mail);
    expect(es.subject).toBe('Visita de valoración: lunes, 23 de marzo a las 10:00');
    expect(es.text).toContain(
      'Hemos reservado la visita de valoración de tu vivienda el lunes, 23 de marzo a las 10:00: un agente irá a verla.',
    );
    expect(es.text).toContain('Dirección: Calle Mayor 1, Madrid');
    expect(es.text).toContain('¿Te viene bien? Confírmala o cancélala con un clic:');
    expect(es.text).not.toContain('tu visita a');
    const [en] = servers.smtp.received.filter((r) => r.mail.subject?.startsWith('Valuation visit')).map((r) => r.mail);
    expect(en.text).toContain(
      'We have booked the valuation visit to your home on Monday, March 23 at 11:00: an agent will come to see it.',
    );

    const link = confirmLink(es);
    const shown = await t.app.inject({ method: 'GET', url: link });
    expect(shown.body).toContain('¿Confirmas la visita de valoración de tu vivienda el lunes, 23 de marzo a las 10:00?');
    const done = await t.app.inject({ method: 'POST', url: link });
    expect(done.body).toContain('Hecho: la visita de valoración del lunes, 23 de marzo a las 10:00 queda confirmada.');
  });
});

describe('the console', () => {
  it('books a valuation from the owner’s page, and the agenda, the viewing’s page and the agent’s calendar say it is one', async () => {
    const ana = await userWithPassword(t.db, t.businessId, 'ana@inmo.example', 'agent');
    const owner = await leadWith('propietario', ['CASA-1']);
    const console = await loggedIn(t.app, 'ana@inmo.example');
    const page = await console.get(`/console/leads/${owner}`);
    // The owner's page offers the kind, a valuation first, and its own listing among the choices.
    expect(page.body).toMatch(/<select id="v-kind" name="kind"[^>]*>\s*<option value="valuation" selected>/);
    expect(page.body).toContain(`<option value="${await propertyId(t.db, 'CASA-1')}">CASA-1 · Piso en Delicias</option>`);
    // A searching lead's page has no kind to choose.
    const searcher = await leadWith('demandante');
    expect((await console.get(`/console/leads/${searcher}`)).body).not.toContain('id="v-kind"');

    const wrong = await console.submit(`/console/leads/${owner}`, `/console/leads/${owner}/viewings`, {
      kind: 'valuation',
      property_id: String(await propertyId(t.db, 'CASA-2')),
      date: '2026-03-23',
      time: '12:00',
    });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('Una valoración es de un inmueble de este propietario');
    const booked = await console.submit(`/console/leads/${owner}`, `/console/leads/${owner}/viewings`, {
      kind: 'valuation',
      property_id: String(await propertyId(t.db, 'CASA-1')),
      date: '2026-03-23',
      time: '12:00',
      user_id: String(ana.id),
    });
    expect(booked.statusCode, booked.body).toBe(303);
    const viewing = await t.db.selectFrom('viewings').selectAll().executeTakeFirstOrThrow();
    expect([viewing.kind, viewing.source, await stage(owner)]).toEqual(['valuation', 'console', 'valuation_scheduled']);

    const agenda = await console.get('/console/agenda?date=2026-03-23');
    expect(agenda.body).toContain('<span class="state kind-valuation">Valoración</span>');
    expect((await console.get(`/console/viewings/${viewing.id}`)).body).toContain('Visita de valoración (la vivienda del propietario)');
    const { path } = await makeCalendarUrl(t.db, ana.id, t.businessId);
    const calendar = await t.app.inject({ method: 'GET', url: path });
    expect(calendar.body.replace(/\r\n[ \t]/g, '')).toContain('SUMMARY:Valoración · Pedro · Piso en Delicias');
  });
});
