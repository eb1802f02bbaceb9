/**
 * `send_welcome`: the one welcome a lead may ever get (spec §6 step 2, CONTRACT §7, §19), queued
 * with the lead (no payload: the lead's one `author = 'welcome'` message, a partial unique index,
 * written with it when the business could send one then; no row means no channel then, hence no
 * message). Sent by the outbox's delivery (services/messaging/delivery.ts) as any message is; its
 * purpose (services/messaging/purposes/welcome.ts) replaces a template refused for good by an
 * e-mail, the lead's one `welcome_fallback` row, so that at most one welcome reaches the person.
 */
import { findWelcome } from '../../db/repositories/messaging.ts';
import { settleParkedMessage } from '../../services/messaging/delivery.ts';
import { defineTask } from '../task.ts';
import { deliverInJob } from './send-message.ts';

export const sendWelcomeTask = defineTask<'send_welcome'>({
  async run(ctx) {
    const welcome = ctx.job.lead_id === null ? undefined : await findWelcome(ctx.db, ctx.job.lead_id);
    if (welcome) await deliverInJob(ctx, welcome.id);
  },
  async onParked(db, job, reason, now) {
    const welcome = job.lead_id === null ? undefined : await findWelcome(db, job.lead_id);
    if (welcome) await settleParkedMessage(db, welcome.id, reason, now);
  },
});
