/**
 * Views of a listing counted by inmo for its owner's report (CONTRACT §24, issue 58 item 4):
 * its public page (`/l/<token>`, source `page`) and the website kit's detail (`GET
 * /properties/{id}` with a publishable key, on the full or the fast path, source `kit`).
 *
 * - **Nothing about the visitor.** No cookie is set or read and no address, agent string or
 *   identifier is kept: a view is a listing, a source and a UTC hour. Requests that are not a
 *   person looking are left out ({@link isPersonView}): HEAD, a browser's prefetch or prerender,
 *   and link-preview fetchers and crawlers by their `User-Agent`.
 * - **Cheap on the request path.** Counting is a `Map` increment; each process writes its counts
 *   every {@link FLUSH_MS} ms and when it closes, in one transaction, added to the stored ones
 *   (db/repositories/listing-activity.ts `addListingViews`), so several processes add up. Views
 *   counted in the seconds before a process is killed outright are lost, never counted twice.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from '../../db/database.ts';
import { addListingViews, type ViewCount } from '../../db/repositories/listing-activity.ts';
import { transact } from '../../db/transaction.ts';

/** Where a listing was seen. */
export type ViewSource = 'page' | 'kit';

/** How often a process writes its counts, ms. */
export const FLUSH_MS = 30_000;

/** Agents that fetch a page without a person reading it: crawlers, link previews (WhatsApp's, Slack's, …), tools. */
const NOT_A_PERSON =
  /bot\b|bot\/|crawl|spider|slurp|preview|facebookexternalhit|whatsapp|embedly|curl\/|wget\/|python-|go-http-client|node-fetch|undici/i;

/** Whether a request is a person's view (see the module's comment). */
export function isPersonView(method: string, headers: IncomingHttpHeaders): boolean {
  if (method !== 'GET') return false;
  const purpose = `${headers['sec-purpose'] ?? ''} ${headers.purpose ?? ''} ${headers['x-moz'] ?? ''}`;
  if (/prefetch|prerender/i.test(purpose)) return false;
  const agent = headers['user-agent'];
  return typeof agent === 'string' && agent !== '' && !NOT_A_PERSON.test(agent);
}

/** The UTC hour of an instant, `YYYY-MM-DDTHH`: the bucket views are counted in. */
export const hourOf = (ms: number): string => new Date(ms).toISOString().slice(0, 13);

/** A process's view counters (see the module's comment). */
export class ListingViews {
  private counts = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly db: Db) {}

  /** Counts a view of listing `propertyId` now. */
  count(propertyId: number, source: ViewSource, now: number = Date.now()): void {
    const key = `${propertyId}|${source}|${hourOf(now)}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (this.timer === null) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  /**
   * Writes the counts held so far and forgets them; on a failure they are kept for the next write.
   * Resolves once they (and any write before) are stored.
   */
  flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const held = this.counts;
    this.counts = new Map();
    // In one order in every process: two processes' writes of the same rows never wait on each other in a cycle.
    const rows: ViewCount[] = [...held]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, views]) => {
        const [id, source, hour] = key.split('|');
        return { property_id: Number(id), source: source as ViewSource, hour, views };
      });
    this.flushing = this.flushing.then(async () => {
      if (rows.length === 0) return;
      try {
        await transact(this.db, (trx) => addListingViews(trx, rows));
      } catch {
        // Kept for the next write (the database may be busy or closing).
        for (const [key, views] of held) this.counts.set(key, (this.counts.get(key) ?? 0) + views);
        if (this.timer === null) {
          this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
          this.timer.unref();
        }
      }
    });
    return this.flushing;
  }
}
