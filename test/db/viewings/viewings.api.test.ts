/**
 * Viewings through the API (CONTRACT §20): availability, booking, the list, their events, and
 * the business's clock across the changes of summer time, on both engines.
 *
 * The clock is vitest's fake `Date` (only `Date`): "now" is set per test, so the dates below
 * stay in the future whenever the suite runs. 2026's summer time in Madrid runs from Sunday
 * 29 March (02:00 → 03:00) to Sunday 25 October (03:00 → 02:00).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { createDb } from '../../../src/db/database.ts';
import { createApiKey } from '../../../src/services/access/api-keys.ts';
import { createUser, disableUser } from '../../../src/services/access/console-users.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { changeViewing } from '../../../src/services/viewings/transitions.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { inmo } from '../../helpers/cli.ts';
import { get, post, withApp } from '../../helpers/http.ts';

const SITE = 'https://agencia.example';
const t = withApp({
  each: true,
  seed: async ({ db, businessId }) => {
    await importRecords(db, businessId, [listing('v-1'), listing('v-2'), listing('v-hidden', { public: false })]);
  },
});

afterEach(() => {
  vi.useRealTimers();
});

/** Sets "now" (the fake `Date`). */
const now = (iso: string) => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(iso));
};

let agentSeq = 0;
/** A new active user (agent) of the test business. @returns their id. */
const agent = async () =>
  (await createUser(t.db, { businessId: t.businessId, email: `agente${++agentSeq}@agencia.example`, role: 'agent' })).id;

const slots = async (property: number, from: string, days = 1, key = t.key, headers: Record<string, string> = {}) => {
  const r = await get(t.app, `/viewings/availability?property_id=${property}&from=${from}&days=${days}`, key, headers);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body.data as Array<{ starts_at: string; ends_at: string }>).map((s) => s.starts_at);
};

let phoneSeq = 0;
const person = (overrides: Record<string, unknown> = {}) => ({
  name: 'Lucía Gómez',
  phone_number_1: `+3461280${String(++phoneSeq).padStart(4, '0')}`,
  personal_email: 'lucia@example.com',
  consent: { marketing: false, whatsapp: true, text: 'Acepto que me contacten.', version: 'v1' },
  ...overrides,
});
const book = (body: Record<string, unknown>, key = t.key, headers: Record<string, string> = {}) =>
  post(t.app, '/viewings', key, body, headers);
const viewings = () => t.db.selectFrom('viewings').selectAll().orderBy('id').execute();
const publishable = async () =>
  (await createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read', 'leads:ingest', 'viewings:write'], origins: [SITE] }))
    .key;

describe('the business clock: viewing hours in its time zone, across summer time', () => {
  it('offers Madrid’s default hours with the winter offset before the last Sunday of March and the summer one after', async () => {
    now('2026-03-20T09:00:00Z');
    await agent();
    const offered = await slots(await propertyId(t.db, 'v-1'), '2026-03-27', 4);
    const fri = offered.filter((s) => s.startsWith('2026-03-27'));
    const sat = offered.filter((s) => s.startsWith('2026-03-28'));
    const mon = offered.filter((s) => s.startsWith('2026-03-30'));
    expect([fri.length, sat.length, mon.length, offered.length]).toEqual([16, 8, 16, 40]);
    expect([fri[0], fri[7], fri[8], fri[15]]).toEqual([
      '2026-03-27T10:00:00+01:00',
      '2026-03-27T13:30:00+01:00',
      '2026-03-27T16:00:00+01:00',
      '2026-03-27T19:30:00+01:00',
    ]);
    expect(sat.at(-1)).toBe('2026-03-28T13:30:00+01:00');
    expect([mon[0], mon[15]]).toEqual(['2026-03-30T10:00:00+02:00', '2026-03-30T19:30:00+02:00']);
    // 10:00 in Madrid is 09:00 UTC in winter and 08:00 UTC in summer.
    expect(new Date(fri[0]).toISOString()).toBe('2026-03-27T09:00:00.000Z');
    expect(new Date(mon[0]).toISOString()).toBe('2026-03-30T08:00:00.000Z');
  });

  it('goes back to the winter offset after the last Sunday of October', async () => {
    now('2026-10-20T09:00:00Z');
    await agent();
    const offered = await slots(await propertyId(t.db, 'v-1'), '2026-10-24', 3);
    expect(offered[0]).toBe('2026-10-24T10:00:00+02:00');
    expect(offered.filter((s) => s.startsWith('2026-10-25'))).toEqual([]);
    const mon = offered.filter((s) => s.startsWith('2026-10-26'));
    expect([mon[0], new Date(mon[0]).toISOString()]).toEqual(['2026-10-26T10:00:00+01:00', '2026-10-26T09:00:00.000Z']);
  });

  it('books by the local hours of the day booked: 08:00 UTC is 10:00 after the change, 09:00 before it; 09:00 local is refused', async () => {
    now('2026-03-20T09:00:00Z');
    await agent();
    const id = await propertyId(t.db, 'v-1');
    const before = await snapshot(t.db);
    const early = await book({ property_id: id, starts_at: '2026-03-27T08:00:00Z', lead: person() });
    expect(early.status).toBe(422);
    expect(early.body.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'starts_at'],
        msg: "Value error, the viewing must lie within the business's viewing hours, in its time zone Europe/Madrid",
        input: '2026-03-27T08:00:00.000+00:00',
        ctx: { error: {} },
      },
    ]);
    expect(await snapshot(t.db)).toBe(before);
    const summer = await book({ property_id: id, starts_at: '2026-03-30T08:00:00Z', lead: person() });
    const winter = await book({ property_id: id, starts_at: '2026-03-27T09:00:00Z', lead: person() });
    expect([summer.status, winter.status]).toEqual([201, 201]);
    const listed = await get(t.app, `/viewings?property_id=${id}`, t.key);
    expect(listed.body.data.map((v: { starts_at: string; ends_at: string }) => [v.starts_at, v.ends_at])).toEqual([
      ['2026-03-27T10:00:00+01:00', '2026-03-27T10:30:00+01:00'],
      ['2026-03-30T10:00:00+02:00', '2026-03-30T10:30:00+02:00'],
    ]);
  });

  it('follows the business’s own time zone and hours', async () => {
    now('2026-03-20T09:00:00Z');
    await agent();
    await t.db
      .updateTable('businesses')
      .set({ timezone: 'America/New_York', viewing_hours: JSON.stringify({ mon: [['09:00', '10:00']] }) })
      .where('id', '=', t.businessId)
      .execute();
    // New York changed to summer time on 8 March 2026.
    expect(await slots(await propertyId(t.db, 'v-1'), '2026-03-23', 7)).toEqual(['2026-03-23T09:00:00-04:00', '2026-03-23T09:30:00-04:00']);
  });

  it('never offers a slot in the past: today’s start after now', async () => {
    now('2026-03-23T09:10:00Z'); // Monday 10:10 in Madrid
    await agent();
    const offered = await slots(await propertyId(t.db, 'v-1'), '2026-03-23');
    expect(offered[0]).toBe('2026-03-23T10:30:00+01:00');
    const past = await book({ property_id: await propertyId(t.db, 'v-1'), starts_at: '2026-03-23T10:00:00+01:00', lead: person() });
    expect([past.status, past.body.detail[0].msg]).toEqual([422, 'Value error, the viewing would start in the past']);
  });
});

describe('availability', () => {
  it('never offers a time every agent of the listing has taken; a cancelled viewing frees it', async () => {
    now('2026-03-20T09:00:00Z');
    const [ana, bea] = [await agent(), await agent()];
    const id = await propertyId(t.db, 'v-1');
    const lead = (await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34612000001' })).id;
    const first = await book({ property_id: id, starts_at: '2026-03-23T10:00:00+01:00', lead_id: lead });
    expect(await slots(id, '2026-03-23')).toContain('2026-03-23T10:00:00+01:00');
    const other = (await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34612000011' })).id;
    const second = await book({ property_id: id, starts_at: '2026-03-23T10:00:00+01:00', lead_id: other });
    await book({ property_id: id, starts_at: '2026-03-23T11:00:00+01:00', lead_id: lead });
    expect((await viewings()).map((v) => v.user_id)).toEqual([ana, bea, ana]);
    const offered = await slots(id, '2026-03-23');
    expect(offered).not.toContain('2026-03-23T10:00:00+01:00');
    expect(offered).toContain('2026-03-23T10:30:00+01:00');
    expect(offered).toContain('2026-03-23T11:00:00+01:00'); // Bea is free then
    // Another listing shares the agents: their time is taken for it too.
    expect(await slots(await propertyId(t.db, 'v-2'), '2026-03-23')).not.toContain('2026-03-23T10:00:00+01:00');
    await changeViewing(t.db, t.businessId, second.body.id, { action: 'cancel' });
    expect(await slots(id, '2026-03-23')).toContain('2026-03-23T10:00:00+01:00');
    expect(first.status).toBe(201);
  });

  it('offers only the listing’s agent’s time when it has one, and any active agent’s otherwise', async () => {
    now('2026-03-20T09:00:00Z');
    const [ana, bea] = [await agent(), await agent()];
    const id = await propertyId(t.db, 'v-1');
    await t.db.updateTable('properties').set({ agent_user_id: bea }).where('id', '=', id).execute();
    const lead = (await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34612000002' })).id;
    expect((await book({ property_id: id, starts_at: '2026-03-23T10:00:00+01:00', lead_id: lead })).status).toBe(201);
    expect((await viewings()).map((v) => v.user_id)).toEqual([bea]);
    // Ana is free, but the listing is Bea's.
    expect(await slots(id, '2026-03-23')).not.toContain('2026-03-23T10:00:00+01:00');
    expect((await book({ property_id: id, starts_at: '2026-03-23T10:00:00+01:00', lead_id: lead })).status).toBe(409);
    // A listing whose agent was disabled is offered with everyone's time.
    await disableUser(t.db, bea, t.businessId);
    expect(await slots(id, '2026-03-23')).toContain('2026-03-23T10:00:00+01:00');
    expect(ana).toBeLessThan(bea);
  });

  it('offers nothing without agents, and answers 404 for a listing that is not published or not the business’s', async () => {
    now('2026-03-20T09:00:00Z');
    expect(await slots(await propertyId(t.db, 'v-1'), '2026-03-23')).toEqual([]);
    for (const property of [await propertyId(t.db, 'v-hidden'), 999_999]) {
      const r = await get(t.app, `/viewings/availability?property_id=${property}`, t.key);
      expect([r.status, r.body]).toEqual([404, { detail: 'Property not found' }]);
    }
  });

  it('refuses a date that does not exist, and days out of 1–31, Pydantic-shaped', async () => {
    const id = await propertyId(t.db, 'v-1');
    const bad = await get(t.app, `/viewings/availability?property_id=${id}&from=2026-02-30&days=0`, t.key);
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { type: string; loc: string[] }) => [d.type, d.loc.join('.')])).toEqual([
      ['date_parsing', 'query.from'],
      ['greater_than_equal', 'query.days'],
    ]);
  });
});

describe('booking', () => {
  it('books with a secret key as scheduled, from the API, and makes the lead as an inquiry does', async () => {
    now('2026-03-20T09:00:00Z');
    const ana = await agent();
    const id = await propertyId(t.db, 'v-1');
    const r = await book({ property_id: id, starts_at: '2026-03-23T10:00:00+01:00', lead: person({ notes: '¿Tiene ascensor?' }) });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ id: expect.any(Number), status: 'scheduled' });
    const [viewing] = await viewings();
    expect(viewing).toMatchObject({
      id: r.body.id,
      property_id: id,
      user_id: ana,
      starts_at: '2026-03-23T09:00:00.000+00:00',
      ends_at: '2026-03-23T09:30:00.000+00:00',
      status: 'scheduled',
      source: 'api',
      sequence: 0,
    });
    const lead = await t.db.selectFrom('leads').selectAll().where('id', '=', viewing.lead_id).executeTakeFirstOrThrow();
    expect(lead).toMatchObject({ name: 'Lucía Gómez', type: 'demandante', personal_email: 'lucia@example.com', captured_by: 'Web' });
    const notes = await t.db.selectFrom('lead_notes').select('text').where('lead_id', '=', lead.id).execute();
    expect(notes[0].text).toMatch(
      /^Visita pedida al inmueble v-1 \(«Piso v-1»\) para el 23\/03\/2026 a las 10:00\.\nMensaje: ¿Tiene ascensor\?$/,
    );
    expect(await t.db.selectFrom('lead_consents').select(['whatsapp', 'version']).where('lead_id', '=', lead.id).execute()).toEqual([
      { whatsapp: 1, version: 'v1' },
    ]);
    expect((await t.db.selectFrom('jobs').select('kind').where('lead_id', '=', lead.id).execute()).map((j) => j.kind).sort()).toEqual(
      expect.arrayContaining(['match_lead', 'schedule_follow_ups']),
    );
  });

  it('books for a lead by id, and for a known phone on that lead, which does not change', async () => {
    now('2026-03-20T09:00:00Z');
    await agent();
    const id = await propertyId(t.db, 'v-1');
    const known = await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34612000003', name: 'Pablo' });
    expect((await book({ property_id: id, starts_at: '2026-03-23T10:00:00+01:00', lead_id: known.id })).status).toBe(201);
    const leadRow = JSON.stringify(await t.db.selectFrom('leads').selectAll().where('id', '=', known.id).execute());
    const again = await book({ property_id: id, starts_at: '2026-03-23T11:00:00+01:00', lead: person({ phone_number_1: '612000003' }) });
    expect(again.status).toBe(201);
    expect((await viewings()).map((v) => v.lead_id)).toEqual([known.id, known.id]);
    expect(JSON.stringify(await t.db.selectFrom('leads').selectAll().where('id', '=', known.id).execute())).toBe(leadRow);
    expect(await t.db.selectFrom('lead_interactions').select('lead_id').execute()).toEqual([{ lead_id: known.id }]);
    const missing = await book({ property_id: id, starts_at: '2026-03-23T12:00:00+01:00', lead_id: 999_999 });
    expect([missing.status, missing.body]).toEqual([404, { detail: 'Lead not found' }]);
  });

  it('books only requests from a publishable key, answers the same for a known and a new person, and takes no lead_id', async () => {
    now('2026-03-20T09:00:00Z');
    await agent();
    const key = await publishable();
    const id = await propertyId(t.db, 'v-1');
    const known = await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34612000004', name: 'Pablo' });
    const headers = { origin: SITE };
    const offered = await slots(id, '2026-03-23', 1, key, headers);
    const forKnown = await book({ property_id: id, starts_at: offered[0], lead: person({ phone_number_1: '+34612000004' }) }, key, headers);
    const forNew = await book({ property_id: id, starts_at: offered[1], lead: person() }, key, headers);
    expect([forKnown.status, forNew.status]).toEqual([201, 201]);
    expect([forKnown.body.status, forNew.body.status]).toEqual(['requested', 'requested']);
    expect(Object.keys(forKnown.body)).toEqual(Object.keys(forNew.body));
    expect(forKnown.headers['inmo-lead-outcome']).toBeUndefined();
    expect(forKnown.headers['access-control-allow-origin']).toBe(SITE);
    expect((await viewings()).map((v) => [v.status, v.source])).toEqual([
      ['requested', 'website'],
      ['requested', 'website'],
    ]);
    // A requested viewing holds the time too.
    expect(await slots(id, '2026-03-23', 1, key, headers)).not.toContain(offered[0]);
    const before = await snapshot(t.db);
    const byId = await book({ property_id: id, starts_at: offered[2], lead_id: known.id }, key, headers);
    expect(byId.status).toBe(422);
    expect(byId.body.detail[0]).toMatchObject({ type: 'value_error', loc: ['body', 'lead_id'] });
    expect(await snapshot(t.db)).toBe(before);
  });

  it('refuses a taken slot with 409 and stores nothing, not even the new lead', async () => {
    now('2026-03-20T09:00:00Z');
    await agent();
    const id = await propertyId(t.db, 'v-1');
    expect((await book({ property_id: id, starts_at: '2026-03-23T10:00:00+01:00', lead: person() })).status).toBe(201);
    const before = await snapshot(t.db);
    const r = await book({ property_id: id, starts_at: '2026-03-23T10:00:00+01:00', lead: person() });
    expect([r.status, r.body]).toEqual([
      409,
      { detail: 'This time is no longer free for a viewing of this listing: ask for the availability again and choose another slot' },
    ]);
    // Off the slot grid is refused whatever the agenda holds (issue 55): 10:15 would take two slots.
    for (const starts_at of ['2026-03-23T10:15:00+01:00', '2026-03-23T10:29:00+01:00']) {
      expect((await book({ property_id: id, starts_at, lead: person() })).status, starts_at).toBe(422);
    }
    // The viewing after the first one may start when it ends.
    expect(await snapshot(t.db)).toBe(before);
    expect((await book({ property_id: id, starts_at: '2026-03-23T10:30:00+01:00', lead: person() })).status).toBe(201);
  });

  it('refuses what is wrong with the request with a 4xx and changes nothing', async () => {
    now('2026-03-20T09:00:00Z');
    await agent();
    const id = await propertyId(t.db, 'v-1');
    const lead = (await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34612000005' })).id;
    const before = await snapshot(t.db);
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ property_id: await propertyId(t.db, 'v-hidden'), starts_at: '2026-03-23T10:00:00+01:00', lead_id: lead }, 404],
      [{ property_id: 999_999, starts_at: '2026-03-23T10:00:00+01:00', lead: person() }, 404],
      [{ property_id: id, starts_at: '2026-03-23T10:00:00', lead_id: lead }, 422],
      [{ property_id: id, starts_at: 'lunes a las diez', lead_id: lead }, 422],
      [{ property_id: id, starts_at: '2026-03-22T10:00:00+01:00', lead_id: lead }, 422], // a Sunday
      [{ property_id: id, starts_at: '2026-03-23T13:45:00+01:00', lead_id: lead }, 422], // ends after 14:00
      [{ property_id: id, starts_at: '2026-03-23T10:00:00+01:00' }, 422],
      [{ property_id: id, starts_at: '2026-03-23T10:00:00+01:00', lead_id: lead, lead: person() }, 422],
      [{ property_id: id, starts_at: '2026-03-23T10:00:00+01:00', lead: person({ phone_number_1: '123' }) }, 422],
      [{ property_id: id, starts_at: '2026-03-23T10:00:00+01:00', lead: person({ name: ' ' }) }, 422],
    ];
    for (const [body, status] of cases) {
      const r = await book(body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(await snapshot(t.db), JSON.stringify(body)).toBe(before);
    }
    const missing = await book({ property_id: id, starts_at: '2026-03-23T10:00:00+01:00' });
    expect(missing.body.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body'],
        msg: 'Value error, give the lead as lead_id or lead',
        input: { property_id: id, starts_at: '2026-03-23T10:00:00+01:00' },
        ctx: { error: {} },
      },
    ]);
  });

  it('honours Idempotency-Key: the first answer again, one viewing and one lead; another body is 422', async () => {
    now('2026-03-20T09:00:00Z');
    await agent();
    const id = await propertyId(t.db, 'v-1');
    const body = { property_id: id, starts_at: '2026-03-23T10:00:00+01:00', lead: person() };
    const first = await book(body, t.key, { 'idempotency-key': 'visit-1' });
    const again = await book(body, t.key, { 'idempotency-key': 'visit-1' });
    expect(first.status).toBe(201);
    expect([again.status, again.body, again.headers['idempotent-replayed']]).toEqual([201, first.body, 'true']);
    expect(await viewings()).toHaveLength(1);
    expect(await t.db.selectFrom('leads').select('id').execute()).toHaveLength(1);
    const other = await book({ ...body, starts_at: '2026-03-23T11:00:00+01:00' }, t.key, { 'idempotency-key': 'visit-1' });
    expect([other.status, other.body]).toEqual([422, { detail: 'Idempotency-Key reused with a different request body' }]);
    // A refused first request leaves its key free: the same key may then book.
    const taken = await book({ ...body, lead: person() }, t.key, { 'idempotency-key': 'visit-2' });
    expect(taken.status).toBe(409);
    const retried = await book({ ...body, starts_at: '2026-03-23T12:00:00+01:00' }, t.key, { 'idempotency-key': 'visit-2' });
    expect(retried.status).toBe(201);
  });

  it('gives one 201 and 409s to bookings of one slot sent at once through two servers on one database', async () => {
    now('2026-03-20T09:00:00Z');
    await agent();
    const id = await propertyId(t.db, 'v-1');
    const otherDb = createDb(t.url);
    const other = await buildApp({ db: otherDb });
    try {
      const body = (n: number) =>
        JSON.stringify({ property_id: id, starts_at: '2026-03-23T10:00:00+01:00', lead: person({ name: `P${n}` }) });
      const send = (app: typeof other, n: number) =>
        app.inject({
          method: 'POST',
          url: '/v1/ext/viewings',
          headers: { 'content-type': 'application/json', 'x-api-key': t.key },
          payload: body(n),
        });
      const answers = await Promise.all(Array.from({ length: 8 }, (_, n) => send(n % 2 ? other : t.app, n)));
      expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      expect(await viewings()).toHaveLength(1);
      // Nothing of the refused ones stayed: one lead, the winner's.
      expect(await t.db.selectFrom('leads').select('id').execute()).toHaveLength(1);
    } finally {
      await other.close();
      await otherDb.destroy();
    }
  });
});

describe('the list of viewings and their events', () => {
  it('lists by lead, listing and days in the business’s time zone, by start time', async () => {
    now('2026-03-20T09:00:00Z');
    await agent();
    await agent();
    const [a, b] = [await propertyId(t.db, 'v-1'), await propertyId(t.db, 'v-2')];
    const lead = (await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34612000006' })).id;
    for (const [property, starts_at] of [
      [b, '2026-03-24T19:30:00+01:00'],
      [a, '2026-03-23T10:00:00+01:00'],
      [a, '2026-03-24T10:00:00+01:00'],
    ] as const)
      expect((await book({ property_id: property, starts_at, lead_id: lead })).status).toBe(201);
    await book({ property_id: a, starts_at: '2026-03-25T10:00:00+01:00', lead: person() });
    const all = await get(t.app, '/viewings', t.key);
    expect([all.body.total, all.body.data.map((v: { starts_at: string }) => v.starts_at)]).toEqual([
      4,
      ['2026-03-23T10:00:00+01:00', '2026-03-24T10:00:00+01:00', '2026-03-24T19:30:00+01:00', '2026-03-25T10:00:00+01:00'],
    ]);
    expect(all.body.data[0]).toEqual({
      id: expect.any(Number),
      lead_id: lead,
      property_id: a,
      user_id: expect.any(Number),
      kind: 'visit',
      starts_at: '2026-03-23T10:00:00+01:00',
      ends_at: '2026-03-23T10:30:00+01:00',
      status: 'scheduled',
      source: 'api',
      feedback: null,
      created_at: '2026-03-20T09:00:00.000+00:00',
      updated_at: '2026-03-20T09:00:00.000+00:00',
    });
    const filtered = await get(t.app, `/viewings?lead_id=${lead}&property_id=${a}&from=2026-03-24&to=2026-03-24`, t.key);
    expect(filtered.body.data.map((v: { starts_at: string }) => v.starts_at)).toEqual(['2026-03-24T10:00:00+01:00']);
    const page = await get(t.app, '/viewings?limit=1&offset=1', t.key);
    expect([page.body.total, page.body.data.length, page.body.limit, page.body.offset]).toEqual([4, 1, 1, 1]);
  });

  it('records viewing.scheduled when booked and viewing.updated on each change, with the viewing', async () => {
    now('2026-03-20T09:00:00Z');
    await agent();
    const id = await propertyId(t.db, 'v-1');
    const key = await publishable();
    const booked = await book({ property_id: id, starts_at: '2026-03-23T10:00:00+01:00', lead: person() }, key, { origin: SITE });
    now('2026-03-20T10:00:00Z');
    await changeViewing(t.db, t.businessId, booked.body.id, { action: 'confirm' });
    const events = (await get(t.app, '/events', t.key)).body.data as Array<{ type: string; data: { viewing?: { status: string } } }>;
    const ofViewings = events.filter((e) => e.type.startsWith('viewing.'));
    expect(ofViewings.map((e) => [e.type, e.data.viewing!.status])).toEqual([
      ['viewing.scheduled', 'requested'],
      ['viewing.updated', 'scheduled'],
    ]);
    expect(ofViewings[1].data.viewing).toMatchObject({ id: booked.body.id, starts_at: '2026-03-23T10:00:00+01:00', source: 'website' });
    expect(events.map((e) => e.type)).toContain('lead.created');
  });
});

describe('CLI', () => {
  it('`inmo business create --timezone` keeps a valid IANA zone and refuses another', async () => {
    const env = { DATABASE_URL: t.url };
    const made = await inmo(env, 'business', 'create', '--name', 'Agencia Canarias', '--timezone', 'atlantic/canary', '--json');
    expect(made.json).toEqual({ id: expect.any(Number), name: 'Agencia Canarias', timezone: 'Atlantic/Canary' });
    const plain = await inmo(env, 'business', 'create', '--name', 'Agencia Madrid', '--json');
    expect((plain.json as { timezone: string }).timezone).toBe('Europe/Madrid');
    const before = await snapshot(t.db);
    const bad = await inmo(env, 'business', 'create', '--name', 'X', '--timezone', 'Madrid/Centro', '--json');
    expect(bad.code).not.toBe(0);
    expect(bad.json).toEqual({ error: '--timezone must be a name of the IANA time zone database, such as Europe/Madrid' });
    expect(await snapshot(t.db)).toBe(before);
  });
});

describe('changes to a viewing', () => {
  const booked = async (starts_at = '2026-03-23T10:00:00+01:00', key = t.key, headers: Record<string, string> = {}) => {
    const r = await book({ property_id: await propertyId(t.db, 'v-1'), starts_at, lead: person() }, key, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.id as number;
  };
  const stored = async (id: number) => t.db.selectFrom('viewings').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('confirms a request (scheduled), then the lead’s confirmation (confirmed), raising the sequence each time', async () => {
    now('2026-03-20T09:00:00Z');
    await agent();
    const id = await booked('2026-03-23T10:00:00+01:00', await publishable(), { origin: SITE });
    now('2026-03-20T10:00:00Z');
    expect((await changeViewing(t.db, t.businessId, id, { action: 'confirm' })).status).toBe('scheduled');
    const confirmed = await changeViewing(t.db, t.businessId, id, { action: 'confirm' });
    expect(confirmed).toMatchObject({ status: 'confirmed', updated_at: '2026-03-20T10:00:00.000+00:00' });
    expect((await stored(id)).sequence).toBe(2);
    await expect(changeViewing(t.db, t.businessId, id, { action: 'confirm' })).rejects.toMatchObject({
      code: 'VIEWING_ACTION_REFUSED',
      message: 'A viewing that is confirmed cannot take the action confirm',
    });
    await expect(changeViewing(t.db, t.businessId + 1, id, { action: 'cancel' })).rejects.toMatchObject({ code: 'VIEWING_NOT_FOUND' });
  });

  it('moves a viewing to a free time of its agent, back to scheduled; a taken or closed time changes nothing', async () => {
    now('2026-03-20T09:00:00Z');
    await agent();
    const id = await booked('2026-03-23T10:00:00+01:00');
    await booked('2026-03-23T11:00:00+01:00');
    await changeViewing(t.db, t.businessId, id, { action: 'confirm' });
    const before = await snapshot(t.db);
    const to = (iso: string) => ({ action: 'reschedule' as const, startsAt: Date.parse(iso) });
    await expect(changeViewing(t.db, t.businessId, id, to('2026-03-23T10:45:00+01:00'))).rejects.toMatchObject({
      code: 'VIEWING_SLOT_TAKEN',
    });
    await expect(changeViewing(t.db, t.businessId, id, to('2026-03-23T14:00:00+01:00'))).rejects.toMatchObject({ status: 422 });
    expect(await snapshot(t.db)).toBe(before);
    // Overlapping its own old time is no conflict.
    const moved = await changeViewing(t.db, t.businessId, id, to('2026-03-23T10:15:00+01:00'));
    expect(moved).toMatchObject({ status: 'scheduled', starts_at: '2026-03-23T10:15:00+01:00', ends_at: '2026-03-23T10:45:00+01:00' });
    const morning = (await slots(await propertyId(t.db, 'v-1'), '2026-03-23')).filter((s) => s < '2026-03-23T12:30');
    expect(morning).toEqual(['2026-03-23T11:30:00+01:00', '2026-03-23T12:00:00+01:00']);
  });

  it('records feedback on a done viewing only, interest 1–5', async () => {
    now('2026-03-20T09:00:00Z');
    await agent();
    const id = await booked();
    await expect(changeViewing(t.db, t.businessId, id, { action: 'feedback', interest: 4, comment: 'Le gustó' })).rejects.toMatchObject({
      code: 'VIEWING_ACTION_REFUSED',
    });
    now('2026-03-23T10:00:00Z');
    expect((await changeViewing(t.db, t.businessId, id, { action: 'done' })).status).toBe('done');
    await expect(changeViewing(t.db, t.businessId, id, { action: 'feedback', interest: 6 })).rejects.toMatchObject({
      code: 'VIEWING_FEEDBACK_INTEREST',
    });
    const noted = await changeViewing(t.db, t.businessId, id, { action: 'feedback', interest: 4, comment: '  Le gustó la terraza ' });
    expect(noted.feedback).toEqual({ interest: 4, comment: 'Le gustó la terraza' });
    const listed = await get(t.app, '/viewings', t.key);
    expect(listed.body.data[0]).toMatchObject({ status: 'done', feedback: { interest: 4, comment: 'Le gustó la terraza' } });
  });
});

describe('personal data (CONTRACT §18)', () => {
  it('exports a lead’s viewings and erases them, their events and Idempotency-Key records with the lead', async () => {
    now('2026-03-20T09:00:00Z');
    await agent();
    const r = await book({ property_id: await propertyId(t.db, 'v-1'), starts_at: '2026-03-23T10:00:00+01:00', lead: person() }, t.key, {
      'idempotency-key': 'visit-erased',
    });
    const { lead_id: leadId } = (await viewings())[0];
    const exported = await get(t.app, `/leads/${leadId}/export`, t.key);
    expect(exported.body.viewings).toEqual([
      expect.objectContaining({ id: r.body.id, starts_at: '2026-03-23T10:00:00+01:00', status: 'scheduled', sequence: 0 }),
    ]);
    expect(await t.db.selectFrom('idempotency_keys').select('lead_id').execute()).toEqual([{ lead_id: leadId }]);
    const erased = await t.app.inject({ method: 'DELETE', url: `/v1/ext/leads/${leadId}`, headers: { 'x-api-key': t.key } });
    expect(erased.statusCode).toBe(200);
    expect(await viewings()).toEqual([]);
    expect(await t.db.selectFrom('events').select('type').where('type', 'like', 'viewing.%').execute()).toEqual([]);
    expect(await t.db.selectFrom('idempotency_keys').selectAll().execute()).toEqual([]);
    expect((await get(t.app, '/viewings', t.key)).body.total).toBe(0);
  });
});
