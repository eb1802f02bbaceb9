/**
 * The one way listings are written (CONTRACT §9, §13, §14): an import's batch and a save from
 * the console alike go through {@link writeListings}, so both have exactly the same effects —
 * a new catalogue version (the changes feed, ETags and every process's caches follow it),
 * the published documents rebuilt, searching leads matched again once the changes stop, and
 * the event `property.changed` (`{"id", "change": "upsert"|"delete"}`) for each listing that
 * enters, changes in, or leaves the public catalogue.
 */
import { recordAudits, type AuditActor } from '../access/audit.ts';
import type { Executor } from '../../db/database.ts';
import { bumpCatalogueVersion } from '../../db/repositories/businesses.ts';
import { noteCatalogueChange, REMATCH_DEBOUNCE_MS } from '../../db/repositories/jobs.ts';
import * as repo from '../../db/repositories/properties.ts';
import { buildPublishedDocs, type PublishedDocs, type StoredImage } from '../../domain/catalogue/property-doc.ts';
import type { ImageInput, NormalizedProperty } from '../../domain/catalogue/property-record.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { recordEvents } from '../integrations/events.ts';

/** A listing to write: by its `external_ref` (an import line), or onto the row `id` (a console edit, which may rename it). */
export interface ListingWrite {
  property: NormalizedProperty;
  id?: number;
}

/** What {@link writeListings} did. */
export interface WrittenListings {
  /** The catalogue version the listings now carry. */
  version: number;
  /** Id of each listing inserted, by external ref. */
  created: Map<string, number>;
  /** Listings updated (a ref repeated in the batch counts each time). */
  updated: number;
  /** `property.changed` events recorded. */
  changed: number;
}

/** The stored media when they are what the write says (their ids kept), else what `replace` stores instead. */
async function keptOrReplaced<T extends { id: number }>(stored: T[], wanted: object[], replace: () => Promise<T[]>): Promise<T[]> {
  const same = JSON.stringify(stored.map(({ id: _id, ...rest }) => rest)) === JSON.stringify(wanted);
  return same ? stored : replace();
}

/**
 * A console write's images (CONTRACT §14): each stored image whose URL the write still names
 * keeps its row and id (its columns updated when they changed); the others are deleted, and
 * the new ones inserted. A URL named twice matches its stored rows in order.
 * @returns the stored images, in the write's order.
 */
async function syncedImages(trx: Executor, propertyId: number, stored: StoredImage[], wanted: ImageInput[]): Promise<StoredImage[]> {
  const byUrl = new Map<string, StoredImage[]>();
  for (const image of stored) byUrl.set(image.url, [...(byUrl.get(image.url) ?? []), image]);
  const result: Array<StoredImage | null> = [];
  const fresh: ImageInput[] = [];
  for (const image of wanted) {
    const kept = byUrl.get(image.url)?.shift();
    if (kept === undefined) {
      result.push(null);
      fresh.push(image);
      continue;
    }
    const { url: _url, ...columns } = image;
    if (JSON.stringify({ ...kept, ...image }) !== JSON.stringify(kept)) await repo.updateImage(trx, kept.id, columns);
    result.push({ ...image, id: kept.id });
  }
  await repo.deleteImagesById(
    trx,
    propertyId,
    [...byUrl.values()].flat().map((i) => i.id),
  );
  const inserted = await repo.insertImages(trx, propertyId, fresh);
  return result.map((image) => image ?? inserted.shift()!);
}

const hasMedia = (p: NormalizedProperty) => p.images.length > 0 || p.videos.length > 0;

/** The `property.changed` change of a listing, or null when the public catalogue does not see a difference. */
function publicChange(
  before: { listed: number; api_doc: string | null; lang_texts: string | null } | undefined,
  listed: number,
  docs: PublishedDocs,
): 'upsert' | 'delete' | null {
  const wasListed = before?.listed === 1;
  if (listed === 1) return wasListed && before?.api_doc === docs.api_doc && before.lang_texts === docs.lang_texts ? null : 'upsert';
  return wasListed ? 'delete' : null;
}

/**
 * Writes listings of one business in the caller's transaction, as one new catalogue version:
 * a ref not stored yet (nor earlier in the batch) is inserted, in batch order; any other is
 * updated in batch order, its media kept (ids and all) unless they changed, then replaced; a
 * write onto a row `id` (the console's) keeps each image whose URL it still names, id and all.
 * Call it first in the transaction: the version is taken under the business's row lock, so
 * writes commit in version order. The caller signals the change (db/change-watch.ts) once
 * the transaction has committed.
 * @param now canonical RFC 3339 instant of the write (`imported_at`, the events' time).
 */
export async function writeListings(trx: Executor, businessId: number, batch: ListingWrite[], now: string): Promise<WrittenListings> {
  const version = await bumpCatalogueVersion(trx, businessId);
  const ids = await repo.findIdsByRef(trx, businessId, [
    ...new Set(batch.filter((w) => w.id === undefined).map((w) => w.property.fields.external_ref)),
  ]);
  // First sight of a new ref: inserted together, in batch order. A ref seen again (already
  // stored, or repeated in this batch) is an update, applied afterwards in batch order.
  const fresh: NormalizedProperty[] = [];
  const updates: ListingWrite[] = [];
  const seen = new Set<string>();
  for (const write of batch) {
    const ref = write.property.fields.external_ref;
    if (write.id !== undefined || ids.has(ref) || seen.has(ref)) updates.push(write);
    else fresh.push(write.property);
    seen.add(ref);
  }
  const changes: Array<{ id: number; change: 'upsert' | 'delete' }> = [];
  // Without media a document needs no id but the property's own, so it is written with the row.
  const docs = new Map<NormalizedProperty, PublishedDocs>();
  for (const p of fresh) if (!hasMedia(p)) docs.set(p, buildPublishedDocs(p.fields, [], []));
  const created = await repo.insertProperties(
    trx,
    businessId,
    fresh.map((p) => ({ fields: { ...p.fields, change_seq: version }, docs: docs.get(p) ?? null })),
    now,
  );
  const withMedia = fresh.filter(hasMedia).map((p) => ({ ...p, propertyId: created.get(p.fields.external_ref)! }));
  const media = await repo.insertMediaOf(trx, withMedia);
  const mediaDocs = withMedia.map((p) => {
    const stored = media.get(p.propertyId)!;
    return { property_id: p.propertyId, ...buildPublishedDocs(p.fields, stored.images, stored.videos) };
  });
  await repo.insertApiDocs(trx, mediaDocs);
  for (const p of fresh) if (p.fields.listed === 1) changes.push({ id: created.get(p.fields.external_ref)!, change: 'upsert' });
  for (const [ref, id] of created) ids.set(ref, id);

  const targets = updates.map((w) => w.id ?? ids.get(w.property.fields.external_ref)!);
  const before = await repo.listPublication(trx, [...new Set(targets)]);
  for (const [i, { property }] of updates.entries()) {
    const { fields, images, videos } = property;
    const existing = targets[i];
    await repo.updateProperty(trx, existing, { ...fields, change_seq: version }, now);
    // Unchanged media keep their ids; changed media are replaced as a whole, but a console
    // write's images keep theirs one by one (an import's bulk replacement stays cheaper).
    const loaded = await repo.loadImages(trx, existing);
    const storedImages =
      updates[i].id !== undefined
        ? await keptOrReplaced(loaded, images, () => syncedImages(trx, existing, loaded, images))
        : await keptOrReplaced(loaded, images, async () => {
            await repo.deleteImages(trx, existing);
            return repo.insertImages(trx, existing, images);
          });
    const storedVideos = await keptOrReplaced(await repo.loadVideos(trx, existing), videos, async () => {
      await repo.deleteVideos(trx, existing);
      return repo.insertVideos(trx, existing, videos);
    });
    const doc = buildPublishedDocs(fields, storedImages, storedVideos);
    await repo.setApiDoc(trx, existing, doc);
    const change = publicChange(before.get(existing), fields.listed, doc);
    if (change !== null) changes.push({ id: existing, change });
    // A ref written twice in a batch: its second write compares with its first.
    before.set(existing, { listed: fields.listed, ...doc });
  }
  await recordEvents(trx, businessId, 'property.changed', changes, now);
  // Searching leads are matched again once the changes stop coming (CONTRACT §7).
  const changedAt = Date.now();
  await noteCatalogueChange(trx, businessId, toRfc3339(new Date(changedAt)), toRfc3339(new Date(changedAt + REMATCH_DEBOUNCE_MS)));
  return { version, created, updated: updates.length, changed: changes.length };
}

/**
 * Withdraws listings (`retirada`, out of the public catalogue) as one new catalogue version, in
 * the caller's transaction, with `property.changed` `delete` for those that were public; the
 * rows and their history stay. Call it first in the transaction, as {@link writeListings}.
 * Each withdrawal is recorded in the audit trail (CONTRACT §18: inmo's deletion of a listing).
 * @param ids listings of the business.
 * @param actor who withdrew them: the CLI's full import, or the feed source whose document no longer names them.
 */
export async function withdrawListings(
  trx: Executor,
  businessId: number,
  ids: readonly number[],
  now: string,
  actor: AuditActor,
): Promise<void> {
  const version = await bumpCatalogueVersion(trx, businessId);
  const before = await repo.listPublication(trx, ids);
  await repo.withdrawProperties(trx, ids, version, now);
  const left = ids.filter((id) => before.get(id)?.listed === 1).map((id) => ({ id, change: 'delete' as const }));
  await recordEvents(trx, businessId, 'property.changed', left, now);
  await recordAudits(trx, businessId, actor, 'property.withdraw', ids, now);
  await noteCatalogueChange(trx, businessId, now, toRfc3339(new Date(Date.parse(now) + REMATCH_DEBOUNCE_MS)));
}
