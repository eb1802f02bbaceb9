/**
 * `schedule_follow_ups` (inquiries only): schedules the lead's first follow-up one period
 * after its creation (spec §6 step 3, CONTRACT §7) and queues the `follow_up` job that
 * fires when it comes due. A lead with no period (no rule for its type) gets none; a lead
 * that already has follow-ups keeps them.
 */
import { followUpRules, listFollowUpsOfLead } from '../../db/repositories/follow-ups.ts';
import { findLead } from '../../db/repositories/leads.ts';
import { addDays, followUpPeriodDays } from '../../domain/leads/follow-ups.ts';
import { scheduleFollowUpJob } from '../../services/leads/follow-ups.ts';
import { defineTask, type TaskContext } from '../task.ts';

async function run(ctx: TaskContext<'schedule_follow_ups'>): Promise<void> {
  const lead = ctx.job.lead_id === null ? undefined : await findLead(ctx.db, ctx.job.lead_id);
  if (!lead) return;
  const searches = lead.search_preferences === null ? null : (JSON.parse(lead.search_preferences) as Array<Record<string, unknown>>);
  const every = followUpPeriodDays(lead.type, searches, await followUpRules(ctx.db, lead.business_id));
  if (every === null) return;
  await ctx.finish(async (trx) => {
    if ((await listFollowUpsOfLead(trx, lead.id)).length === 0) {
      await scheduleFollowUpJob(trx, lead, addDays(lead.created_at, every), every, ctx.now());
    }
  });
}

export const scheduleFollowUpsTask = defineTask<'schedule_follow_ups'>({ run });
