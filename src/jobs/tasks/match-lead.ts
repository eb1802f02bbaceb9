/**
 * `match_lead`: matches the lead's searches against the catalogue and stores the matches
 * and near misses (spec §6 step 1, CONTRACT §7). Queued with every new lead, and for every
 * lead whose searches change; a catalogue change re-matches the searching leads it can reach in
 * one `rematch_catalogue` job (services/leads/rematch.ts). Running it again replaces
 * what it stored, so a repeated run is harmless. After the lead's first matching, the properties
 * it newly matches become candidates of its next alert (CONTRACT §21, services/leads/alerts.ts),
 * and every listing that starts matching it records its price then, the reference of a later drop.
 */
import { findLead } from '../../db/repositories/leads.ts';
import { findLeadMatchRun, listLeadMatches, replaceLeadMatches } from '../../db/repositories/matches.ts';
import { recordEvent } from '../../services/integrations/events.ts';
import { recordAlertCandidates, recordMatchPrices } from '../../services/leads/alerts.ts';
import { matchSearchPreferences } from '../../services/leads/matching.ts';
import { matchRows } from '../../domain/leads/matching.ts';
import { failpoint } from '../failpoints.ts';
import { defineTask, type TaskContext } from '../task.ts';

async function run(ctx: TaskContext<'match_lead'>): Promise<void> {
  const lead = ctx.job.lead_id === null ? undefined : await findLead(ctx.db, ctx.job.lead_id);
  if (!lead) return;
  const snapshot = await ctx.snapshots.get(ctx.db, lead.business_id);
  const result = matchSearchPreferences(lead.search_preferences, snapshot, ctx.settings.matchLimit);
  failpoint('match:computed');
  const rows = matchRows(result);
  await ctx.finish(async (trx) => {
    // A run of another job may have stored a newer result meanwhile (a newer catalogue, or
    // searches an inquiry changed, which queued that job): an older result never replaces it.
    const stored = await findLeadMatchRun(trx, lead.id);
    const current = await findLead(trx, lead.id);
    if ((stored && stored.catalogue_version > snapshot.version) || !current || current.updated_at !== lead.updated_at) return;
    const before = new Set((await listLeadMatches(trx, lead.id)).filter((m) => m.failed === null).map((m) => m.property_id));
    await replaceLeadMatches(trx, lead.id, rows, {
      catalogue_version: snapshot.version,
      matched_at: ctx.now(),
      matches_total: result.matchesTotal,
      near_misses_total: result.nearMissesTotal,
    });
    // `match.found` when this run found a property the lead was not matched to before.
    const matches = [...new Set(result.matches.map(([propertyId]) => propertyId))];
    const newlyMatched = matches.filter((id) => !before.has(id));
    // After the lead's first matching, what newly matches waits for its next alert (CONTRACT §21).
    if (stored) await recordAlertCandidates(trx, lead, newlyMatched, ctx.now());
    // The price each listing starts matching at: the reference of a later drop (CONTRACT §21).
    const fresh = new Set(newlyMatched);
    const kept = new Set(matches);
    await recordMatchPrices(
      trx,
      lead.business_id,
      [
        {
          leadId: lead.id,
          searchPreferences: lead.search_preferences,
          started: rows.filter((r) => r.failed === null && fresh.has(r.property_id)),
          stopped: [...before].filter((id) => !kept.has(id)),
        },
      ],
      ctx.now(),
    );
    if (newlyMatched.length > 0) {
      const data = { lead_id: lead.id, matches, near_misses: new Set(result.nearMisses.map(([propertyId]) => propertyId)).size };
      await recordEvent(trx, lead.business_id, 'match.found', lead.id, data, ctx.now());
    }
  });
}

export const matchLeadTask = defineTask<'match_lead'>({ run });
