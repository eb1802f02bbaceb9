/** GET /leads (spec §4.1, §2.1; CONTRACT §1, §6). */
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { businessWithKey } from '../../helpers/db.ts';
import { get, withApp, API_ONLY } from '../../helpers/http.ts';

let db: Db;
let key: string;
let otherKey: string;

const t = withApp({
  surfaces: API_ONLY,
  seed: async (biz) => {
    db = biz.db;
    key = biz.key;
    const other = await businessWithKey(db, 'Otra');
    otherKey = other.key;
    const base = { business_id: biz.businessId, type: 'demandante', status: 'new', active: 1, rating: 3 };
    await db
      .insertInto('leads')
      .values([
        {
          ...base,
          name: 'Ana',
          phone_number_1: '+34612345678',
          source: 'web',
          personal_email: '',
          phone_number_2: null,
          preferred_language: 'es',
          search_preferences: JSON.stringify([{ operations: ['alquiler'], property_types: ['apartamento'], internal_notes: 'secreto' }]),
          created_at: '2026-01-01T10:00:00.000+00:00',
          updated_at: '2026-01-02T10:00:00.000+00:00',
        },
        {
          ...base,
          name: 'Bea',
          phone_number_1: '+34612345679',
          source: 'manual',
          search_preferences: '[]',
          created_at: '2026-01-03T10:00:00.000+00:00',
          updated_at: '2026-01-03T10:00:00.000+00:00',
        },
        {
          ...base,
          name: 'Carla',
          phone_number_1: '+34612345670',
          active: 0,
          created_at: '2026-01-03T10:00:00.000+00:00',
          updated_at: '2026-01-03T10:00:00.000+00:00',
        },
      ])
      .execute();
    await createLeadByHand(db, { businessId: other.businessId, phone: '+34699999999' });
  },
});

describe('GET /leads', () => {
  it('lists the business’s leads newest first, ties by id desc, with the envelope', async () => {
    const { status, body } = await get(t.app, '/leads', key);
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['data', 'total', 'limit', 'offset']);
    expect(body.total).toBe(3);
    expect(body.data.map((l: { name: string }) => l.name)).toEqual(['Carla', 'Bea', 'Ana']);
  });

  it('omits keys without a value and never shows internal notes', async () => {
    const { body } = await get(t.app, '/leads', key);
    const ana = body.data.find((l: { name: string }) => l.name === 'Ana');
    expect(ana).toEqual({
      id: expect.any(Number),
      name: 'Ana',
      type: 'demandante',
      status: 'new',
      active: true,
      source: 'web',
      phone_number_1: '+34612345678',
      preferred_language: 'es',
      search_preferences: [{ operations: ['alquiler'], property_types: ['apartamento'] }],
      created_at: '2026-01-01T10:00:00.000+00:00',
      updated_at: '2026-01-02T10:00:00.000+00:00',
    });
    const bea = body.data.find((l: { name: string }) => l.name === 'Bea');
    expect(bea).not.toHaveProperty('search_preferences');
    const carla = body.data.find((l: { name: string }) => l.name === 'Carla');
    expect(carla.active).toBe(false);
    expect(carla).not.toHaveProperty('source');
  });

  it('shows every key of spec §2.1 that has a value, and no stored column besides', async () => {
    const { businessId, key: fullKey } = await businessWithKey(db, 'Completa');
    await db
      .insertInto('leads')
      .values({
        business_id: businessId,
        type: 'propietario',
        status: 'contacted',
        active: 1,
        rating: 5,
        name: 'Dora',
        source: 'portal',
        phone_number_1: '+34612000001',
        phone_number_2: '+34612000002',
        landline_phone: '+34976000003',
        personal_email: 'dora@example.com',
        professional_email: 'dora@empresa.example',
        preferred_language: 'fr',
        search_preferences: JSON.stringify([{ operations: ['venta'] }]),
        created_at: '2026-02-01T10:00:00.000+00:00',
        updated_at: '2026-02-02T10:00:00.000+00:00',
      })
      .execute();
    const { body } = await get(t.app, '/leads', fullKey);
    expect(body.data).toEqual([
      {
        id: expect.any(Number),
        name: 'Dora',
        type: 'propietario',
        status: 'contacted',
        active: true,
        source: 'portal',
        phone_number_1: '+34612000001',
        phone_number_2: '+34612000002',
        landline_phone: '+34976000003',
        personal_email: 'dora@example.com',
        professional_email: 'dora@empresa.example',
        preferred_language: 'fr',
        search_preferences: [{ operations: ['venta'] }],
        created_at: '2026-02-01T10:00:00.000+00:00',
        updated_at: '2026-02-02T10:00:00.000+00:00',
      },
    ]);
  });

  it('pages with limit and offset', async () => {
    const { body } = await get(t.app, '/leads?limit=1&offset=1', key);
    expect(body.data.map((l: { name: string }) => l.name)).toEqual(['Bea']);
    expect(body).toMatchObject({ total: 3, limit: 1, offset: 1 });
  });

  it('shows another business only its own leads', async () => {
    const { body } = await get(t.app, '/leads', otherKey);
    expect(body.total).toBe(1);
    expect(body.data[0]).toMatchObject({ phone_number_1: '+34699999999', type: 'demandante', status: 'new', source: 'manual' });
    expect(body.data[0]).not.toHaveProperty('name');
  });

  it.each([
    ['limit=0', 'greater_than_equal'],
    ['limit=1001', 'less_than_equal'],
    ['limit=ten', 'int_parsing'],
    ['offset=-1', 'greater_than_equal'],
  ])('rejects %s with 422 %s', async (query, type) => {
    const { status, body } = await get(t.app, `/leads?${query}`, key);
    expect(status).toBe(422);
    expect(body.detail).toHaveLength(1);
    expect(body.detail[0].type).toBe(type);
    expect(body.detail[0].loc[0]).toBe('query');
  });
});
