/**
 * The outbox (issue 56): the one place a message to a person is queued, whatever its purpose
 * (purposes/: the welcome, a reply, a viewing's notice or reminder, an alert digest, listings sent
 * by hand) and channel (WhatsApp or e-mail). {@link queueMessage} writes the message row, `pending`,
 * and the `send_message` job that sends it, in the caller's transaction, so a message is queued
 * with the change that calls for it or not at all; services/messaging/delivery.ts sends it once.
 *
 * Two messages are queued elsewhere, by the same row and the same delivery: the welcome, written
 * with the lead (services/leads/intake.ts, and in one statement on PostgreSQL,
 * db/repositories/new-lead-statement.ts) and sent by its `send_welcome` job, and the assistant's
 * answer, written by the `assistant_reply` job that sends it (`job: false` here).
 */
import type { Executor } from '../../db/database.ts';
import { enqueueJob } from '../../db/repositories/jobs.ts';
import { insertOutbound } from '../../db/repositories/messaging.ts';
import type { PurposeName } from './purposes/purpose.ts';

/** The `author` of each purpose's messages (a reply's is its writer's). */
const AUTHORS: { readonly [N in PurposeName]: string } = {
  welcome: 'welcome',
  reply: 'agent',
  'viewing-notice': 'viewing',
  'viewing-reminder': 'viewing',
  'alert-digest': 'alert',
  'hand-send': 'agent',
  'mandate-link': 'mandate',
  'owner-report': 'owner_report',
};

/** A message to queue. */
export interface QueuedMessage {
  /** The person it goes to. */
  lead: { id: number; business_id: number };
  purpose: PurposeName;
  /** `template` or `text` (WhatsApp), `interactive` (a WhatsApp list), `email`. */
  kind: 'template' | 'text' | 'interactive' | 'email';
  /** The phone (E.164) or e-mail address it goes to. */
  recipient: string | null;
  /** The template's name, or a list's stored rows (domain/messaging/viewing-offer.ts). */
  template?: string | null;
  /** The language code of its template or e-mail. */
  language?: string | null;
  /** What it says, when written now (a text, an agent's e-mail); else written at the claim. */
  body?: string | null;
  /** A reply's writer, when not an agent (`assistant`, or `viewing` for a notice's answer). */
  author?: string;
  /** The inbound message a reply answers (one reply each: a partial unique index). */
  replyTo?: number;
  /** The listings it lists, in its order (JSON of ids), for a reply that lists them. */
  listings?: string | null;
  /** The instant it is queued, canonical RFC 3339. */
  at: string;
  /** When its job is due; `at` unless said. */
  sendAt?: string;
  /** False when the caller's own job sends it (the assistant's answer); else a `send_message` job is queued. */
  job?: boolean;
}

/**
 * Queues a message to a person in `trx`: its row (`pending`) and, unless `job` is false, the
 * `send_message` job that sends it (services/messaging/delivery.ts).
 * @returns the message's id; undefined when a reply to that inbound message is queued already.
 */
export async function queueMessage(trx: Executor, message: QueuedMessage): Promise<number | undefined> {
  const id = await insertOutbound(trx, {
    business_id: message.lead.business_id,
    lead_id: message.lead.id,
    kind: message.kind,
    author: message.author ?? AUTHORS[message.purpose],
    template: message.template ?? null,
    language: message.language ?? null,
    body: message.body ?? null,
    recipient: message.recipient,
    ...(message.replyTo === undefined ? {} : { reply_to: message.replyTo }),
    ...(message.listings === undefined ? {} : { listings: message.listings }),
    created_at: message.at,
    updated_at: message.at,
  });
  if (id === undefined || message.job === false) return id;
  await enqueueJob(trx, {
    businessId: message.lead.business_id,
    leadId: message.lead.id,
    kind: 'send_message',
    payload: { message_id: id },
    runAt: message.sendAt ?? message.at,
    now: message.at,
  });
  return id;
}
