/**
 * The event log, webhook endpoints and deliveries (migration 0011, CONTRACT §13). SQL only.
 * The queries every new lead runs (its event, the endpoints it goes to, its delivery) are
 * compiled once (compiled-once.ts).
 */
import { insertReturningId, runCompiledOnce } from '../compiled-once.ts';
import { readsMustLock, type Executor } from '../database.ts';
import type { EventTable, WebhookDeliveryTable, WebhookEndpointTable } from '../types.ts';

export type EventRow = EventTable & { id: number };
export type EndpointRow = WebhookEndpointTable & { id: number };
export type DeliveryRow = WebhookDeliveryTable & { id: number };

export async function insertEvent(db: Executor, event: Omit<EventTable, 'id'>): Promise<number> {
  return insertReturningId(db, 'events', event);
}

/** Inserts events with multi-row statements. @returns their ids. */
export async function insertEvents(db: Executor, events: Array<Omit<EventTable, 'id'>>): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < events.length; i += 500) {
    const rows = await db
      .insertInto('events')
      .values(events.slice(i, i + 500))
      .returning('id')
      .execute();
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

/** The events about a lead still in the log, oldest first. */
export async function listEventsOfLead(db: Executor, businessId: number, leadId: number): Promise<EventRow[]> {
  return db
    .selectFrom('events')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('lead_id', '=', leadId)
    .orderBy('id')
    .execute() as Promise<EventRow[]>;
}

/** The business's events after id `after`, oldest first. */
export async function listEvents(db: Executor, businessId: number, after: number, limit: number): Promise<EventRow[]> {
  return db
    .selectFrom('events')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute() as Promise<EventRow[]>;
}

export async function findEvent(db: Executor, id: number): Promise<EventRow | undefined> {
  return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst() as Promise<EventRow | undefined>;
}

/** Deletes events created before `before` and their deliveries. @returns how many events. */
export async function purgeEventsBefore(db: Executor, before: string): Promise<number> {
  const old = db.selectFrom('events').select('id').where('created_at', '<', before);
  await db.deleteFrom('webhook_deliveries').where('event_id', 'in', old).execute();
  const result = await db.deleteFrom('events').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function insertEndpoint(db: Executor, endpoint: Omit<WebhookEndpointTable, 'id'>): Promise<number> {
  const row = await db.insertInto('webhook_endpoints').values(endpoint).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function findEndpoint(db: Executor, id: number): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst() as Promise<EndpointRow | undefined>;
}

export async function listEndpoints(db: Executor, businessId: number): Promise<EndpointRow[]> {
  return db.selectFrom('webhook_endpoints').selectAll().where('business_id', '=', businessId).orderBy('id').execute() as Promise<
    EndpointRow[]
  >;
}

/** The business's enabled endpoints. */
export async function listActiveEndpoints(db: Executor, businessId: number): Promise<EndpointRow[]> {
  return runCompiledOnce<EndpointRow>(db, 'listActiveEndpoints', [businessId], ([business]) =>
    db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('business_id', '=', business as unknown as number)
      .where('disabled_at', 'is', null)
      .orderBy('id'),
  ) as Promise<EndpointRow[]>;
}

export async function updateEndpoint(db: Executor, id: number, values: Partial<Omit<WebhookEndpointTable, 'id'>>): Promise<void> {
  await db.updateTable('webhook_endpoints').set(values).where('id', '=', id).execute();
}

export async function insertDelivery(db: Executor, delivery: Omit<WebhookDeliveryTable, 'id' | 'attempts'>): Promise<number> {
  return insertReturningId(db, 'webhook_deliveries', { ...delivery, attempts: 0 });
}

export async function findDelivery(db: Executor, id: number): Promise<DeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst() as Promise<DeliveryRow | undefined>;
}

/**
 * The earliest pending delivery to `endpointId` of a lead's events (`of` `lead_id`) or of a
 * listing's `property.changed` (`property_id`), other than `exceptId`: the next one in its order.
 */
export async function firstPendingOf(
  db: Executor,
  endpointId: number,
  of: 'lead_id' | 'property_id',
  id: number,
  exceptId = 0,
): Promise<DeliveryRow | undefined> {
  const rows = await runCompiledOnce<DeliveryRow>(
    db,
    `firstPendingOf:${of}`,
    [endpointId, id, 'pending', exceptId, 1],
    ([endpoint, owner, pending, except, one]) =>
      db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', endpoint as unknown as number)
        .where(of, '=', owner as unknown as number)
        .where('state', '=', pending as WebhookDeliveryTable['state'])
        .where('id', '!=', except as unknown as number)
        .orderBy('id')
        .limit(one as unknown as number),
  );
  return rows[0] as DeliveryRow | undefined;
}

/**
 * Which of `ids` (of leads, or of listings for `property.changed`) have a pending delivery to
 * `endpointId`: a new delivery of one of them waits behind it (one query; at most 500 ids). On
 * PostgreSQL the pending rows stay locked until the caller's transaction ends, so a delivery
 * ending meanwhile either waits and then sees the caller's new delivery to queue it, or ended
 * before this read and is not counted: a waiting delivery is never left without its job.
 */
export async function lockPendingDeliveries(
  trx: Executor,
  endpointId: number,
  of: 'lead_id' | 'property_id',
  ids: readonly number[],
): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  let query = trx
    .selectFrom('webhook_deliveries')
    .select(of)
    .where('endpoint_id', '=', endpointId)
    .where(of, 'in', ids)
    .where('state', '=', 'pending');
  // No DISTINCT or LIMIT: PostgreSQL refuses the one with FOR UPDATE, and with the other may
  // drop a row that changed meanwhile and return none while others match.
  if (readsMustLock(trx)) query = query.forUpdate();
  return new Set((await query.execute()).map((row) => (row as Record<typeof of, number>)[of]));
}

export async function updateDelivery(db: Executor, id: number, values: Partial<Omit<WebhookDeliveryTable, 'id'>>): Promise<void> {
  await db.updateTable('webhook_deliveries').set(values).where('id', '=', id).execute();
}

/** An endpoint's deliveries, newest first. */
export async function listDeliveries(db: Executor, endpointId: number, limit: number): Promise<DeliveryRow[]> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute() as Promise<DeliveryRow[]>;
}
