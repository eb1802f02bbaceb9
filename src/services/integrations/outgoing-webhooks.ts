/**
 * Outgoing webhooks (CONTRACT §13): endpoints registered by the operator (`inmo webhooks …`),
 * and the delivery of events to them as Standard Webhooks (https://www.standardwebhooks.com).
 *
 * A delivery is a POST of `{"type", "timestamp", "data"}` with `webhook-id` (the event's
 * `evt_…` id, the same on every attempt, so a receiver can drop a repeat), `webhook-timestamp`
 * (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256>`, signed with the
 * `standardwebhooks` reference implementation; for 24 h after a rotation, with the previous
 * secret too. A 2xx within 15 s is success. Otherwise it is tried again after
 * {@link RETRY_SCHEDULE_MS} (about 77 h in all), then marked `failed`.
 *
 * Order: per endpoint and lead, only the earliest pending delivery has a job; when it ends
 * (delivered or failed) the next one of that lead is queued. Destinations: `https` URLs on
 * public addresses only, unless `INMO_ALLOW_PRIVATE_NETWORK=1` (then `http` and private,
 * loopback and link-local addresses too), checked when the URL is added and on the very
 * address each delivery connects to (channels/outbound.ts).
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { isPrivateHost, outboundFetch } from '../../channels/outbound.ts';
import { outboundPolicy, type OutboundPolicy } from '../../config.ts';
import { isRowId, type Db, type Executor } from '../../db/database.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import * as repo from '../../db/repositories/events.ts';
import { transact } from '../../db/transaction.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { openSecret, sealSecret } from '../../secrets.ts';
import { EVENT_TYPES, eventId, queueDelivery, type EventType } from './events.ts';
import { CLI, recordAudit, type AuditActor } from '../access/audit.ts';

/** Waits before each retry, ms: 5 s, 5 min, 30 min, 2 h, 5 h, then 10 h seven times (≈ 77 h in all). */
export const RETRY_SCHEDULE_MS = [5e3, 3e5, 18e5, 72e5, 18e6, ...Array<number>(7).fill(36e6)];
/** A delivery not answered with a 2xx within this long failed, ms. */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** Bytes of a response's body kept in the delivery log. */
const RESPONSE_KEPT = 1024;
/** How long the previous secret still signs after a rotation, ms. */
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** A new Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * Registers an endpoint. @returns its id and its secret (shown once; stored sealed).
 * @param outbound where webhooks may go (config.ts; by default this process's policy).
 * @throws InmoError UNKNOWN_BUSINESS, WEBHOOK_URL (not https, or private, unless allowed), WEBHOOK_EVENTS.
 */
export async function addWebhook(
  db: Db,
  options: { businessId: number; url: string; events?: string[] },
  outbound: OutboundPolicy = outboundPolicy(),
  actor: AuditActor = CLI,
): Promise<{ id: number; secret: string }> {
  if (!(await findBusiness(db, options.businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: options.businessId });
  checkUrl(options.url, outbound);
  const unknown = (options.events ?? []).filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length > 0 || (options.events !== undefined && options.events.length === 0)) {
    throw new InmoError('WEBHOOK_EVENTS', { types: EVENT_TYPES });
  }
  const secret = newSecret();
  const at = toRfc3339(new Date());
  const id = await transact(db, async (trx) => {
    const added = await repo.insertEndpoint(trx, {
      business_id: options.businessId,
      url: options.url,
      events: options.events === undefined ? null : JSON.stringify(options.events),
      secret: sealSecret(secret),
      previous_secret: null,
      previous_secret_until: null,
      created_at: at,
      disabled_at: null,
    });
    await recordAudit(trx, options.businessId, actor, 'webhook.add', added, at);
    return added;
  });
  return { id, secret };
}

/** @throws InmoError WEBHOOK_URL unless `url` is https on a name or public address (or private ones are allowed). */
function checkUrl(url: string, outbound: OutboundPolicy): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InmoError('WEBHOOK_URL');
  }
  const allowPrivate = outbound.allowPrivateNetwork;
  if (parsed.protocol !== 'https:' && !(allowPrivate && parsed.protocol === 'http:')) throw new InmoError('WEBHOOK_URL');
  if (parsed.username || parsed.password) throw new InmoError('WEBHOOK_URL');
  if (!allowPrivate && isPrivateHost(parsed.hostname)) throw new InmoError('WEBHOOK_URL');
}

/** The business's endpoints, without secrets. */
export async function listWebhooks(db: Db, businessId: number) {
  return (await repo.listEndpoints(db, businessId)).map((e) => ({
    id: e.id,
    url: e.url,
    events: e.events === null ? null : (JSON.parse(e.events) as string[]),
    created_at: e.created_at,
    disabled_at: e.disabled_at,
  }));
}

async function endpointOrThrow(db: Executor, id: number): Promise<repo.EndpointRow> {
  const endpoint = isRowId(id) ? await repo.findEndpoint(db, id) : undefined;
  if (!endpoint) throw new InmoError('WEBHOOK_NOT_FOUND', { id });
  return endpoint;
}

/**
 * Stops deliveries to an endpoint (pending ones end `failed` when their job runs).
 * @param actor who did it, for the audit trail (CONTRACT §18): the command line unless said.
 * @throws InmoError WEBHOOK_NOT_FOUND.
 */
export async function disableWebhook(db: Db, id: number, actor: AuditActor = CLI): Promise<void> {
  const endpoint = await endpointOrThrow(db, id);
  if (endpoint.disabled_at !== null) return;
  const at = toRfc3339(new Date());
  await transact(db, async (trx) => {
    await repo.updateEndpoint(trx, id, { disabled_at: at });
    await recordAudit(trx, endpoint.business_id, actor, 'webhook.disable', id, at);
  });
}

/**
 * Gives an endpoint a new secret; the previous one also signs for 24 h, so a receiver can
 * switch without losing a delivery. @returns the new secret. @throws InmoError WEBHOOK_NOT_FOUND.
 * @param actor who did it, for the audit trail (CONTRACT §18): the command line unless said.
 */
export async function rotateWebhookSecret(
  db: Db,
  id: number,
  now = Date.now(),
  actor: AuditActor = CLI,
): Promise<{ id: number; secret: string }> {
  const endpoint = await endpointOrThrow(db, id);
  const secret = newSecret();
  await transact(db, async (trx) => {
    await repo.updateEndpoint(trx, id, {
      secret: sealSecret(secret),
      previous_secret: endpoint.secret,
      previous_secret_until: toRfc3339(new Date(now + ROTATION_OVERLAP_MS)),
    });
    await recordAudit(trx, endpoint.business_id, actor, 'webhook.rotate_secret', id, toRfc3339(new Date(now)));
  });
  return { id, secret };
}

/** An endpoint's latest deliveries, newest first. @throws InmoError WEBHOOK_NOT_FOUND. */
export async function listWebhookDeliveries(db: Db, endpointId: number, limit = 50) {
  await endpointOrThrow(db, endpointId);
  return (await repo.listDeliveries(db, endpointId, limit)).map((d) => ({
    id: d.id,
    event_id: eventId(d.event_id),
    state: d.state,
    attempts: d.attempts,
    status: d.last_status,
    latency_ms: d.last_latency_ms,
    response: d.last_response,
    error: d.last_error,
    created_at: d.created_at,
    delivered_at: d.delivered_at,
  }));
}

/**
 * Sends a delivery again (once more, whatever its state): a new attempt queued at once.
 * @throws InmoError WEBHOOK_DELIVERY_NOT_FOUND.
 */
export async function replayDelivery(db: Db, deliveryId: number): Promise<void> {
  const delivery = isRowId(deliveryId) ? await repo.findDelivery(db, deliveryId) : undefined;
  if (!delivery) throw new InmoError('WEBHOOK_DELIVERY_NOT_FOUND', { id: deliveryId });
  const endpoint = await endpointOrThrow(db, delivery.endpoint_id);
  const now = toRfc3339(new Date());
  await transact(db, async (trx) => {
    await repo.updateDelivery(trx, deliveryId, { state: 'pending', updated_at: now });
    await queueDelivery(trx, endpoint.business_id, delivery.lead_id, deliveryId, now);
  });
}

/** The headers of one delivery (Standard Webhooks), signed with each secret in force. */
export function signedHeaders(secrets: string[], msgId: string, at: Date, body: string): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(msgId, at, body));
  return {
    'content-type': 'application/json',
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

/** What one attempt of a delivery came to. */
export type AttemptOutcome = { delivered: true } | { delivered: false; retryAt: string | null };

/**
 * Makes one attempt of a delivery and records it (the `deliver_webhook` job). The next pending
 * delivery of the same lead (or listing) is queued once this one ends, in the same transaction as its end.
 * @param finish runs the recording in the job's completing transaction.
 * @param outbound where the request may go (config.ts): checked on the addresses connected to.
 */
export async function attemptDelivery(
  db: Db,
  deliveryId: number,
  now: () => Date,
  finish: <T>(effects: (trx: Executor) => Promise<T>) => Promise<T>,
  outbound: OutboundPolicy,
): Promise<AttemptOutcome | 'gone'> {
  const delivery = await repo.findDelivery(db, deliveryId);
  if (!delivery || delivery.state !== 'pending') return 'gone';
  const endpoint = (await repo.findEndpoint(db, delivery.endpoint_id))!;
  const event = await repo.findEvent(db, delivery.event_id);
  const at = now();
  if (!event || endpoint.disabled_at !== null) {
    await finish((trx) =>
      end(trx, endpoint, delivery, { state: 'failed', last_error: event ? 'the endpoint is disabled' : 'the event expired' }, at),
    );
    return { delivered: false, retryAt: null };
  }
  const body = JSON.stringify({ type: event.type, timestamp: event.created_at, data: JSON.parse(event.data) as unknown });
  const secrets = [openSecret(endpoint.secret)];
  if (endpoint.previous_secret && endpoint.previous_secret_until && Date.parse(endpoint.previous_secret_until) > at.getTime()) {
    secrets.push(openSecret(endpoint.previous_secret));
  }
  const started = performance.now();
  let status: number | null = null;
  let response: string | null = null;
  let error: string | null = null;
  try {
    const answer = await outboundFetch(
      endpoint.url,
      {
        method: 'POST',
        headers: signedHeaders(secrets, eventId(event.id), at, body),
        body,
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      },
      outbound,
    );
    status = answer.status;
    response = Buffer.from(await answer.arrayBuffer())
      .subarray(0, RESPONSE_KEPT)
      .toString('utf8');
  } catch (failure) {
    const cause = (failure as Error & { cause?: Error }).cause;
    error = (cause?.message ?? (failure as Error).message).slice(0, 500);
  }
  const latency = Math.round(performance.now() - started);
  const attempts = delivery.attempts + 1;
  const recorded = { attempts, last_status: status, last_latency_ms: latency, last_response: response, last_error: error };
  if (status !== null && status >= 200 && status < 300) {
    await finish((trx) => end(trx, endpoint, delivery, { ...recorded, state: 'delivered', delivered_at: toRfc3339(at) }, at));
    return { delivered: true };
  }
  const wait = RETRY_SCHEDULE_MS[attempts - 1];
  if (wait === undefined) {
    await finish((trx) => end(trx, endpoint, delivery, { ...recorded, state: 'failed' }, at));
    return { delivered: false, retryAt: null };
  }
  const retryAt = toRfc3339(new Date(at.getTime() + wait));
  await finish(async (trx) => {
    await repo.updateDelivery(trx, delivery.id, { ...recorded, updated_at: toRfc3339(at) });
    await queueDelivery(trx, endpoint.business_id, delivery.lead_id, delivery.id, retryAt, toRfc3339(at));
  });
  return { delivered: false, retryAt };
}

/** Ends a delivery and queues the next pending one of the same lead, or of the same listing. */
async function end(
  trx: Executor,
  endpoint: repo.EndpointRow,
  delivery: repo.DeliveryRow,
  values: Partial<repo.DeliveryRow>,
  at: Date,
): Promise<void> {
  const now = toRfc3339(at);
  await repo.updateDelivery(trx, delivery.id, { ...values, updated_at: now });
  const next =
    delivery.lead_id !== null
      ? await repo.firstPendingOf(trx, endpoint.id, 'lead_id', delivery.lead_id, delivery.id)
      : delivery.property_id !== null
        ? await repo.firstPendingOf(trx, endpoint.id, 'property_id', delivery.property_id, delivery.id)
        : undefined;
  if (next) await queueDelivery(trx, endpoint.business_id, next.lead_id, next.id, now);
}

export type { EventType };
