/**
 * `pull_email`: one scheduled run of a mailbox pull (services/leads/email-pulls.ts), then the
 * next run queued `every_minutes` later (at once when the run stopped at its limit of messages),
 * in the transaction that completes this job, unless the pull was removed meanwhile or a run is
 * already queued (services/scheduled-pulls.ts, the runner shared with feed sources). A failed run,
 * or one that found another run under way, is a result, not a failed job: the next run comes as
 * usual. A run's deadline is `INMO_EMAIL_PULL_TIMEOUT_MS`, held to half of the job's lease; the
 * worker runs pulls in at most all its slots but one (worker.ts).
 */
import { EMAIL_PULLS, runEmailPull } from '../../services/leads/email-pulls.ts';
import { runScheduledPull } from '../../services/scheduled-pulls.ts';
import { defineTask, type TaskContext } from '../task.ts';

async function run(ctx: TaskContext<'pull_email'>): Promise<void> {
  // Half the job's lease at most: the job is never taken back (and run again) while its pull runs.
  const timeoutMs = Math.max(1, Math.min(ctx.settings.emailPullTimeoutMs, Math.floor(ctx.settings.leaseMs / 2)));
  await runScheduledPull(ctx, EMAIL_PULLS, 'email pulled', async (pullId) => {
    const result = await runEmailPull(ctx.db, pullId, { outbound: ctx.outbound, timeoutMs });
    // Counts and the error in words only: the messages are personal data.
    return {
      log: { status: result.status, found: result.found, stored: result.stored, already: result.already, error: result.error },
      more: result.more,
    };
  });
}

export const pullEmailTask = defineTask<'pull_email'>({ run });
