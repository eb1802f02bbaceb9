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
 * The message row is written with the lead when the business has a channel at that moment
 * (services/lead-intake.ts); no row means no channel then, hence no message, and the lead is
 * unaffected.
 */
import { transact } from '../../db/transaction.ts';
import type { Transaction } from 'kysely';
import type { Db } from '../../db/database.ts';
import { findChannel, findLeadMessage, moveLeadMessage, type ChannelRow } from '../../db/repositories/messaging.ts';
import type { Database } from '../../db/types.ts';
import { sendTemplateMessage } from '../../channels/whatsapp-cloud.ts';
import { failpoint } from '../failpoints.ts';
import { openSecret } from '../../secrets.ts';
import { observeSend } from '../../metrics.ts';
import { defineTask, PermanentJobError, type TaskContext } from '../task.ts';

const INTERRUPTED =
  'the worker stopped between calling the provider and recording its answer: the message may have been sent; ' +
  'check the WhatsApp Business Manager before contacting this lead';

/** What the first step decided. */
type Plan = { send: false } | { send: true; channel: ChannelRow; to: string; template: string; language: string };

/**
 * First step, one transaction: claim the send by moving the message from `pending` to
 * `sending`. Only the run whose move succeeds calls the provider.
 */
async function claimSend(ctx: TaskContext, trx: Transaction<Database>, leadId: number): Promise<Plan> {
  const message = await findLeadMessage(trx, leadId);
  // No message row: no channel was connected when the lead arrived (CONTRACT §9).
  if (!message) return { send: false };
  if (message.state === 'sending') {
    await moveLeadMessage(trx, leadId, 'sending', { state: 'needs_reconciliation', last_error: INTERRUPTED, updated_at: ctx.now() });
    return { send: false };
  }
  if (message.state !== 'pending') return { send: false };
  const channel = await findChannel(trx, message.business_id);
  if (!channel) {
    await moveLeadMessage(trx, leadId, 'pending', {
      state: 'failed',
      last_error: 'the channel is no longer connected',
      updated_at: ctx.now(),
    });
    return { send: false };
  }
  if (!(await moveLeadMessage(trx, leadId, 'pending', { state: 'sending', updated_at: ctx.now() }))) return { send: false };
  return { send: true, channel, to: message.recipient, template: message.template, language: message.language };
}

async function run(ctx: TaskContext): Promise<void> {
  const leadId = ctx.job.lead_id;
  if (leadId === null) return;
  // Not finished here even when there is nothing to send: the claim is committed before the
  // provider is called. Nothing to send is a final state (no longer `pending`), so a run
  // that dies before the worker marks the job done decides the same again.
  const plan = await transact(ctx.db, (trx) => claimSend(ctx, trx, leadId));
  if (!plan.send) return;
  let accessToken: string;
  try {
    accessToken = openSecret(plan.channel.access_token);
  } catch (error) {
    // Not sent (the provider was never called): the message fails visibly, nothing to reconcile.
    await transact(ctx.db, (trx) =>
      moveLeadMessage(trx, leadId, 'sending', { state: 'failed', last_error: (error as Error).message, updated_at: ctx.now() }),
    );
    throw new PermanentJobError((error as Error).message);
  }
  failpoint('message:sending');

  const outcome = await sendTemplateMessage(
    {
      baseUrl: plan.channel.base_url,
      phoneNumberId: plan.channel.phone_number_id,
      accessToken,
      to: plan.to,
      template: plan.template,
      language: plan.language,
    },
    ctx.settings.sendTimeoutMs,
  );
  failpoint('message:called');
  observeSend(outcome.kind);

  // The provider's answer is recorded on its own, guarded by the message still being
  // `sending` rather than by this worker's lease: an answer is never thrown away.
  const now = ctx.now();
  const record = (to: { state: string; provider_message_id?: string | null; last_error: string | null }) =>
    transact(ctx.db, (trx) => moveLeadMessage(trx, leadId, 'sending', { ...to, updated_at: now }));
  switch (outcome.kind) {
    case 'sent':
      await record({ state: 'sent', provider_message_id: outcome.messageId, last_error: null });
      return;
    case 'unknown':
      await record({ state: 'needs_reconciliation', last_error: outcome.error });
      return;
    case 'rejected':
      await record({ state: 'failed', last_error: outcome.error });
      throw new PermanentJobError(`the provider rejected the message: ${outcome.error}`);
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
 * A parked `send_welcome` job leaves no message half-way: one left `sending` may have gone
 * out (needs reconciliation), one still `pending` never will (failed).
 */
async function settleParkedWelcome(db: Db, job: { lead_id: number | null }, reason: string, now: string): Promise<void> {
  const leadId = job.lead_id;
  if (leadId === null) return;
  await moveLeadMessage(db, leadId, 'sending', { state: 'needs_reconciliation', last_error: INTERRUPTED, updated_at: now });
  await moveLeadMessage(db, leadId, 'pending', { state: 'failed', last_error: `the job was parked: ${reason}`, updated_at: now });
}

export const sendWelcomeTask = defineTask({ run, onParked: settleParkedWelcome });
