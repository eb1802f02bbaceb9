/**
 * A client of every operation, as an integrator would write it: openapi-fetch over the types
 * openapi-typescript generates from openapi.json (test/client/openapi.d.ts, rewritten by
 * `npm run openapi`). test/openapi-tooling.test.ts type-checks it with `--strict` and runs it
 * against a server. Every response field it reads goes through {@link read}, which does not
 * compile when the field's type is `unknown` (or `any`): the document must say what it is.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './openapi.d.ts';

/** `T`, unless `T` is `unknown` or `any`: then `never`. */
type Known<T> = 0 extends 1 & T ? never : unknown extends T ? never : T;

/** A response field as read; a compile error when its type says nothing. */
export function read<T>(value: T & Known<T>): T {
  return value;
}

type Location = components['schemas']['PlaceByName'] | components['schemas']['MapArea'];

/** What the client saw, for the test to check against the server. */
export interface Seen {
  companyName: string | null;
  propertyIds: number[];
  firstProperty: { id: number; rentPrice: number | null; privacy: string | null } | null;
  leadTypes: string[];
  leadStatuses: string[];
  firstLocation: unknown;
  inquiryLeadId: number;
  ingestStatus: string;
  invalidPhone: string | null;
}

/**
 * Calls every operation of the API once (and one refusal), reading typed fields only.
 * @throws Error when an operation does not answer as documented.
 */
export async function useEveryOperation(baseUrl: string, key: string, phone: string): Promise<Seen> {
  const client = createClient<paths>({ baseUrl, headers: { 'X-Api-Key': key } });

  const me = await client.GET('/me');
  if (!me.data) throw new Error(`GET /me: ${me.response.status}`);
  read(me.data.user.scopes).forEach((scope) => read(scope));

  const around: Location[] = [{ type: 'circle', center: { lat: 40.4168, lng: -3.7038 }, radius: 5000 }];
  const page = await client.GET('/properties', {
    params: { query: { operation: 'venta', sort: 'price_asc', limit: 5, locations: JSON.stringify(around) } },
  });
  if (!page.data) throw new Error(`GET /properties: ${page.response.status}`);
  read(page.data.total);
  const ids = page.data.data.map((p) => read(p.id));

  let firstProperty: Seen['firstProperty'] = null;
  if (ids.length) {
    const one = await client.GET('/properties/{property_id}', { params: { path: { property_id: ids[0] } } });
    if (!one.data) throw new Error(`GET /properties/{id}: ${one.response.status}`);
    const p = one.data.data;
    read(p.images)?.forEach((image) => read(image.url));
    read(p.updated_at);
    firstProperty = {
      id: read(p.id),
      rentPrice: read(p.specs?.price_calc.price_alq) ?? null,
      privacy: read(p.specs?.address_privacy) ?? null,
    };
  }

  const inquiry = await client.POST('/leads/inquiries', {
    body: {
      name: 'Ana García',
      type: 'buyer',
      phone_number_1: phone,
      preferred_language: 'es',
      search_preferences: [
        {
          operations: ['venta'],
          property_types: ['apartamento'],
          apartamento: { bedrooms_min: 2, price_max: 300_000 },
          // Every way of writing an area is typed: `lon` for `lng`, a GeoJSON geometry instead of the fields.
          locations: [
            { name: 'Madrid' },
            ...around,
            { type: 'marker', lat: 40.42, lon: -3.7, radius: 300 },
            {
              type: 'polygon',
              geometry: {
                type: 'Polygon',
                coordinates: [
                  [
                    [-3.71, 40.42],
                    [-3.69, 40.43],
                    [-3.68, 40.41],
                  ],
                ],
              },
            },
          ],
        },
      ],
    },
  });
  if (!inquiry.data) throw new Error(`POST /leads/inquiries: ${inquiry.response.status}`);

  const refused = await client.POST('/leads/inquiries', { body: { name: 'Ana', type: 'owner', phone_number_1: '12345' } });
  const invalidPhone = refused.error && typeof refused.error.detail === 'string' ? read(refused.error.detail) : null;

  const ingest = await client.POST('/leads/ingest', {
    body: {
      id: 'form-1',
      createdAt: '2026-11-23T10:00:00Z',
      source: 'landing',
      sourcePage: 'https://example.com/alquiler',
      contact: { name: 'Lucía', phone: `+34 ${phone.slice(0, 3)} ${phone.slice(3)}`.replace('+34 6', '+34 7') },
      search: { budget: '700-900', habs: '2', location: { type: 'point', lat: 41.65, lng: -0.88 } },
    },
  });
  if (!ingest.data) throw new Error(`POST /leads/ingest: ${ingest.response.status}`);

  const leads = await client.GET('/leads', { params: { query: { limit: 10 } } });
  if (!leads.data) throw new Error(`GET /leads: ${leads.response.status}`);
  const searches = leads.data.data.map((lead) => read(lead.search_preferences)).find((s) => s !== undefined);
  const location = searches?.[0]?.locations?.[0];

  return {
    companyName: read(me.data.user.company_name),
    propertyIds: ids,
    firstProperty,
    leadTypes: leads.data.data.map((lead) => read(lead.type)),
    leadStatuses: leads.data.data.map((lead) => read(lead.status)),
    firstLocation: location === undefined ? undefined : read(location),
    inquiryLeadId: read(inquiry.data.lead_id),
    ingestStatus: read(ingest.data.status),
    invalidPhone,
  };
}
