/**
 * `send_welcome`: the one welcome a lead may ever get (spec §6 step 2, CONTRACT §7, §19), sent
 * at most once: the business's approved WhatsApp template (jobs/deliver.ts), or an e-mail
 * (jobs/deliver-email.ts) when WhatsApp could not carry it.
 *
 * The message row (the lead's one `author = 'welcome'` message: a partial unique index) is
 * written with the lead when the business can send one at that moment (services/leads/intake.ts,
 * services/messaging/welcome.ts); no row means no channel then, hence no message, and the lead is
 * unaffected. A template that fails for good (refused by the provider, the lead's consent, or
 * retries run out; never one whose outcome is unknown) is replaced by an e-mail when the lead has
 * an address and the business sends e-mail: the lead's one `welcome_fallback` row (another
 * partial unique index), so that at most one welcome reaches the person whatever the channel.
 */
import type { Db } from '../../db/database.ts';
import { findLead } from '../../db/repositories/leads.ts';
import { findMessage, findWelcome, findWelcomeFallback, insertWelcomeFallback } from '../../db/repositories/messaging.ts';
import { findEmailSettings } from '../../db/repositories/email-out.ts';
import { transact } from '../../db/transaction.ts';
import { sendsEmail } from '../../services/messaging/email.ts';
import { emailLanguage, leadEmailAddress } from '../../services/messaging/welcome.ts';
import { deliverMessage, INTERRUPTED_EMAIL, settleParkedDelivery } from '../deliver.ts';
import { deliverEmail } from '../deliver-email.ts';
import { defineTask, PermanentJobError, type TaskContext } from '../task.ts';

/**
 * Queues the e-mail that stands in for the lead's failed template, unless it has one or cannot
 * get one. @returns the fallback's id, or undefined.
 */
async function queueFallback(ctx: TaskContext, leadId: number): Promise<number | undefined> {
  return transact(ctx.db, async (trx) => {
    const existing = await findWelcomeFallback(trx, leadId);
    if (existing) return existing.id;
    const lead = await findLead(trx, leadId);
    const address = lead && leadEmailAddress(lead);
    // Never to an address an unverified request gave (migration 0045, docs/security.md).
    if (!lead || !address || lead.contact_verified === 0 || !sendsEmail(await findEmailSettings(trx, lead.business_id))) return undefined;
    const now = ctx.now();
    await insertWelcomeFallback(trx, {
      business_id: lead.business_id,
      lead_id: leadId,
      language: emailLanguage(lead.preferred_language),
      recipient: address,
      state: 'pending',
      created_at: now,
      updated_at: now,
    });
    return (await findWelcomeFallback(trx, leadId))?.id;
  });
}

async function run(ctx: TaskContext): Promise<void> {
  const leadId = ctx.job.lead_id;
  if (leadId === null) return;
  // No message row: nothing could carry a welcome when the lead arrived (CONTRACT §9).
  const welcome = await findWelcome(ctx.db, leadId);
  if (!welcome) return;
  if (welcome.kind === 'email') return deliverEmail(ctx, welcome.id);
  let refused: unknown = null;
  try {
    await deliverMessage(ctx, welcome.id);
  } catch (error) {
    if (!(error instanceof PermanentJobError)) throw error;
    refused = error;
  }
  // Only a template that certainly did not go out is replaced.
  if ((await findMessage(ctx.db, welcome.id))?.state !== 'failed') {
    if (refused) throw refused;
    return;
  }
  const fallback = await queueFallback(ctx, leadId);
  if (fallback === undefined) {
    if (refused) throw refused;
    return;
  }
  await deliverEmail(ctx, fallback);
}

async function onParked(db: Db, job: { lead_id: number | null }, reason: string, now: string): Promise<void> {
  if (job.lead_id === null) return;
  for (const message of [await findWelcome(db, job.lead_id), await findWelcomeFallback(db, job.lead_id)]) {
    if (message) await settleParkedDelivery(db, message.id, reason, now, message.kind === 'email' ? INTERRUPTED_EMAIL : undefined);
  }
}

export const sendWelcomeTask = defineTask({ run, onParked });
