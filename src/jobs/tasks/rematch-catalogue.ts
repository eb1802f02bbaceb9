/**
 * `rematch_catalogue`: the business's catalogue changed (queued by every import batch and console
 * edit, debounced): brings the stored matches of its leads still `searching_property` up to the
 * new catalogue (CONTRACT §7), matching again only the leads the changes can reach
 * (services/leads/rematch.ts), and records the version reached in the transaction that completes
 * this job. A crash part-way leaves what was written; the next run finds it equal and goes on.
 */
import { setRematchedVersion } from '../../db/repositories/matches.ts';
import { rematchLeads } from '../../services/leads/rematch.ts';
import { defineTask } from '../task.ts';

export const rematchCatalogueTask = defineTask<'rematch_catalogue'>({
  async run(ctx) {
    const businessId = ctx.job.business_id;
    const outcome = await rematchLeads(ctx.db, businessId, {
      snapshots: ctx.snapshots,
      matchLimit: ctx.settings.matchLimit,
      now: ctx.now(),
    });
    if (outcome === null) return;
    ctx.log(outcome, 'rematch: searching leads brought up to the catalogue');
    await ctx.finish((trx) => setRematchedVersion(trx, businessId, outcome.version));
  },
});
