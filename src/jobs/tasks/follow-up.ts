/**
 * `follow_up`: runs when a scheduled follow-up comes due (its job's `run_at` is the due
 * instant). Records it as due, for `inmo followups due`, and schedules the next one a
 * period later, unless the lead is closed or inactive (spec §6 step 3, CONTRACT §7).
 */
import { findFollowUp, moveFollowUp } from '../../db/repositories/follow-ups.ts';
import { findLead } from '../../db/repositories/leads.ts';
import { addDays } from '../../domain/leads/follow-ups.ts';
import { scheduleFollowUpJob } from '../../services/leads/follow-ups.ts';
import { defineTask, type TaskContext } from '../task.ts';

/** Lead statuses that end the follow-up cycle. */
const FINISHED_STATUSES = new Set(['closed', 'inactive']);

async function run(ctx: TaskContext<'follow_up'>): Promise<void> {
  const followUpId = ctx.payload.follow_up_id;
  await ctx.finish(async (trx) => {
    const current = await findFollowUp(trx, followUpId);
    if (current && (await moveFollowUp(trx, current.id, 'scheduled', 'due', ctx.now()))) {
      const lead = await findLead(trx, current.lead_id);
      if (lead && lead.active === 1 && !FINISHED_STATUSES.has(lead.status)) {
        await scheduleFollowUpJob(trx, lead, addDays(current.due_at, current.every_days), current.every_days, ctx.now());
      }
    }
  });
}

export const followUpTask = defineTask<'follow_up'>({ run });
