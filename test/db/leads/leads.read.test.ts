/**
 * Reading leads back (CONTRACT §13): GET /leads/{lead_id}, GET /leads/{lead_id}/matches, and
 * the `updated_since`, `status`, `type` and `source` filters of GET /leads.
 */
import { describe, expect, it } from 'vitest';
import { Worker } from '../../../src/jobs/worker.ts';
import { businessWithKey, importRecords, listing, snapshot } from '../../helpers/db.ts';
import { get, post, withApp, API_ONLY } from '../../helpers/http.ts';

const rental = (ref: string, rent: number, overrides: Record<string, unknown> = {}) =>
  listing(ref, {
    operation: 'alquiler',
    price: null,
    city: 'Zaragoza',
    province: 'Zaragoza',
    price_rent: rent,
    ...overrides,
  });

const t = withApp({
  surfaces: API_ONLY,
  seed: async ({ db, businessId }) => {
    await importRecords(db, businessId, [
      rental('Z-900', 900, { updated_at: '2026-01-05T10:00:00+00:00' }),
      rental('Z-850', 850, { updated_at: '2026-01-06T10:00:00+00:00' }),
      rental('Z-950', 950),
      rental('Z-GONE', 800, { status: 'alquilada' }),
      rental('Z-HIDDEN', 800, { public: false }),
      rental('Z-FAR', 800, { city: 'Huesca', province: 'Huesca' }),
      rental('Z-BOTH', 1200, { city: 'Huesca', province: 'Huesca' }),
    ]);
  },
});

const inquiry = (phone: string, searches: unknown[], extra: Record<string, unknown> = {}) =>
  post(t.app, '/leads/inquiries', t.key, { name: 'Lucía', type: 'tenant', phone_number_1: phone, search_preferences: searches, ...extra });

const drain = () => new Worker({ db: t.db, settings: { pollMs: 20, maxAttempts: 1 } }).drain();

describe('GET /leads/{lead_id}', () => {
  it('reads back the lead an inquiry created, as GET /leads shows it', async () => {
    const created = await inquiry('+34 611 20 00 01', [{ operations: ['alquiler'] }]);
    const { status, body, headers } = await get(t.app, `/leads/${created.body.lead_id}`, t.key);
    expect(status).toBe(200);
    expect(headers['content-type']).toMatch(/^application\/json/);
    const listed = (await get(t.app, '/leads', t.key)).body.data.find((l: { id: number }) => l.id === created.body.lead_id);
    expect(body).toEqual(listed);
    expect(body).toMatchObject({ id: created.body.lead_id, name: 'Lucía', type: 'demandante', phone_number_1: '+34611200001' });
  });

  it('answers 404 "Lead not found" for a missing id, another business’s lead, and an id too large to exist', async () => {
    const other = await businessWithKey(t.db, 'Otra');
    const theirs = await post(t.app, '/leads/inquiries', other.key, { name: 'Ajena', type: 'buyer', phone_number_1: '+34611200002' });
    for (const id of [999_999, theirs.body.lead_id, 2_147_483_648, 9_007_199_254_740_991]) {
      for (const path of [`/leads/${id}`, `/leads/${id}/matches`]) {
        const { status, body } = await get(t.app, path, t.key);
        expect([path, status, body]).toEqual([path, 404, { detail: 'Lead not found' }]);
      }
    }
    expect((await get(t.app, `/leads/${theirs.body.lead_id}`, other.key)).status).toBe(200);
  });

  it('refuses an id that is not a positive integer with a Pydantic 422, and needs leads:read', async () => {
    const { status, body } = await get(t.app, '/leads/abc', t.key);
    expect(status).toBe(422);
    expect(body.detail[0]).toMatchObject({ type: 'int_parsing', loc: ['path', 'lead_id'], input: 'abc' });
    expect((await get(t.app, '/leads/0/matches', t.key)).body.detail[0]).toMatchObject({
      type: 'greater_than_equal',
      loc: ['path', 'lead_id'],
    });
    const ingestOnly = await businessWithKey(t.db, 'Formulario', ['leads:ingest']);
    const refused = await get(t.app, '/leads/1', ingestOnly.key);
    expect([refused.status, refused.body.detail]).toEqual([401, 'API key lacks the scope this operation requires: leads:read']);
  });
});

describe('GET /leads/{lead_id}/matches', () => {
  it('lists the public matches best first, and the 950 € flat as a near miss of a 900 € budget, with why', async () => {
    const created = await inquiry('+34 611 20 00 10', [
      {
        operations: ['alquiler'],
        property_types: ['apartamento'],
        apartamento: { price_rent_max: 900 },
        locations: [{ name: 'Zaragoza' }],
      },
    ]);
    const before = await get(t.app, `/leads/${created.body.lead_id}/matches`, t.key);
    expect(before.body).toEqual({ data: [], near_misses: [] });
    await drain();
    const { status, body } = await get(t.app, `/leads/${created.body.lead_id}/matches`, t.key);
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['data', 'near_misses']);
    // Newest update first, as matching ranks them; the rented and the private listings never show.
    expect(body.data.map((p: { title: string }) => p.title)).toEqual(['Piso Z-850', 'Piso Z-900']);
    expect(body.near_misses.map((n: { property: { title: string }; missed: string[] }) => [n.property.title, n.missed])).toEqual([
      ['Piso Z-FAR', ['location']],
      ['Piso Z-950', ['price_rent_max']],
    ]);
    // Each property is the object of GET /properties/{id}.
    // Each match is the Property object, with whether it was sent in an alert and dismissed (CONTRACT §21).
    const [{ sent_at, dismissed, ...first }] = body.data;
    expect({ sent_at, dismissed }).toEqual({ sent_at: null, dismissed: false });
    expect(first).toEqual((await get(t.app, `/properties/${first.id}`, t.key)).body.data);
  });

  it('shows a property once: a match of one search is no near miss of another, and a near miss names each criterion once', async () => {
    const created = await inquiry('+34 611 20 00 11', [
      { operations: ['alquiler'], apartamento: { price_rent_max: 900 }, locations: [{ name: 'Zaragoza' }] },
      { operations: ['alquiler'], apartamento: { price_rent_max: 900 }, locations: [{ name: 'Zaragoza' }] },
      { operations: ['alquiler'], apartamento: { price_rent_max: 1000 }, locations: [{ name: 'Huesca' }] },
    ]);
    await drain();
    const { body } = await get(t.app, `/leads/${created.body.lead_id}/matches`, t.key);
    const titles = body.data.map((p: { title: string }) => p.title);
    expect(titles).toEqual(['Piso Z-850', 'Piso Z-900', 'Piso Z-FAR']);
    expect(new Set(titles).size).toBe(titles.length);
    const near = Object.fromEntries(
      body.near_misses.map((n: { property: { title: string }; missed: string[] }) => [n.property.title, n.missed]),
    );
    // Z-950 misses the rent of the first two searches and the place of the third; Z-BOTH misses the rent of the third only.
    expect(near).toEqual({ 'Piso Z-950': ['price_rent_max', 'location'], 'Piso Z-BOTH': ['price_rent_max'] });
  });

  it('leaves out a match that has left the public catalogue since', async () => {
    const created = await inquiry('+34 611 20 00 12', [
      { operations: ['alquiler'], apartamento: { price_rent_max: 900 }, locations: [{ name: 'Zaragoza' }] },
    ]);
    await drain();
    await importRecords(t.db, t.businessId, [rental('Z-850', 850, { status: 'alquilada', updated_at: '2026-01-06T10:00:00+00:00' })]);
    const { body } = await get(t.app, `/leads/${created.body.lead_id}/matches`, t.key);
    expect(body.data.map((p: { title: string }) => p.title)).not.toContain('Piso Z-850');
    await importRecords(t.db, t.businessId, [rental('Z-850', 850, { updated_at: '2026-01-06T10:00:00+00:00' })]);
  });
});

describe('GET /leads filters', () => {
  const names = (body: { data: Array<{ name?: string }> }) => body.data.map((l) => l.name);

  it('narrows by status, type and source, with the total of what matches', async () => {
    const { businessId, key } = await businessWithKey(t.db, 'Filtros');
    const base = { business_id: businessId, active: 1, rating: 3, created_at: '2026-01-01T10:00:00.000+00:00' };
    await t.db
      .insertInto('leads')
      .values([
        {
          ...base,
          name: 'A',
          phone_number_1: '+34600000001',
          type: 'propietario',
          status: 'new',
          source: 'web',
          updated_at: '2026-03-01T10:00:00.000+00:00',
        },
        {
          ...base,
          name: 'B',
          phone_number_1: '+34600000002',
          type: 'demandante',
          status: 'new',
          source: 'manual',
          updated_at: '2026-03-02T10:00:00.000+00:00',
        },
        {
          ...base,
          name: 'C',
          phone_number_1: '+34600000003',
          type: 'demandante',
          status: 'searching_property',
          source: 'web',
          updated_at: '2026-03-03T10:00:00.000+00:00',
        },
      ])
      .execute();
    expect((await get(t.app, '/leads?status=new', key)).body).toMatchObject({ total: 2, data: [{ name: 'B' }, { name: 'A' }] });
    expect(names((await get(t.app, '/leads?type=demandante', key)).body)).toEqual(['C', 'B']);
    expect(names((await get(t.app, '/leads?source=web&status=searching_property', key)).body)).toEqual(['C']);
    expect((await get(t.app, '/leads?source=portal', key)).body).toMatchObject({ total: 0, data: [] });
    // updated_since is inclusive, read in any offset.
    expect(names((await get(t.app, '/leads?updated_since=2026-03-02T10:00:00Z', key)).body)).toEqual(['C', 'B']);
    expect(names((await get(t.app, `/leads?updated_since=${encodeURIComponent('2026-03-02T11:00:00+01:00')}`, key)).body)).toEqual([
      'C',
      'B',
    ]);
    expect(names((await get(t.app, '/leads?updated_since=2026-03-02T10:00:00.001Z', key)).body)).toEqual(['C']);
    expect((await get(t.app, '/leads?updated_since=2026-03-02T10:00:00Z&limit=1&offset=1', key)).body).toMatchObject({
      total: 2,
      data: [{ name: 'B' }],
    });
  });

  it('sees a lead completed by an inquiry as updated', async () => {
    const { businessId, key } = await businessWithKey(t.db, 'Completar');
    const at = '2026-01-01T10:00:00.000+00:00';
    await t.db
      .insertInto('leads')
      .values({
        business_id: businessId,
        active: 1,
        rating: 3,
        phone_number_1: '+34600000009',
        type: 'demandante',
        status: 'new',
        created_at: at,
        updated_at: at,
      })
      .execute();
    const since = new Date().toISOString();
    expect((await get(t.app, `/leads?updated_since=${since}`, key)).body.total).toBe(0);
    expect(
      (await post(t.app, '/leads/inquiries', key, { name: 'Ya con nombre', type: 'buyer', phone_number_1: '+34600000009' })).status,
    ).toBe(200);
    expect(names((await get(t.app, `/leads?updated_since=${since}`, key)).body)).toEqual(['Ya con nombre']);
  });

  it.each([
    ['status=lost', 'literal_error', ['query', 'status']],
    ['type=buyer', 'literal_error', ['query', 'type']],
    ['updated_since=yesterday', 'datetime_from_date_parsing', ['query', 'updated_since']],
    ['updated_since=2026-03-02', 'datetime_from_date_parsing', ['query', 'updated_since']],
    ['updated_since=2026-13-02T10:00:00Z', 'datetime_from_date_parsing', ['query', 'updated_since']],
    ['updated_since=2026-03-02T10:00:00', 'timezone_aware', ['query', 'updated_since']],
  ])('refuses %s with 422 %s, and changes nothing', async (query, type, loc) => {
    const before = await snapshot(t.db);
    const { status, body } = await get(t.app, `/leads?${query}`, t.key);
    expect(status).toBe(422);
    expect(body.detail).toHaveLength(1);
    expect(body.detail[0]).toMatchObject({ type, loc, input: query.split('=')[1] });
    expect(await snapshot(t.db)).toBe(before);
  });

  it('reports every faulty filter at once', async () => {
    const { body } = await get(t.app, '/leads?status=x&updated_since=y&limit=0', t.key);
    expect(body.detail.map((d: { loc: string[] }) => d.loc[1]).sort()).toEqual(['limit', 'status', 'updated_since']);
  });
});
