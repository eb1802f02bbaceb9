/**
 * WhatsApp webhooks (CONTRACT §10): the handshake, accepting a signed delivery, and the
 * `process_webhook` work that turns it into stored messages, leads, conversations and
 * statuses.
 *
 * Accepting is fast and stores only: the signature is checked on the raw body (against the
 * app secret of every channel that has one, in constant time) before anything is parsed;
 * the payload is routed by `metadata.phone_number_id` to the channel whose secret signed
 * it; the body is kept once per business (a repeated delivery is the same bytes, so it is
 * kept once) with a `process_webhook` job in the same transaction. Processing is idempotent
 * too: an inbound message is stored once per WhatsApp message id, and statuses only ever
 * move a message forward.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Transaction } from 'kysely';
import { readWebhook, signedWith, type InboundMessage, type MessageStatus } from '../../channels/whatsapp-webhook.ts';
import type { Db } from '../../db/database.ts';
import type { ChangeWatch } from '../../db/change-watch.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { enqueueJob } from '../../db/repositories/jobs.ts';
import * as leads from '../../db/repositories/leads.ts';
import {
  findChannel,
  findConversation,
  findMessage,
  findOutboundByProviderId,
  findWebhookEvent,
  insertInbound,
  insertWebhookEvent,
  listWebhookChannels,
  moveMessage,
  touchConversation,
  type MessageRow,
} from '../../db/repositories/messaging.ts';
import { transact } from '../../db/transaction.ts';
import type { Database } from '../../db/types.ts';
import { normalizePhone } from '../../domain/leads/phone.ts';
import { nowRfc3339, toRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { recordEvent } from '../integrations/events.ts';
import { openSecret } from '../../secrets.ts';
import { answerViewingButton } from '../viewings/answers.ts';

/** WhatsApp's customer-service window: free-form replies within 24 hours of the lead's last message. */
export const WINDOW_MS = 24 * 60 * 60 * 1000;

/** Inbound kinds the assistant answers; a reaction or a system notice gets no answer. */
export const ANSWERED_KINDS = new Set([
  'text',
  'button',
  'interactive',
  'image',
  'audio',
  'video',
  'document',
  'sticker',
  'location',
  'contacts',
]);

interface WebhookChannel {
  businessId: number;
  phoneNumberId: string;
  appSecret: string | null;
  verifyToken: string | null;
}

/**
 * The channels that take webhooks, with their secrets opened, read again only when the change
 * stamp moved (db/change-watch.ts): a channel connected, changed or removed by this process is
 * seen by the next delivery, by another process within 1 s.
 */
export class WebhookChannels {
  private cached: { stamp: number; channels: WebhookChannel[] } | null = null;
  private loading: Promise<WebhookChannel[]> | null = null;

  constructor(
    private readonly db: Db,
    private readonly changes: ChangeWatch,
  ) {}

  async get(): Promise<WebhookChannel[]> {
    const stamp = this.changes.stamp();
    if (this.cached?.stamp === stamp) return this.cached.channels;
    this.loading ??= listWebhookChannels(this.db)
      .then((rows) => {
        const channels = rows.map((row) => ({
          businessId: row.business_id,
          phoneNumberId: row.phone_number_id,
          appSecret: row.app_secret === null ? null : openSecret(row.app_secret),
          verifyToken: row.verify_token === null ? null : openSecret(row.verify_token),
        }));
        this.cached = { stamp, channels };
        return channels;
      })
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest();

/**
 * Meta's verification handshake: `hub.challenge` when `hub.mode` is `subscribe` and
 * `hub.verify_token` is a connected channel's verify token.
 * @throws InmoError WEBHOOK_VERIFY (403) otherwise.
 */
export async function verifySubscription(channels: WebhookChannels, query: Record<string, unknown>): Promise<string> {
  const mode = query['hub.mode'];
  const token = query['hub.verify_token'];
  const challenge = query['hub.challenge'];
  if (mode !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string' || token === '') {
    throw new InmoError('WEBHOOK_VERIFY');
  }
  const given = sha256(token);
  let known = false;
  for (const channel of await channels.get()) {
    if (channel.verifyToken !== null && timingSafeEqual(sha256(channel.verifyToken), given)) known = true;
  }
  if (!known) throw new InmoError('WEBHOOK_VERIFY');
  return challenge;
}

/** What accepting a delivery did. */
export interface Accepted {
  /** Events stored (0 for a repeat, or when no number was known). */
  stored: number;
  /** Phone number ids of the payload that no channel signed by this secret has. */
  unknownNumbers: string[];
}

/**
 * Accepts a webhook delivery: checks the signature, routes it, stores it with its job.
 * @throws InmoError WEBHOOK_SIGNATURE (401) for a missing or wrong signature, before the body
 *   is read; BAD_REQUEST (400) for a signed body that is not JSON. Nothing is stored then.
 */
export async function acceptDelivery(
  db: Db,
  channels: WebhookChannels,
  rawBody: Buffer,
  signatureHeader: string | undefined,
): Promise<Accepted> {
  const all = (await channels.get()).filter((c) => c.appSecret !== null);
  const secrets = [...new Set(all.map((c) => c.appSecret!))];
  const signer = signedWith(rawBody, signatureHeader, secrets);
  if (signer === -1) throw new InmoError('WEBHOOK_SIGNATURE');
  let payload: unknown;
  try {
    payload = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new InmoError('BAD_REQUEST');
  }
  // Only the channels of the app that signed it: one app's delivery never reaches another's.
  const signedBy = all.filter((c) => c.appSecret === secrets[signer]);
  const businesses = new Set<number>();
  const unknownNumbers: string[] = [];
  for (const change of readWebhook(payload)) {
    const channel = signedBy.find((c) => c.phoneNumberId === change.phoneNumberId);
    if (channel) businesses.add(channel.businessId);
    else unknownNumbers.push(change.phoneNumberId);
  }
  if (businesses.size === 0) return { stored: 0, unknownNumbers };
  const body = rawBody.toString('utf8');
  const digest = sha256(rawBody).toString('hex');
  const now = nowRfc3339();
  const stored = await transact(db, async (trx) => {
    let count = 0;
    for (const businessId of businesses) {
      const eventId = await insertWebhookEvent(trx, { business_id: businessId, body_sha256: digest, body, received_at: now });
      if (eventId === undefined) continue;
      await enqueueJob(trx, { businessId, leadId: null, kind: 'process_webhook', payload: { event_id: eventId }, runAt: now, now });
      count++;
    }
    return count;
  });
  return { stored, unknownNumbers };
}

/** Order of outbound states; a status only moves a message forward. */
const RANK: Record<string, number> = { pending: 0, sending: 1, needs_reconciliation: 1, sent: 2, delivered: 3, read: 4 };

/**
 * Records a status on the outbound message it names (by inmo's id in the callback data, else
 * by WhatsApp's id). A message left `needs_reconciliation` by a crash is settled here.
 */
async function applyStatus(trx: Transaction<Database>, businessId: number, status: MessageStatus, now: string): Promise<void> {
  let message: MessageRow | undefined;
  if (status.callbackData !== null && /^\d{1,15}$/.test(status.callbackData)) {
    const named = await findMessage(trx, Number(status.callbackData));
    if (named && named.business_id === businessId && named.direction === 'out') message = named;
  }
  message ??= await findOutboundByProviderId(trx, businessId, status.id);
  if (!message || message.state === 'failed') return;
  const providerId = message.provider_message_id ?? status.id;
  if (status.status === 'failed') {
    if (message.state === 'delivered' || message.state === 'read') return;
    const moved = await moveMessage(trx, message.id, message.state, {
      state: 'failed',
      provider_message_id: providerId,
      last_error: `WhatsApp: ${status.error ?? 'failed'}`,
      updated_at: now,
    });
    if (moved) await recordMessageStatus(trx, message, 'failed', now);
    return;
  }
  if (RANK[status.status] <= (RANK[message.state] ?? 0)) return;
  const moved = await moveMessage(trx, message.id, message.state, {
    state: status.status,
    provider_message_id: providerId,
    sent_at: message.sent_at ?? status.at ?? now,
    last_error: null,
    updated_at: now,
  });
  if (moved) await recordMessageStatus(trx, message, status.status, now);
}

/** `message.status` (CONTRACT §13): WhatsApp moved an outbound message to `status`. */
async function recordMessageStatus(trx: Transaction<Database>, message: MessageRow, status: string, now: string): Promise<void> {
  await recordEvent(
    trx,
    message.business_id,
    'message.status',
    message.lead_id,
    { lead_id: message.lead_id, message_id: message.id, status },
    now,
  );
}

/** The lead who wrote from `waId`, created unnamed (source `whatsapp`) when there is none. */
async function leadOf(trx: Transaction<Database>, businessId: number, message: InboundMessage, now: string): Promise<number> {
  const phone = normalizePhone(`+${message.from}`) ?? `+${message.from}`;
  const existing = await leads.findLeadByPhone(trx, businessId, phone);
  if (existing) return existing.id;
  const id = await leads.insertLeadId(trx, {
    business_id: businessId,
    name: null,
    type: 'demandante',
    status: 'new',
    active: 1,
    rating: 3,
    captured_by: 'WhatsApp',
    source: 'whatsapp',
    phone_number_1: phone,
    created_at: now,
    updated_at: now,
  });
  const profile = message.profileName === null ? '' : ` Nombre en su perfil de WhatsApp: ${message.profileName}.`;
  await leads.insertNote(trx, id, `Escribió por WhatsApp antes de dejar sus datos.${profile}`, now);
  return id;
}

/** Attempts of a processing that keeps losing the race to create the same new lead. */
const MAX_ATTEMPTS = 5;

/**
 * Stores what one webhook event says for its business, in `finish`'s transaction: inbound
 * messages (each opening the 24-hour window and queueing an `assistant_reply`), leads for
 * unknown numbers, and statuses.
 * @param finish runs the effects in the transaction that completes the job.
 * @returns how many new inbound messages were stored.
 */
export async function processWebhookEvent(
  db: Db,
  eventId: number,
  now: () => string,
  finish: <T>(effects: (trx: Transaction<Database>) => Promise<T>) => Promise<T>,
): Promise<number> {
  const event = await findWebhookEvent(db, eventId);
  if (!event) return 0;
  const channel = await findChannel(db, event.business_id);
  if (!channel) return 0;
  const changes = readWebhook(JSON.parse(event.body)).filter((c) => c.phoneNumberId === channel.phone_number_id);
  for (let attempt = 1; ; attempt++) {
    try {
      return await finish(async (trx) => {
        const at = now();
        let stored = 0;
        for (const change of changes) {
          for (const message of change.messages) {
            const leadId = await leadOf(trx, event.business_id, message, at);
            const id = await insertInbound(trx, {
              business_id: event.business_id,
              lead_id: leadId,
              kind: message.kind,
              body: message.body,
              provider_message_id: message.id,
              sent_at: message.sentAt,
              created_at: at,
              updated_at: at,
            });
            if (id === undefined) continue;
            stored++;
            // The window runs from when the lead wrote, never from later than now.
            const wrote = message.sentAt !== null && message.sentAt < at ? message.sentAt : at;
            await touchConversation(trx, {
              leadId,
              businessId: event.business_id,
              at,
              windowOpenUntil: toRfc3339(new Date(Date.parse(wrote) + WINDOW_MS)),
            });
            // A quick-reply answer to a viewing's notice (CONTRACT §20) is applied, not answered.
            if (message.kind === 'button') {
              const reply = { payload: message.buttonPayload, text: message.body };
              if (await answerViewingButton(trx, event.business_id, leadId, reply, Date.parse(at))) continue;
            }
            const conversation = await findConversation(trx, leadId);
            if (ANSWERED_KINDS.has(message.kind) && conversation?.state === 'assistant') {
              await enqueueJob(trx, {
                businessId: event.business_id,
                leadId,
                kind: 'assistant_reply',
                // A list reply's row id says which slot was chosen (CONTRACT §20), and is stored nowhere else.
                payload: message.listReplyId ? { message_id: id, list_reply_id: message.listReplyId } : { message_id: id },
                runAt: at,
                now: at,
              });
            }
          }
          for (const status of change.statuses) await applyStatus(trx, event.business_id, status, at);
        }
        return stored;
      });
    } catch (error) {
      // Two events from one new number at once: the loser runs again and finds the lead.
      if (!isUniqueViolation(error) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}
