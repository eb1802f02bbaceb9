/**
 * `rematch_catalogue`: the business's catalogue changed (queued by every import batch,
 * debounced): queues `match_lead` for each of its leads still `searching_property` that has
 * none pending (CONTRACT §7), in the transaction that completes this job.
 */
import { enqueueRematch } from '../../db/repositories/jobs.ts';
import { defineTask } from '../task.ts';

export const rematchCatalogueTask = defineTask({
  run: (ctx) => ctx.finish((trx) => enqueueRematch(trx, ctx.job.business_id, ctx.now()).then(() => undefined)),
});
