/**
 * `pull_feed`: one scheduled pull of a feed source (services/catalogue/feeds/pulls.ts), then the next one
 * queued `every_minutes` later, in the transaction that completes this job, unless the source
 * was removed meanwhile. A failed pull is a result, not a failed job: the next pull comes as usual.
 */
import { enqueueJob } from '../../db/repositories/jobs.ts';
import { findFeedSource } from '../../db/repositories/feeds.ts';
import { nextPullAt, pullFeedSource } from '../../services/catalogue/feeds/pulls.ts';
import { defineTask, type TaskContext } from '../task.ts';

async function run(ctx: TaskContext<'pull_feed'>): Promise<void> {
  const sourceId = ctx.payload.source_id;
  const source = await findFeedSource(ctx.db, sourceId);
  if (!source || source.removed_at !== null) return;
  const result = await pullFeedSource(ctx.db, sourceId, {
    outbound: ctx.outbound,
    maxBytes: ctx.settings.feedMaxBytes,
    withdrawMaxShare: ctx.settings.pullWithdrawMaxShare,
  });
  ctx.log(
    { source_id: sourceId, status: result.status, created: result.created, updated: result.updated, withdrawn: result.withdrawn },
    'feed pulled',
  );
  const now = ctx.now();
  await ctx.finish(async (trx) => {
    const still = await findFeedSource(trx, sourceId);
    if (!still || still.removed_at !== null) return;
    await enqueueJob(trx, {
      businessId: source.business_id,
      leadId: null,
      kind: 'pull_feed',
      payload: { source_id: sourceId },
      runAt: nextPullAt(now, source.every_minutes),
      now,
    });
  });
}

export const pullFeedTask = defineTask<'pull_feed'>({ run });
