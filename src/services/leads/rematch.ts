/**
 * Re-matching a business's searching leads once its catalogue changed (CONTRACT §7 "Leads that
 * are searching are matched again when the catalogue changes"; §21, whose alerts it feeds; issue
 * 45 "Speed"). The `rematch_catalogue` job runs it (jobs/tasks/rematch-catalogue.ts).
 *
 * A lead's stored result depends only on the listings that match it or miss it by one criterion;
 * a listing that changed can change the result only of the leads it matches or nearly matches now,
 * or did before. So instead of matching every searching lead again (a job each: 100,000 leads took
 * minutes), one pass:
 *
 * 1. **What changed**: the listings written after `businesses.rematched_version` (their
 *    `change_seq`), those still matchable indexed on their own; the leads that store one of them.
 * 2. **Which leads it can change** (a page of leads at a time): a lead never matched, or matched
 *    before the last re-match (it was not searching then, so it missed some); one a changed listing
 *    matches or nearly matches now (its searches against the changed listings alone); one that
 *    stores a changed listing; one whose stored run was cut at the per-entry cap (a listing it
 *    matched beyond the cap is not among its rows). A lead with a `match_lead` job queued is left to it.
 * 3. **Match them whole** against the catalogue's snapshot; a result whose digest is the stored
 *    one (domain/leads/matching.ts matchRunDigest) is only marked current. The others are written
 *    a few hundred leads per transaction: their rows and runs, the listings newly matched as alert
 *    candidates (after a lead's first matching, as jobs/tasks/match-lead.ts does), the prices
 *    listings start matching at (the reference of a later price drop), a `match.found`
 *    event per lead that found a listing it was not matched to before. A lead whose searches
 *    changed meanwhile, or that a newer run matched, is skipped: its own job matches it.
 * 4. Every other searching lead's run is marked current at the new version, a statement a page,
 *    and the job records the version reached (`setRematchedVersion`, in its finishing transaction).
 *
 * Every step can run again after a crash: what was written compares equal and is not written twice.
 * The event loop is given back at least every {@link TURN_MS} ms, as `inmo serve` answers the API on it.
 */
import type { Db } from '../../db/database.ts';
import { refreshStatisticsWhileGrowing } from '../../db/planner-statistics.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import {
  advanceMatchRuns,
  listLeadsMatchable,
  listLeadsStoring,
  listLeadsWithMatchQueued,
  listMatchableProperties,
  listMatchedPropertiesOfLeads,
  listPropertiesChangedAfter,
  listSearchingLeads,
  replaceMatchesOfLeads,
  type MatchRun,
  type SearchingLeadRow,
} from '../../db/repositories/matches.ts';
import { transact } from '../../db/transaction.ts';
import { indexListings, matchRunDigest, matchRows, type MatchRow } from '../../domain/leads/matching.ts';
import { recordLeadEvents } from '../integrations/events.ts';
import { recordAlertCandidatesOfLeads, recordMatchPrices } from './alerts.ts';
import { matchSearchPreferences, toListing, type CatalogueSnapshot, type CatalogueSnapshots } from './matching.ts';

/** Searching leads read per statement (on SQLite, the loop waits for the read). */
const LEADS_PAGE = 1000;
/** Most leads, and most stored rows, written per transaction. */
const WRITE_LEADS = 250;
const WRITE_ROWS = 5000;
/** Leads written from which the planner's statistics of what they write are refreshed. */
const STATISTICS_AFTER = 1000;
/** Longest stretch of matching between two turns of the event loop, ms. */
const TURN_MS = 10;

/** What a re-match did: the catalogue version reached, and counts of leads. */
export interface RematchOutcome {
  /** The snapshot's catalogue version the searching leads are now matched at. */
  version: number;
  /** Searching leads looked at. */
  leads: number;
  /** Of them, matched whole (the ones the changes could reach). */
  matched: number;
  /** Of them, whose stored result changed and was written. */
  written: number;
}

/** A lead's new result, waiting to be written. */
interface Pending {
  lead: SearchingLeadRow;
  rows: MatchRow[];
  run: MatchRun;
  digest: { hash: string; truncated: number };
}

/** Gives the event loop a turn once {@link TURN_MS} ms have passed since the last. */
function loopTurns(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < TURN_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}

/**
 * Brings the stored matches of a business's searching leads up to its current catalogue (see the
 * module's comment). Does not record the version reached: the caller does, with
 * db/repositories/matches.ts `setRematchedVersion`, once this returns.
 * @param options.matchLimit most matches, and most near misses, stored per search entry.
 * @param options.now the instant written as the runs' `matched_at` and the events' time, RFC 3339.
 * @returns what it did, or null when the business does not exist.
 */
export async function rematchLeads(
  db: Db,
  businessId: number,
  options: { snapshots: CatalogueSnapshots; matchLimit: number; now: string },
): Promise<RematchOutcome | null> {
  const business = await findBusiness(db, businessId);
  if (!business) return null;
  const snapshot = await options.snapshots.get(db, businessId);
  const { version } = snapshot;
  const since = business.rematched_version;
  const now = options.now;

  // 1. What changed since the last re-match.
  let changed: CatalogueSnapshot | null = null;
  let storing = new Set<number>();
  if (since !== null) {
    const changedIds = await listPropertiesChangedAfter(db, businessId, since);
    if (changedIds.length > 0) {
      const rows = await listMatchableProperties(db, businessId, undefined, since);
      changed = { version, index: indexListings(rows.map(toListing)) };
      storing = await listLeadsStoring(db, changedIds);
    }
  }
  const queued = await listLeadsWithMatchQueued(db, businessId);
  const reaches = (lead: SearchingLeadRow): boolean => {
    if (since === null || lead.catalogue_version === null || lead.catalogue_version < since) return true;
    if (changed === null) return false;
    if (lead.truncated === 1 || storing.has(lead.id)) return true;
    if (changed.index.size === 0) return false;
    const near = matchSearchPreferences(lead.search_preferences, changed, 1);
    return near.matchesTotal + near.nearMissesTotal > 0;
  };

  // 2 and 3, a page at a time.
  const outcome: RematchOutcome = { version, leads: 0, matched: 0, written: 0 };
  const turn = loopTurns();
  let pending: Pending[] = [];
  let pendingRows = 0;
  const unchanged: number[] = [];
  const flush = async () => {
    outcome.written += await writeResults(db, businessId, pending, { version, now });
    pending = [];
    pendingRows = 0;
  };
  for (let afterId = 0; ;) {
    const page = await listSearchingLeads(db, businessId, afterId, LEADS_PAGE);
    // 4, a page at a time and first: whatever step 3 finds for a lead replaces this mark.
    if (since !== null && page.length > 0) {
      await advanceMatchRuns(db, businessId, { from: since, to: version }, now, { after: afterId, upTo: page[page.length - 1].id });
    }
    for (const lead of page) {
      outcome.leads++;
      if (queued.has(lead.id) || !reaches(lead)) continue;
      outcome.matched++;
      const result = matchSearchPreferences(lead.search_preferences, snapshot, options.matchLimit);
      const rows = matchRows(result);
      const run = {
        catalogue_version: version,
        matched_at: now,
        matches_total: result.matchesTotal,
        near_misses_total: result.nearMissesTotal,
      };
      const digest = matchRunDigest(rows, run);
      if (lead.result_hash !== null && lead.result_hash === digest.hash) {
        if ((lead.catalogue_version ?? -1) < version) unchanged.push(lead.id);
      } else {
        pending.push({ lead, rows, run, digest });
        pendingRows += rows.length;
        if (pending.length >= WRITE_LEADS || pendingRows >= WRITE_ROWS) await flush();
      }
      await turn();
    }
    if (page.length < LEADS_PAGE) break;
    afterId = page[page.length - 1].id;
    await new Promise((resolve) => setImmediate(resolve));
  }
  await flush();
  for (let i = 0; i < unchanged.length; i += WRITE_LEADS) {
    await advanceMatchRuns(db, businessId, { from: 0, to: version }, now, unchanged.slice(i, i + WRITE_LEADS));
  }
  // Thousands of rows more or less: PostgreSQL's planner must know before the day's digests read
  // them (left as they were, composing 10,000 digests ran past the statement timeout instead of 0.5 s).
  if (outcome.written >= STATISTICS_AFTER) {
    for (const table of ['lead_matches', 'lead_match_runs', 'alert_candidates', 'alert_match_prices'] as const)
      await refreshStatisticsWhileGrowing(db, table);
  }
  return outcome;
}

/**
 * Writes some leads' new results in one transaction, with their alert candidates and
 * `match.found` events; skips a lead whose searches changed since it was read, or that a newer
 * run matched. @returns the number of leads written.
 */
async function writeResults(
  db: Db,
  businessId: number,
  pending: readonly Pending[],
  at: { version: number; now: string },
): Promise<number> {
  if (pending.length === 0) return 0;
  return transact(db, async (trx) => {
    const writable = await listLeadsMatchable(
      trx,
      pending.map((p) => ({ id: p.lead.id, updated_at: p.lead.updated_at })),
      at.version,
    );
    const batch = pending.filter((p) => writable.has(p.lead.id));
    const before = await listMatchedPropertiesOfLeads(
      trx,
      batch.map((p) => p.lead.id),
    );
    await replaceMatchesOfLeads(
      trx,
      batch.map((p) => ({ leadId: p.lead.id, rows: p.rows, run: p.run, digest: p.digest })),
    );
    const newlyMatched = new Map<number, number[]>();
    const events: Array<{ leadId: number; data: object }> = [];
    const prices: Parameters<typeof recordMatchPrices>[2][number][] = [];
    for (const { lead, rows } of batch) {
      const had = before.get(lead.id) ?? new Set<number>();
      const matches = [...new Set(rows.filter((r) => r.failed === null).map((r) => r.property_id))];
      const fresh = matches.filter((id) => !had.has(id));
      const kept = new Set(matches);
      const stopped = [...had].filter((id) => !kept.has(id));
      if (fresh.length > 0 || stopped.length > 0) {
        const started = new Set(fresh);
        prices.push({
          leadId: lead.id,
          searchPreferences: lead.search_preferences,
          started: rows.filter((r) => r.failed === null && started.has(r.property_id)),
          stopped,
        });
      }
      if (fresh.length === 0) continue;
      // After the lead's first matching, what newly matches waits for its next alert (CONTRACT §21).
      if (writable.get(lead.id)) newlyMatched.set(lead.id, fresh);
      const nearMisses = new Set(rows.filter((r) => r.failed !== null).map((r) => r.property_id)).size;
      events.push({ leadId: lead.id, data: { lead_id: lead.id, matches, near_misses: nearMisses } });
    }
    await recordAlertCandidatesOfLeads(trx, businessId, newlyMatched, at.now);
    // The price each listing starts matching at: the reference of a later drop (CONTRACT §21).
    await recordMatchPrices(trx, businessId, prices, at.now);
    await recordLeadEvents(trx, businessId, 'match.found', events, at.now);
    return batch.length;
  });
}
