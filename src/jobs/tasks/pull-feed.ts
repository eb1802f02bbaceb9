/**
 * `pull_feed`: one scheduled pull of a feed source (services/catalogue/feeds/pulls.ts), then the next one
 * queued `every_minutes` later, in the transaction that completes this job, unless the source
 * was removed meanwhile (services/scheduled-pulls.ts, the runner shared with mailboxes). A failed
 * pull is a result, not a failed job: the next pull comes as usual.
 */
import { FEED_PULLS, pullFeedSource } from '../../services/catalogue/feeds/pulls.ts';
import { runScheduledPull } from '../../services/scheduled-pulls.ts';
import { defineTask, type TaskContext } from '../task.ts';

async function run(ctx: TaskContext<'pull_feed'>): Promise<void> {
  await runScheduledPull(ctx, FEED_PULLS, 'feed pulled', async (sourceId) => {
    const result = await pullFeedSource(ctx.db, sourceId, {
      outbound: ctx.outbound,
      maxBytes: ctx.settings.feedMaxBytes,
      withdrawMaxShare: ctx.settings.pullWithdrawMaxShare,
    });
    return { log: { status: result.status, created: result.created, updated: result.updated, withdrawn: result.withdrawn } };
  });
}

export const pullFeedTask = defineTask<'pull_feed'>({ run });
