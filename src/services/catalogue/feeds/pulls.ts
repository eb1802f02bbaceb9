/**
 * Feeds pulled from an agency's current CRM (CONTRACT §15): inmo keeps the catalogue in step
 * with a feed URL (Kyero v3 or NDJSON), pulled by a durable `pull_feed` job every
 * `every_minutes` (a scheduled pull, services/scheduled-pulls.ts: {@link FEED_PULLS}), or at once
 * with `inmo feeds pull run`.
 *
 * A pull is a conditional GET (`If-None-Match`, `If-Modified-Since`; a 304 changes nothing),
 * accepts gzip, reads at most `feedMaxBytes` once decompressed, and goes only over https to public
 * addresses unless `INMO_ALLOW_PRIVATE_NETWORK=1` (channels/outbound.ts). The document is a full
 * import limited to that source: the listings its earlier documents named and this one does not
 * are withdrawn; listings created in the console or from another source are never touched. A
 * document with any rejected property imports the rest and withdraws nothing; one that stops
 * being readable XML half way imports what came before the fault, withdraws nothing, and the
 * pull fails saying where. The document is read once: imported, and the refs it names kept in
 * import_refs on the way (not in memory: a feed's size does not grow the server's heap).
 *
 * Issue 41: an empty document, or one that is neither NDJSON nor Kyero XML, fails the pull and
 * changes nothing (catalogue-import.ts sniffFormat); a pull that would withdraw more than
 * `INMO_PULL_WITHDRAW_MAX_SHARE` of its source's listings is held until an owner confirms it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OutboundPolicy } from '../../../config.ts';
import { isPrivateHost } from '../../../channels/outbound.ts';
import { withPageCache, type Db } from '../../../db/database.ts';
import { signalChange } from '../../../db/change-watch.ts';
import { findBusiness } from '../../../db/repositories/businesses.ts';
import * as repo from '../../../db/repositories/feeds.ts';
import { dropImportRefs } from '../../../db/repositories/properties.ts';
import { nowRfc3339 } from '../../../domain/time.ts';
import { InmoError } from '../../../errors.ts';
import { IMPORT_PAGE_CACHE_KIB, type ImportFormat, type RejectedLine } from '../import/import.ts';
import { pullOffThread } from '../import/import-thread.ts';
import { failure, type FeedRequest } from './pull-download.ts';
import { withdrawListings } from '../listing-writes.ts';
import type { AuditActor } from '../../access/audit.ts';
import { PULL_MINUTES, PULL_WITHDRAW_MAX_SHARE } from '../../../domain/catalogue/feed-formats.ts';
import { checkedPullPeriod, queueFirstPull, type PullKind } from '../../scheduled-pulls.ts';

export { PULL_MINUTES };

/** Feed sources as scheduled pulls (services/scheduled-pulls.ts): `pull_feed` jobs, `{"source_id": …}`. */
export const FEED_PULLS: PullKind = {
  job: 'pull_feed',
  key: 'source_id',
  table: 'feed_sources',
  minutes: PULL_MINUTES,
  periodError: 'FEED_SOURCE_PERIOD',
  find: (db, id) => repo.findFeedSource(db, id),
};

/** Rejected properties kept in a pull's result (all are counted). */
const REJECTED_KEPT = 100;

/**
 * What a pull came to. `created`: listings new to the catalogue; `updated`: listings that were
 * there before the pull, each counted once; `repeated`: properties whose ref an earlier one of the
 * same document had (the last one wins: written again, but neither new nor another listing).
 */
export interface PullResult {
  status: 'imported' | 'held' | 'unchanged' | 'failed';
  created?: number;
  updated?: number;
  repeated?: number;
  withdrawn?: number;
  /** A held pull: the listings it would withdraw, of the source's listings still listed. */
  held?: number;
  of?: number;
  /** A held pull discarded: the listings kept instead of withdrawn. */
  kept?: number;
  rejected?: RejectedLine[];
  rejectedCount?: number;
  error?: string;
}

/** A feed source as the operator and the console see it. */
export function presentSource(row: NonNullable<Awaited<ReturnType<typeof repo.findFeedSource>>>) {
  return {
    id: row.id,
    url: row.url,
    format: row.format,
    every_minutes: row.every_minutes,
    created_at: row.created_at,
    last_pull_at: row.last_pull_at,
    last_status: row.last_status,
    last_result: row.last_result === null ? null : (JSON.parse(row.last_result) as PullResult),
    /** The pull waiting for an owner's confirmation: its withdrawals, of the source's listings still listed. */
    held: row.held_run === null ? null : { run: row.held_run, at: row.held_at!, withdrawals: row.held_withdrawals!, of: row.held_of! },
  };
}

/**
 * The webhooks' rule for a feed URL (services/integrations/outgoing-webhooks.ts): https on a public address,
 * no user or password; `INMO_ALLOW_PRIVATE_NETWORK=1` also allows http and private addresses
 * (closed networks, tests). Checked when a source is added, and again by each pull
 * (services/catalogue/feeds/pull-download.ts), since the switch may have been turned off meanwhile.
 * @throws InmoError FEED_SOURCE_URL when the URL breaks it.
 */
function checkUrl(url: string, outbound: OutboundPolicy): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InmoError('FEED_SOURCE_URL');
  }
  const allowPrivate = outbound.allowPrivateNetwork;
  if (parsed.protocol !== 'https:' && !(allowPrivate && parsed.protocol === 'http:')) throw new InmoError('FEED_SOURCE_URL');
  if (parsed.username || parsed.password) throw new InmoError('FEED_SOURCE_URL');
  if (!allowPrivate && isPrivateHost(parsed.hostname)) throw new InmoError('FEED_SOURCE_URL');
}

/**
 * Adds a source and queues its first pull at once.
 * @param everyMinutes minutes between pulls (default 360).
 * @returns `{id, url, every_minutes}`.
 * @throws InmoError UNKNOWN_BUSINESS, FEED_SOURCE_URL, FEED_SOURCE_PERIOD.
 */
export async function addFeedSource(
  db: Db,
  options: { businessId: number; url: string; format?: ImportFormat | null; everyMinutes?: number },
  outbound: OutboundPolicy,
) {
  const everyMinutes = checkedPullPeriod(FEED_PULLS, options.everyMinutes);
  checkUrl(options.url, outbound);
  if (!(await findBusiness(db, options.businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: options.businessId });
  const now = nowRfc3339();
  const id = await db.transaction().execute(async (trx) => {
    const sourceId = await repo.insertFeedSource(trx, {
      business_id: options.businessId,
      url: options.url,
      format: options.format ?? null,
      every_minutes: everyMinutes,
      created_at: now,
    });
    await queueFirstPull(trx, FEED_PULLS, options.businessId, sourceId, now);
    return sourceId;
  });
  return { id, url: options.url, every_minutes: everyMinutes };
}

/** The business's sources, oldest first. @throws InmoError UNKNOWN_BUSINESS. */
export async function listFeedSources(db: Db, businessId: number) {
  if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  return (await repo.listFeedSources(db, businessId)).map(presentSource);
}

/**
 * Removes a source: it is pulled no more; its listings stay as they are (a held pull's withdrawals too).
 * @param businessId the business whose source alone may be removed (the console), or null for any (the CLI).
 * @throws InmoError FEED_SOURCE_NOT_FOUND.
 */
export async function removeFeedSource(db: Db, id: number, businessId: number | null): Promise<void> {
  const source = await repo.findFeedSource(db, id, businessId);
  if (!source || source.removed_at !== null) throw new InmoError('FEED_SOURCE_NOT_FOUND', { id });
  await repo.updateFeedSource(db, id, { removed_at: nowRfc3339(), ...NO_HOLD });
  // A held pull is forgotten with its source: its listings stay, as the source's others.
  if (source.held_run !== null) await dropImportRefs(db, source.held_run);
}

/** What a pull is given: where it may go, and its limits. */
export interface PullOptions {
  outbound: OutboundPolicy;
  /** Bytes of the document, once decoded, past which it is refused (`INMO_FEED_MAX_BYTES`). */
  maxBytes: number;
  /**
   * The share of the source's listings (0 to 1) the pull may withdraw by itself
   * (`INMO_PULL_WITHDRAW_MAX_SHARE`, default 0.5); a pull that would withdraw more is held.
   */
  withdrawMaxShare?: number;
}

/**
 * Pulls a source now: fetches, imports and withdraws as the module says, and records the outcome.
 * A clean document that would withdraw more than `withdrawMaxShare` of the source's listings
 * still listed (a CRM or a proxy answering with a cut document) is held instead (issue 41): its
 * new and changed listings are imported, nothing is withdrawn, and the source keeps the run's
 * refs until an owner confirms ({@link confirmHeldPull}) or discards ({@link discardHeldPull})
 * it; while it is held no validators are sent, so the next pull reads the whole document again,
 * even one the feed's ETag says is unchanged. A pull that comes to a document replaces an
 * earlier hold (its refs dropped).
 * @throws InmoError FEED_SOURCE_NOT_FOUND (a removed source too). A failed pull does not throw: its result says why.
 */
export async function pullFeedSource(db: Db, id: number, options: PullOptions): Promise<PullResult> {
  const source = await repo.findFeedSource(db, id);
  if (!source || source.removed_at !== null) throw new InmoError('FEED_SOURCE_NOT_FOUND', { id });
  const share = options.withdrawMaxShare ?? PULL_WITHDRAW_MAX_SHARE;
  const at = nowRfc3339();
  const dir = await mkdtemp(join(tmpdir(), 'inmo-feed-'));
  // While a pull is held the validators are not sent: the feed may have come back to the very
  // document they name, which must be read again to replace the hold (a 304 would keep it).
  const holding = source.held_run !== null;
  const request: FeedRequest = {
    url: source.url,
    etag: holding ? null : source.etag,
    lastModified: holding ? null : source.last_modified,
    outbound: options.outbound,
    maxBytes: options.maxBytes,
  };
  // What the document names is kept on the way in import_refs, under this run.
  const run = randomUUID();
  let result: PullResult;
  let validators: { etag: string | null; last_modified: string | null } | null = null;
  let held = false;
  try {
    const pulled = await pullOffThread(db, source.business_id, request, join(dir, 'feed'), source.format as ImportFormat | null, run);
    if (!('summary' in pulled)) result = pulled.fetched;
    else {
      const { summary } = pulled;
      // A document with rejected properties withdraws nothing: a later clean one still can.
      const clean = summary.rejected.length === 0;
      // The refs' rows go through this connection's page cache: kept to the import's size.
      const outcome = await withPageCache(db, IMPORT_PAGE_CACHE_KIB, async () => {
        const unnamed = clean ? await repo.listUnnamedSourceListings(db, source.business_id, id, run) : [];
        const of = unnamed.length ? await repo.countSourceListings(db, source.business_id, id) : 0;
        if (unnamed.length > share * of) {
          await repo.updateFeedSource(db, id, { held_run: run, held_at: at, held_withdrawals: unnamed.length, held_of: of });
          return { gone: [] as number[], hold: { held: unnamed.length, of } };
        }
        await db.transaction().execute(async (trx) => {
          if (unnamed.length)
            await withdrawListings(trx, source.business_id, unnamed, nowRfc3339(), { type: 'system', id: `feed_source:${id}` });
          await repo.replaceSourceRefs(trx, id, run, !clean);
          await repo.updateFeedSource(trx, id, NO_HOLD);
        });
        return { gone: unnamed, hold: null };
      });
      // This document replaces a hold of an earlier one.
      if (source.held_run !== null) await withPageCache(db, IMPORT_PAGE_CACHE_KIB, () => dropImportRefs(db, source.held_run!));
      if (outcome.gone.length) signalChange(db);
      held = outcome.hold !== null;
      result = {
        status: held ? 'held' : 'imported',
        created: summary.created,
        // The import counts each write of a ref seen before as an update, a repeat of a new
        // listing included: the listings that were there before are the others.
        updated: summary.updated - summary.repeated,
        repeated: summary.repeated,
        withdrawn: outcome.gone.length,
        ...(outcome.hold ?? {}),
        rejected: summary.rejected.slice(0, REJECTED_KEPT),
        rejectedCount: summary.rejected.length,
      };
      if (!held) validators = { etag: pulled.fetched.etag, last_modified: pulled.fetched.lastModified };
    }
  } catch (error) {
    result = { status: 'failed', error: failure(error) };
  } finally {
    // A held pull's refs stay: its withdrawals are made from them once confirmed.
    if (!held) await withPageCache(db, IMPORT_PAGE_CACHE_KIB, () => dropImportRefs(db, run));
    await rm(dir, { recursive: true, force: true });
  }
  await repo.updateFeedSource(db, id, {
    last_pull_at: at,
    last_status: result.status,
    last_result: JSON.stringify(result),
    last_error: result.error ?? null,
    ...(validators ?? {}),
  });
  return result;
}

/** A source's columns without a held pull. */
const NO_HOLD = { held_run: null, held_at: null, held_withdrawals: null, held_of: null };

/**
 * The held pull of a source of `businessId` (any business when null), or the error the console
 * and the CLI show.
 * @param run the hold the owner saw (the console's form), or undefined for whichever is held.
 * @throws InmoError FEED_SOURCE_NOT_FOUND; FEED_PULL_NOT_HELD when none is held, or another one than `run`.
 */
async function heldPull(db: Db, id: number, businessId: number | null, run: string | undefined) {
  const source = await repo.findFeedSource(db, id, businessId);
  if (!source || source.removed_at !== null) throw new InmoError('FEED_SOURCE_NOT_FOUND', { id });
  if (source.held_run === null || (run !== undefined && run !== source.held_run)) throw new InmoError('FEED_PULL_NOT_HELD', { id });
  return { source, run: source.held_run };
}

/**
 * Confirms a held pull (issue 41): withdraws the source's listings its document did not name,
 * as the pull would have, in one transaction with the source's refs made the document's and
 * the hold cleared; the changes feed, caches and events follow as for any withdrawal.
 * @param by.businessId the business whose source alone may be confirmed (the console), or null (the CLI).
 * @param by.run the hold the owner saw (the console's form): another one is not confirmed.
 * @param by.actor who confirmed, recorded in the audit trail with each withdrawal.
 * @returns how many listings were withdrawn.
 * @throws InmoError FEED_SOURCE_NOT_FOUND, FEED_PULL_NOT_HELD (nothing is changed).
 */
export async function confirmHeldPull(
  db: Db,
  id: number,
  by: { businessId: number | null; run?: string; actor: AuditActor },
): Promise<{ withdrawn: number }> {
  const { source, run: held } = await heldPull(db, id, by.businessId, by.run);
  const gone = await withPageCache(db, IMPORT_PAGE_CACHE_KIB, async () => {
    const unnamed = await repo.listUnnamedSourceListings(db, source.business_id, id, held);
    await db.transaction().execute(async (trx) => {
      // Another confirmation, or a pull, that came first has taken the hold.
      if (!(await repo.takeHold(trx, id, held))) throw new InmoError('FEED_PULL_NOT_HELD', { id });
      if (unnamed.length) await withdrawListings(trx, source.business_id, unnamed, nowRfc3339(), by.actor);
      await repo.replaceSourceRefs(trx, id, held, false);
      if (source.last_status === 'held' && source.last_result !== null) {
        const result = { ...(JSON.parse(source.last_result) as PullResult), status: 'imported' as const, withdrawn: unnamed.length };
        await repo.updateFeedSource(trx, id, { last_status: result.status, last_result: JSON.stringify(result) });
      }
    });
    await dropImportRefs(db, held);
    return unnamed;
  });
  if (gone.length) signalChange(db);
  return { withdrawn: gone.length };
}

/**
 * Discards a held pull (issue 41): its withdrawals are not made, the listings stay; its refs are
 * dropped. The source's next pull holds again if its document still leaves those listings out.
 * @param by.businessId, by.run as {@link confirmHeldPull}.
 * @returns how many listings were kept.
 * @throws InmoError FEED_SOURCE_NOT_FOUND, FEED_PULL_NOT_HELD (nothing is changed).
 */
export async function discardHeldPull(db: Db, id: number, by: { businessId: number | null; run?: string }): Promise<{ kept: number }> {
  const { source, run: held } = await heldPull(db, id, by.businessId, by.run);
  await db.transaction().execute(async (trx) => {
    if (!(await repo.takeHold(trx, id, held))) throw new InmoError('FEED_PULL_NOT_HELD', { id });
    if (source.last_status === 'held' && source.last_result !== null) {
      const result = { ...(JSON.parse(source.last_result) as PullResult), status: 'imported' as const, kept: source.held_withdrawals ?? 0 };
      await repo.updateFeedSource(trx, id, { last_status: result.status, last_result: JSON.stringify(result) });
    }
  });
  await withPageCache(db, IMPORT_PAGE_CACHE_KIB, () => dropImportRefs(db, held));
  return { kept: source.held_withdrawals ?? 0 };
}
