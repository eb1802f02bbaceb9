/**
 * The bounds of booking a viewing (issue 55, item 3; docs/security.md "Viewings"), on both
 * engines: a horizon, the slot grid, a cap per lead and per publishable key (and per listing
 * page), and `requested` viewings that never make the agency's own booking impossible.
 *
 * The API's tests run on vitest's fake `Date` (only `Date`), so the dates stay in the future
 * whenever the suite runs: "now" is Friday 20 March 2026, 10:00 in Madrid; Saturday the 28th has
 * 8 slots (10:00–14:00), Monday the 23rd 16. The listing page's tests use the real clock.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiKey } from '../../../src/services/access/api-keys.ts';
import { createUser } from '../../../src/services/access/console-users.ts';
import { listingPageToken } from '../../../src/services/catalogue/listing-page.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { bookFromConsole, ViewingFormError } from '../../../src/services/viewings/console.ts';
import { changeViewing } from '../../../src/services/viewings/transitions.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { get, post, withApp } from '../../helpers/http.ts';

const SITE = 'https://agencia.example';
const NOW = '2026-03-20T09:00:00Z';
const SATURDAY = ['10:00', '10:30', '11:00', '11:30', '12:00', '12:30', '13:00', '13:30'].map((h) => `2026-03-28T${h}:00+01:00`);

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

/** Sets "now" (the fake `Date`). */
const now = (iso: string) => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(iso));
};

describe('booking through the API and the console', () => {
  const t = withApp({
    each: true,
    seed: async ({ db, businessId }) => {
      await importRecords(db, businessId, [listing('b-1'), listing('b-2'), listing('b-3'), listing('b-4')]);
    },
  });

  let agentSeq = 0;
  const agent = async () =>
    (await createUser(t.db, { businessId: t.businessId, email: `agente${++agentSeq}@agencia.example`, role: 'agent' })).id;
  let phoneSeq = 0;
  const phone = () => `+3461290${String(++phoneSeq).padStart(4, '0')}`;
  const person = (phone_number_1: string) => ({
    name: 'Lucía Gómez',
    phone_number_1,
    consent: { marketing: false, whatsapp: true, text: 'Acepto que me contacten.', version: 'v1' },
  });
  const publishable = async () => (await createApiKey(t.db, { businessId: t.businessId, scopes: ['viewings:write'], origins: [SITE] })).key;
  const ask = (key: string, property_id: number, starts_at: string, lead: Record<string, unknown>) =>
    post(t.app, '/viewings', key, { property_id, starts_at, lead }, { origin: SITE });
  const free = async (property: number, from: string, key: string, days = 1) => {
    const r = await get(t.app, `/viewings/availability?property_id=${property}&from=${from}&days=${days}`, key, { origin: SITE });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return (r.body.data as Array<{ starts_at: string }>).map((s) => s.starts_at);
  };
  const stored = () => t.db.selectFrom('viewings').selectAll().orderBy('id').execute();
  const ids = async () => Promise.all(['b-1', 'b-2', 'b-3', 'b-4'].map((ref) => propertyId(t.db, ref)));
  /** The owner's booking for a real client in the console, at a local time of Saturday the 28th. */
  const consoleBooking = async (propertyId: number, time: string) => {
    const lead = (await createLeadByHand(t.db, { businessId: t.businessId, phone: phone() })).id;
    return bookFromConsole(t.db, t.businessId, { propertyId, leadId: lead, date: '2026-03-28', time, userId: null }, Date.now());
  };

  it('the issue’s reproduction: 24 posts from one phone hold 3 viewings, leave the day free, and the owner books a real client', async () => {
    now(NOW);
    await agent();
    const key = await publishable();
    const listings = (await ids()).slice(0, 3);
    const one = phone();
    const answers: number[] = [];
    for (const property of listings) for (const at of SATURDAY) answers.push((await ask(key, property, at, person(one))).status);
    expect(answers.length).toBe(24);
    // Each request is answered as a booking would be (201) or as a taken slot (409); none holds more than its bounds.
    expect(answers.every((s) => s === 201 || s === 409)).toBe(true);
    const held = await stored();
    expect(held.length).toBe(3);
    expect(new Set(held.map((v) => v.property_id)).size).toBe(3);
    for (const property of listings) expect((await free(property, '2026-03-28', key)).length).toBe(5);
    // The owner books a real client at the time of a request: made over it, the request left to settle.
    const booked = await consoleBooking(listings[0], '10:00');
    expect(booked.status).toBe('scheduled');
    const request = held.find((v) => v.starts_at === '2026-03-28T09:00:00.000+00:00')!;
    await expect(changeViewing(t.db, t.businessId, request.id, { action: 'confirm' })).rejects.toMatchObject({
      code: 'VIEWING_SLOT_TAKEN',
    });
    await changeViewing(t.db, t.businessId, request.id, { action: 'cancel' });
  });

  it('requests from many phones take every website slot, but never the agency’s: the console, a secret key and the confirmation', async () => {
    now(NOW);
    await agent();
    const key = await publishable();
    const [listingId] = await ids();
    for (const at of SATURDAY) expect((await ask(key, listingId, at, person(phone()))).status).toBe(201);
    // Two visitors never get the same slot: a request sees the requests.
    expect(await free(listingId, '2026-03-28', key)).toEqual([]);
    expect((await ask(key, listingId, SATURDAY[0], person(phone()))).status).toBe(409);
    // The agency sees every slot free, and books over the requests.
    expect((await free(listingId, '2026-03-28', t.key)).length).toBe(8);
    expect((await consoleBooking(listingId, '10:00')).status).toBe('scheduled');
    const secret = await post(t.app, '/viewings', t.key, { property_id: listingId, starts_at: SATURDAY[1], lead: person(phone()) });
    expect([secret.status, secret.body.status]).toEqual([201, 'scheduled']);
    // …but never over its own bookings.
    await expect(consoleBooking(listingId, '10:00')).rejects.toBeInstanceOf(ViewingFormError);
    expect((await post(t.app, '/viewings', t.key, { property_id: listingId, starts_at: SATURDAY[1], lead: person(phone()) })).status).toBe(
      409,
    );
    // The agenda shows the agent the two requests booked over, to move or cancel.
    await userWithPassword(t.db, t.businessId, 'duena@agencia.example', 'owner');
    const agenda = await (await loggedIn(t.app, 'duena@agencia.example')).get('/console/agenda?date=2026-03-28&user=all');
    expect(agenda.body.split('Coincide con otra visita del agente').length - 1).toBe(2);
  });

  it('refuses a start beyond the horizon (2099, 9999) or off the slot grid (10:15) with a 422 at starts_at, storing nothing', async () => {
    now(NOW);
    await agent();
    const key = await publishable();
    const [listingId] = await ids();
    const before = await snapshot(t.db);
    const cases: Array<[string, string, string]> = [
      ['2099-03-23T10:00:00+01:00', 'publishable', 'a viewing starts at most 90 days ahead'],
      ['9999-03-22T10:00:00+01:00', 'secret', 'a viewing starts at most 90 days ahead'],
      ['2026-03-23T10:15:00+01:00', 'publishable', 'the viewing must start on a slot'],
      ['2026-03-23T10:15:00+01:00', 'secret', 'the viewing must start on a slot'],
      ['2026-06-19T10:00:00+02:00', 'secret', 'a viewing starts at most 90 days ahead'],
    ];
    for (const [starts_at, kind, reason] of cases) {
      const r =
        kind === 'secret'
          ? await post(t.app, '/viewings', t.key, { property_id: listingId, starts_at, lead: person(phone()) })
          : await ask(key, listingId, starts_at, person(phone()));
      expect(r.status, starts_at).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['body', 'starts_at']);
      expect(r.body.detail[0].msg).toContain(reason);
    }
    expect(await snapshot(t.db)).toBe(before);
    // 90 days ahead is still bookable; availability stops where booking does.
    const last = await post(t.app, '/viewings', t.key, {
      property_id: listingId,
      starts_at: '2026-06-17T10:00:00+02:00',
      lead: person(phone()),
    });
    expect(last.status).toBe(201);
    expect(await free(listingId, '2099-03-23', key)).toEqual([]);
    expect(await free(listingId, '9999-12-31', key, 31)).toEqual([]);
    const edge = await free(listingId, '2026-06-10', key, 31);
    expect(edge.length).toBeGreaterThan(0);
    expect(Date.parse(edge.at(-1)!)).toBeLessThanOrEqual(Date.parse(NOW) + 90 * 86_400_000);
  });

  it('the console books off the grid and refuses beyond the horizon, beside the date', async () => {
    now(NOW);
    await agent();
    const [listingId] = await ids();
    const lead = (await createLeadByHand(t.db, { businessId: t.businessId, phone: phone() })).id;
    const booked = await bookFromConsole(t.db, t.businessId, {
      propertyId: listingId,
      leadId: lead,
      date: '2026-03-23',
      time: '10:15',
      userId: null,
    });
    expect(booked.starts_at).toBe('2026-03-23T10:15:00+01:00');
    const far = bookFromConsole(t.db, t.businessId, {
      propertyId: listingId,
      leadId: lead,
      date: '2099-03-23',
      time: '10:00',
      userId: null,
    });
    await expect(far).rejects.toMatchObject({ faults: [{ field: 'date', reason: 'horizon' }] });
    // The same lead at an overlapping time, with another agent free: refused beside the time.
    await agent();
    const busy = bookFromConsole(t.db, t.businessId, {
      propertyId: listingId,
      leadId: lead,
      date: '2026-03-23',
      time: '10:30',
      userId: null,
    });
    await expect(busy).rejects.toMatchObject({ faults: [{ field: 'time', reason: 'lead_busy' }] });
  });

  it('the console’s lead page says beside the field, in words, a date beyond the horizon and a lead busy at that time', async () => {
    now(NOW);
    await userWithPassword(t.db, t.businessId, 'ana@agencia.example', 'owner');
    await userWithPassword(t.db, t.businessId, 'bea@agencia.example', 'agent');
    const lead = (await createLeadByHand(t.db, { businessId: t.businessId, phone: phone() })).id;
    const browser = await loggedIn(t.app, 'ana@agencia.example');
    const submit = (date: string, time: string) =>
      browser.submit(`/console/leads/${lead}`, `/console/leads/${lead}/viewings`, { property_ref: 'b-1', date, time });
    const far = await submit('2099-03-23', '10:00');
    expect(far.statusCode).toBe(422);
    expect(far.body).toContain('Es demasiado adelante: las visitas se reservan como mucho con 90 días de antelación.');
    expect((await submit('2026-03-23', '10:15')).statusCode).toBe(303);
    const before = await snapshot(t.db);
    const busy = await submit('2026-03-23', '10:30');
    expect(busy.statusCode).toBe(422);
    expect(busy.body).toContain('El cliente tiene otra visita a esa hora.');
    expect(await snapshot(t.db)).toBe(before);
  });

  it('one lead never holds viewings at overlapping times: a secret key gets 409, a publishable key the same 201 as anyone', async () => {
    now(NOW);
    const [ana, bea] = [await agent(), await agent()];
    const [b1, b2, b3] = await ids();
    await t.db.updateTable('properties').set({ agent_user_id: ana }).where('id', '=', b1).execute();
    await t.db.updateTable('properties').set({ agent_user_id: bea }).where('id', 'in', [b2, b3]).execute();
    const key = await publishable();
    const one = phone();
    const first = await ask(key, b1, SATURDAY[0], person(one));
    expect([first.status, first.body.status]).toEqual([201, 'requested']);
    // The same person at the same time elsewhere, and a stranger: answered alike.
    const again = await ask(key, b2, SATURDAY[0], person(one));
    const stranger = await ask(key, b3, SATURDAY[2], person(phone()));
    expect([again.status, Object.keys(again.body).sort(), again.body.status]).toEqual([201, ['id', 'status'], 'requested']);
    expect([stranger.status, Object.keys(stranger.body).sort(), stranger.body.status]).toEqual([201, ['id', 'status'], 'requested']);
    expect(again.body.id).toBeGreaterThan(first.body.id);
    expect(stranger.body.id).toBeGreaterThan(again.body.id);
    const held = await stored();
    expect(held.map((v) => [v.property_id, v.starts_at])).toEqual([
      [b1, '2026-03-28T09:00:00.000+00:00'],
      [b3, '2026-03-28T10:00:00.000+00:00'],
    ]);
    // The request is still the lead's, as an interaction (CONTRACT §22).
    const lead = held[0].lead_id;
    const notes = await t.db.selectFrom('lead_interactions').select('id').where('lead_id', '=', lead).execute();
    expect(notes.length).toBeGreaterThanOrEqual(1);
    // Once an agent accepts the request, the agency's booking of that lead at that time is refused, storing nothing.
    await changeViewing(t.db, t.businessId, held[0].id, { action: 'confirm' });
    const before = await snapshot(t.db);
    const secret = await post(t.app, '/viewings', t.key, { property_id: b2, starts_at: SATURDAY[0], lead_id: lead });
    expect([secret.status, secret.body]).toEqual([409, { detail: 'The lead has another viewing at this time' }]);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('a request in a client’s name never keeps the agency from booking that client at the same time', async () => {
    now(NOW);
    await agent();
    const key = await publishable();
    const [a, b] = await ids();
    const client = phone();
    const lead = (await createLeadByHand(t.db, { businessId: t.businessId, phone: client })).id;
    // A stranger who knows her phone requests listing A at 11:00 in her name…
    expect((await ask(key, a, SATURDAY[2], person(client))).status).toBe(201);
    expect((await stored()).filter((v) => v.lead_id === lead).map((v) => v.status)).toEqual(['requested']);
    // …and the owner still books her on listing B at 11:00; the request is left for the agent to settle.
    const booked = await bookFromConsole(
      t.db,
      t.businessId,
      { propertyId: b, leadId: lead, date: '2026-03-28', time: '11:00', userId: null },
      Date.now(),
    );
    expect(booked.status).toBe('scheduled');
    // Her own scheduled viewing still keeps the agency from a second one at that time.
    await expect(
      bookFromConsole(t.db, t.businessId, { propertyId: a, leadId: lead, date: '2026-03-28', time: '11:00', userId: null }, Date.now()),
    ).rejects.toBeInstanceOf(ViewingFormError);
  });

  it('a publishable key’s person holds one open viewing per listing and 3 in all', async () => {
    now(NOW);
    await agent();
    const key = await publishable();
    const [b1, b2, b3, b4] = await ids();
    const one = phone();
    const answers = [
      await ask(key, b1, SATURDAY[0], person(one)),
      await ask(key, b1, SATURDAY[2], person(one)), // the same listing again
      await ask(key, b2, SATURDAY[4], person(one)),
      await ask(key, b3, SATURDAY[6], person(one)),
      await ask(key, b4, SATURDAY[7], person(one)), // a fourth
    ];
    expect(answers.map((a) => [a.status, a.body.status])).toEqual(Array(5).fill([201, 'requested']));
    expect((await stored()).map((v) => v.property_id)).toEqual([b1, b2, b3]);
    // Once one is over or cancelled, another may be asked for.
    await changeViewing(t.db, t.businessId, (await stored())[0].id, { action: 'cancel' });
    expect((await ask(key, b4, SATURDAY[7], person(one))).status).toBe(201);
    expect((await stored()).filter((v) => v.status === 'requested').map((v) => v.property_id)).toEqual([b2, b3, b4]);
  });

  it('a publishable key makes at most INMO_VIEWING_REQUESTS_PER_DAY requests in 24 hours: then 429 with Retry-After, storing nothing', async () => {
    vi.stubEnv('INMO_VIEWING_REQUESTS_PER_DAY', '3');
    now(NOW);
    await agent();
    await agent();
    const [key, other] = [await publishable(), await publishable()];
    const [listingId] = await ids();
    for (const at of SATURDAY.slice(0, 3)) expect((await ask(key, listingId, at, person(phone()))).status).toBe(201);
    const before = await snapshot(t.db);
    const over = await ask(key, listingId, SATURDAY[3], person(phone()));
    expect(over.status).toBe(429);
    expect(over.body.detail).toBe('Too many viewing requests through this key or page in the last 24 hours: retry in 86400 s');
    expect(over.headers['retry-after']).toBe('86400');
    expect(await snapshot(t.db)).toBe(before);
    // Another key, and the agency, are not held back.
    expect((await ask(other, listingId, SATURDAY[3], person(phone()))).status).toBe(201);
    expect((await post(t.app, '/viewings', t.key, { property_id: listingId, starts_at: SATURDAY[4], lead: person(phone()) })).status).toBe(
      201,
    );
    // A day later the key asks again.
    now('2026-03-21T09:00:01Z');
    expect((await ask(key, listingId, SATURDAY[5], person(phone()))).status).toBe(201);
  });
  it('counts a key’s requests sent at once one after the other: exactly INMO_VIEWING_REQUESTS_PER_DAY are booked', async () => {
    vi.stubEnv('INMO_VIEWING_REQUESTS_PER_DAY', '3');
    now(NOW);
    const listings = await ids();
    // An agent per listing: no agent's lock puts the requests in turn, only the key's.
    for (const id of listings)
      await t.db
        .updateTable('properties')
        .set({ agent_user_id: await agent() })
        .where('id', '=', id)
        .execute();
    const key = await publishable();
    const answers = await Promise.all(SATURDAY.slice(0, 8).map((at, i) => ask(key, listings[i % 4], at, person(phone()))));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 429, 429, 429, 429, 429]);
    expect((await stored()).length).toBe(3);
  });
  it('holds a person to one viewing at a time when their requests come at once through several agents', async () => {
    now(NOW);
    const listings = await ids();
    for (const id of listings)
      await t.db
        .updateTable('properties')
        .set({ agent_user_id: await agent() })
        .where('id', '=', id)
        .execute();
    const key = await publishable();
    const one = phone();
    // The person is known first, so that the requests do not race to make the lead.
    expect((await ask(key, listings[0], SATURDAY[7], person(one))).status).toBe(201);
    const answers = await Promise.all(listings.slice(1).map((id) => ask(key, id, SATURDAY[0], person(one))));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect((await stored()).length).toBe(2);
  });
});

describe('the listing page’s viewing form', () => {
  let token = '';
  let phones = 0;
  const t = withApp({
    each: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agente@uno.example', 'agent');
      await importRecords(db, businessId, [listing('PAGINA')]);
      token = (await listingPageToken(db, businessId, await propertyId(db, 'PAGINA')))!;
    },
  });
  let address = 0;
  const ask = (slot: string) =>
    t.app.inject({
      method: 'POST',
      url: `/l/${token}?lang=es`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        form: 'viewing',
        slot,
        name: 'Irene Soler',
        phone: `61266${String(++phones).padStart(4, '0')}`,
        consent: '1',
      }).toString(),
      remoteAddress: `10.8.0.${++address}`,
    });
  const offered = async () => {
    const html = (await t.app.inject({ method: 'GET', url: `/l/${token}?lang=es` })).body;
    return [...html.matchAll(/<option value="(\d{4}-[^"]+)"/g)].map((m) => m[1]);
  };

  it('accepts only the free slots it offered: off the grid, past its 7 days or in 9999 is refused (422), storing nothing', async () => {
    const slots = await offered();
    expect(slots.length).toBeGreaterThan(2);
    const first = Date.parse(slots[0]);
    const before = await snapshot(t.db);
    const offGrid = new Date(first + 15 * 60_000).toISOString();
    const late = new Date(Date.parse(slots.at(-1)!) + 7 * 86_400_000).toISOString();
    for (const slot of [offGrid, late, '2099-03-23T10:00:00+01:00', '9999-03-22T10:00:00+01:00']) {
      const r = await ask(slot);
      expect(r.statusCode, slot).toBe(422);
      expect(r.body).toContain('id="ve-slot"');
    }
    expect(await snapshot(t.db)).toBe(before);
    expect((await ask(slots[0])).statusCode).toBe(303);
  });

  it('makes at most INMO_VIEWING_REQUESTS_PER_DAY requests per listing in 24 hours: then 429 in words, storing nothing', async () => {
    vi.stubEnv('INMO_VIEWING_REQUESTS_PER_DAY', '2');
    const slots = await offered();
    expect((await ask(slots[0])).statusCode).toBe(303);
    expect((await ask(slots[1])).statusCode).toBe(303);
    const before = await snapshot(t.db);
    const over = await ask(slots[2]);
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(over.body).toContain('<html lang="es">');
    expect(await snapshot(t.db)).toBe(before);
  });
});
