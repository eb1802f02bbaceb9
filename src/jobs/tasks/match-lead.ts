/**
 * `match_lead`: matches the lead's searches against the catalogue and stores the matches
 * and near misses (spec §6 step 1, CONTRACT §7). Queued with every new lead, and for every
 * lead still searching when an import changes the catalogue. Running it again replaces
 * what it stored, so a repeated run is harmless.
 */
import { transact } from '../../db/transaction.ts';
import { findLead } from '../../db/repositories/leads.ts';
import { replaceLeadMatches } from '../../db/repositories/matches.ts';
import { matchSearchPreferences } from '../../services/matching.ts';
import { failpoint } from '../failpoints.ts';
import type { TaskContext } from '../worker.ts';

export async function matchLead(ctx: TaskContext): Promise<void> {
  const lead = ctx.job.lead_id === null ? undefined : await findLead(ctx.db, ctx.job.lead_id);
  if (!lead) return;
  const snapshot = await ctx.snapshots.get(ctx.db, lead.business_id);
  const result = matchSearchPreferences(lead.search_preferences, snapshot, ctx.settings.matchLimit);
  failpoint('match:computed');
  const rows = [
    ...result.matches.map(([property_id, search_index]) => ({ property_id, search_index, failed: null })),
    ...result.nearMisses.map(([property_id, search_index, failed]) => ({ property_id, search_index, failed })),
  ];
  await transact(ctx.db, async (trx) => {
    await replaceLeadMatches(trx, lead.id, rows, {
      catalogue_version: snapshot.version,
      matched_at: ctx.now(),
      matches_total: result.matchesTotal,
      near_misses_total: result.nearMissesTotal,
    });
    await ctx.complete(trx);
  });
}
