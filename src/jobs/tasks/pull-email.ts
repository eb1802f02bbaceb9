/**
 * `pull_email`: one scheduled run of a mailbox pull (services/leads/email-pulls.ts), then the
 * next run queued `every_minutes` later (at once when the run stopped at its limit of messages),
 * in the transaction that completes this job, unless the pull was removed meanwhile or a run is
 * already queued. A failed run, or one that found another run under way, is a result, not a
 * failed job: the next run comes as usual. A run's deadline is `INMO_EMAIL_PULL_TIMEOUT_MS`, held
 * to half of the job's lease; the worker runs pulls in at most all its slots but one (worker.ts).
 */
import { findEmailPull } from '../../db/repositories/email-pulls.ts';
import { nextEmailPullAt, queueNextEmailPull, runEmailPull } from '../../services/leads/email-pulls.ts';
import { defineTask, type TaskContext } from '../task.ts';

async function run(ctx: TaskContext<'pull_email'>): Promise<void> {
  const pullId = ctx.payload.pull_id;
  const pull = await findEmailPull(ctx.db, pullId);
  if (!pull || pull.removed_at !== null) return;
  // Half the job's lease at most: the job is never taken back (and run again) while its pull runs.
  const timeoutMs = Math.max(1, Math.min(ctx.settings.emailPullTimeoutMs, Math.floor(ctx.settings.leaseMs / 2)));
  const result = await runEmailPull(ctx.db, pullId, { outbound: ctx.outbound, timeoutMs });
  // Counts and the error in words only: the messages are personal data.
  ctx.log(
    { pull_id: pullId, status: result.status, found: result.found, stored: result.stored, already: result.already, error: result.error },
    'email pulled',
  );
  const now = ctx.now();
  await ctx.finish((trx) => queueNextEmailPull(trx, pullId, result.more ? now : nextEmailPullAt(now, pull.every_minutes), now));
}

export const pullEmailTask = defineTask<'pull_email'>({ run });
