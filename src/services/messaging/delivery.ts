/**
 * The one delivery path of the outbox (issue 56; CONTRACT §7, §10, §19): a queued message to a
 * person (services/messaging/outbox.ts), whatever its purpose, sent at most once through the
 * channel adapters (channels/whatsapp-cloud.ts, channels/email-smtp.ts), with the send-once claim
 * in one place ({@link claimSend}). The message row moves through
 *
 *     pending ──▶ sending ──▶ sent | failed | needs_reconciliation
 *        ▲           │
 *        └───────────┘  429 / 5xx / 4xx of SMTP / no connection: retried with backoff
 *
 * and `sending` is committed *before* the provider is called. A run that finds a message already
 * `sending` therefore knows an earlier run died between the call and its record: the message may
 * have gone out, so it is marked `needs_reconciliation` and never sent again (a WhatsApp status
 * webhook, which carries inmo's message id in `biz_opaque_callback_data`, settles it later,
 * services/messaging/whatsapp-inbound.ts). The provider's answer is recorded guarded by the
 * message state, not the job lease, so an answer is never thrown away.
 *
 * What the message says is written at the claim by its purpose (purposes/): a template's
 * parameters (a viewing notice's, a digest's page link), an e-mail's words and its one-click
 * unsubscribe link (RFC 8058, services/messaging/unsubscribe.ts), and an e-mail's `Message-ID`,
 * kept in `provider_message_id` with `sending` so that an answer naming it finds its lead
 * (services/messaging/email-replies.ts).
 *
 * Nothing is sent to a lead who opted out; by WhatsApp nothing to a lead whose newest consent
 * refuses it (CONTRACT §18), and a free-form text only inside the lead's 24-hour
 * customer-service window (WhatsApp's rule); by e-mail nothing when the business sends no e-mail
 * any more: such a message fails visibly instead. A template refused for good is replaced by an
 * e-mail where its purpose says so (the welcome, a viewing's notice).
 */
import type { Transaction } from 'kysely';
import { newMessageId, sendEmail } from '../../channels/email-smtp.ts';
import { sendWhatsAppMessage, type OutboundMessage } from '../../channels/whatsapp-cloud.ts';
import { emailOutSettings, type OutboundPolicy } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import { findLead, refusesWhatsApp } from '../../db/repositories/leads.ts';
import {
  findChannel,
  findConversation,
  findMessage,
  moveMessage,
  setMessageBody,
  type MessageRow,
} from '../../db/repositories/messaging.ts';
import { transact } from '../../db/transaction.ts';
import type { Database } from '../../db/types.ts';
import { readStoredList } from '../../domain/messaging/viewing-offer.ts';
import { observeSend } from '../../metrics.ts';
import { openSecret } from '../../secrets.ts';
import { emailSenderOf, fromHeader, type EmailSender } from './email.ts';
import { purposeOf, type Purpose } from './purposes/index.ts';
import { newUnsubscribeLink } from './unsubscribe.ts';

export const INTERRUPTED =
  'the worker stopped between calling the provider and recording its answer: the message may have been sent; ' +
  'its status from WhatsApp settles it, else check the WhatsApp Business Manager before contacting this lead';

export const INTERRUPTED_EMAIL =
  'the worker stopped between handing the e-mail to the SMTP server and recording its answer: it may have been sent; ' +
  "check the server's log before writing to this lead again";

/**
 * What a delivery needs from whoever runs it (the worker's job, jobs/tasks/send-message.ts; or
 * `inmo alerts run`, services/leads/alerts.ts).
 */
export interface DeliveryContext {
  db: Db;
  /** The current instant, canonical RFC 3339. */
  now(): string;
  /** Where the provider calls may go (config.ts). */
  outbound: OutboundPolicy;
  /** How long a provider call may take before its outcome is unknown, ms. */
  sendTimeoutMs: number;
  /** Runs of this delivery so far, this one included (a refusal's "gave up after n attempts"). */
  attempts: number;
  /** Whether a send that may be retried fails for good instead (the job's last attempt). */
  finalAttempt: boolean;
  /** Called at the places a crash test may kill the process (jobs/failpoints.ts): `message:sending`, `message:called`. */
  failpoint?(name: string): void;
}

/** The states of a message that went out (WhatsApp's statuses move a sent message on). */
const WENT_OUT = ['sent', 'delivered', 'read'];

/**
 * Sends now, once each, messages a command has just queued (`inmo alerts run`, `inmo owners report
 * run`), as the worker would (one attempt; a failure is left to the message's job, which retries it).
 * @returns how many went out, and why the others did not (each message's `last_error`, once each).
 */
export async function deliverNow(
  db: Db,
  messageIds: readonly number[],
  options: { outbound: OutboundPolicy; sendTimeoutMs: number; now(): string },
): Promise<{ sent: number; errors: string[] }> {
  const ctx: DeliveryContext = { db, ...options, attempts: 1, finalAttempt: false };
  let sent = 0;
  const errors = new Set<string>();
  for (const messageId of messageIds) {
    try {
      await deliverQueuedMessage(ctx, messageId);
    } catch {
      // Not sent now: its job retries it (the message says why).
    }
    const message = await findMessage(db, messageId);
    if (WENT_OUT.includes(message?.state ?? '')) sent++;
    else if (message?.last_error) errors.add(message.last_error);
  }
  return { sent, errors: [...errors] };
}

/** The message failed for good (it is `failed`): the job that sends it is parked, not retried. */
export class SendRefusedError extends Error {}

/**
 * Sends the queued message `messageId` unless it was claimed before, by its channel (`email`, else
 * WhatsApp), and records the answer; a template refused for good is replaced by its purpose's
 * e-mail, sent at once. Safe to run again after a crash at any point.
 * @throws SendRefusedError when it failed for good (and nothing replaced it); an Error to be
 *   retried later when the provider certainly did not take it.
 */
export async function deliverQueuedMessage(ctx: DeliveryContext, messageId: number): Promise<void> {
  const message = await findMessage(ctx.db, messageId);
  if (!message) return;
  const purpose = await purposeOf(ctx.db, message);
  if (message.kind === 'email') return deliverEmail(ctx, messageId, purpose);
  let refused: unknown = null;
  try {
    await deliverWhatsApp(ctx, messageId, purpose);
  } catch (error) {
    if (!(error instanceof SendRefusedError) || !purpose.replace) throw error;
    refused = error;
  }
  if (!purpose.replace) return;
  // Only a template that certainly did not go out is replaced.
  const replacement = (await findMessage(ctx.db, messageId))?.state === 'failed' ? await purpose.replace(ctx.db, message, ctx.now()) : null;
  if (replacement === null) {
    if (refused) throw refused;
    return;
  }
  await deliverEmail(ctx, replacement, purpose);
}

/**
 * A parked delivery leaves no message half-way: one left `sending` may have gone out (needs
 * reconciliation), one still `pending` never will (failed); and the same for the e-mail queued in
 * its place, if any.
 */
export async function settleParkedMessage(db: Db, messageId: number, reason: string, now: string): Promise<void> {
  const message = await findMessage(db, messageId);
  if (!message) return;
  await settle(db, message, reason, now);
  const replacement = await (await purposeOf(db, message)).replacementOf?.(db, message);
  const stand = replacement ? await findMessage(db, replacement) : undefined;
  if (stand) await settle(db, stand, reason, now);
}

async function settle(db: Db, message: MessageRow, reason: string, now: string): Promise<void> {
  const interrupted = message.kind === 'email' ? INTERRUPTED_EMAIL : INTERRUPTED;
  await moveMessage(db, message.id, 'sending', { state: 'needs_reconciliation', last_error: interrupted, updated_at: now });
  await moveMessage(db, message.id, 'pending', { state: 'failed', last_error: `the job was parked: ${reason}`, updated_at: now });
}

/**
 * The claim, the one place a send is decided (both channels): a message found `sending` is marked
 * `needs_reconciliation`; one no longer `pending` is left; else `prepare` (the channel's) fails it
 * with a refusal or writes what it says, and it moves to `sending`, committed before the provider
 * is called.
 * @returns the plan, or null when nothing is to be sent.
 */
async function claimSend<P>(
  ctx: DeliveryContext,
  messageId: number,
  interrupted: string,
  prepare: (
    trx: Transaction<Database>,
    message: MessageRow,
    fail: (reason: string) => Promise<null>,
  ) => Promise<{ plan: P; claim: ClaimWrite } | null>,
): Promise<P | null> {
  return transact(ctx.db, async (trx) => {
    const message = await findMessage(trx, messageId);
    if (!message) return null;
    const now = ctx.now();
    if (message.state === 'sending') {
      await moveMessage(trx, messageId, 'sending', { state: 'needs_reconciliation', last_error: interrupted, updated_at: now });
      return null;
    }
    if (message.state !== 'pending') return null;
    const fail = async (reason: string) => {
      await moveMessage(trx, messageId, 'pending', { state: 'failed', last_error: reason, updated_at: now });
      return null;
    };
    const prepared = await prepare(trx, message, fail);
    if (prepared === null) return null;
    const claimed = await moveMessage(trx, messageId, 'pending', { state: 'sending', ...prepared.claim, updated_at: now });
    return claimed ? prepared.plan : null;
  });
}

/** What the claim writes with `sending`: an e-mail's text and `Message-ID`. */
type ClaimWrite = { body?: string | null; provider_message_id?: string | null };

/** Sends a WhatsApp message (a template, a text inside the window, a list). */
async function deliverWhatsApp(ctx: DeliveryContext, messageId: number, purpose: Purpose): Promise<void> {
  const plan = await claimSend(ctx, messageId, INTERRUPTED, async (trx, message, fail) => {
    const channel = await findChannel(trx, message.business_id);
    if (!channel) return fail('the channel is no longer connected');
    if ((await findConversation(trx, message.lead_id))?.state === 'opted_out') return fail('the lead opted out of messages');
    const refused = await whatsAppRefusal(trx, message, ctx.now());
    if (refused !== null) return fail(refused);
    let said = content(message);
    if (said.type === 'template') {
      const unwanted = (await purpose.stillWanted?.(trx, message)) ?? null;
      if (unwanted !== null) return fail(unwanted);
      // What the template says is written now, by its purpose (a notice's facts, a digest's page link).
      const written = await purpose.template?.(trx, message, ctx.now());
      if (written && 'refused' in written) return fail(written.refused);
      if (written) {
        said = { ...said, parameters: written.parameters, ...(written.buttons ? { buttons: written.buttons } : {}) };
        await setMessageBody(trx, messageId, written.summary);
      }
    }
    return { plan: { channel, message, content: said }, claim: {} };
  });
  if (plan === null) return;
  const { channel, message } = plan;
  let accessToken: string;
  try {
    accessToken = openSecret(channel.access_token);
  } catch (error) {
    // Not sent (the provider was never called): the message fails visibly, nothing to reconcile.
    await transact(ctx.db, (trx) =>
      moveMessage(trx, messageId, 'sending', { state: 'failed', last_error: (error as Error).message, updated_at: ctx.now() }),
    );
    throw new SendRefusedError((error as Error).message);
  }
  ctx.failpoint?.('message:sending');
  const outcome = await sendWhatsAppMessage(
    {
      baseUrl: channel.base_url,
      phoneNumberId: channel.phone_number_id,
      accessToken,
      to: message.recipient ?? '',
      callbackData: String(message.id),
      content: plan.content,
    },
    { outbound: ctx.outbound, timeoutMs: ctx.sendTimeoutMs },
  );
  await recordSendOutcome(ctx, messageId, outcome, 'the provider rejected the message');
}

/** Why a pending WhatsApp message may not be sent now (consent, the 24-hour window), or null when it may. */
async function whatsAppRefusal(trx: Transaction<Database>, message: MessageRow, now: string): Promise<string | null> {
  if (await refusesWhatsApp(trx, message.lead_id)) return 'the lead did not consent to WhatsApp messages';
  if (message.kind !== 'template') {
    const until = (await findConversation(trx, message.lead_id))?.window_open_until ?? null;
    if (until === null || until <= now) {
      return `outside WhatsApp's 24-hour customer-service window${until === null ? '' : ` (it closed at ${until})`}`;
    }
  }
  return null;
}

/** What a WhatsApp message says as queued: its template, its list (domain/messaging/viewing-offer.ts), or its text. */
function content(message: MessageRow): OutboundMessage['content'] {
  // An interactive list keeps its rows where a template keeps its name.
  const list = message.kind === 'interactive' ? readStoredList(message.template) : null;
  if (list) return { type: 'list', ...list };
  return message.kind === 'template'
    ? { type: 'template', template: message.template ?? '', language: message.language ?? 'es' }
    : { type: 'text', body: message.body ?? '' };
}

/** Sends an e-mail message, its words written at the claim by its purpose. */
async function deliverEmail(ctx: DeliveryContext, messageId: number, purpose: Purpose): Promise<void> {
  const plan = await claimSend(ctx, messageId, INTERRUPTED_EMAIL, async (trx, message, fail) => {
    if (message.kind !== 'email') return null;
    if ((await findConversation(trx, message.lead_id))?.state === 'opted_out') return fail('the lead opted out of messages');
    const now = ctx.now();
    const [lead, business] = await Promise.all([findLead(trx, message.lead_id), findBusiness(trx, message.business_id)]);
    if (!lead || !business || message.recipient === null) return fail('the lead is gone');
    let sender: EmailSender | null;
    try {
      sender = await emailSenderOf(trx, message.business_id);
    } catch (error) {
      // A password sealed with another key, or a malformed INMO_SMTP_URL: not sent, nothing to reconcile.
      return fail((error as Error).message);
    }
    if (!sender) return fail('the business no longer sends e-mail');
    const unwanted = (await purpose.stillWanted?.(trx, message)) ?? null;
    if (unwanted !== null) return fail(unwanted);
    const emailId = newMessageId(sender.from);
    const { publicUrl } = emailOutSettings();
    const unsubscribeUrl = purpose.unsubscribe ? await newUnsubscribeLink(trx, message.business_id, message.lead_id, publicUrl, now) : null;
    const words = await purpose.email(trx, message, { businessName: business.name, leadName: lead.name, unsubscribeUrl, publicUrl, now });
    if ('refused' in words) return fail(words.refused);
    const headers: Record<string, string> = { ...words.headers };
    if (unsubscribeUrl !== null)
      Object.assign(headers, { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });
    const plan = {
      sender,
      to: message.recipient,
      from: fromHeader(sender, business.name),
      replyTo: words.replyTo === undefined ? sender.replyTo : words.replyTo,
      subject: words.subject,
      text: words.text,
      html: words.html,
      headers,
      emailId,
    };
    return {
      plan,
      claim: words.keepsBody ? { provider_message_id: emailId } : { body: words.storedBody ?? words.text, provider_message_id: emailId },
    };
  });
  if (plan === null) return;
  ctx.failpoint?.('message:sending');
  const outcome = await sendEmail(
    plan.sender.target,
    {
      from: plan.from,
      replyTo: plan.replyTo,
      to: plan.to,
      subject: plan.subject,
      text: plan.text,
      html: plan.html,
      headers: plan.headers,
      messageId: plan.emailId,
    },
    { outbound: ctx.outbound, timeoutMs: ctx.sendTimeoutMs },
  );
  await recordSendOutcome(ctx, messageId, outcome, 'the SMTP server refused the e-mail');
}

/**
 * What a send's outcome makes of its message (CONTRACT §7, send-once), whichever channel sent it:
 * `sent`, `needs_reconciliation` when the outcome is unknown, `failed` when refused for good or out
 * of attempts, else `pending` again. Recorded on its own, guarded by the message still being
 * `sending` rather than by a job's lease: an answer is never thrown away, and a status webhook that
 * came first has already moved it on, and is not undone.
 * @param rejected the words of a refusal, before the provider's own.
 * @throws SendRefusedError when the message failed for good; Error to retry after a backoff.
 */
async function recordSendOutcome(
  ctx: DeliveryContext,
  messageId: number,
  outcome: { kind: 'sent'; messageId: string | null } | { kind: 'unknown' | 'rejected' | 'retry'; error: string },
  rejected: string,
): Promise<void> {
  ctx.failpoint?.('message:called');
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
      throw new SendRefusedError(`${rejected}: ${outcome.error}`);
    case 'retry': {
      if (ctx.finalAttempt) {
        const error = `gave up after ${ctx.attempts} attempts: ${outcome.error}`;
        await record({ state: 'failed', last_error: error });
        throw new SendRefusedError(error);
      }
      // Certainly not sent: back to pending, and the job is retried after its backoff.
      await record({ state: 'pending', last_error: outcome.error });
      throw new Error(outcome.error);
    }
  }
}
