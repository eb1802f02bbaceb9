/**
 * Viewings in the console (issue 44, CONTRACT §20), on both engines: a viewing booked from the
 * lead's page and the listing's (source `console`, status `scheduled`, `viewing.scheduled`), an
 * agent's overlapping viewing, a past time or nonsense refused beside the field with 422 and
 * nothing stored; a new time and the agent's feedback from the viewing's page (`viewing.updated`);
 * the agenda by day and week, an agent's own by default and an owner's of everyone; and local
 * times in Madrid across both changes of summer time.
 *
 * The clock is vitest's fake `Date` (only `Date`), set per test: 2026-03-20 is a Friday, 10:00 in
 * Madrid. 2026's summer time in Madrid runs from Sunday 29 March (02:00 → 03:00) to Sunday
 * 25 October (03:00 → 02:00).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { businessWithKey, importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { loggedIn, userWithPassword, type Browser } from '../../helpers/console.ts';
import { withApp } from '../../helpers/http.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';

const t = withApp({
  each: true,
  seed: async ({ db, businessId }) => {
    await importRecords(db, businessId, [
      listing('PISO-1', { title: 'Piso en Delicias' }),
      listing('PISO-2', { title: 'Ático en el Centro', public: false }),
    ]);
  },
});

/** Sets "now" (the fake `Date`). */
const now = (iso: string) => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(iso));
};

beforeEach(() => now('2026-03-20T09:00:00Z'));
afterEach(() => {
  vi.useRealTimers();
});

/** The business's people, leads and listings. */
async function agency() {
  const ana = await userWithPassword(t.db, t.businessId, 'ana@inmo.example', 'owner');
  const bea = await userWithPassword(t.db, t.businessId, 'bea@inmo.example', 'agent');
  const carla = await userWithPassword(t.db, t.businessId, 'carla@inmo.example', 'agent');
  const lucia = (await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34600111001', name: 'Lucía Beatriz' })).id;
  const mario = (await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34600111002', name: 'Mario Ruiz' })).id;
  return { ana, bea, carla, lucia, mario, piso1: await propertyId(t.db, 'PISO-1'), piso2: await propertyId(t.db, 'PISO-2') };
}

const viewings = () => t.db.selectFrom('viewings').selectAll().orderBy('id').execute();
const events = (type: string) => t.db.selectFrom('events').selectAll().where('type', '=', type).orderBy('id').execute();

/** The HTML of the section whose heading has id `id`. */
const section = (html: string, id: string) => {
  const at = html.indexOf(`id="${id}"`);
  expect(at, `no #${id}`).toBeGreaterThan(-1);
  return html.slice(at, html.indexOf('</section>', at));
};

/** The start times shown in a piece of a page: `10:00` of each `<time>10:00</time>–<time>…`. */
const startsShown = (html: string) => [...html.matchAll(/<time datetime="[^"]+">(?:[^<]*, )?(\d{2}:\d{2})<\/time>–/g)].map((m) => m[1]);

/** Books from the lead's page. */
const fromLead = (browser: Browser, lead: number, form: Record<string, string>) =>
  browser.submit(`/console/leads/${lead}`, `/console/leads/${lead}/viewings`, form);

/** Books from the listing's page. */
const fromListing = (browser: Browser, property: number, form: Record<string, string>) =>
  browser.submit(`/console/properties/${property}`, `/console/properties/${property}/viewings`, form);

describe('a viewing booked from the console', () => {
  it('is booked from the lead page in the business’s time, listed on the lead and listing pages, and fires viewing.scheduled', async () => {
    const { bea, lucia, piso1 } = await agency();
    const agent = await loggedIn(t.app, 'bea@inmo.example');
    const page = await agent.get(`/console/leads/${lucia}`);
    expect(section(page.body, 'h-viewings')).toContain('No hay visitas.');
    expect(page.body).toContain(`<option value="${bea.id}" selected>bea@inmo.example</option>`);

    // The listing by its reference (no match offers it); 30 minutes by default; 10:00 in Madrid is 09:00 UTC in March.
    const booked = await fromLead(agent, lucia, { property_ref: 'PISO-1', date: '2026-03-23', time: '10:00', user_id: String(bea.id) });
    expect([booked.statusCode, booked.headers.location]).toEqual([303, `/console/leads/${lucia}#h-viewings`]);
    const [stored] = await viewings();
    expect(stored).toMatchObject({
      lead_id: lucia,
      property_id: piso1,
      user_id: bea.id,
      starts_at: '2026-03-23T09:00:00.000+00:00',
      ends_at: '2026-03-23T09:30:00.000+00:00',
      status: 'scheduled',
      source: 'console',
      feedback: null,
    });
    const [scheduled] = await events('viewing.scheduled');
    expect(scheduled.lead_id).toBe(lucia);
    expect(JSON.parse(scheduled.data).viewing).toMatchObject({ id: stored.id, starts_at: '2026-03-23T10:00:00+01:00', source: 'console' });

    const listed = section((await agent.get(`/console/leads/${lucia}`)).body, 'h-viewings');
    expect(startsShown(listed)).toEqual(['10:00']);
    expect(listed).toContain(`href="/console/viewings/${stored.id}"`);
    expect(listed).toContain('programada');
    expect(listed).toContain('con bea@inmo.example');
    expect(listed).toContain('Piso en Delicias');
    const onListing = section((await agent.get(`/console/properties/${piso1}`)).body, 'h-viewings');
    expect(startsShown(onListing)).toEqual(['10:00']);
    expect(onListing).toContain('Lucía Beatriz');
    // The listing's form offers the newest leads, or those a search finds.
    const offered = async (url: string) =>
      [...(await agent.get(url)).body.matchAll(/<option value="\d+">([^<]+) · \+34/g)].map((m) => m[1]);
    expect(await offered(`/console/properties/${piso1}`)).toEqual(['Mario Ruiz', 'Lucía Beatriz']);
    expect(await offered(`/console/properties/${piso1}?lead_q=mario`)).toEqual(['Mario Ruiz']);
    expect(await offered(`/console/properties/${piso1}?lead_q=600111001`)).toEqual(['Lucía Beatriz']);
  });

  it('refuses an overlap, a past time and nonsense beside the field with 422, shows the form again, and stores nothing', async () => {
    const { bea, carla, lucia, mario, piso1, piso2 } = await agency();
    const agent = await loggedIn(t.app, 'bea@inmo.example');
    expect(
      (await fromLead(agent, lucia, { property_id: String(piso1), date: '2026-03-23', time: '10:00', user_id: String(bea.id) })).statusCode,
    ).toBe(303);
    const before = await snapshot(t.db);

    // Bea has 10:00–10:30: 10:15 of another listing, from that listing's page, overlaps.
    const overlap = await fromListing(agent, piso2, {
      lead_id: String(mario),
      date: '2026-03-23',
      time: '10:15',
      duration_minutes: '30',
      user_id: String(bea.id),
    });
    expect(overlap.statusCode).toBe(422);
    expect(overlap.body).toContain('<p class="field-problem" id="v-time-problem">Se solapa con otra visita del agente a esa hora.</p>');
    expect(overlap.body).toMatch(
      /<input id="v-time" name="time" type="time"[^>]* value="10:15" aria-describedby="v-time-hint v-time-problem" aria-invalid="true">/,
    );
    expect(overlap.body).toContain(`<option value="${mario}" selected>Mario Ruiz`);
    expect(overlap.body).toContain('value="2026-03-23"');

    const refused = async (form: Record<string, string>, field: string, words: string) => {
      const response = await fromLead(agent, lucia, { property_id: String(piso1), date: '2026-03-23', time: '11:00', ...form });
      expect(response.statusCode, JSON.stringify(form)).toBe(422);
      expect(response.body, JSON.stringify(form)).toContain(`<p class="field-problem" id="v-${field}-problem">${words}`);
    };
    await refused({ date: '2026-03-20', time: '09:30' }, 'time', 'Esa fecha y hora ya han pasado.');
    await refused({ date: '2026-03-19' }, 'date', 'Esa fecha y hora ya han pasado.');
    await refused({ time: '15:00' }, 'time', 'Fuera del horario de visitas de la agencia.');
    await refused({ time: '13:45', duration_minutes: '30' }, 'time', 'Fuera del horario de visitas de la agencia.');
    await refused({ date: '2026-02-30' }, 'date', 'No es una fecha válida.');
    await refused({ date: 'mañana' }, 'date', 'No es una fecha válida.');
    await refused({ time: '25:00' }, 'time', 'No es una hora válida');
    await refused({ date: '' }, 'date', 'Falta este dato.');
    // 02:30 on the day summer time starts does not exist in Madrid.
    await refused({ date: '2026-03-29', time: '02:30' }, 'time', 'Esa hora no existe ese día');
    await refused({ duration_minutes: '500' }, 'duration_minutes', 'La duración va de 5 a 240 minutos.');
    await refused({ property_id: '' }, 'property_id', 'Elige un inmueble o escribe su referencia.');
    await refused({ property_id: '99999999999' }, 'property_id', 'No hay ningún inmueble de la agencia');
    await refused({ property_ref: 'NO-EXISTE' }, 'property_ref', 'No hay ningún inmueble de la agencia');
    await refused({ user_id: '999999' }, 'user_id', 'Elige un usuario activo de la agencia.');
    await refused({ user_id: String(bea.id), time: '10:00' }, 'time', 'Se solapa con otra visita del agente');
    expect(await snapshot(t.db)).toBe(before);
    expect((await fromListing(agent, piso2, { lead_id: '', date: '2026-03-23', time: '11:00' })).body).toContain(
      'id="v-lead_id-problem">Elige un lead.',
    );
    expect(await snapshot(t.db)).toBe(before);
    // Another business's listing is none of this one's.
    const other = await businessWithKey(t.db, 'Otra Agencia');
    await importRecords(t.db, other.businessId, [listing('AJENO-1')]);
    const withOther = await snapshot(t.db);
    await refused({ property_id: String(await propertyId(t.db, 'AJENO-1')) }, 'property_id', 'No hay ningún inmueble de la agencia');
    expect(await snapshot(t.db)).toBe(withOther);
    expect((await viewings()).length).toBe(1);
    expect(await events('viewing.scheduled')).toHaveLength(1);

    // Carla is free at 10:15: the same request for her is booked, from the listing's page.
    const booked = await fromListing(agent, piso2, {
      lead_id: String(mario),
      date: '2026-03-23',
      time: '10:15',
      user_id: String(carla.id),
    });
    expect([booked.statusCode, booked.headers.location]).toEqual([303, `/console/properties/${piso2}#h-viewings`]);
    expect((await viewings())[1]).toMatchObject({
      lead_id: mario,
      property_id: piso2,
      user_id: carla.id,
      status: 'scheduled',
      source: 'console',
    });
  });

  it('a CSRF-less post, another business’s lead or listing are refused as every console form is', async () => {
    const { lucia, piso1 } = await agency();
    const agent = await loggedIn(t.app, 'bea@inmo.example');
    const before = await snapshot(t.db);
    const form = { property_id: String(piso1), date: '2026-03-23', time: '10:00' };
    expect((await agent.request('POST', `/console/leads/${lucia}/viewings`, form)).statusCode).toBe(403);
    expect((await agent.submit(`/console/leads/${lucia}`, '/console/leads/999999/viewings', form)).statusCode).toBe(404);
    expect(
      (await agent.submit(`/console/leads/${lucia}`, '/console/properties/999999/viewings', { ...form, lead_id: String(lucia) }))
        .statusCode,
    ).toBe(404);
    expect(await snapshot(t.db)).toBe(before);
  });
});

describe("a viewing's page", () => {
  it('moves a viewing (an overlap refused beside the field, nothing stored), takes feedback once done, and fires viewing.updated', async () => {
    const { bea, lucia, mario, piso1 } = await agency();
    let agent = await loggedIn(t.app, 'bea@inmo.example');
    const book = (lead: number, date: string, time: string) =>
      fromLead(agent, lead, { property_id: String(piso1), date, time, user_id: String(bea.id) });
    await book(lucia, '2026-03-23', '10:00');
    await book(mario, '2026-03-23', '11:00');
    const [first, second] = await viewings();

    const page = await agent.get(`/console/viewings/${first.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Visita del lunes, 23 de marzo de 2026 a las 10:00</h1>');
    expect(page.body).toContain('la consola');
    expect(page.body).toContain(`<a href="/console/leads/${lucia}">Lucía Beatriz</a>`);
    expect(page.body).toContain('<input id="r-date" name="date" type="date" required value="2026-03-23"');
    expect(page.body).not.toContain('id="h-feedback"');

    const before = await snapshot(t.db);
    const overlap = await agent.submit(`/console/viewings/${first.id}`, `/console/viewings/${first.id}`, {
      action: 'reschedule',
      back: 'viewing',
      date: '2026-03-23',
      time: '11:15',
    });
    expect(overlap.statusCode).toBe(422);
    expect(overlap.body).toContain('<p class="field-problem" id="r-time-problem">Se solapa con otra visita del agente a esa hora.</p>');
    expect(overlap.body).toMatch(/id="r-time" name="time" type="time" step="300" required value="11:15"/);
    const past = await agent.submit(`/console/viewings/${first.id}`, `/console/viewings/${first.id}`, {
      action: 'reschedule',
      back: 'viewing',
      date: '2026-03-20',
      time: '09:00',
    });
    expect([past.statusCode, past.body.includes('Esa fecha y hora ya han pasado.')]).toEqual([422, true]);
    expect(await snapshot(t.db)).toBe(before);

    const moved = await agent.submit(`/console/viewings/${first.id}`, `/console/viewings/${first.id}`, {
      action: 'reschedule',
      back: 'viewing',
      date: '2026-03-24',
      time: '12:00',
    });
    expect([moved.statusCode, moved.headers.location]).toEqual([303, `/console/viewings/${first.id}?saved=1`]);
    const [after] = await viewings();
    expect([after.starts_at, after.ends_at, after.status, after.sequence]).toEqual([
      '2026-03-24T11:00:00.000+00:00',
      '2026-03-24T11:30:00.000+00:00',
      'scheduled',
      1,
    ]);
    const [updated] = await events('viewing.updated');
    expect(JSON.parse(updated.data).viewing).toMatchObject({ id: first.id, starts_at: '2026-03-24T12:00:00+01:00' });
    const shown = (await agent.get(`/console/viewings/${first.id}?saved=1`)).body;
    expect(shown).toContain('Visita guardada.');
    expect(shown).toContain('a las 12:00');

    // Feedback belongs to a viewing done: before that it is refused with the reason, and nothing changes.
    const early = await agent.submit(`/console/viewings/${first.id}`, `/console/viewings/${first.id}`, {
      action: 'feedback',
      back: 'viewing',
      interest: '4',
      comment: 'Le gustó',
    });
    expect([early.statusCode, early.body.includes('ya no admite ese cambio')]).toEqual([409, true]);
    // Its time passes, it is done, and the feedback form appears.
    now('2026-03-24T12:00:00Z');
    agent = await loggedIn(t.app, 'bea@inmo.example'); // the session of four days ago is over
    const done = await agent.submit(`/console/viewings/${first.id}`, `/console/viewings/${first.id}`, { action: 'done', back: 'viewing' });
    expect(done.statusCode).toBe(303);
    expect((await agent.get(`/console/viewings/${first.id}`)).body).toContain('id="h-feedback"');
    const settled = await snapshot(t.db);
    for (const [form, field, words] of [
      [{ interest: '7' }, 'interest', 'Elige un interés del 1 al 5.'],
      [{ interest: '' }, 'interest', 'Elige un interés del 1 al 5.'],
      [{ interest: '3', comment: 'x'.repeat(2001) }, 'comment', 'El comentario es demasiado largo (máximo 2000 caracteres).'],
    ] as const) {
      const response = await agent.submit(`/console/viewings/${first.id}`, `/console/viewings/${first.id}`, {
        action: 'feedback',
        back: 'viewing',
        comment: '',
        ...form,
      });
      expect(response.statusCode).toBe(422);
      expect(response.body).toContain(`<p class="field-problem" id="f-${field}-problem">${words}</p>`);
    }
    expect(await snapshot(t.db)).toBe(settled);
    const noted = await agent.submit(`/console/viewings/${first.id}`, `/console/viewings/${first.id}`, {
      action: 'feedback',
      back: 'viewing',
      interest: '4',
      comment: '  Le gustó la terraza ',
    });
    expect(noted.statusCode).toBe(303);
    expect(JSON.parse((await viewings())[0].feedback!)).toEqual({ interest: 4, comment: 'Le gustó la terraza' });
    const withFeedback = (await agent.get(`/console/viewings/${first.id}`)).body;
    expect(withFeedback).toContain('Interés 4 de 5');
    expect(withFeedback).toContain('Le gustó la terraza');
    expect((await events('viewing.updated')).length).toBe(3);

    // "Hoy"'s form still returns there; an agenda's URL is returned to; anything else goes to the lead's page.
    const fromToday = await agent.submit('/console', `/console/viewings/${second.id}`, { action: 'confirm', back: 'today' });
    expect([fromToday.statusCode, fromToday.headers.location]).toEqual([303, '/console#h-viewings']);
    const agendaBack = '/console/agenda?date=2026-03-23&view=week&user=all';
    const fromAgenda = await agent.submit('/console', `/console/viewings/${second.id}`, { action: 'no_show', back: agendaBack });
    expect([fromAgenda.statusCode, fromAgenda.headers.location]).toEqual([303, agendaBack]);
    expect((await book(lucia, '2026-03-25', '10:00')).statusCode).toBe(303);
    const third = (await viewings())[2];
    const elsewhere = await agent.submit('/console', `/console/viewings/${third.id}`, { action: 'cancel', back: 'https://evil.example/' });
    expect([elsewhere.statusCode, elsewhere.headers.location]).toEqual([303, `/console/leads/${lucia}#h-viewings`]);
    // What the status no longer allows, or no action at all, is refused on the viewing's page.
    const over = await agent.submit('/console', `/console/viewings/${second.id}`, {
      action: 'reschedule',
      date: '2026-03-26',
      time: '10:00',
    });
    expect([over.statusCode, over.body.includes('ya no admite ese cambio'), over.body.includes('<h1>Visita del')]).toEqual([
      409,
      true,
      true,
    ]);
    expect((await agent.submit('/console', `/console/viewings/${first.id}`, { action: 'explode', back: 'viewing' })).statusCode).toBe(409);
    expect((await agent.get('/console/viewings/999999')).statusCode).toBe(404);
    expect((await agent.get('/console/viewings/abc')).statusCode).toBe(404);
  });
});

describe('the agenda', () => {
  it("shows an agent's own viewings by default and an owner's everyone's, by day and by week, never another business's", async () => {
    const { ana, bea, carla, lucia, mario, piso1 } = await agency();
    const owner = await loggedIn(t.app, 'ana@inmo.example');
    const book = (lead: number, user: number, date: string, time: string) =>
      fromLead(owner, lead, { property_id: String(piso1), date, time, user_id: String(user) });
    expect((await book(lucia, bea.id, '2026-03-23', '10:00')).statusCode).toBe(303);
    expect((await book(mario, carla.id, '2026-03-23', '10:00')).statusCode).toBe(303);
    expect((await book(mario, ana.id, '2026-03-25', '17:30')).statusCode).toBe(303);
    // Another business's agent and viewing, the same day.
    const other = await businessWithKey(t.db, 'Otra Agencia');
    await importRecords(t.db, other.businessId, [listing('AJENO-1')]);
    const stranger = await userWithPassword(t.db, other.businessId, 'zoe@otra.example', 'agent');
    const theirLead = (await createLeadByHand(t.db, { businessId: other.businessId, phone: '+34600999001', name: 'Persona Ajena' })).id;
    await t.db
      .insertInto('viewings')
      .values({
        business_id: other.businessId,
        lead_id: theirLead,
        property_id: await propertyId(t.db, 'AJENO-1'),
        user_id: stranger.id,
        starts_at: '2026-03-23T10:00:00.000+00:00',
        ends_at: '2026-03-23T10:30:00.000+00:00',
        status: 'scheduled',
        source: 'console',
        feedback: null,
        created_at: '2026-03-20T09:00:00.000+00:00',
        updated_at: '2026-03-20T09:00:00.000+00:00',
      })
      .execute();

    const agent = await loggedIn(t.app, 'bea@inmo.example');
    const hers = (await agent.get('/console/agenda?date=2026-03-23')).body;
    expect(hers).toContain('<option value="me" selected>');
    expect(hers).toContain('Lucía Beatriz');
    expect(hers).not.toContain('Mario Ruiz');
    expect(hers).not.toContain('con bea@inmo.example');
    const team = (await agent.get('/console/agenda?date=2026-03-23&user=all')).body;
    expect(team).toContain('Lucía Beatriz');
    expect(team).toContain('Mario Ruiz');
    expect(team).toContain('con carla@inmo.example');
    expect(team).not.toContain('Persona Ajena');
    const carlas = (await agent.get(`/console/agenda?date=2026-03-23&user=${carla.id}`)).body;
    expect([carlas.includes('Mario Ruiz'), carlas.includes('Lucía Beatriz')]).toEqual([true, false]);
    // Another business's user is no choice here: the agent's own agenda instead.
    const theirs = (await agent.get(`/console/agenda?date=2026-03-23&user=${stranger.id}`)).body;
    expect([theirs.includes('Persona Ajena'), theirs.includes('Lucía Beatriz'), theirs.includes('<option value="me" selected>')]).toEqual([
      false,
      true,
      true,
    ]);

    const ownersDay = await owner.get('/console/agenda?date=2026-03-23');
    expect(ownersDay.statusCode).toBe(200);
    expect(ownersDay.body).toContain('<option value="all" selected>');
    expect(startsShown(ownersDay.body)).toEqual(['10:00', '10:00']);
    expect(ownersDay.body).not.toContain('Persona Ajena');
    expect(ownersDay.body).toContain('href="/console/agenda?date=2026-03-22&amp;view=day&amp;user=all" rel="prev"');
    expect(ownersDay.body).toContain('href="/console/agenda?date=2026-03-24&amp;view=day&amp;user=all" rel="next"');
    expect(ownersDay.body).toContain('lunes, 23 de marzo de 2026');
    expect(ownersDay.body).toMatch(
      /<a href="\/console\/leads\/\d+">Lucía Beatriz<\/a> · <a href="\/console\/properties\/\d+">Piso en Delicias<\/a>/,
    );

    // A week, Monday to Sunday, whatever day of it is asked for; a day each, empty ones said so.
    const week = (await owner.get('/console/agenda?date=2026-03-25&view=week')).body;
    for (const day of ['23', '24', '25', '26', '27', '28', '29']) expect(week).toContain(`id="d-2026-03-${day}"`);
    expect(week).not.toContain('id="d-2026-03-30"');
    expect(startsShown(section(week, 'd-2026-03-23'))).toEqual(['10:00', '10:00']);
    expect(startsShown(section(week, 'd-2026-03-25'))).toEqual(['17:30']);
    expect(section(week, 'd-2026-03-24')).toContain('Sin visitas.');
    expect(week).toContain('href="/console/agenda?date=2026-03-18&amp;view=week&amp;user=all" rel="prev"');
    expect(week).toContain('href="/console/agenda?date=2026-04-01&amp;view=week&amp;user=all" rel="next"');

    // No date, or none that exists: today's (the business's), marked.
    for (const url of ['/console/agenda', '/console/agenda?date=2026-02-30&view=nonsense&user=nobody']) {
      const today = (await agent.get(url)).body;
      expect(today).toContain('aria-current="date"');
      expect(today).toContain('viernes, 20 de marzo de 2026');
      expect(today).toContain('<option value="me" selected>');
    }
    // In the navigation.
    expect(hers).toContain('<a href="/console/agenda" aria-current="page">Agenda</a>');
  });

  it('shows times in Madrid across both changes of summer time', async () => {
    const { ana, lucia, piso1 } = await agency();
    const at = async (startsAt: string, status: 'scheduled' | 'cancelled' = 'scheduled') =>
      (
        await t.db
          .insertInto('viewings')
          .values({
            business_id: t.businessId,
            lead_id: lucia,
            property_id: piso1,
            user_id: ana.id,
            starts_at: startsAt,
            ends_at: new Date(Date.parse(startsAt) + 30 * 60_000).toISOString().replace('Z', '+00:00'),
            status,
            source: 'api',
            feedback: null,
            created_at: '2026-03-20T09:00:00.000+00:00',
            updated_at: '2026-03-20T09:00:00.000+00:00',
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    await at('2026-03-27T09:00:00.000+00:00'); // Friday, winter: 10:00
    await at('2026-03-29T00:30:00.000+00:00'); // Sunday before the change: 01:30
    await at('2026-03-29T01:30:00.000+00:00'); // Sunday after it: 03:30
    await at('2026-03-29T22:30:00.000+00:00', 'cancelled'); // Monday 00:30 already
    const monday = await at('2026-03-30T08:00:00.000+00:00'); // Monday, summer: 10:00
    await at('2026-10-25T00:30:00.000+00:00'); // 02:30 summer time
    await at('2026-10-25T01:30:00.000+00:00'); // 02:30 again, winter time
    await at('2026-10-25T23:30:00.000+00:00'); // Monday 26 at 00:30
    const owner = await loggedIn(t.app, 'ana@inmo.example');
    const day = async (date: string) => startsShown((await owner.get(`/console/agenda?date=${date}`)).body);

    expect(await day('2026-03-27')).toEqual(['10:00']);
    expect(await day('2026-03-29')).toEqual(['01:30', '03:30']);
    expect(await day('2026-03-30')).toEqual(['00:30', '10:00']);
    expect(await day('2026-10-25')).toEqual(['02:30', '02:30']);
    expect(await day('2026-10-26')).toEqual(['00:30']);
    const week = (await owner.get('/console/agenda?date=2026-03-29&view=week')).body;
    expect(startsShown(section(week, 'd-2026-03-27'))).toEqual(['10:00']);
    expect(startsShown(section(week, 'd-2026-03-29'))).toEqual(['01:30', '03:30']);
    expect(section(week, 'd-2026-03-29')).toContain('–<time datetime="2026-03-29T02:00:00.000+00:00">04:00</time>');
    expect((await owner.get(`/console/viewings/${monday}`)).body).toContain('<h1>Visita del lunes, 30 de marzo de 2026 a las 10:00</h1>');
    const lead = section((await owner.get(`/console/leads/${lucia}`)).body, 'h-viewings');
    // Latest first, each in its own day's offset.
    expect(startsShown(lead)).toEqual(['00:30', '02:30', '02:30', '10:00', '00:30', '03:30', '01:30', '10:00']);
    expect(lead).toContain('cancelada');
  });
});
