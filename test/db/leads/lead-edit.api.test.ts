/**
 * PATCH /v1/ext/leads/{lead_id} (issue 57 item 2, CONTRACT §25): the inquiry's contact fields and
 * searches, checked as the inquiry checks them (spec §4.2; CONTRACT §2, §6), phones in E.164;
 * 200 `{"data": lead}`; the history names the fields changed and no value; `lead.updated`; the
 * lead matched again when its searches changed. Every refusal (422, 409, 404, 401) changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { Worker } from '../../../src/jobs/worker.ts';
import { createApiKey } from '../../../src/services/access/api-keys.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { businessWithKey, importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';
import { expectDocumented } from '../../helpers/openapi.ts';

const t = withApp({ each: true });

async function patch(url: string, body: unknown, key = t.key) {
  const response = await t.app.inject({
    method: 'PATCH',
    url: `/v1/ext${url}`,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.statusCode, body: response.json() };
}

/** A lead of the test's business made as the console makes one, with no search. */
const newLead = async (phone = '+34612000001', name = 'Ana Pérez') =>
  (await createLeadByHand(t.db, { businessId: t.businessId, phone, name })).id;
const historyOf = (leadId: number) => t.db.selectFrom('lead_history').selectAll().where('lead_id', '=', leadId).orderBy('id').execute();
const eventsOf = async (leadId: number, type: string) =>
  (await t.db.selectFrom('events').selectAll().where('lead_id', '=', leadId).where('type', '=', type).orderBy('id').execute()).map(
    (e) => JSON.parse(e.data) as { lead: Record<string, unknown> },
  );
const jobsOf = async (leadId: number) =>
  (await t.db.selectFrom('jobs').select('kind').where('lead_id', '=', leadId).orderBy('id').execute()).map((j) => j.kind);

describe('PATCH /leads/{lead_id}', () => {
  it('changes the contact fields sent, phones in E.164, and answers the lead as GET shows it', async () => {
    const id = await newLead();
    const before = (await get(t.app, `/leads/${id}`, t.key)).body;
    const { status, body } = await patch(`/leads/${id}`, {
      name: '  Ana Pérez López ',
      phone_number_1: '612 000 009',
      phone_number_2: '+44 20 7946 0958',
      personal_email: 'ana@example.com',
      professional_email: 'ana@empresa.example',
      preferred_language: 'gb',
      type: 'propietario',
    });
    expect(status).toBe(200);
    await expectDocumented(t.app, 'patch', '/leads/{lead_id}', 200, body);
    expect(body.data).toMatchObject({
      id,
      name: 'Ana Pérez López',
      phone_number_1: '+34612000009',
      phone_number_2: '+442079460958',
      personal_email: 'ana@example.com',
      professional_email: 'ana@empresa.example',
      preferred_language: 'gb',
      // Not an editable field: ignored, as the inquiry ignores unknown fields.
      type: 'demandante',
    });
    expect(body.data.updated_at > before.updated_at).toBe(true);
    expect((await get(t.app, `/leads/${id}`, t.key)).body).toEqual(body.data);
  });

  it('writes a history line naming the fields changed, never their values, and the event lead.updated', async () => {
    const id = await newLead();
    await patch(`/leads/${id}`, { name: 'Ana María', personal_email: 'secreto@example.com' });
    const history = await historyOf(id);
    expect(history.map((h) => [h.change, JSON.parse(h.detail), h.user_id])).toEqual([
      ['edit', { fields: ['name', 'personal_email'], via: 'api' }, null],
    ]);
    expect(JSON.stringify(history)).not.toMatch(/Ana María|secreto/);
    const events = await eventsOf(id, 'lead.updated');
    expect(events).toHaveLength(1);
    expect(events[0].lead).toMatchObject({ id, name: 'Ana María', personal_email: 'secreto@example.com' });
  });

  it('clears an optional field sent as null, and a body that changes nothing writes nothing', async () => {
    const id = await newLead();
    await patch(`/leads/${id}`, { phone_number_2: '612000555', personal_email: 'a@example.com' });
    const cleared = await patch(`/leads/${id}`, { phone_number_2: null, personal_email: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.phone_number_2).toBeUndefined();
    expect(cleared.body.data.personal_email).toBeUndefined();
    const before = await snapshot(t.db);
    for (const body of [{}, { name: 'Ana Pérez', phone_number_1: '+34 612 000 001', phone_number_2: null }]) {
      const same = await patch(`/leads/${id}`, body);
      expect(same.status).toBe(200);
      expect(await snapshot(t.db)).toBe(before);
    }
  });

  it('replaces the searches whole, matches the lead again, and a new lead with a search becomes searching_property', async () => {
    await importRecords(t.db, t.businessId, [
      listing('ZGZ-1', { operation: 'alquiler', type: 'apartamento', city: 'Zaragoza', price: null, price_rent: 800 }),
      listing('MAD-1', { operation: 'venta', type: 'casa', city: 'Madrid', price: 300000 }),
    ]);
    const id = await newLead();
    const drain = () => new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    const matched = async () => (await get(t.app, `/leads/${id}/matches`, t.key)).body.data.map((p: { id: number }) => p.id);
    const rent = {
      operations: ['alquiler'],
      property_types: ['apartamento'],
      apartamento: { price_rent_max: 900 },
      locations: [{ name: 'zaragoza' }],
    };
    const first = await patch(`/leads/${id}`, { search_preferences: [rent] });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ status: 'searching_property', search_preferences: [rent] });
    expect(await jobsOf(id)).toEqual(['match_lead']);
    await drain();
    expect(await matched()).toEqual([await propertyId(t.db, 'ZGZ-1')]);
    expect((await historyOf(id)).map((h) => [h.change, JSON.parse(h.detail)])).toEqual([
      ['edit', { fields: ['search_preferences'], via: 'api' }],
      ['status', { from: 'new', to: 'searching_property', reason: null }],
    ]);

    const buy = { operations: ['venta'], property_types: ['casa'], casa: { price_max: 350000 } };
    const second = await patch(`/leads/${id}`, { search_preferences: [buy] });
    expect(second.body.data.search_preferences).toEqual([buy]);
    await drain();
    expect(await matched()).toEqual([await propertyId(t.db, 'MAD-1')]);

    // The same searches again: no new job, nothing written.
    const before = await snapshot(t.db);
    await patch(`/leads/${id}`, { search_preferences: [buy] });
    expect(await snapshot(t.db)).toBe(before);

    const none = await patch(`/leads/${id}`, { search_preferences: [] });
    expect(none.body.data.search_preferences).toBeUndefined();
    await drain();
    expect(await matched()).toEqual([]);
  });

  it('refuses what the inquiry refuses with the same 422 items, all at once, and changes nothing', async () => {
    const id = await newLead();
    const before = await snapshot(t.db);
    const { status, body } = await patch(`/leads/${id}`, {
      name: '   ',
      preferred_language: 'en',
      personal_email: 42,
      search_preferences: [{ operations: ['comprar'], apartamento: { bedrooms_min: 'tres' } }],
    });
    expect(status).toBe(422);
    expect(body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc])).toEqual([
      ['string_too_short', ['body', 'name']],
      ['string_type', ['body', 'personal_email']],
      ['literal_error', ['body', 'preferred_language']],
      ['literal_error', ['body', 'search_preferences', 0, 'operations', 0]],
      ['int_parsing', ['body', 'search_preferences', 0, 'apartamento', 'bedrooms_min']],
    ]);
    expect(body.detail[2]).toEqual({
      type: 'literal_error',
      loc: ['body', 'preferred_language'],
      msg: "Input should be 'es', 'gb', 'fr', 'ge' or 'it'",
      input: 'en',
      ctx: { expected: "'es', 'gb', 'fr', 'ge' or 'it'" },
    });
    for (const bad of ['{"name":', '[]', { name: null }, { phone_number_1: null }]) {
      expect((await patch(`/leads/${id}`, bad)).status).toBe(422);
    }
    expect(await snapshot(t.db)).toBe(before);
  });

  it('refuses a phone that is not a valid number with the single-string 422, and changes nothing', async () => {
    const id = await newLead();
    const before = await snapshot(t.db);
    for (const body of [{ phone_number_1: '12' }, { name: 'Otra', phone_number_2: '+34 000' }]) {
      expect(await patch(`/leads/${id}`, body)).toEqual({
        status: 422,
        body: { detail: 'Invalid phone number. Use international format, e.g. +34612345678' },
      });
    }
    expect(await snapshot(t.db)).toBe(before);
  });

  it('refuses a primary phone another lead of the business holds with 409, and changes nothing', async () => {
    const id = await newLead('+34612000001');
    await newLead('+34612000002', 'Bea');
    // Another business's lead with the phone is no obstacle.
    const other = await businessWithKey(t.db, 'Otra');
    await createLeadByHand(t.db, { businessId: other.businessId, phone: '+34612000003' });
    const before = await snapshot(t.db);
    const taken = await patch(`/leads/${id}`, { name: 'Ana B.', phone_number_1: '612000002' });
    expect(taken).toEqual({ status: 409, body: { detail: 'Another lead of the business has this phone number' } });
    expect(await snapshot(t.db)).toBe(before);
    expect((await patch(`/leads/${id}`, { phone_number_1: '612000003' })).status).toBe(200);
  });

  it('answers another business’s lead as a missing one, 404, and changes nothing', async () => {
    const other = await businessWithKey(t.db, 'Otra');
    const theirs = (await createLeadByHand(t.db, { businessId: other.businessId, phone: '+34612000007' })).id;
    const before = await snapshot(t.db);
    const them = await patch(`/leads/${theirs}`, { name: 'Nadie' });
    const missing = await patch('/leads/999999', { name: 'Nadie' });
    expect(them).toEqual({ status: 404, body: { detail: 'Lead not found' } });
    expect(missing).toEqual(them);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('needs the scope leads:write, which a publishable key cannot have', async () => {
    const id = await newLead();
    const reader = await createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:read', 'leads:ingest'] });
    const before = await snapshot(t.db);
    expect(await patch(`/leads/${id}`, { name: 'Nadie' }, reader.key)).toEqual({
      status: 401,
      body: { detail: 'API key lacks the scope this operation requires: leads:write' },
    });
    expect(await snapshot(t.db)).toBe(before);
    await expect(
      createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:write'], origins: ['https://site.example'] }),
    ).rejects.toMatchObject({ code: 'KEY_PUBLISHABLE_SCOPE' });
  });
});
