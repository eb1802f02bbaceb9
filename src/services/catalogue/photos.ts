/**
 * A listing's photos (CONTRACT §14): uploaded, re-encoded and stored (media/photos.ts,
 * media/store.ts), then added to the listing's images by a save of the listing
 * (services/catalogue/listings.ts), so the API, feed and events see them as they would an import's; and
 * made primary, moved, titled, hidden, shown or deleted the same way.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { forgetMediaObjects, ownedMediaKeys, recordMediaObjects } from '../../db/repositories/media.ts';
import type { MediaObjectTable } from '../../db/types.ts';
import { publishedUrl } from '../../domain/catalogue/text.ts';
import { nowRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { renderPhoto } from '../../media/photos.ts';
import type { MediaStore } from '../../media/store.ts';
import { editListing, listingInFull } from './listings.ts';

/** Longest photo title, characters (as the import format's). */
export const PHOTO_TITLE_MAX = 500;

/** What can be done to one photo. */
export const PHOTO_ACTIONS = ['primary', 'up', 'down', 'hide', 'show', 'delete', 'title'] as const;
export type PhotoAction = (typeof PHOTO_ACTIONS)[number];

/**
 * Adds uploaded files to a listing's photos, after those it has: every file is rendered first,
 * and one refused refuses them all, with nothing stored; then the widths are stored, recorded
 * as the business's and the listing's (migration 0021), and the listing saved, reading its
 * photos in the same transaction (two uploads at once both count). The first photo of a
 * listing without a primary one becomes its primary.
 * @param files the uploaded files, in the order chosen.
 * @param urlOf the public URL of a media key (`/media/…` on this server, or the bucket's base).
 * @returns how many photos were added.
 * @throws InmoError PROPERTY_NOT_FOUND; PhotoRefusedError naming the file refused.
 */
export async function addPhotos(
  db: Db,
  store: MediaStore,
  businessId: number,
  id: number,
  files: ReadonlyArray<{ path: string; fileName: string }>,
  urlOf: (key: string) => string,
): Promise<number> {
  if (!(await listingInFull(db, businessId, id))) throw new InmoError('PROPERTY_NOT_FOUND');
  const rendered = [];
  for (const file of files) rendered.push(await renderPhoto(file.path, file.fileName));
  const stored: string[] = [];
  try {
    const objects: MediaObjectTable[] = [];
    const urls: string[] = [];
    const now = nowRfc3339();
    for (const photo of rendered) {
      const base = `p/${id}/${randomUUID()}`;
      const keys = [];
      for (const variant of photo.variants) {
        const key = `${base}-${variant.slot}.jpg`;
        await store.put(key, variant.body, 'image/jpeg');
        stored.push(key);
        keys.push(key);
      }
      // As the listing will store it (domain/catalogue/text.ts), so that its delete finds these objects.
      const url = publishedUrl(urlOf(keys.at(-1)!)) ?? urlOf(keys.at(-1)!);
      urls.push(url);
      for (const key of keys) objects.push({ key, business_id: businessId, property_id: id, url, created_at: now });
    }
    await editListing(db, businessId, id, async ({ record }, trx) => {
      await recordMediaObjects(trx, objects);
      const images = [...(record.images ?? [])];
      let order = Math.max(-1, ...images.map((i) => i.order ?? 0));
      let primary = images.some((i) => i.is_primary);
      for (const url of urls) {
        images.push({ url, order: ++order, is_primary: !primary, title: null, public: true });
        primary = true;
      }
      return { record: { ...record, images }, value: undefined };
    });
  } catch (error) {
    await store.delete(stored).catch(() => {});
    throw error;
  }
  return rendered.length;
}

/**
 * Changes one photo of a listing: `primary` (the only one), `up`/`down` (one place in the
 * order), `hide`/`show` (published or not), `delete`, `title`; read and written in one
 * transaction, every other image keeping its id (`Property.images[].id`). A deleted photo's
 * stored widths go too, and only they: the objects recorded for this business and listing
 * under exactly the image's URL (migration 0021), once no other image of the listing names
 * it. An image whose URL merely ends in a media key (an import's, any host) removes no object.
 * @param imageId the photo's id (`Property.images[].id`).
 * @param title the new title for `title` ('' removes it), at most {@link PHOTO_TITLE_MAX} characters.
 * @throws InmoError PROPERTY_NOT_FOUND for a listing or photo that is not the business's.
 */
export async function changePhoto(
  db: Db,
  store: MediaStore,
  businessId: number,
  id: number,
  imageId: number,
  action: PhotoAction,
  title = '',
): Promise<void> {
  const gone = await editListing(db, businessId, id, async ({ record, images: stored }, trx) => {
    // The record's images are the stored ones, in the same order; sorted as the listing shows them.
    const images = (record.images ?? []).map((image, i) => ({ ...image, id: stored[i].id }));
    images.sort((a, b) => (a.order ?? 0) - (b.order ?? 0) || a.id - b.id);
    const target = images.findIndex((i) => i.id === imageId);
    if (target < 0) throw new InmoError('PROPERTY_NOT_FOUND');
    let keys: string[] = [];
    switch (action) {
      case 'primary':
        for (const image of images) image.is_primary = image.id === imageId;
        break;
      case 'up':
      case 'down': {
        const other = action === 'up' ? target - 1 : target + 1;
        if (other >= 0 && other < images.length) [images[target], images[other]] = [images[other], images[target]];
        break;
      }
      case 'hide':
      case 'show':
        images[target].public = action === 'show';
        break;
      case 'delete': {
        const [removed] = images.splice(target, 1);
        if (!images.some((i) => i.url === removed.url)) {
          keys = await ownedMediaKeys(trx, businessId, id, removed.url);
          await forgetMediaObjects(trx, keys);
        }
        if (removed.is_primary && images.length > 0) images[0].is_primary = true;
        break;
      }
      case 'title':
        images[target].title = title.trim().slice(0, PHOTO_TITLE_MAX) || null;
        break;
    }
    return { record: { ...record, images: images.map(({ id: _id, ...image }, order) => ({ ...image, order })) }, value: keys };
  });
  // Deleted once the listing no longer names it; a failure leaves an object nobody links to.
  if (gone.length) await store.delete(gone).catch(() => {});
}
