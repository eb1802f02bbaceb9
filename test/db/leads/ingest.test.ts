/** POST /leads/ingest (spec §4.3; CONTRACT §6). */
import { beforeEach, describe, expect, it } from 'vitest';
import { leadInFull } from '../../../src/services/leads/leads.ts';
import { clearLeads, INTERACTION_TABLES, snapshot } from '../../helpers/db.ts';
import { get, post, withApp, API_ONLY } from '../../helpers/http.ts';

const t = withApp({ surfaces: API_ONLY, business: 'Alquileres Ebro' });

beforeEach(() => clearLeads(t.db));

function payload(contact: Record<string, unknown> = {}, search: Record<string, unknown> = {}) {
  return {
    id: 'sub-1',
    createdAt: '2026-11-20T10:00:00Z',
    source: 'landing-alquiler',
    sourcePage: 'https://alquileres.example/zaragoza',
    contact: { name: 'Luis Pérez', phone: '+34 612 34 56 78', ...contact },
    search: {
      budget: '700 - 900',
      entryDate: '2026-12-01',
      exitDate: null,
      people: '2',
      area: 'Delicias',
      habs: '2+',
      pets: 'sí, un gato',
      workSituation: 'indefinido',
      location: { name: 'Zaragoza' },
      freeText: 'Llamar por la tarde',
      ...search,
    },
  };
}

const onlyLead = async () => t.db.selectFrom('leads').selectAll().executeTakeFirstOrThrow();

describe('POST /leads/ingest', () => {
  it('creates a rental-seeking demandante with the search mapped and the rest in the notes; no lead id in the answer', async () => {
    const r = await post(t.app, '/leads/ingest', t.key, payload());
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok', authenticated_as: 'Alquileres Ebro' });
    const lead = await onlyLead();
    expect(lead).toMatchObject({
      name: 'Luis Pérez',
      type: 'demandante',
      status: 'searching_property',
      rating: 3,
      active: 1,
      urgency_profile: 'alta-urgencia',
      source: 'landing-alquiler',
      phone_number_1: '+34612345678',
      captured_by: 'Web',
    });
    expect(JSON.parse(lead.search_preferences!)).toEqual([
      {
        operations: ['alquiler'],
        property_types: ['apartamento', 'casa'],
        apartamento: { price_rent_max: 900, bedrooms_min: 2 },
        casa: { price_rent_max: 900, bedrooms_min: 2 },
        locations: [{ name: 'Zaragoza' }],
      },
    ]);
    const notes = (await leadInFull(t.db, lead.id))!.notes[0].text;
    for (const part of [
      '2026-12-01',
      'Personas: 2',
      'Delicias',
      'un gato',
      'indefinido',
      'Llamar por la tarde',
      'https://alquileres.example/zaragoza',
    ]) {
      expect(notes).toContain(part);
    }
    const jobs = await t.db.selectFrom('jobs').select('kind').orderBy('id').execute();
    expect(jobs.map((j) => j.kind)).toEqual(['match_lead', 'send_welcome']);
  });

  it('keeps non-numeric habs in the notes and a map area as the single location', async () => {
    const area = { type: 'circle', center: { lat: 41.65, lng: -0.88 }, radius: 1200 };
    await post(t.app, '/leads/ingest', t.key, payload({}, { habs: 'dos o tres', budget: '800', location: area }));
    const lead = await onlyLead();
    expect(JSON.parse(lead.search_preferences!)[0]).toEqual({
      operations: ['alquiler'],
      property_types: ['apartamento', 'casa'],
      apartamento: { price_rent_max: 800 },
      casa: { price_rent_max: 800 },
      locations: [area],
    });
    expect((await leadInFull(t.db, lead.id))!.notes[0].text).toContain('Habitaciones: dos o tres');
  });

  it.each([
    [
      'areaCode + phoneNumber first',
      { areaCode: '+34', phoneNumber: '699111222', phoneE164: '+34699333444', phone: '+34699555666' },
      '+34699111222',
    ],
    ['areaCode without +', { areaCode: '34', phoneNumber: '699111222', phone: '+34699555666' }, '+34699111222'],
    ['phoneE164 next', { areaCode: '+34', phoneNumber: '12', phoneE164: '+34699333444', phone: '+34699555666' }, '+34699333444'],
    ['then phone', { phoneE164: 'x', phone: '699 555 666' }, '+34699555666'],
    ['phoneRaw last', { phone: 'llámame', phoneRaw: '+33 6 12 34 56 78' }, '+33612345678'],
  ])('tries the phone fields in order: %s', async (_name, contact, expected) => {
    const r = await post(t.app, '/leads/ingest', t.key, payload(contact));
    expect(r.status).toBe(200);
    expect((await onlyLead()).phone_number_1).toBe(expected);
  });

  it('answers the documented 422 string when no phone field is valid, storing nothing', async () => {
    const before = await snapshot(t.db);
    const r = await post(t.app, '/leads/ingest', t.key, payload({ phone: '123', phoneRaw: 'nada', phoneE164: null, areaCode: null }));
    expect(r.status).toBe(422);
    expect(r.body.detail).toMatch(/^Invalid phone number\. Use international format, e\.g\. \+\d+$/);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('answers 200 without creating or updating anything when the phone exists, keeping the request as an interaction', async () => {
    await post(t.app, '/leads/ingest', t.key, payload());
    const before = await snapshot(t.db, INTERACTION_TABLES);
    const r = await post(t.app, '/leads/ingest', t.key, payload({ name: 'Otro', phone: '0034612345678' }, { budget: '1200' }));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok', authenticated_as: 'Alquileres Ebro' });
    expect(await snapshot(t.db, INTERACTION_TABLES)).toBe(before);
    const kept = await t.db.selectFrom('lead_interactions').select(['channel', 'note']).execute();
    expect(kept).toEqual([{ channel: 'ingest', note: expect.stringContaining('1200') }]);
  });

  it.each(['900€', '1.000', 'mil', '900,50', '900-', '-900', '900-700', '9 00'])(
    'answers 500 for the malformed budget %s and stores nothing',
    async (budget) => {
      const before = await snapshot(t.db);
      const r = await post(t.app, '/leads/ingest', t.key, payload({}, { budget }));
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ detail: 'Internal Server Error' });
      expect(await snapshot(t.db)).toBe(before);
    },
  );

  it('answers 500 for a malformed budget even when the phone is already known', async () => {
    await post(t.app, '/leads/ingest', t.key, payload());
    const before = await snapshot(t.db);
    const r = await post(t.app, '/leads/ingest', t.key, payload({}, { budget: '900€' }));
    expect(r.status).toBe(500);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('accepts an empty or missing budget', async () => {
    expect((await post(t.app, '/leads/ingest', t.key, payload({}, { budget: '' }))).status).toBe(200);
    expect((await post(t.app, '/leads/ingest', t.key, payload({ phone: '+34699000001' }, { budget: null }))).status).toBe(200);
  });

  it('reports every missing or mistyped field with its path', async () => {
    const r = await post(t.app, '/leads/ingest', t.key, { id: 5, contact: { name: 'A' }, search: { budget: 900, location: 'Zaragoza' } });
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc])).toEqual([
      ['string_type', ['body', 'id']],
      ['missing', ['body', 'createdAt']],
      ['missing', ['body', 'source']],
      ['missing', ['body', 'sourcePage']],
      ['missing', ['body', 'contact', 'phone']],
      ['string_type', ['body', 'search', 'budget']],
      ['dict_type', ['body', 'search', 'location']],
    ]);
  });

  it('shows the ingest lead in GET /leads', async () => {
    await post(t.app, '/leads/ingest', t.key, payload());
    const list = await get(t.app, '/leads', t.key);
    expect(list.body.data[0]).toMatchObject({
      name: 'Luis Pérez',
      type: 'demandante',
      status: 'searching_property',
      source: 'landing-alquiler',
    });
  });
});
