/**
 * The event log (CONTRACT §13): what happened to a business's leads, for `GET /events` and for
 * outgoing webhooks.
 *
 * {@link recordEvent} is called inside the transaction of the change it describes, so an event
 * exists exactly when its change does. It also queues the event's delivery to each enabled
 * endpoint of the business that subscribes to its type; per endpoint and lead only the earliest
 * pending delivery has a job (services/integrations/outgoing-webhooks.ts), so a lead's events arrive in order.
 *
 * Event types and their `data`:
 * - `lead.created`, `lead.updated`: `{lead: Lead}` (the object of GET /leads/{id});
 * - `match.found` (a matching run found a property the lead was not matched to before):
 *   `{lead_id, matches: [property id], near_misses: n}`;
 * - `message.status`: `{lead_id, message_id, status}`;
 * - `conversation.waiting`: `{lead_id}` (the lead waits for an agent);
 * - `property.changed`: `{id, change: "upsert"|"delete"}` (CONTRACT §14);
 * - `lead.erased`: `{id}` (CONTRACT §18: the lead was erased; subscribers erase their copy).
 *   It has no lead (`lead_id` null): every earlier event of the lead went with it;
 * - `lead.contacted_again`: `{id, source}` (CONTRACT §22: a request about a known lead was kept
 *   as an interaction without changing the lead);
 * - `viewing.scheduled`: `{viewing: Viewing}` (CONTRACT §20: a viewing was booked, `requested` or
 *   `scheduled`); `viewing.updated`: `{viewing: Viewing}` (any later change: confirmed,
 *   cancelled, moved, done, no show, feedback). Both are the lead's events (`lead_id`).
 */
import type { Db, Executor } from '../../db/database.ts';
import { enqueueJob } from '../../db/repositories/jobs.ts';
import * as repo from '../../db/repositories/events.ts';
import { findPresentedLead } from '../../db/repositories/leads.ts';
import { presentLead } from '../../domain/leads/presenter.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { EVENT_TYPES, type EventType } from '../../domain/integrations/event-types.ts';

export { EVENT_TYPES, type EventType };

/** How long events are kept, ms (30 days). */
export const EVENT_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** The API's id of an event: `evt_<n>`. */
export const eventId = (id: number) => `evt_${id}`;

/** The number of an `evt_<n>` id, or null when it is not one. */
export function parseEventId(text: string): number | null {
  const match = /^evt_(\d{1,10})$/.exec(text);
  return match && Number(match[1]) <= 2_147_483_647 ? Number(match[1]) : null;
}

/**
 * Whether an enabled endpoint takes events of `type` (CONTRACT §13): its `events` is null (every
 * type) or a JSON array naming `type`. The one rule of who receives what: the transactional
 * path (here) and a new lead's one statement (services/leads/new-lead-at-once.ts) both apply it.
 */
export function subscribes(endpoint: { events: string | null }, type: EventType): boolean {
  return endpoint.events === null || (JSON.parse(endpoint.events) as string[]).includes(type);
}

/** A new delivery of event `eventId` to an endpoint, not yet attempted. */
const pendingDelivery = (endpointId: number, eventId: number, leadId: number | null, at: string, propertyId: number | null = null) => ({
  endpoint_id: endpointId,
  event_id: eventId,
  lead_id: leadId,
  property_id: propertyId,
  state: 'pending' as const,
  last_status: null,
  last_latency_ms: null,
  last_response: null,
  last_error: null,
  created_at: at,
  updated_at: at,
  delivered_at: null,
});

/**
 * Writes an event and queues its webhook deliveries, in the caller's transaction.
 * @param at the instant of the change, canonical RFC 3339.
 */
export async function recordEvent(
  trx: Executor,
  businessId: number,
  type: EventType,
  leadId: number | null,
  data: object,
  at: string,
): Promise<number> {
  const id = await repo.insertEvent(trx, { business_id: businessId, type, lead_id: leadId, data: JSON.stringify(data), created_at: at });
  for (const endpoint of await repo.listActiveEndpoints(trx, businessId)) {
    if (!subscribes(endpoint, type)) continue;
    // Behind an earlier pending delivery of the same lead, this one waits for its turn.
    const waiting = leadId !== null && (await repo.lockPendingDeliveries(trx, endpoint.id, 'lead_id', [leadId])).size > 0;
    const deliveryId = await repo.insertDelivery(trx, pendingDelivery(endpoint.id, id, leadId, at));
    if (!waiting) await queueDelivery(trx, businessId, leadId, deliveryId, at);
  }
  return id;
}

/**
 * Writes events of several leads (a re-match's `match.found`) and queues their webhook
 * deliveries, in the caller's transaction, as {@link recordEvent} does one by one (see
 * {@link recordOrdered}).
 * @param events each event's lead and data, in order.
 * @param at the instant of the change, canonical RFC 3339.
 */
export async function recordLeadEvents(
  trx: Executor,
  businessId: number,
  type: EventType,
  events: ReadonlyArray<{ leadId: number; data: object }>,
  at: string,
): Promise<void> {
  await recordOrdered(
    trx,
    businessId,
    type,
    'lead_id',
    events.map((e) => ({ key: e.leadId, data: e.data })),
    at,
  );
}

/**
 * Writes events of no lead (`property.changed`) and queues their webhook deliveries, in the
 * caller's transaction (see {@link recordOrdered}); a listing's deliveries keep its order (`data.id`).
 * @param data each event's data, in order.
 * @param at the instant of the change, canonical RFC 3339.
 */
export async function recordEvents(
  trx: Executor,
  businessId: number,
  type: EventType,
  data: Array<{ id: number }>,
  at: string,
): Promise<void> {
  await recordOrdered(
    trx,
    businessId,
    type,
    'property_id',
    data.map((d) => ({ key: d.id, data: d })),
    at,
  );
}

/**
 * Writes events and queues their webhook deliveries: one statement per 500 events, the
 * endpoints read once. Deliveries of one lead, or one listing (`of`), to an endpoint go in
 * order: one waits behind an earlier pending one of the same key, before this call or in it.
 */
async function recordOrdered(
  trx: Executor,
  businessId: number,
  type: EventType,
  of: 'lead_id' | 'property_id',
  events: ReadonlyArray<{ key: number; data: object }>,
  at: string,
): Promise<void> {
  if (events.length === 0) return;
  const leadOf = (key: number) => (of === 'lead_id' ? key : null);
  const ids = await repo.insertEvents(
    trx,
    events.map((e) => ({ business_id: businessId, type, lead_id: leadOf(e.key), data: JSON.stringify(e.data), created_at: at })),
  );
  for (const endpoint of await repo.listActiveEndpoints(trx, businessId)) {
    if (!subscribes(endpoint, type)) continue;
    const queued = new Set<number>();
    for (let start = 0; start < events.length; start += 500) {
      const chunk = [...new Set(events.slice(start, start + 500).map((e) => e.key))];
      for (const key of await repo.lockPendingDeliveries(trx, endpoint.id, of, chunk)) queued.add(key);
    }
    for (const [i, id] of ids.entries()) {
      const key = events[i].key;
      const delivery = pendingDelivery(endpoint.id, id, leadOf(key), at, of === 'property_id' ? key : null);
      const deliveryId = await repo.insertDelivery(trx, delivery);
      if (!queued.has(key)) await queueDelivery(trx, businessId, leadOf(key), deliveryId, at);
      queued.add(key);
    }
  }
}

/** Queues the job that delivers `deliveryId` at `runAt`. */
export async function queueDelivery(
  trx: Executor,
  businessId: number,
  leadId: number | null,
  deliveryId: number,
  runAt: string,
  now = runAt,
) {
  await enqueueJob(trx, { businessId, leadId, kind: 'deliver_webhook', payload: { delivery_id: deliveryId }, runAt, now });
}

/** Records `lead.created` or `lead.updated` with the lead as GET /leads/{id} shows it. */
export async function recordLeadEvent(
  trx: Executor,
  businessId: number,
  leadId: number,
  type: 'lead.created' | 'lead.updated',
  at: string,
) {
  const lead = await findPresentedLead(trx, businessId, leadId);
  if (lead) await recordEvent(trx, businessId, type, leadId, { lead: presentLead(lead) }, at);
}

/** An event as `GET /events` and webhooks show it: `{id, type, created_at, data}`. */
export function presentEvent(row: repo.EventRow): { id: string; type: EventType; created_at: string; data: Record<string, unknown> } {
  return {
    id: eventId(row.id),
    type: row.type as EventType,
    created_at: row.created_at,
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}

/**
 * A page of the business's events after `after` (an event number; 0 from the start), oldest first:
 * `{data, next_cursor, has_more}` (CONTRACT §13). Events older than 30 days are not shown.
 */
export async function eventsPage(db: Db, businessId: number, after: number, limit: number, now = Date.now()) {
  const rows = await repo.listEvents(db, businessId, after, limit + 1);
  const oldest = toRfc3339(new Date(now - EVENT_TTL_MS));
  const hasMore = rows.length > limit;
  const page = (hasMore ? rows.slice(0, limit) : rows).filter((r) => r.created_at >= oldest);
  const last = hasMore ? rows[limit - 1] : rows.at(-1);
  return { data: page.map(presentEvent), next_cursor: eventId(last?.id ?? after), has_more: hasMore };
}
