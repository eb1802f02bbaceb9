/**
 * `rematch_catalogue`: the business's catalogue changed (queued by every import batch,
 * debounced): queues `match_lead` for each of its leads still `searching_property` that has
 * none pending (CONTRACT §7), in the transaction that completes this job.
 */
import { enqueueRematch } from '../../db/repositories/jobs.ts';
import { transact } from '../../db/transaction.ts';
import type { TaskContext } from '../worker.ts';

export async function rematchCatalogue(ctx: TaskContext): Promise<void> {
  await transact(ctx.db, async (trx) => {
    await enqueueRematch(trx, ctx.job.business_id, ctx.now());
    await ctx.complete(trx);
  });
}
