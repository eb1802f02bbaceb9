/**
 * Delivery of one outbound message over the business's WhatsApp channel, sent at most once
 * (CONTRACT §7, §10). The welcome template, the assistant's replies, agents' replies, the
 * viewings' notices (CONTRACT §20: their parameters and buttons written at the claim,
 * services/viewings/notices.ts) and the alert digests' `property_alert` templates (CONTRACT §21:
 * their parameters and page link written at the claim, only while the lead takes alerts,
 * services/leads/alert-pages.ts) all go through here.
 *
 * The message row moves through
 *
 *     pending ──▶ sending ──▶ sent | failed | needs_reconciliation
 *        ▲           │
 *        └───────────┘  429 / 5xx / no connection: retried with backoff
 *
 * and `sending` is committed *before* the provider is called. A run that finds a message
 * already `sending` therefore knows an earlier run died between the call and its record: the
 * message may have gone out, so it is marked `needs_reconciliation` and never sent again;
 * its status webhook, which carries inmo's message id in `biz_opaque_callback_data`, settles
 * it later (services/messaging/whatsapp-inbound.ts). Later statuses (`delivered`, `read`) arrive the same way.
 *
 * Nothing is sent to a lead who opted out or whose newest consent refuses WhatsApp (CONTRACT
 * §18), and a free-form text only inside the lead's
 * 24-hour customer-service window (WhatsApp's rule): such a message fails visibly instead.
 */
import type { Transaction } from 'kysely';
import { sendWhatsAppMessage, type OutboundMessage } from '../channels/whatsapp-cloud.ts';
import type { Db } from '../db/database.ts';
import { findChannel, findConversation, findMessage, moveMessage, type ChannelRow, type MessageRow } from '../db/repositories/messaging.ts';
import { refusesWhatsApp } from '../db/repositories/leads.ts';
import { transact } from '../db/transaction.ts';
import type { Database } from '../db/types.ts';
import { observeSend } from '../metrics.ts';
import { openSecret } from '../secrets.ts';
import { VIEWING_AUTHOR, viewingTemplate } from '../services/viewings/notices.ts';
import { alertTemplate } from '../services/leads/alert-pages.ts';
import { ALERT_AUTHOR } from '../domain/leads/alerts.ts';
import { emailOutSettings } from '../config.ts';
import { failpoint } from './failpoints.ts';
import { readStoredList } from '../domain/messaging/viewing-offer.ts';
import { PermanentJobError, type TaskContext } from './task.ts';

export const INTERRUPTED =
  'the worker stopped between calling the provider and recording its answer: the message may have been sent; ' +
  'its status from WhatsApp settles it, else check the WhatsApp Business Manager before contacting this lead';

export const INTERRUPTED_EMAIL =
  'the worker stopped between handing the e-mail to the SMTP server and recording its answer: it may have been sent; ' +
  "check the server's log before writing to this lead again";

/** What the claim decided. */
type Plan = { send: false } | { send: true; channel: ChannelRow; message: MessageRow; content: OutboundMessage['content'] };

/** Why a pending message may not be sent now, or null when it may. */
async function refusal(trx: Transaction<Database>, message: MessageRow, now: string): Promise<string | null> {
  const conversation = await findConversation(trx, message.lead_id);
  if (conversation?.state === 'opted_out') return 'the lead opted out of messages';
  if (await refusesWhatsApp(trx, message.lead_id)) return 'the lead did not consent to WhatsApp messages';
  if (message.kind !== 'template') {
    const until = conversation?.window_open_until ?? null;
    if (until === null || until <= now) {
      return `outside WhatsApp's 24-hour customer-service window${until === null ? '' : ` (it closed at ${until})`}`;
    }
  }
  return null;
}

/** One transaction: claim the send by moving the message from `pending` to `sending`. */
async function claimSend(ctx: TaskContext, trx: Transaction<Database>, messageId: number): Promise<Plan> {
  const message = await findMessage(trx, messageId);
  if (!message) return { send: false };
  if (message.state === 'sending') {
    await moveMessage(trx, messageId, 'sending', { state: 'needs_reconciliation', last_error: INTERRUPTED, updated_at: ctx.now() });
    return { send: false };
  }
  if (message.state !== 'pending') return { send: false };
  const channel = await findChannel(trx, message.business_id);
  const refused = channel ? await refusal(trx, message, ctx.now()) : 'the channel is no longer connected';
  if (refused !== null) {
    await moveMessage(trx, messageId, 'pending', { state: 'failed', last_error: refused, updated_at: ctx.now() });
    return { send: false };
  }
  let said = content(message);
  if (message.author === VIEWING_AUTHOR && said.type === 'template') {
    // A viewing's notice says what holds when it is sent (services/viewings/notices.ts).
    const notice = await viewingTemplate(trx, message, ctx.now());
    if ('refused' in notice) {
      await moveMessage(trx, messageId, 'pending', { state: 'failed', last_error: notice.refused, updated_at: ctx.now() });
      return { send: false };
    }
    said = { ...said, parameters: notice.parameters, buttons: notice.buttons };
    await trx.updateTable('messages').set({ body: notice.summary }).where('id', '=', messageId).execute();
  }
  if (message.author === ALERT_AUTHOR && said.type === 'template') {
    // An alert digest's template links its page, made now (services/leads/alert-pages.ts).
    const alert = await alertTemplate(trx, message, emailOutSettings().publicUrl);
    if ('refused' in alert) {
      await moveMessage(trx, messageId, 'pending', { state: 'failed', last_error: alert.refused, updated_at: ctx.now() });
      return { send: false };
    }
    said = { ...said, parameters: alert.parameters };
    await trx.updateTable('messages').set({ body: alert.summary }).where('id', '=', messageId).execute();
  }
  if (!(await moveMessage(trx, messageId, 'pending', { state: 'sending', updated_at: ctx.now() }))) return { send: false };
  return { send: true, channel: channel!, message, content: said };
}

function content(message: MessageRow): OutboundMessage['content'] {
  // An interactive list keeps its rows where a template keeps its name (domain/messaging/viewing-offer.ts).
  const list = message.kind === 'interactive' ? readStoredList(message.template) : null;
  if (list) return { type: 'list', ...list };
  return message.kind === 'template'
    ? { type: 'template', template: message.template ?? '', language: message.language ?? 'es' }
    : { type: 'text', body: message.body ?? '' };
}

/**
 * Sends the message `messageId` unless it was claimed before; records the provider's answer.
 * Safe to run again after a crash at any point.
 * @throws PermanentJobError when the provider rejects it or retries run out (the message is
 *   `failed`); an Error to be retried later when the provider certainly did not take it.
 */
export async function deliverMessage(ctx: TaskContext, messageId: number): Promise<void> {
  const plan = await transact(ctx.db, (trx) => claimSend(ctx, trx, messageId));
  if (!plan.send) return;
  const { channel, message, content } = plan;
  let accessToken: string;
  try {
    accessToken = openSecret(channel.access_token);
  } catch (error) {
    // Not sent (the provider was never called): the message fails visibly, nothing to reconcile.
    await transact(ctx.db, (trx) =>
      moveMessage(trx, messageId, 'sending', { state: 'failed', last_error: (error as Error).message, updated_at: ctx.now() }),
    );
    throw new PermanentJobError((error as Error).message);
  }
  failpoint('message:sending');

  const outcome = await sendWhatsAppMessage(
    {
      baseUrl: channel.base_url,
      phoneNumberId: channel.phone_number_id,
      accessToken,
      to: message.recipient ?? '',
      callbackData: String(message.id),
      content,
    },
    { outbound: ctx.outbound, timeoutMs: ctx.settings.sendTimeoutMs },
  );
  await recordSendOutcome(ctx, messageId, outcome, 'the provider rejected the message');
}

/**
 * What a send's outcome makes of its message (CONTRACT §7, send-once), whichever channel sent
 * it (WhatsApp here, e-mail in jobs/deliver-email.ts): `sent`, `needs_reconciliation` when the
 * outcome is unknown, `failed` when refused for good or out of attempts, else `pending` again.
 * The answer is recorded on its own, guarded by the message still being `sending` rather than
 * by this worker's lease: an answer is never thrown away, and a status webhook that came first
 * has already moved it on, and is not undone.
 * @param rejected the words of a refusal, before the provider's own (`the provider rejected the message`).
 * @throws PermanentJobError when the message failed for good; Error to retry the job after its backoff.
 */
export async function recordSendOutcome(
  ctx: TaskContext,
  messageId: number,
  outcome: { kind: 'sent'; messageId: string | null } | { kind: 'unknown' | 'rejected' | 'retry'; error: string },
  rejected: string,
): Promise<void> {
  failpoint('message:called');
  observeSend(outcome.kind);
  const now = ctx.now();
  const record = (to: { state: string; provider_message_id?: string | null; last_error: string | null; sent_at?: string }) =>
    transact(ctx.db, (trx) => moveMessage(trx, messageId, 'sending', { ...to, updated_at: now }));
  switch (outcome.kind) {
    case 'sent':
      await record({ state: 'sent', provider_message_id: outcome.messageId, last_error: null, sent_at: now });
      return;
    case 'unknown':
      await record({ state: 'needs_reconciliation', last_error: outcome.error });
      return;
    case 'rejected':
      await record({ state: 'failed', last_error: outcome.error });
      throw new PermanentJobError(`${rejected}: ${outcome.error}`);
    case 'retry': {
      if (ctx.finalAttempt) {
        const error = `gave up after ${ctx.job.attempts} attempts: ${outcome.error}`;
        await record({ state: 'failed', last_error: error });
        throw new PermanentJobError(error);
      }
      // Certainly not sent: back to pending, and the job is retried after its backoff.
      await record({ state: 'pending', last_error: outcome.error });
      throw new Error(outcome.error);
    }
  }
}

/**
 * A parked delivery leaves no message half-way: one left `sending` may have gone out (needs
 * reconciliation), one still `pending` never will (failed). `interrupted` says why for the
 * first (WhatsApp's wording unless an e-mail's is given).
 */
export async function settleParkedDelivery(
  db: Db,
  messageId: number,
  reason: string,
  now: string,
  interrupted: string = INTERRUPTED,
): Promise<void> {
  await moveMessage(db, messageId, 'sending', { state: 'needs_reconciliation', last_error: interrupted, updated_at: now });
  await moveMessage(db, messageId, 'pending', { state: 'failed', last_error: `the job was parked: ${reason}`, updated_at: now });
}
