/**
 * Photos that follow the server (issue 47, CONTRACT §14). A stored photo is linked by an
 * absolute URL: `<media base>/<key>`, the base being `INMO_MEDIA_PUBLIC_URL`, else `/media` on
 * the server's public origin (`INMO_PUBLIC_URL`, else the address it listens on). When the
 * server starts under another base (another port, host or bucket URL), the links written under
 * an earlier one are rewritten onto the current one, so that no photo points at an address
 * that no longer answers.
 *
 * A link is ours only when its tail is a media key (media/store.ts `MEDIA_KEY`) that this
 * server's store holds: an imported listing's photo served by another inmo keeps its URL.
 * Each business's listings change as a console save would change them: a new catalogue version
 * (ETags and every process's caches follow), `updated_at` now, and for the public ones an
 * `upsert` in the changes feed and the event `property.changed`.
 */
import type { Db, Executor } from '../../db/database.ts';
import { signalChange } from '../../db/change-watch.ts';
import { bumpCatalogueVersion } from '../../db/repositories/businesses.ts';
import { listPhotosOffBase, moveListingPhotoLinks } from '../../db/repositories/media.ts';
import { transact } from '../../db/transaction.ts';
import { MEDIA_KEY, type MediaStore } from '../../media/store.ts';
import { recordEvents } from '../integrations/events.ts';

/** Listings rewritten per transaction: a writer is held for one batch at a time. */
const BATCH = 500;

/** A photo link under an earlier base: `<base>/<key>`. */
const LINKED = /^(https?:\/\/.+)\/(p\/\d{1,15}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-\d{1,5}\.jpg)$/;

/** What {@link followMediaBase} did. */
export interface MediaBaseMove {
  /** Photo links rewritten. */
  photos: number;
  /** Listings whose published documents changed with them. */
  listings: number;
  /** The earlier bases the links were under. */
  from: string[];
}

/** A photo link to rewrite: image row `id` of a listing, its `url` now and the one it takes. */
interface Move {
  id: number;
  property_id: number;
  business_id: number;
  url: string;
  /** The earlier base it is under. */
  from: string;
  to: string;
}

/** Whether the store holds `key` (its body is not read). */
async function held(store: MediaStore, key: string): Promise<boolean> {
  const object = await store.get(key);
  object?.body.destroy();
  return object !== null;
}

/**
 * Rewrites every link to a photo of this server's store that is not under `base` onto `base`:
 * `property_images.url`, `media_objects.url` (by which the console finds a photo's widths) and
 * the published documents' `images[].url`.
 * @param base the current media base, e.g. `http://127.0.0.1:8080/media` (a trailing `/` is dropped).
 * @param now canonical RFC 3339 instant of the change (`updated_at`, the events' time).
 * @returns what moved; nothing when every link is already under `base` (one scan of the links
 *   that are not, which on a server that did not move are only other hosts' photos).
 */
export async function followMediaBase(db: Db, store: MediaStore, base: string, now: string): Promise<MediaBaseMove> {
  const to = base.replace(/\/+$/, '');
  const candidates = await listPhotosOffBase(db, to);
  const keys = new Map<string, boolean>();
  const moves: Move[] = [];
  for (const image of candidates) {
    const linked = LINKED.exec(image.url);
    if (linked === null || !MEDIA_KEY.test(linked[2])) continue;
    const key = linked[2];
    if (!keys.has(key)) keys.set(key, await held(store, key));
    if (keys.get(key)) moves.push({ ...image, from: linked[1], to: `${to}/${key}` });
  }
  const byBusiness = new Map<number, Map<number, Move[]>>();
  for (const move of moves) {
    const listings = byBusiness.get(move.business_id) ?? new Map<number, Move[]>();
    listings.set(move.property_id, [...(listings.get(move.property_id) ?? []), move]);
    byBusiness.set(move.business_id, listings);
  }
  let listingsMoved = 0;
  for (const [businessId, listings] of byBusiness) {
    const ids = [...listings.keys()];
    for (let i = 0; i < ids.length; i += BATCH) {
      const batch = ids.slice(i, i + BATCH);
      listingsMoved += await transact(db, (trx) => moveBatch(trx, businessId, batch, listings, now));
    }
  }
  if (moves.length > 0) signalChange(db);
  return { photos: moves.length, listings: listingsMoved, from: [...new Set(moves.map((m) => m.from))].sort() };
}

/** One batch of a business's listings, as one catalogue version. @returns the listings rewritten. */
async function moveBatch(trx: Executor, businessId: number, ids: number[], listings: Map<number, Move[]>, now: string): Promise<number> {
  const version = await bumpCatalogueVersion(trx, businessId);
  const photos = new Map<number, string>();
  const urls = new Map<string, string>();
  for (const id of ids) {
    for (const move of listings.get(id)!) {
      photos.set(move.id, move.to);
      urls.set(move.url, move.to);
    }
  }
  const rewriteDoc = (apiDoc: string) => {
    const doc = JSON.parse(apiDoc) as { images?: Array<{ url: string }> | null; updated_at?: string };
    for (const image of doc.images ?? []) image.url = urls.get(image.url) ?? image.url;
    doc.updated_at = now;
    return JSON.stringify(doc);
  };
  const listed = await moveListingPhotoLinks(trx, { businessId, ids, photos, objects: urls, version, now, rewriteDoc });
  const changed = listed.map((id) => ({ id, change: 'upsert' as const }));
  await recordEvents(trx, businessId, 'property.changed', changed, now);
  return ids.length;
}
