/**
 * Delivery of one e-mail to a lead (CONTRACT §19), sent at most once by the same rule as
 * WhatsApp's (jobs/deliver.ts, CONTRACT §7): the message row moves
 *
 *     pending ──▶ sending ──▶ sent | failed | needs_reconciliation
 *        ▲           │
 *        └───────────┘  no connection / 4xx: retried with backoff
 *
 * and `sending` is committed before the SMTP server is called; a run that finds the message
 * `sending` knows an earlier run died between the call and its record, so the message is marked
 * `needs_reconciliation` and never sent again. The claim also writes what the e-mail says (its
 * text part, in `body`, for the conversation) and its one-click unsubscribe link (RFC 8058: only
 * the token's hash is kept, services/messaging/unsubscribe.ts). The welcome, the alert digests
 * (`author = 'alert'`, CONTRACT §21: written from their listings, services/messaging/alert-email.ts,
 * and sent only while the lead still takes alerts) and the listings an agent sends by hand
 * (`author = 'agent'`, written the same way, services/leads/hand-sends.ts) and the viewings'
 * notices (`author = 'viewing'`, CONTRACT §20: written from the viewing as it is then, with their
 * one-click links, services/viewings/notices.ts) go through here.
 *
 * An agent's reply (CONTRACT §25, `send_message`: jobs/tasks/send-message.ts) goes through here too,
 * its words as the agent wrote them (domain/messaging/email-reply.ts), threaded under the lead's
 * e-mails (`In-Reply-To`, `References`) and answered to the business's inbound address. Every
 * e-mail's `Message-ID` is chosen at the claim and kept in `provider_message_id` with `sending`, so
 * that an answer naming it finds its lead (services/messaging/email-replies.ts).
 *
 * Nothing is sent to a lead who opted out (the conversation's `opted_out`, which the unsubscribe
 * link sets), or when the business sends no e-mail any more: the message fails visibly.
 */
import type { Transaction } from 'kysely';
import { newMessageId, sendEmail } from '../channels/email-smtp.ts';
import { emailOutSettings } from '../config.ts';
import { findBusiness } from '../db/repositories/businesses.ts';
import { findLead } from '../db/repositories/leads.ts';
import { findConversation, findMessage, listEmailThreadIds, moveMessage } from '../db/repositories/messaging.ts';
import { transact } from '../db/transaction.ts';
import type { Database } from '../db/types.ts';
import { welcomeEmail } from '../domain/messaging/welcome-email.ts';
import { agentReplyEmail } from '../domain/messaging/email-reply.ts';
import { ALERT_AUTHOR } from '../domain/leads/alerts.ts';
import { leadTakesAlerts } from '../db/repositories/alerts.ts';
import { writeAlertEmail } from '../services/messaging/alert-email.ts';
import { emailSenderOf, fromHeader, type EmailSender } from '../services/messaging/email.ts';
import { newUnsubscribeLink } from '../services/messaging/unsubscribe.ts';
import { inboundReplyAddress } from '../services/messaging/reply-address.ts';
import { VIEWING_AUTHOR, writeViewingEmail } from '../services/viewings/notices.ts';
import { INTERRUPTED_EMAIL, recordSendOutcome } from './deliver.ts';
import { failpoint } from './failpoints.ts';
import type { TaskContext } from './task.ts';

/** The `author` of an alert digest's message (CONTRACT §21). */
export { ALERT_AUTHOR };

/** The `author` of an agent's message: listings sent by hand by e-mail carry a digest (CONTRACT §21 "By hand"). */
export const AGENT_AUTHOR = 'agent';

/** The most `Message-ID`s a reply's `References` names: the thread's newest. */
const REFERENCES_MAX = 20;

/** What the claim decided: nothing to send, or the e-mail. */
type Plan =
  | { send: false }
  | {
      send: true;
      sender: EmailSender;
      to: string;
      from: string;
      replyTo: string | null;
      subject: string;
      text: string;
      html: string;
      headers: Record<string, string>;
      /** The `Message-ID` it goes out with, kept at the claim (CONTRACT §25). */
      emailId: string;
    };

/**
 * One transaction: claim the send by moving the message from `pending` to `sending`, with its words
 * and the `Message-ID` it goes out with (kept in `provider_message_id` before the server is called,
 * so that an answer to it finds its lead even when its outcome is not known).
 */
async function claimSend(ctx: TaskContext, trx: Transaction<Database>, messageId: number, reply: boolean): Promise<Plan> {
  const message = await findMessage(trx, messageId);
  if (!message || message.kind !== 'email') return { send: false };
  const now = ctx.now();
  if (message.state === 'sending') {
    await moveMessage(trx, messageId, 'sending', { state: 'needs_reconciliation', last_error: INTERRUPTED_EMAIL, updated_at: now });
    return { send: false };
  }
  if (message.state !== 'pending') return { send: false };
  const fail = async (reason: string): Promise<Plan> => {
    await moveMessage(trx, messageId, 'pending', { state: 'failed', last_error: reason, updated_at: now });
    return { send: false };
  };
  if ((await findConversation(trx, message.lead_id))?.state === 'opted_out') return fail('the lead opted out of messages');
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
  if (message.author === ALERT_AUTHOR && !(await leadTakesAlerts(trx, lead.id))) return fail('the lead no longer takes alerts');
  const emailId = newMessageId(sender.from);
  const from = fromHeader(sender, business.name);
  if (reply) {
    // An agent's reply (CONTRACT §25): the agent's words as written, in the thread of the lead's e-mails, answered to the business's inbound address.
    const thread = (await listEmailThreadIds(trx, lead.id, REFERENCES_MAX)).filter((id) => id.startsWith('<'));
    const words = agentReplyEmail(message.language ?? 'es', {
      businessName: business.name,
      text: message.body ?? '',
      answering: thread.length > 0,
    });
    const headers: Record<string, string> = thread.length ? { 'In-Reply-To': thread[0], References: [...thread].reverse().join(' ') } : {};
    const replyTo = (await inboundReplyAddress(trx, message.business_id)) ?? sender.replyTo;
    const claimed = await moveMessage(trx, messageId, 'pending', { state: 'sending', provider_message_id: emailId, updated_at: now });
    if (!claimed) return { send: false };
    return { send: true, sender, to: message.recipient, from, replyTo, ...words, headers, emailId };
  }
  const { publicUrl } = emailOutSettings();
  const unsubscribeUrl = await newUnsubscribeLink(trx, message.business_id, message.lead_id, publicUrl, now);
  const said = { businessName: business.name, leadName: lead.name, unsubscribeUrl };
  let words: { subject: string; text: string; html: string } | null;
  if (message.author === VIEWING_AUTHOR) {
    const notice = await writeViewingEmail(trx, message, { businessName: business.name, unsubscribeUrl, publicUrl, now });
    if ('refused' in notice) return fail(notice.refused);
    words = notice;
  } else {
    words =
      message.author === ALERT_AUTHOR || message.author === AGENT_AUTHOR
        ? await writeAlertEmail(trx, message, { ...said, publicUrl })
        : welcomeEmail(message.language ?? 'es', said);
  }
  if (words === null) return fail('the alert has no listings left');
  const claimed = await trx
    .updateTable('messages')
    .set({ state: 'sending', body: words.text, provider_message_id: emailId, updated_at: now })
    .where('id', '=', messageId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return { send: false };
  const headers = { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
  return { send: true, sender, to: message.recipient, from, replyTo: sender.replyTo, ...words, headers, emailId };
}

/**
 * Sends the e-mail `messageId` unless it was claimed before; records the server's answer.
 * Safe to run again after a crash at any point.
 * @param options.reply an agent's reply (CONTRACT §25, jobs/tasks/send-message.ts): its own words
 *   (the message's `body`), no unsubscribe link, `In-Reply-To`/`References` naming the lead's
 *   e-mails, and `Reply-To` the business's inbound address (services/messaging/reply-address.ts),
 *   else its own `Reply-To`.
 * @throws PermanentJobError when the server refuses it for good or retries run out (the message
 *   is `failed`); an Error to be retried later when the server certainly did not take it.
 */
export async function deliverEmail(ctx: TaskContext, messageId: number, options: { reply?: boolean } = {}): Promise<void> {
  const plan = await transact(ctx.db, (trx) => claimSend(ctx, trx, messageId, options.reply === true));
  if (!plan.send) return;
  failpoint('message:sending');
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
    { outbound: ctx.outbound, timeoutMs: ctx.settings.sendTimeoutMs },
  );
  await recordSendOutcome(ctx, messageId, outcome, 'the SMTP server refused the e-mail');
}
