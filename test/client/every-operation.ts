/**
 * A client of every operation, as an integrator would write it: openapi-fetch over the types
 * openapi-typescript generates from openapi.json (test/client/openapi.d.ts, rewritten by
 * `npm run openapi`). test/unit/openapi-tooling.test.ts type-checks it with `--strict`, and
 * test/db/integrations/openapi-client.test.ts runs it against a server. Every response field it reads goes through {@link read}, which does not
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
type InquiryBody = paths['/leads/inquiries']['post']['requestBody']['content']['application/json'];

/** What the client saw, for the test to check against the server. */
export interface Seen {
  companyName: string | null;
  propertyIds: number[];
  firstProperty: { id: number; rentPrice: number | null; privacy: string | null } | null;
  leadTypes: string[];
  leadStatuses: string[];
  firstLocation: unknown;
  inquiryLeadId: number;
  /** Whether the retry of the inquiry (same Idempotency-Key, same body) was answered from the first response. */
  inquiryReplayed: boolean;
  /** The inquiry's lead as GET /leads/{lead_id} showed it. */
  readBack: { id: number; name: string | null };
  /** The lead id of GET /leads/{lead_id}/export's lead. */
  exportedLeadId: number;
  matchedIds: number[];
  nearMissCriteria: string[];
  ingestStatus: string;
  invalidPhone: string | null;
  /** Listings the changes feed, followed from the start, said to keep; and how many pages it took. */
  feedIds: number[];
  feedPages: number;
  eventTypes: string[];
  /** The name PATCH /leads/{lead_id} answered after correcting it. */
  editedName: string | null;
  /** The lead DELETE /leads/{lead_id} erased, and the status GET /leads/{lead_id} answered after. */
  erasedLeadId: number;
  readAfterErasure: number;
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

  const inquiryBody = {
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
  } satisfies InquiryBody;
  // A form's submission, and its retry after a timeout: one key for both.
  const submission = { params: { header: { 'idempotency-key': 'every-operation-1' } }, body: inquiryBody };
  const inquiry = await client.POST('/leads/inquiries', submission);
  if (!inquiry.data) throw new Error(`POST /leads/inquiries: ${inquiry.response.status}`);
  const retry = await client.POST('/leads/inquiries', submission);
  if (!retry.data) throw new Error(`POST /leads/inquiries (retry): ${retry.response.status}`);
  // A secret key is always told the lead's id; a publishable key never is (CONTRACT §13).
  const leadId = read(inquiry.data.lead_id);
  if (leadId === undefined) throw new Error('POST /leads/inquiries: no lead_id for a secret key');

  const lead = await client.GET('/leads/{lead_id}', { params: { path: { lead_id: leadId } } });
  if (!lead.data) throw new Error(`GET /leads/{lead_id}: ${lead.response.status}`);
  const matches = await client.GET('/leads/{lead_id}/matches', { params: { path: { lead_id: leadId } } });
  if (!matches.data) throw new Error(`GET /leads/{lead_id}/matches: ${matches.response.status}`);
  const exported = await client.GET('/leads/{lead_id}/export', { params: { path: { lead_id: leadId } } });
  if (!exported.data) throw new Error(`GET /leads/{lead_id}/export: ${exported.response.status}`);

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

  // A website's sync: the changes feed from the start until has_more is false.
  const kept = new Set<number>();
  let cursor: string | undefined;
  let feedPages = 0;
  for (;;) {
    const changes = await client.GET('/properties/changes', { params: { query: { limit: 500, cursor } } });
    if (!changes.data) throw new Error(`GET /properties/changes: ${changes.response.status}`);
    feedPages++;
    for (const change of changes.data.data) {
      if (read(change.change) === 'upsert') kept.add(read(change.property)!.id);
      else kept.delete(read(change.id));
    }
    cursor = read(changes.data.next_cursor);
    if (!read(changes.data.has_more)) break;
  }

  const events = await client.GET('/events', { params: { query: { limit: 100 } } });
  if (!events.data) throw new Error(`GET /events: ${events.response.status}`);
  events.data.data.forEach((event) => [read(event.id), read(event.created_at)]);

  // The agency's own system corrects the name (CONTRACT §25): only what it sends changes.
  const edited = await client.PATCH('/leads/{lead_id}', { params: { path: { lead_id: leadId } }, body: { name: 'Ana García López' } });
  if (!edited.data) throw new Error(`PATCH /leads/{lead_id}: ${edited.response.status}`);

  // The person asks to be forgotten (GDPR Art. 17): the lead is erased, then no longer found.
  const erased = await client.DELETE('/leads/{lead_id}', { params: { path: { lead_id: leadId } } });
  if (!erased.data) throw new Error(`DELETE /leads/{lead_id}: ${erased.response.status}`);
  read(erased.data.erased_at);
  const gone = await client.GET('/leads/{lead_id}', { params: { path: { lead_id: leadId } } });

  return {
    companyName: read(me.data.user.company_name),
    propertyIds: ids,
    firstProperty,
    leadTypes: leads.data.data.map((lead) => read(lead.type)),
    leadStatuses: leads.data.data.map((lead) => read(lead.status)),
    firstLocation: location === undefined ? undefined : read(location),
    inquiryLeadId: leadId,
    inquiryReplayed: retry.response.headers.get('idempotent-replayed') === 'true' && read(retry.data.lead_id) === leadId,
    readBack: { id: read(lead.data.id), name: read(lead.data.name) ?? null },
    exportedLeadId: read(exported.data.lead.id),
    matchedIds: matches.data.data.map((p) => read(p.id)),
    nearMissCriteria: matches.data.near_misses.flatMap((n) => read(n.missed)),
    ingestStatus: read(ingest.data.status),
    invalidPhone,
    feedIds: [...kept].sort((a, b) => a - b),
    feedPages,
    eventTypes: events.data.data.map((event) => read(event.type)),
    editedName: read(edited.data.data.name) ?? null,
    erasedLeadId: read(erased.data.lead_id),
    readAfterErasure: gone.response.status,
  };
}
