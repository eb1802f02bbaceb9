/**
 * Which widths of a listing photo exist, read from its URL alone (CONTRACT §14, §17): the
 * website kit (src/embed/catalogue.ts, bundled into the browser, so this module imports nothing)
 * and the console's preview of it (src/http/console/kit-preview.ts) build `src` and `srcset` from it.
 *
 * A photo uploaded to inmo is stored as `p/<listing>/<uuid>-<slot>.jpg`, one key per slot of
 * {@link PHOTO_WIDTHS} that it fills (media/photos.ts `renderPhoto`): every slot narrower than
 * the photo, and the next one at the photo's own width. The listing links to the widest key
 * (services/catalogue/photos.ts `addPhotos`), so the slots stored are those up to the one its URL
 * names: a 800-pixel photo has `-480.jpg` and `-960.jpg` (800 pixels wide), a 400-pixel one
 * `-480.jpg` alone, and none has a `-1600.jpg` unless it is wider than 960 pixels.
 */

/** Widths every photo is stored in, px (none wider than the original). */
export const PHOTO_WIDTHS = [480, 960, 1600] as const;

/** The name a stored width of an uploaded photo ends in: `…/p/<listing>/<uuid>-<slot>.jpg`. */
const STORED_SLOT = /(\/p\/\d+\/[0-9a-f-]{36})-(\d+)\.jpg$/;

/** One stored width of a photo: its URL, and its slot of {@link PHOTO_WIDTHS}, px. */
export interface StoredPhotoWidth {
  url: string;
  /**
   * The slot, px: the photo's width at that URL for every slot but the widest, which holds the
   * photo at its own width when it is narrower than the slot (so at most this wide).
   */
  width: number;
}

/**
 * The widths stored of the photo at `url`, narrowest first, the last one `url` itself; empty for
 * a photo inmo does not store (an import's, on its own host, or a URL of another shape).
 */
export function storedPhotoWidths(url: string): StoredPhotoWidth[] {
  const match = STORED_SLOT.exec(url);
  const widest = match ? Number(match[2]) : NaN;
  if (!match || !(PHOTO_WIDTHS as readonly number[]).includes(widest)) return [];
  return PHOTO_WIDTHS.filter((w) => w <= widest).map((width) => ({ url: url.replace(STORED_SLOT, `$1-${width}.jpg`), width }));
}

/**
 * A photo's `src` and `srcset`: `src` the widest stored width (the listing's own URL), `srcset`
 * each stored width by its slot when there are several, else null. A photo inmo does not store
 * is its own URL alone.
 */
export function photoSources(url: string): { src: string; srcset: string | null } {
  const widths = storedPhotoWidths(url);
  if (widths.length < 2) return { src: url, srcset: null };
  return { src: widths.at(-1)!.url, srcset: widths.map((w) => `${w.url} ${w.width}w`).join(', ') };
}
