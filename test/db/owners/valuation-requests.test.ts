/**
 * `POST /v1/ext/valuations` (issue 58 item 5, CONTRACT §24), what the website kit's
 * `<inmo-valuation>` sends: the range from the business's comparables in the postal code, checked
 * against the valuation's own rules on the same listings; the owner stored as a `propietario` lead
 * with the home's facts and the range in its notes and its consent; a publishable key told no lead
 * id; a known phone given the range too, kept as an interaction; faults refused with nothing stored.
 */
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/services/access/api-keys.ts';
import { valuateHome } from '../../../src/services/owners/valuations.ts';
import { importRecords, listing, snapshot, INTERACTION_TABLES } from '../../helpers/db.ts';
import { post, withApp } from '../../helpers/http.ts';

const SITE = 'https://www.agencia.example';

const t = withApp({
  each: true,
  seed: async ({ db, businessId }) => {
    await importRecords(db, businessId, [
      listing('C-1', { price: 230000, size_total: 95, postal_code: '28010' }),
      listing('C-2', { price: 270000, size_total: 105, postal_code: '28010' }),
      listing('C-3', { price: 240000, size_total: 90, postal_code: '28010' }),
      listing('C-4', { price: 300000, size_total: 110, postal_code: '28010' }),
      listing('FAR', { price: 900000, size_total: 100, postal_code: '28001', lat: 40.43, lon: -3.68 }),
    ]);
  },
});

const asked = (changes: Record<string, unknown> = {}) => ({
  address: 'Calle de Fuencarral 120, 3º B',
  postal_code: '28010',
  property_type: 'apartamento',
  size_total: 100,
  bedrooms: 3,
  name: 'Rosa Propietaria',
  phone_number_1: '612 300 400',
  personal_email: 'rosa@example.com',
  consent: { marketing: false, whatsapp: true, text: 'Acepto que la agencia me contacte sobre mi valoración.' },
  ...changes,
});

describe('POST /valuations', () => {
  it('gives the range of the postal code’s comparables and keeps the owner as a lead with the home’s facts', async () => {
    const r = await post(t.app, '/valuations', t.key, asked());
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // The valuation's own rules on the same catalogue, by the postal code alone.
    const expected = await valuateHome(t.db, t.businessId, {
      id: null,
      type: 'apartamento',
      operation: 'venta',
      size: 100,
      bedrooms: 3,
      postal_code: '28010',
      lat: null,
      lon: null,
    });
    expect(expected.comparables.map((c) => c.external_ref).sort()).toEqual(['C-1', 'C-2', 'C-3', 'C-4']);
    expect(r.body).toMatchObject({
      status: 'ok',
      lead_id: expect.any(Number),
      valuation: {
        operation: 'venta',
        comparables: 4,
        range: {
          low: expected.range!.low,
          median: expected.range!.median,
          high: expected.range!.high,
          median_m2: Math.round(expected.range!.median_m2),
        },
      },
    });
    const lead = await t.db.selectFrom('leads').selectAll().where('id', '=', r.body.lead_id).executeTakeFirstOrThrow();
    expect(lead).toMatchObject({ type: 'propietario', phone_number_1: '+34612300400', source: 'web', personal_email: 'rosa@example.com' });
    const notes = (await t.db.selectFrom('lead_notes').select('text').where('lead_id', '=', lead.id).execute())
      .map((n) => n.text)
      .join('\n');
    expect(notes).toContain('Valoración pedida (venta): Apartamento de 100 m², 3 dormitorios, Calle de Fuencarral 120, 3º B, 28010.');
    expect(notes).toContain(`Rango sugerido: ${expected.range!.low.toLocaleString('es-ES')} €`);
    const consents = await t.db
      .selectFrom('lead_consents')
      .select(['whatsapp', 'marketing', 'text'])
      .where('lead_id', '=', lead.id)
      .execute();
    expect(consents).toEqual([{ whatsapp: 1, marketing: 0, text: 'Acepto que la agencia me contacte sobre mi valoración.' }]);
  });

  it('tells a publishable key no lead id, and a known phone gets the range, kept as an interaction', async () => {
    const { key } = await createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:ingest'], origins: [SITE] });
    const first = await t.app.inject({
      method: 'POST',
      url: '/v1/ext/valuations',
      headers: { 'x-api-key': key, origin: SITE },
      payload: asked(),
    });
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.lead_id).toBeUndefined();
    expect(body.valuation.comparables).toBe(4);
    expect(first.headers['access-control-allow-origin']).toBe(SITE);
    const leads = await t.db.selectFrom('leads').select('id').execute();
    expect(leads).toHaveLength(1);
    const before = await snapshot(t.db, INTERACTION_TABLES);
    const again = await t.app.inject({
      method: 'POST',
      url: '/v1/ext/valuations',
      headers: { 'x-api-key': key, origin: SITE },
      payload: asked(),
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(body);
    expect(await snapshot(t.db, INTERACTION_TABLES)).toBe(before);
    const interactions = await t.db.selectFrom('lead_interactions').select(['lead_id', 'note']).execute();
    expect(interactions).toHaveLength(1);
    expect(interactions[0].note).toContain('Valoración pedida');
  });

  it('answers a request sent again with its Idempotency-Key as the first time, for a known phone too', async () => {
    const first = await post(t.app, '/valuations', t.key, asked());
    expect(first.status).toBe(200);
    const headers = { 'idempotency-key': 'valuation-known-0001' };
    const known = await post(t.app, '/valuations', t.key, asked({ address: 'Calle de Fuencarral 120, 3º B (otra vez)' }), headers);
    expect(known.status).toBe(200);
    expect(known.body.lead_id).toBe(first.body.lead_id);
    expect(known.headers['inmo-lead-outcome']).toBe('unchanged');
    const replayed = await post(t.app, '/valuations', t.key, asked({ address: 'Calle de Fuencarral 120, 3º B (otra vez)' }), headers);
    expect([replayed.status, replayed.headers['idempotent-replayed'], replayed.headers['inmo-lead-outcome']]).toEqual([
      200,
      'true',
      'unchanged',
    ]);
    expect(replayed.body).toEqual(known.body);
  });

  it('gives no range with fewer than 3 comparables, and refuses faults with nothing stored', async () => {
    const few = await post(t.app, '/valuations', t.key, asked({ postal_code: '28001', phone_number_1: '612 300 401' }));
    expect(few.status).toBe(200);
    expect(few.body.valuation).toEqual({ operation: 'venta', comparables: 1, range: null });
    const before = await snapshot(t.db);
    for (const [fault, at] of [
      [{ postal_code: '2801' }, 'postal_code'],
      [{ property_type: 'castillo' }, 'property_type'],
      [{ size_total: 0 }, 'size_total'],
      [{ address: '  ' }, 'address'],
    ] as const) {
      const r = await post(t.app, '/valuations', t.key, asked({ ...fault, phone_number_1: '612 300 402' }));
      expect(r.status, at).toBe(422);
      expect(JSON.stringify(r.body.detail), at).toContain(at);
    }
    const badPhone = await post(t.app, '/valuations', t.key, asked({ phone_number_1: '12' }));
    expect(badPhone.status).toBe(422);
    expect(await snapshot(t.db)).toBe(before);
  });
});
