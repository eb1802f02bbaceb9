/**
 * The shared security suite (issue 6): every operation of the OpenAPI document, with every
 * way a key can be wrong, both header forms, another business's ids, and body fields that
 * try to set what only the service decides. A new operation without a request here fails
 * the suite, so no route escapes it.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { SCOPES, type Scope } from '../../../src/domain/access/api-key.ts';
import { createApiKey, revokeApiKey } from '../../../src/services/access/api-keys.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { createUser } from '../../../src/services/access/console-users.ts';
import { viewingAvailability } from '../../../src/services/viewings/availability.ts';
import { toLocalRfc3339 } from '../../../src/domain/viewings/hours.ts';
import { businessWithKey, freshDb, importRecords, listing, snapshot } from '../../helpers/db.ts';
import { appOn } from '../../helpers/http.ts';

let db: Db;
let app: FastifyInstance;
let ours: { businessId: number; key: string; keyId: string };
let theirs: { businessId: number; key: string; keyId: string };
let theirPropertyId: number;
let ourPropertyId: number;
let ourLeadId: number;
let theirLeadId: number;
/** A lead of ours for DELETE /leads/{id}: erased by the first request, answered the same after. */
let erasableLeadId: number;
let phoneSeq = 0;

interface Operation {
  method: 'GET' | 'POST' | 'DELETE' | 'PATCH';
  /** Path with ids filled in. */
  url: () => string;
  scope: Scope | null;
  body?: () => Record<string, unknown>;
  /** The status of success: 200 unless said. */
  ok?: number;
}

/** Free viewing slots of our listing (RFC 3339), one taken by each booking sent. */
let freeSlots: string[] = [];

const nextPhone = () => `6${String(40_000_000 + ++phoneSeq * 7_919).padStart(8, '0')}`;

/** A valid request for each operation id of the document. */
const OPERATIONS: Record<string, Operation> = {
  getKeyContext: { method: 'GET', url: () => '/me', scope: null },
  listProperties: { method: 'GET', url: () => '/properties', scope: 'properties:read' },
  getProperty: { method: 'GET', url: () => `/properties/${ourPropertyId}`, scope: 'properties:read' },
  listPropertyChanges: { method: 'GET', url: () => '/properties/changes', scope: 'properties:read' },
  listLeads: { method: 'GET', url: () => '/leads', scope: 'leads:read' },
  listEvents: { method: 'GET', url: () => '/events', scope: 'events:read' },
  getLead: { method: 'GET', url: () => `/leads/${ourLeadId}`, scope: 'leads:read' },
  getLeadMatches: { method: 'GET', url: () => `/leads/${ourLeadId}/matches`, scope: 'leads:read' },
  exportLead: { method: 'GET', url: () => `/leads/${ourLeadId}/export`, scope: 'leads:read' },
  eraseLead: { method: 'DELETE', url: () => `/leads/${erasableLeadId}`, scope: 'leads:erase' },
  updateLead: { method: 'PATCH', url: () => `/leads/${ourLeadId}`, scope: 'leads:write', body: () => ({ name: 'Ana' }) },
  createInquiry: {
    method: 'POST',
    url: () => '/leads/inquiries',
    scope: 'leads:ingest',
    body: () => ({ name: 'Ana', phone_number_1: nextPhone(), type: 'buyer' }),
  },
  ingestRentalLead: {
    method: 'POST',
    url: () => '/leads/ingest',
    scope: 'leads:ingest',
    body: () => ({ id: 'x', createdAt: 'x', source: 's', sourcePage: 'p', contact: { name: 'Ana', phone: nextPhone() }, search: {} }),
  },
  getViewingAvailability: { method: 'GET', url: () => `/viewings/availability?property_id=${ourPropertyId}`, scope: 'viewings:write' },
  createViewing: {
    method: 'POST',
    url: () => '/viewings',
    scope: 'viewings:write',
    body: () => ({ property_id: ourPropertyId, starts_at: freeSlots.shift(), lead_id: ourLeadId }),
    ok: 201,
  },
  listViewings: { method: 'GET', url: () => '/viewings', scope: 'leads:read' },
  createValuation: {
    method: 'POST',
    url: () => '/valuations',
    scope: 'leads:ingest',
    body: () => ({
      address: 'Calle Mayor 1',
      postal_code: '28013',
      property_type: 'apartamento',
      size_total: 80,
      name: 'Ana',
      phone_number_1: nextPhone(),
    }),
  },
};

function send(op: Operation, headers: Record<string, string>, body = op.body?.()) {
  return app.inject({
    method: op.method,
    url: `/v1/ext${op.url()}`,
    headers: body ? { 'content-type': 'application/json', ...headers } : headers,
    ...(body ? { payload: JSON.stringify(body) } : {}),
  });
}

beforeAll(async () => {
  ({ db } = await freshDb());
  ours = await businessWithKey(db, 'Nuestra');
  theirs = await businessWithKey(db, 'Otra');
  await importRecords(db, ours.businessId, [listing('ours-1')]);
  await importRecords(db, theirs.businessId, [listing('theirs-1'), listing('theirs-hidden', { public: false })]);
  const id = async (ref: string) =>
    (await db.selectFrom('properties').select('id').where('external_ref', '=', ref).executeTakeFirstOrThrow()).id;
  ourPropertyId = await id('ours-1');
  theirPropertyId = await id('theirs-1');
  ourLeadId = (await createLeadByHand(db, { businessId: ours.businessId, phone: '+34600111222' })).id;
  theirLeadId = (await createLeadByHand(db, { businessId: theirs.businessId, phone: '+34600111222' })).id;
  erasableLeadId = (await createLeadByHand(db, { businessId: ours.businessId, phone: '+34600111333' })).id;
  for (const business of [ours, theirs])
    await createUser(db, { businessId: business.businessId, email: `agent${business.businessId}@a.example`, role: 'agent' });
  const { clock, slots } = await viewingAvailability(db, ours.businessId, { propertyId: ourPropertyId, days: 31, listedOnly: true });
  freeSlots = slots.map((slot) => toLocalRfc3339(slot.start, clock.zone));
  app = await appOn(db);
});

afterAll(async () => {
  await app.close();
  await db.destroy();
});

it('covers every operation of the OpenAPI document', async () => {
  const doc = (await app.inject({ method: 'GET', url: '/v1/ext/openapi.json' })).json();
  const documented = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((path) =>
    Object.values(path).map((op) => op.operationId),
  );
  expect(documented.sort()).toEqual(Object.keys(OPERATIONS).sort());
});

describe.each(Object.entries(OPERATIONS))('%s', (_name, op) => {
  const refusals: Array<[string, () => Promise<Record<string, string>>, string]> = [
    ['no key', async () => ({}), 'Missing API key: send it in the X-Api-Key header'],
    ['a malformed key', async () => ({ 'x-api-key': 'AC_LIVE_short.secret' }), 'Malformed API key'],
    [
      'another scheme',
      async () => ({ authorization: `Bearer ${ours.key}` }),
      'Unsupported authorization scheme: send the key in the X-Api-Key header or as Authorization: ApiKey <key>',
    ],
    ['an unknown key id', async () => ({ 'x-api-key': `AC_LIVE_${'Z'.repeat(16)}.${'a'.repeat(43)}` }), 'Invalid API key'],
    ['the right id with a wrong secret', async () => ({ 'x-api-key': `AC_LIVE_${ours.keyId}.${'b'.repeat(43)}` }), 'Invalid API key'],
    [
      'a revoked key',
      async () => {
        const key = await createApiKey(db, { businessId: ours.businessId, scopes: [...SCOPES] });
        await revokeApiKey(db, key.key_id, null);
        return { 'x-api-key': key.key };
      },
      'API key has been revoked',
    ],
    [
      'an expired key',
      async () => ({
        'x-api-key': (
          await createApiKey(db, { businessId: ours.businessId, scopes: [...SCOPES], expiresAt: '2020-01-01T00:00:00.000+00:00' })
        ).key,
      }),
      'API key has expired',
    ],
  ];
  if (op.scope !== null) {
    refusals.push([
      'a key without the scope',
      async () => ({
        'x-api-key': (await createApiKey(db, { businessId: ours.businessId, scopes: SCOPES.filter((s) => s !== op.scope) })).key,
      }),
      `API key lacks the scope this operation requires: ${op.scope}`,
    ]);
  }

  it.each(refusals)('refuses %s with 401 and changes nothing', async (_case, headers, detail) => {
    const used = await headers();
    // A key presented in X-Api-Key is refused the same way in `Authorization: ApiKey`.
    const forms = 'x-api-key' in used ? [used, { authorization: `ApiKey ${used['x-api-key']}` }] : [used];
    for (const form of forms) {
      const before = await snapshot(db);
      const response = await send(op, form);
      expect(response.statusCode, JSON.stringify(form)).toBe(401);
      expect(response.headers['www-authenticate']).toBe('ApiKey');
      expect(response.json()).toEqual({ detail });
      expect(await snapshot(db)).toBe(before);
    }
  });

  it('accepts the key in X-Api-Key and in Authorization: ApiKey (scheme in any case)', async () => {
    expect((await send(op, { 'x-api-key': ours.key })).statusCode).toBe(op.ok ?? 200);
    expect((await send(op, { authorization: `apikey ${ours.key}` })).statusCode).toBe(op.ok ?? 200);
    expect((await send(op, { authorization: `ApiKey ${ours.key}` })).statusCode).toBe(op.ok ?? 200);
  });
});

describe('another business', () => {
  it('its property ids are indistinguishable from ids that do not exist', async () => {
    const theirs404 = await app.inject({ method: 'GET', url: `/v1/ext/properties/${theirPropertyId}`, headers: { 'x-api-key': ours.key } });
    const missing404 = await app.inject({ method: 'GET', url: '/v1/ext/properties/999999', headers: { 'x-api-key': ours.key } });
    expect(theirs404.statusCode).toBe(404);
    expect(theirs404.body).toBe(missing404.body);
    // Their unpublished property too.
    const hiddenId = (await db.selectFrom('properties').select('id').where('external_ref', '=', 'theirs-hidden').executeTakeFirstOrThrow())
      .id;
    const hidden = await app.inject({ method: 'GET', url: `/v1/ext/properties/${hiddenId}`, headers: { 'x-api-key': ours.key } });
    expect([hidden.statusCode, hidden.body]).toEqual([404, missing404.body]);
    expect(theirs404.headers['content-type']).toBe(missing404.headers['content-type']);
  });

  it('its lead ids are indistinguishable from ids that do not exist', async () => {
    const reads: Array<['GET' | 'DELETE' | 'PATCH', string]> = [
      ['GET', ''],
      ['GET', '/matches'],
      ['GET', '/export'],
      ['DELETE', ''],
      ['PATCH', ''],
    ];
    for (const [method, suffix] of reads) {
      const before = await snapshot(db);
      const body = method === 'PATCH' ? { payload: { name: 'Nadie' } } : {};
      const theirs404 = await app.inject({
        method,
        url: `/v1/ext/leads/${theirLeadId}${suffix}`,
        headers: { 'x-api-key': ours.key },
        ...body,
      });
      const missing404 = await app.inject({ method, url: `/v1/ext/leads/999999${suffix}`, headers: { 'x-api-key': ours.key }, ...body });
      expect([theirs404.statusCode, theirs404.body]).toEqual([404, missing404.body]);
      expect(theirs404.headers['content-type']).toBe(missing404.headers['content-type']);
      expect(await snapshot(db)).toBe(before);
    }
  });

  it('its listings and leads cannot be viewed or booked, as ids that do not exist', async () => {
    const asOurs = (method: 'GET' | 'POST', url: string, body?: object) =>
      app.inject({
        method,
        url: `/v1/ext${url}`,
        headers: { 'x-api-key': ours.key, 'content-type': 'application/json' },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      });
    const before = await snapshot(db);
    const theirsFree = await asOurs('GET', `/viewings/availability?property_id=${theirPropertyId}`);
    const missingFree = await asOurs('GET', '/viewings/availability?property_id=999999');
    expect([theirsFree.statusCode, theirsFree.body]).toEqual([404, missingFree.body]);
    const starts_at = freeSlots[freeSlots.length - 1];
    const theirLead = await asOurs('POST', '/viewings', { property_id: ourPropertyId, starts_at, lead_id: theirLeadId });
    const missingLead = await asOurs('POST', '/viewings', { property_id: ourPropertyId, starts_at, lead_id: 999_999 });
    expect([theirLead.statusCode, theirLead.body]).toEqual([404, missingLead.body]);
    const theirListing = await asOurs('POST', '/viewings', { property_id: theirPropertyId, starts_at, lead_id: ourLeadId });
    const missingListing = await asOurs('POST', '/viewings', { property_id: 999_999, starts_at, lead_id: ourLeadId });
    expect([theirListing.statusCode, theirListing.body]).toEqual([404, missingListing.body]);
    expect(await snapshot(db)).toBe(before);
    const theirViewings = await app.inject({ method: 'GET', url: '/v1/ext/viewings', headers: { 'x-api-key': theirs.key } });
    expect(theirViewings.json().total).toBe(0);
  });

  it('its properties and leads never appear in our lists', async () => {
    const props = (await app.inject({ method: 'GET', url: '/v1/ext/properties?limit=100', headers: { 'x-api-key': ours.key } })).json();
    expect(props.data.map((p: { id: number }) => p.id)).toEqual([ourPropertyId]);
    await send(OPERATIONS.ingestRentalLead, { 'x-api-key': theirs.key });
    const leads = (await app.inject({ method: 'GET', url: '/v1/ext/leads?limit=100', headers: { 'x-api-key': ours.key } })).json();
    const ourLeads = await db.selectFrom('leads').select('id').where('business_id', '=', ours.businessId).execute();
    expect(leads.total).toBe(ourLeads.length);
    expect(leads.data.map((l: { id: number }) => l.id).sort()).toEqual(ourLeads.map((l) => l.id).sort());
  });
});

describe('body fields that try to set what the service decides are never honoured', () => {
  it('createViewing: status, source, agent, id and times are the service’s', async () => {
    const op = OPERATIONS.createViewing;
    const body = {
      ...op.body!(),
      id: 999_999,
      status: 'confirmed',
      source: 'console',
      user_id: 999_999,
      business_id: theirs.businessId,
      ends_at: '2030-01-01T00:00:00Z',
    };
    const response = await send(op, { 'x-api-key': ours.key }, body);
    expect([response.statusCode, response.json().status]).toEqual([201, 'scheduled']);
    const viewing = await db.selectFrom('viewings').selectAll().where('id', '=', response.json().id).executeTakeFirstOrThrow();
    expect(viewing).toMatchObject({ business_id: ours.businessId, status: 'scheduled', source: 'api' });
    expect(viewing.id).not.toBe(999_999);
    expect(Date.parse(viewing.ends_at) - Date.parse(viewing.starts_at)).toBe(30 * 60_000);
  });

  // `id` is the ingest form's own submission id (a string), never the lead's.
  const forged = (name: string) => ({
    id: name === 'ingestRentalLead' ? '999999' : 999_999,
    business: 'Otra',
    business_id: 2,
    status: 'closed',
    rating: 5,
    active: false,
    created_at: '2000-01-01T00:00:00Z',
  });

  it.each([
    ['createInquiry', 'new'],
    ['ingestRentalLead', 'searching_property'],
  ])('%s', async (name, status) => {
    const op = OPERATIONS[name];
    const body = { ...op.body!(), ...forged(name) };
    const response = await send(op, { 'x-api-key': ours.key }, body);
    expect(response.statusCode).toBe(200);
    const lead = await db.selectFrom('leads').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(lead.id).not.toBe(999_999);
    expect(lead.business_id).toBe(ours.businessId);
    expect(lead).toMatchObject({ status, rating: 3, active: 1 });
    expect(lead.created_at).not.toBe('2000-01-01T00:00:00.000+00:00');
  });
});
