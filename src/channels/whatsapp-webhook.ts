/**
 * WhatsApp Cloud API webhooks (CONTRACT §10): the signature check and the reading of Meta's
 * payload. Pure functions; storing and acting on what arrived is services/messaging/whatsapp-inbound.ts.
 *
 * Meta posts `{"object": "whatsapp_business_account", "entry": [{"id": WABA_ID, "changes":
 * [{"field": "messages", "value": {...}}]}]}`, where `value` holds `metadata.phone_number_id`
 * (the business number the change concerns), and any of `contacts` (`profile.name`, `wa_id`),
 * `messages` (from the lead) and `statuses` (of messages sent to it). Each delivery is signed
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body, keyed with the app secret>`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { toRfc3339 } from '../domain/time.ts';

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/**
 * Which of `secrets` signed `rawBody`, comparing in constant time; -1 for none (or a missing
 * or malformed header). Every secret is tried, so the time taken does not say which matched.
 */
export function signedWith(rawBody: Buffer, header: string | undefined, secrets: readonly string[]): number {
  const match = header === undefined ? null : SIGNATURE.exec(header.trim());
  if (!match) return -1;
  const given = Buffer.from(match[1].toLowerCase(), 'hex');
  let found = -1;
  secrets.forEach((secret, index) => {
    const expected = createHmac('sha256', secret).update(rawBody).digest();
    if (timingSafeEqual(expected, given) && found === -1) found = index;
  });
  return found;
}

/** The `X-Hub-Signature-256` value of a body (for tests and for clients replaying deliveries). */
export function signature(rawBody: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/** An inbound message, as inmo stores it. */
export interface InboundMessage {
  /** WhatsApp message id (`wamid.…`). */
  id: string;
  /** The sender's WhatsApp id: their number, digits only. */
  from: string;
  /** When WhatsApp says it was sent, canonical RFC 3339 (null when the payload has no usable time). */
  sentAt: string | null;
  /** `text`, `button`, `interactive`, or WhatsApp's other type (`image`, `audio`, `location`, …). */
  kind: string;
  /** What it says: the text, the button's or list row's title, a media caption, a location's name. */
  body: string | null;
  /** The sender's WhatsApp profile name, from `contacts`. */
  profileName: string | null;
  /** The id of the row a list reply chose (`interactive.list_reply.id`), else null. */
  listReplyId: string | null;
  /** A template's quick-reply button reply (`button`): the payload the send gave the button, else null. */
  buttonPayload: string | null;
}

/** A status of an outbound message. */
export interface MessageStatus {
  /** WhatsApp message id of the outbound message. */
  id: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  at: string | null;
  /** inmo's message id, echoed from the send's `biz_opaque_callback_data`. */
  callbackData: string | null;
  /** `code title` of the first error of a failed status. */
  error: string | null;
}

/** What one `value` of the payload says about one business number. */
export interface WebhookChange {
  phoneNumberId: string;
  messages: InboundMessage[];
  statuses: MessageStatus[];
}

const STATUSES = new Set(['sent', 'delivered', 'read', 'failed']);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asText = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

/** WhatsApp's Unix-seconds timestamp in inmo's canonical RFC 3339 form, or null. */
function fromUnixSeconds(value: unknown): string | null {
  const seconds = typeof value === 'string' && /^\d{1,12}$/.test(value) ? Number(value) : typeof value === 'number' ? value : NaN;
  // Whole seconds within four-digit years: anything else would not sort as canonical text.
  if (!Number.isInteger(seconds) || seconds <= 0 || seconds > 253_402_300_799) return null;
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? null : toRfc3339(date);
}

/** The text of an inbound message of any type. */
function bodyOf(message: Json, kind: string): string | null {
  const part = isObject(message[kind]) ? (message[kind] as Json) : {};
  switch (kind) {
    case 'text':
      return asText(part.body);
    case 'button':
      return asText(part.text) ?? asText(part.payload);
    case 'interactive': {
      const reply = isObject(part.button_reply) ? part.button_reply : isObject(part.list_reply) ? part.list_reply : {};
      return asText(reply.title) ?? asText(reply.id);
    }
    case 'location':
      return asText(part.name) ?? asText(part.address);
    case 'reaction':
      return asText(part.emoji);
    default:
      return asText(part.caption);
  }
}

/** The row id of a list reply, or null. */
function listReplyId(message: Json, kind: string): string | null {
  const part = kind === 'interactive' && isObject(message.interactive) ? message.interactive : {};
  return isObject(part.list_reply) ? asText(part.list_reply.id) : null;
}

/**
 * Reads the changes of a webhook payload, keeping what inmo uses and skipping what it cannot
 * read (a message without an id or sender, a status of another kind).
 * @returns one change per `value` with a phone number id; [] for another `object`.
 */
export function readWebhook(payload: unknown): WebhookChange[] {
  if (!isObject(payload) || payload.object !== 'whatsapp_business_account') return [];
  const changes: WebhookChange[] = [];
  for (const entry of asArray(payload.entry)) {
    if (!isObject(entry)) continue;
    for (const change of asArray(entry.changes)) {
      if (!isObject(change) || !isObject(change.value)) continue;
      const value = change.value;
      const phoneNumberId = isObject(value.metadata) ? asText(value.metadata.phone_number_id) : null;
      if (phoneNumberId === null) continue;
      const names = new Map<string, string>();
      for (const contact of asArray(value.contacts)) {
        if (!isObject(contact)) continue;
        const waId = asText(contact.wa_id);
        const name = isObject(contact.profile) ? asText(contact.profile.name) : null;
        if (waId !== null && name !== null) names.set(waId, name);
      }
      const messages: InboundMessage[] = [];
      for (const message of asArray(value.messages)) {
        if (!isObject(message)) continue;
        const id = asText(message.id);
        const from = typeof message.from === 'string' ? message.from.replace(/\D/g, '') : '';
        const kind = asText(message.type) ?? 'unknown';
        if (id === null || from === '') continue;
        messages.push({
          id,
          from,
          sentAt: fromUnixSeconds(message.timestamp),
          kind,
          body: bodyOf(message, kind),
          profileName: names.get(from) ?? null,
          listReplyId: listReplyId(message, kind),
          buttonPayload: kind === 'button' && isObject(message.button) ? asText(message.button.payload) : null,
        });
      }
      const statuses: MessageStatus[] = [];
      for (const status of asArray(value.statuses)) {
        if (!isObject(status)) continue;
        const id = asText(status.id);
        const state = asText(status.status);
        if (id === null || state === null || !STATUSES.has(state)) continue;
        const error = asArray(status.errors).find(isObject);
        statuses.push({
          id,
          status: state as MessageStatus['status'],
          at: fromUnixSeconds(status.timestamp),
          callbackData: asText(status.biz_opaque_callback_data),
          error: error
            ? [error.code, error.title ?? error.message].filter((x) => x !== undefined && x !== null).join(' ') || 'failed'
            : null,
        });
      }
      changes.push({ phoneNumberId, messages, statuses });
    }
  }
  return changes;
}
