/**
 * `send_welcome`: the one approved template message a lead may ever get (spec §6 step 2,
 * CONTRACT §7), over the business's WhatsApp Cloud API channel.
 *
 * The message row (primary key: the lead) moves through
 *
 *     pending ──▶ sending ──▶ sent | failed | needs_reconciliation
 *        ▲           │
 *        └───────────┘  429 / 5xx / no connection: retried with backoff
 *
 * and `sending` is committed *before* the provider is called. A run that finds a message
 * already `sending` therefore knows an earlier run died between the call and its record: the
 * message may have gone out, so it is marked `needs_reconciliation` and never sent again.
 * The worst a crash can do is leave one lead for a person to check; it can never message a
 * lead twice.
 *
 * No channel connected when the job runs → no message row, and the lead is unaffected.
 */
import { transact } from '../../db/transaction.ts';
import type { Transaction } from 'kysely';
import { findLead } from '../../db/repositories/leads.ts';
import { findChannel, findLeadMessage, insertLeadMessage, moveLeadMessage, type ChannelRow } from '../../db/repositories/messaging.ts';
import type { Database } from '../../db/types.ts';
import { sendTemplateMessage, templateLanguage } from '../../channels/whatsapp-cloud.ts';
import { failpoint } from '../failpoints.ts';
import { PermanentJobError, type TaskContext } from '../worker.ts';

const INTERRUPTED =
  'the worker stopped between calling the provider and recording its answer: the message may have been sent; ' +
  'check the WhatsApp Business Manager before contacting this lead';

/** What the first step decided. */
type Plan = { send: false } | { send: true; channel: ChannelRow; to: string; template: string; language: string };

/** First step, one transaction: create the message if needed, then claim the send by moving it to `sending`. */
async function claimSend(ctx: TaskContext, trx: Transaction<Database>, leadId: number): Promise<Plan> {
  const lead = await findLead(trx, leadId);
  if (!lead) return { send: false };
  const channel = await findChannel(trx, lead.business_id);
  let message = await findLeadMessage(trx, leadId);
  if (!message) {
    if (!channel) return { send: false };
    const now = ctx.now();
    message = {
      lead_id: leadId,
      business_id: lead.business_id,
      provider: channel.provider,
      template: channel.template,
      language: templateLanguage(JSON.parse(channel.languages) as Record<string, string>, lead.preferred_language),
      recipient: lead.phone_number_1,
      state: 'pending',
      provider_message_id: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    };
    await insertLeadMessage(trx, message);
  }
  if (message.state === 'sending') {
    await moveLeadMessage(trx, leadId, 'sending', { state: 'needs_reconciliation', last_error: INTERRUPTED, updated_at: ctx.now() });
    return { send: false };
  }
  if (message.state !== 'pending') return { send: false };
  if (!channel) {
    await moveLeadMessage(trx, leadId, 'pending', {
      state: 'failed',
      last_error: 'the channel is no longer connected',
      updated_at: ctx.now(),
    });
    return { send: false };
  }
  await moveLeadMessage(trx, leadId, 'pending', { state: 'sending', updated_at: ctx.now() });
  return { send: true, channel, to: message.recipient, template: message.template, language: message.language };
}

export async function sendWelcome(ctx: TaskContext): Promise<void> {
  const leadId = ctx.job.lead_id;
  if (leadId === null) return;
  const plan = await transact(ctx.db, async (trx) => {
    const decided = await claimSend(ctx, trx, leadId);
    if (!decided.send) await ctx.complete(trx);
    return decided;
  });
  if (!plan.send) return;
  failpoint('message:sending');

  const outcome = await sendTemplateMessage(
    {
      baseUrl: plan.channel.base_url,
      phoneNumberId: plan.channel.phone_number_id,
      accessToken: plan.channel.access_token,
      to: plan.to,
      template: plan.template,
      language: plan.language,
    },
    ctx.settings.sendTimeoutMs,
  );
  failpoint('message:called');

  const now = ctx.now();
  const rethrow = await transact(ctx.db, async (trx): Promise<Error | null> => {
    switch (outcome.kind) {
      case 'sent':
        await moveLeadMessage(trx, leadId, 'sending', {
          state: 'sent',
          provider_message_id: outcome.messageId,
          last_error: null,
          updated_at: now,
        });
        await ctx.complete(trx);
        return null;
      case 'unknown':
        await moveLeadMessage(trx, leadId, 'sending', { state: 'needs_reconciliation', last_error: outcome.error, updated_at: now });
        await ctx.complete(trx);
        return null;
      case 'rejected':
        await moveLeadMessage(trx, leadId, 'sending', { state: 'failed', last_error: outcome.error, updated_at: now });
        return new PermanentJobError(`the provider rejected the message: ${outcome.error}`);
      case 'retry':
        if (ctx.finalAttempt) {
          const error = `gave up after ${ctx.job.attempts} attempts: ${outcome.error}`;
          await moveLeadMessage(trx, leadId, 'sending', { state: 'failed', last_error: error, updated_at: now });
          return new PermanentJobError(error);
        }
        // Certainly not sent: back to pending, and the job is retried after its backoff.
        await moveLeadMessage(trx, leadId, 'sending', { state: 'pending', last_error: outcome.error, updated_at: now });
        return new Error(outcome.error);
    }
  });
  if (rethrow) throw rethrow;
}
