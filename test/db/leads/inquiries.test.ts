/** POST /leads/inquiries (spec §4.2, §3.1; CONTRACT §6). */
import { beforeEach, describe, expect, it } from 'vitest';
import { createLeadByHand, leadInFull } from '../../../src/services/leads/leads.ts';
import { businessWithKey, clearLeads, INTERACTION_TABLES, snapshot } from '../../helpers/db.ts';
import { get, post, withApp, API_ONLY } from '../../helpers/http.ts';

let readOnlyKey: string;
const t = withApp({
  surfaces: API_ONLY,
  business: 'Inmobiliaria Sol',
  seed: async ({ db }) => {
    readOnlyKey = (await businessWithKey(db, 'Otra', ['leads:read'])).key;
  },
});
beforeEach(() => clearLeads(t.db));

const leadRow = async (id: number) => t.db.selectFrom('leads').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('POST /leads/inquiries', () => {
  it('creates an active lead, rating 3, captured by Web, with defaults, and answers ok with its id', async () => {
    const r = await post(t.app, '/leads/inquiries', t.key, { name: 'Ana García', type: 'Buyer', phone_number_1: '612 34 56 78' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok', authenticated_as: 'Inmobiliaria Sol', lead_id: expect.any(Number) });
    const row = await leadRow(r.body.lead_id);
    expect(row).toMatchObject({
      name: 'Ana García',
      type: 'demandante',
      status: 'new',
      active: 1,
      rating: 3,
      captured_by: 'Web',
      source: 'manual',
      profile_category: 'potencial',
      urgency_profile: 'poca-urgencia',
      phone_number_1: '+34612345678',
    });
  });

  it.each([
    ['tenant', 'demandante'],
    ['COMPRADOR', 'demandante'],
    ['Inquilino', 'demandante'],
    ['owner', 'propietario'],
    ['Propietario', 'propietario'],
    ['agencia-inmobiliaria', 'agencia-inmobiliaria'],
    ['Entidad-Bancaria', 'entidad-bancaria'],
    ['proveedor-servicios', 'proveedor-servicios'],
  ])('stores type %s as %s', async (type, stored) => {
    const r = await post(t.app, '/leads/inquiries', t.key, { name: 'X', type, phone_number_1: '+34 699 000 111' });
    expect(r.status).toBe(200);
    expect((await leadRow(r.body.lead_id)).type).toBe(stored);
  });

  it('refuses an unknown type with a value_error, together with every other fault, and stores nothing', async () => {
    const before = await snapshot(t.db);
    const r = await post(t.app, '/leads/inquiries', t.key, {
      name: ' ',
      type: 'investor',
      phone_number_1: 612345678,
      preferred_language: 'de',
    });
    expect(r.status).toBe(422);
    // in declared field order, as Pydantic reports: name, type, phone_number_1, …
    expect(r.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc])).toEqual([
      ['string_too_short', ['body', 'name']],
      ['value_error', ['body', 'type']],
      ['string_type', ['body', 'phone_number_1']],
      ['literal_error', ['body', 'preferred_language']],
    ]);
    expect(r.body.detail[1]).toMatchObject({ input: 'investor', msg: expect.stringMatching(/^Value error, /) });
    expect(await snapshot(t.db)).toBe(before);
  });

  it.each(['12345', '+34 123', '600', 'not a phone', '+1 555 0100'])(
    'answers the single-string 422 for the phone %s and stores nothing',
    async (phone) => {
      const before = await snapshot(t.db);
      const r = await post(t.app, '/leads/inquiries', t.key, { name: 'Ana', type: 'buyer', phone_number_1: phone });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ detail: 'Invalid phone number. Use international format, e.g. +34612345678' });
      expect(await snapshot(t.db)).toBe(before);
    },
  );

  it('normalises the second phone and the landline, and refuses an invalid one', async () => {
    const ok = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Ana',
      type: 'buyer',
      phone_number_1: '(+34) 976 12 34 56',
      phone_number_2: '0034612345678',
      landline_phone: '876 21 09 00',
    });
    expect(ok.status).toBe(200);
    expect(await leadRow(ok.body.lead_id)).toMatchObject({
      phone_number_1: '+34976123456',
      phone_number_2: '+34612345678',
      landline_phone: '+34876210900',
    });
    const bad = await post(t.app, '/leads/inquiries', t.key, {
      name: 'B',
      type: 'buyer',
      phone_number_1: '+34611111111',
      landline_phone: '12',
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toMatch(/^Invalid phone number/);
  });

  it('validates and ignores rating, active, captured_by, agency_id, agency_client_ids and time_to_create, and never lets a body set id, status or business', async () => {
    const r = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Ana',
      type: 'buyer',
      phone_number_1: '+34 612 000 001',
      rating: 5,
      active: false,
      captured_by: 'Partner',
      agency_id: 7,
      agency_client_ids: [1, 2],
      time_to_create: 30,
      id: 999,
      status: 'closed',
      business_id: 2,
    });
    expect(r.status).toBe(200);
    expect(r.body.lead_id).not.toBe(999);
    expect(await leadRow(r.body.lead_id)).toMatchObject({
      rating: 3,
      active: 1,
      captured_by: 'Web',
      status: 'new',
      business_id: t.businessId,
    });
    const bad = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Ana',
      type: 'buyer',
      phone_number_1: '+34612000002',
      agency_id: 0,
      rating: 'x',
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'rating'],
      ['body', 'agency_id'],
    ]);
  });

  it('keeps agency_property_ids and services only for the lead types that own them', async () => {
    const extras = { agency_property_ids: [1, 2], services: [{ name: 'hipoteca' }] };
    const agency = await post(t.app, '/leads/inquiries', t.key, {
      name: 'A',
      type: 'agencia-inmobiliaria',
      phone_number_1: '+34612000010',
      ...extras,
    });
    expect(await leadRow(agency.body.lead_id)).toMatchObject({ agency_property_ids: '[1,2]', services: null });
    const bank = await post(t.app, '/leads/inquiries', t.key, {
      name: 'B',
      type: 'entidad-bancaria',
      phone_number_1: '+34612000011',
      ...extras,
    });
    expect(await leadRow(bank.body.lead_id)).toMatchObject({ agency_property_ids: null, services: '[{"name":"hipoteca"}]' });
    const buyer = await post(t.app, '/leads/inquiries', t.key, { name: 'C', type: 'buyer', phone_number_1: '+34612000012', ...extras });
    expect(await leadRow(buyer.body.lead_id)).toMatchObject({ agency_property_ids: null, services: null });
  });

  it('is searching_property when any search has content, new when none has', async () => {
    const searching = await post(t.app, '/leads/inquiries', t.key, {
      name: 'A',
      type: 'buyer',
      phone_number_1: '+34612000020',
      search_preferences: [{ internal_notes: 'solo notas' }, { operations: ['venta'] }],
    });
    expect((await leadRow(searching.body.lead_id)).status).toBe('searching_property');
    const empty = await post(t.app, '/leads/inquiries', t.key, {
      name: 'B',
      type: 'buyer',
      phone_number_1: '+34612000021',
      search_preferences: [{ operations: [], locations: [], apartamento: { bedrooms_min: null } }, { internal_notes: 'hola' }],
    });
    expect((await leadRow(empty.body.lead_id)).status).toBe('new');
  });

  it('writes the generated notes: operations, types, locations, origin page, and the internal notes as the message', async () => {
    const r = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Ana',
      type: 'buyer',
      phone_number_1: '+34612000030',
      sourcePage: 'https://inmo.example/piso-sol',
      notes: 'mensaje del formulario',
      search_preferences: [
        {
          operations: ['venta', 'alquiler'],
          property_types: ['apartamento'],
          locations: [{ name: 'Madrid' }, { type: 'circle', center: { lat: 40.4, lng: -3.7 }, radius: 1500 }],
          internal_notes: 'cliente VIP',
          apartamento: { bedrooms_min: 2, price_max: 300000 },
        },
      ],
    });
    const full = await leadInFull(t.db, r.body.lead_id);
    expect(full!.notes).toHaveLength(1);
    const text = full!.notes[0].text;
    expect(text).toContain('Operaciones: venta, alquiler');
    expect(text).toContain('Tipos de inmueble: apartamento');
    expect(text).toContain('Ubicaciones: Madrid; zona en el mapa (circle de 1500 m)');
    expect(text).toContain('Página de origen: https://inmo.example/piso-sol');
    expect(text).toContain('Mensaje: cliente VIP');
    expect(text).not.toContain('mensaje del formulario');
    const plain = await post(t.app, '/leads/inquiries', t.key, {
      name: 'B',
      type: 'buyer',
      phone_number_1: '+34612000031',
      notes: 'quiero visitar',
    });
    expect((await leadInFull(t.db, plain.body.lead_id))!.notes[0].text).toContain('Mensaje: quiero visitar');
  });

  it('never shows internal_notes in GET /leads, but keeps every search entry', async () => {
    await post(t.app, '/leads/inquiries', t.key, {
      name: 'Ana',
      type: 'buyer',
      phone_number_1: '+34612000040',
      search_preferences: [{ operations: ['venta'], internal_notes: 'secreto' }, { operations: ['alquiler'] }],
    });
    const list = await get(t.app, '/leads', t.key);
    expect(JSON.stringify(list.body)).not.toContain('secreto');
    expect(list.body.data[0].search_preferences).toEqual([{ operations: ['venta'] }, { operations: ['alquiler'] }]);
  });

  it('completes an unnamed lead with the same phone: same id and created_at, new fields, notes appended, 200', async () => {
    const unnamed = await createLeadByHand(t.db, { businessId: t.businessId, phone: '612 00 00 50' });
    const r = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Ana',
      type: 'owner',
      phone_number_1: '+34 612-000-050',
      personal_email: 'ana@example.com',
      search_preferences: [{ operations: ['venta'] }],
    });
    expect(r.status).toBe(200);
    expect(r.body.lead_id).toBe(unnamed.id);
    const row = await leadRow(unnamed.id);
    expect(row).toMatchObject({
      name: 'Ana',
      type: 'propietario',
      personal_email: 'ana@example.com',
      status: 'searching_property',
      created_at: unnamed.created_at,
      // Searched by the name and address it now has (migration 0031).
      search_text: 'ana ana@example.com',
    });
    expect(row.updated_at >= unnamed.updated_at).toBe(true);
    expect((await leadInFull(t.db, unnamed.id))!.notes).toHaveLength(1);
    expect(await t.db.selectFrom('leads').select('id').execute()).toHaveLength(1);
  });

  it('answers 409 for a named lead with the same phone, changing nothing but keeping the request as an interaction', async () => {
    await post(t.app, '/leads/inquiries', t.key, { name: 'Ana', type: 'buyer', phone_number_1: '+34612000060' });
    const before = await snapshot(t.db, INTERACTION_TABLES);
    const eventsBefore = (await t.db.selectFrom('events').select('id').execute()).length;
    const consentsBefore = (await t.db.selectFrom('lead_consents').select('id').execute()).length;
    const interactionsBefore = (await t.db.selectFrom('lead_interactions').select('id').execute()).length;
    const r = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Otra',
      type: 'owner',
      phone_number_1: '0034 612 000 060',
      source: 'fotocasa',
      sourcePage: 'https://agencia.example/piso/7',
      notes: 'También me interesa este.',
    });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ detail: 'A lead with this phone number already exists' });
    expect(await snapshot(t.db, INTERACTION_TABLES)).toBe(before);
    // What it wrote: one interaction and one event saying so, no consent (it carried none).
    const events = await t.db.selectFrom('events').select('type').orderBy('id').execute();
    expect(events.map((e) => e.type).slice(eventsBefore)).toEqual(['lead.contacted_again']);
    expect((await t.db.selectFrom('lead_consents').select('id').execute()).length).toBe(consentsBefore);
    const [kept, ...others] = await t.db.selectFrom('lead_interactions').selectAll().orderBy('id', 'desc').execute();
    expect(others.length).toBe(interactionsBefore);
    expect(kept).toMatchObject({ channel: 'inquiry', source: 'fotocasa' });
    expect(kept.note).toContain('También me interesa este.');
    expect(kept.note).toContain('https://agencia.example/piso/7');
  });

  it('records the background jobs in the same transaction as the lead', async () => {
    const r = await post(t.app, '/leads/inquiries', t.key, { name: 'Ana', type: 'buyer', phone_number_1: '+34612000070' });
    const jobs = await t.db.selectFrom('jobs').select(['kind', 'state', 'lead_id']).orderBy('id').execute();
    expect(jobs).toEqual(
      ['match_lead', 'send_welcome', 'schedule_follow_ups'].map((kind) => ({ kind, state: 'pending', lead_id: r.body.lead_id })),
    );
  });

  it('fifty concurrent inquiries with one phone written five ways create one lead; the others get 409', async () => {
    const forms = ['612 34 56 99', '+34 612-345-699', '0034612345699', '(+34) 612 34 56 99', '+34612345699'];
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        post(t.app, '/leads/inquiries', t.key, { name: `N${i}`, type: 'buyer', phone_number_1: forms[i % 5] }),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    expect(await t.db.selectFrom('leads').select('id').where('phone_number_1', '=', '+34612345699').execute()).toHaveLength(1);
    expect(await t.db.selectFrom('jobs').select('id').execute()).toHaveLength(3);
  });

  it('fifty concurrent inquiries for an unnamed lead: the first completes it, the rest get 409', async () => {
    const unnamed = await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34612345698' });
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        post(t.app, '/leads/inquiries', t.key, { name: `N${i}`, type: 'buyer', phone_number_1: '612 345 698' }),
      ),
    );
    const ok = responses.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    expect(ok[0].body.lead_id).toBe(unnamed.id);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(49);
  });

  it.each([
    ['no body', undefined, { type: 'missing', loc: ['body'], msg: 'Field required', input: null }],
    ['invalid JSON', '{"name": ', { type: 'json_invalid', loc: ['body', 9], msg: 'JSON decode error', input: {} }],
    ['a bad literal', '{"a": tru}', { type: 'json_invalid', loc: ['body', 6], msg: 'JSON decode error', input: {} }],
    ['a JSON null', 'null', { type: 'missing', loc: ['body'], msg: 'Field required', input: null }],
    ['a JSON array', '[1]', { type: 'model_attributes_type', loc: ['body'], input: [1] }],
    ['a JSON string', '"hola"', { type: 'model_attributes_type', loc: ['body'], input: 'hola' }],
  ])('answers %s with a Pydantic-shaped 422', async (_name, payload, item) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/ext/leads/inquiries',
      headers: { 'x-api-key': t.key, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload }),
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual([expect.objectContaining(item)]);
  });

  it('reports wrong types in nested search criteria at their path', async () => {
    const r = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Ana',
      type: 'buyer',
      phone_number_1: '+34612000080',
      search_preferences: [{ operations: ['venta', 'compra'], apartamento: { bedrooms_min: 'dos', views: 'mar' }, locations: 'Madrid' }],
    });
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { loc: unknown[]; type: string }) => [d.type, d.loc])).toEqual([
      ['literal_error', ['body', 'search_preferences', 0, 'operations', 1]],
      // schema order, as Pydantic reports: views is declared before bedrooms_min
      ['list_type', ['body', 'search_preferences', 0, 'apartamento', 'views']],
      ['int_parsing', ['body', 'search_preferences', 0, 'apartamento', 'bedrooms_min']],
      ['list_type', ['body', 'search_preferences', 0, 'locations']],
    ]);
  });

  it.each(['constructor', '__proto__', 'toString'])('refuses the type %s like any unknown type', async (type) => {
    const r = await post(t.app, '/leads/inquiries', t.key, { name: 'A', type, phone_number_1: '+34612000090' });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ type: 'value_error', loc: ['body', 'type'], input: type })]);
  });

  it('ignores unknown keys of a search entry: not stored, not content', async () => {
    const r = await post(t.app, '/leads/inquiries', t.key, {
      name: 'A',
      type: 'buyer',
      phone_number_1: '+34612000091',
      search_preferences: [{ utm_campaign: 'spring', comments: 'x', apartamento: { color: 'azul' } }],
    });
    const row = await leadRow(r.body.lead_id);
    expect(row.status).toBe('new');
    expect(JSON.parse(row.search_preferences!)).toEqual([{ apartamento: {} }]);
  });

  it('queues the welcome message once per lead, also when an inquiry completes an unnamed ingest lead', async () => {
    await post(t.app, '/leads/ingest', t.key, {
      id: 'x',
      createdAt: '2026-11-20T10:00:00Z',
      source: 'landing',
      sourcePage: 'https://x.example',
      contact: { name: '', phone: '+34612000092' },
      search: {},
    });
    const completed = await post(t.app, '/leads/inquiries', t.key, { name: 'Ana', type: 'buyer', phone_number_1: '+34612000092' });
    expect(completed.status).toBe(200);
    const kinds = (await t.db.selectFrom('jobs').select('kind').where('lead_id', '=', completed.body.lead_id).execute()).map((j) => j.kind);
    expect(kinds.filter((k) => k === 'send_welcome')).toHaveLength(1);
    expect(kinds).toContain('schedule_follow_ups');
  });

  it('applies the limits of CONTRACT §8: name 200, strings 10,000, 20 searches, 50 locations', async () => {
    const before = await snapshot(t.db);
    const r = await post(t.app, '/leads/inquiries', t.key, {
      name: 'n'.repeat(201),
      type: 'buyer',
      phone_number_1: '+34612000099',
      notes: 'x'.repeat(10_001),
      search_preferences: [
        { locations: Array.from({ length: 51 }, () => ({ name: 'Madrid' })) },
        ...Array.from({ length: 20 }, () => ({ operations: ['venta'] })),
      ],
    });
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { type: string; loc: unknown[]; ctx?: unknown }) => [d.type, d.loc, d.ctx])).toEqual([
      ['string_too_long', ['body', 'name'], { max_length: 200 }],
      ['string_too_long', ['body', 'notes'], { max_length: 10_000 }],
      ['too_long', ['body', 'search_preferences'], { field_type: 'List', max_length: 20, actual_length: 21 }],
    ]);
    const fifty = await post(t.app, '/leads/inquiries', t.key, {
      name: 'n'.repeat(200),
      type: 'buyer',
      phone_number_1: '+34612000099',
      search_preferences: [{ locations: Array.from({ length: 51 }, () => ({ name: 'Madrid' })) }],
    });
    expect(fifty.body.detail).toEqual([
      expect.objectContaining({
        type: 'too_long',
        loc: ['body', 'search_preferences', 0, 'locations'],
        ctx: expect.objectContaining({ max_length: 50 }),
      }),
    ]);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('needs the leads:ingest scope, and authenticates before validating', async () => {
    const r = await post(t.app, '/leads/inquiries', readOnlyKey, '{broken');
    expect(r.status).toBe(401);
  });
});
