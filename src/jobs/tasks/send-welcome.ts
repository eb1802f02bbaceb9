/**
 * `send_welcome`: the one approved template message a lead may ever get (spec §6 step 2,
 * CONTRACT §7), over the business's WhatsApp Cloud API channel, sent at most once
 * (jobs/deliver.ts).
 *
 * The message row (the lead's one `author = 'welcome'` message: a partial unique index) is
 * written with the lead when the business has a channel at that moment
 * (services/leads/intake.ts); no row means no channel then, hence no message, and the lead is
 * unaffected.
 */
import type { Db } from '../../db/database.ts';
import { findWelcome } from '../../db/repositories/messaging.ts';
import { deliverMessage, settleParkedDelivery } from '../deliver.ts';
import { defineTask, type TaskContext } from '../task.ts';

async function run(ctx: TaskContext): Promise<void> {
  const leadId = ctx.job.lead_id;
  if (leadId === null) return;
  // No message row: no channel was connected when the lead arrived (CONTRACT §9).
  const welcome = await findWelcome(ctx.db, leadId);
  if (welcome) await deliverMessage(ctx, welcome.id);
}

async function onParked(db: Db, job: { lead_id: number | null }, reason: string, now: string): Promise<void> {
  const welcome = job.lead_id === null ? undefined : await findWelcome(db, job.lead_id);
  if (welcome) await settleParkedDelivery(db, welcome.id, reason, now);
}

export const sendWelcomeTask = defineTask({ run, onParked });
