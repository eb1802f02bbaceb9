/**
 * A listing's photos (CONTRACT §14): uploaded, re-encoded and stored (media/photos.ts,
 * media/store.ts), then added to the listing's images by a save of the listing
 * (services/listings.ts), so the API, feed and events see them as they would an import's; and
 * made primary, moved, titled, hidden, shown or deleted the same way.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { InmoError } from '../errors.ts';
import { PHOTO_WIDTHS, renderPhoto } from '../media/photos.ts';
import type { MediaStore } from '../media/store.ts';
import { saveListing, showListing } from './listings.ts';

/**
 * Where a photo's key is in its URL: `…/p/<listing>/<uuid>-<width>.jpg`. Not `p/0/`: the demo
 * catalogue's photos, shared by its listings (src/demo/photos.ts), are no listing's to delete.
 */
const UPLOADED = /(p\/[1-9]\d{0,14}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-\d{1,5}\.jpg$/;

/** The store's keys of an uploaded photo, every width, from its URL; none for a photo linked from elsewhere (an import's). */
export function mediaKeysOf(url: string): string[] {
  const base = UPLOADED.exec(url)?.[1];
  return base === undefined ? [] : PHOTO_WIDTHS.map((w) => `${base}-${w}.jpg`);
}

/** Longest photo title, characters (as the import format's). */
export const PHOTO_TITLE_MAX = 500;

/** What can be done to one photo. */
export const PHOTO_ACTIONS = ['primary', 'up', 'down', 'hide', 'show', 'delete', 'title'] as const;
export type PhotoAction = (typeof PHOTO_ACTIONS)[number];

/**
 * Adds uploaded files to a listing's photos, after those it has: every file is rendered first,
 * and one refused refuses them all, with nothing stored; then the widths are stored and the
 * listing saved. The first photo of a listing without a primary one becomes its primary.
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
  const shown = await showListing(db, businessId, id);
  if (!shown) throw new InmoError('PROPERTY_NOT_FOUND');
  const rendered = [];
  for (const file of files) rendered.push(await renderPhoto(file.path, file.fileName));
  const stored: string[] = [];
  try {
    const images = [...(shown.record.images ?? [])];
    let order = Math.max(-1, ...images.map((i) => i.order ?? 0));
    let primary = images.some((i) => i.is_primary);
    for (const photo of rendered) {
      const base = `p/${id}/${randomUUID()}`;
      for (const variant of photo.variants) {
        const key = `${base}-${variant.slot}.jpg`;
        await store.put(key, variant.body, 'image/jpeg');
        stored.push(key);
      }
      images.push({ url: urlOf(stored.at(-1)!), order: ++order, is_primary: !primary, title: null, public: true });
      primary = true;
    }
    await saveListing(db, businessId, id, { ...shown.record, images }, null);
  } catch (error) {
    await store.delete(stored).catch(() => {});
    throw error;
  }
  return rendered.length;
}

/**
 * Changes one photo of a listing: `primary` (the only one), `up`/`down` (one place in the
 * order), `hide`/`show` (published or not), `delete` (its stored widths go too), `title`.
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
  const shown = await showListing(db, businessId, id);
  const at = shown?.images.findIndex((i) => i.id === imageId) ?? -1;
  if (!shown || at < 0) throw new InmoError('PROPERTY_NOT_FOUND');
  // The record's images are the stored ones, in the same order; sorted as the listing shows them.
  const images = (shown.record.images ?? []).map((image, i) => ({ ...image, id: shown.images[i].id }));
  images.sort((a, b) => (a.order ?? 0) - (b.order ?? 0) || a.id - b.id);
  const target = images.findIndex((i) => i.id === imageId);
  let gone: string[] = [];
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
      gone = mediaKeysOf(removed.url);
      if (removed.is_primary && images.length > 0) images[0].is_primary = true;
      break;
    }
    case 'title':
      images[target].title = title.trim().slice(0, PHOTO_TITLE_MAX) || null;
      break;
  }
  await saveListing(
    db,
    businessId,
    id,
    {
      ...shown.record,
      images: images.map(({ id: _id, ...image }, order) => ({ ...image, order })),
    },
    null,
  );
  // Deleted once the listing no longer names it; a failure leaves an object nobody links to.
  if (gone.length) await store.delete(gone).catch(() => {});
}
