/**
 * Listing photos (CONTRACT §14): an uploaded file is read by its content, never its name, and
 * only JPEG, PNG or WebP of at most 15 MB (and 50 megapixels) is taken. It is turned upright
 * and re-encoded as JPEG in standard widths, with no EXIF or other metadata left: a phone
 * photo carries the GPS position of the flat, which would undo the `hidden` and `approximate`
 * privacy levels of its address. Images are processed by sharp (libvips) from the file, so
 * memory holds only what libvips needs and the encoded results.
 */
import sharp, { type Metadata } from 'sharp';

/** Widths every photo is stored in, px (none wider than the original). */
export const PHOTO_WIDTHS = [480, 960, 1600] as const;

/** Largest file taken, bytes (15 MB). */
export const MAX_PHOTO_BYTES = 15 * 1024 * 1024;

/** Largest image taken, pixels: a 50-megapixel photo; anything larger is a decompression bomb or a panorama. */
export const MAX_PHOTO_PIXELS = 50_000_000;

/** Formats taken, as sharp names what it reads in the file. */
const FORMATS = new Set(['jpeg', 'png', 'webp']);

/** JPEG quality of the stored widths (mozjpeg). */
const QUALITY = 80;

/** Why a file was refused. */
export type PhotoRefusal = 'format' | 'too_large' | 'too_many_pixels';

/** A file that is not a photo inmo takes. Nothing of it is stored. */
export class PhotoRefusedError extends Error {
  constructor(
    readonly reason: PhotoRefusal,
    readonly fileName: string,
  ) {
    super(`${fileName}: ${reason}`);
  }
}

/**
 * A photo re-encoded: its widths, smallest first; the last is the one a listing links to. Each
 * fills a slot of {@link PHOTO_WIDTHS} (its key's name); a photo narrower than a slot fills the
 * first such slot at its own width, and no larger one.
 */
export interface RenderedPhoto {
  variants: Array<{ slot: number; width: number; height: number; body: Buffer }>;
}

// One photo at a time per libvips operation keeps the memory of many uploads bounded.
sharp.concurrency(1);
sharp.cache(false);

/**
 * Reads the file at `path` by its content and renders the stored widths.
 * @param fileName the name the browser gave, for the refusal's message only.
 * @throws PhotoRefusedError when the file is not a JPEG, PNG or WebP image, or is too large.
 */
export async function renderPhoto(path: string, fileName: string): Promise<RenderedPhoto> {
  let metadata: Metadata;
  try {
    metadata = await sharp(path, { limitInputPixels: false }).metadata();
  } catch {
    throw new PhotoRefusedError('format', fileName);
  }
  if (!metadata.format || !FORMATS.has(metadata.format)) throw new PhotoRefusedError('format', fileName);
  if ((metadata.width ?? 0) * (metadata.height ?? 0) > MAX_PHOTO_PIXELS) throw new PhotoRefusedError('too_many_pixels', fileName);
  // EXIF orientation 5–8 swap width and height once the photo is turned upright.
  const width = (metadata.orientation ?? 1) >= 5 ? metadata.height! : metadata.width!;
  const slots: number[] = PHOTO_WIDTHS.filter((w) => w < width);
  if (slots.length < PHOTO_WIDTHS.length) slots.push(PHOTO_WIDTHS[slots.length]);
  const variants = [];
  for (const w of slots) {
    try {
      const { data, info } = await sharp(path, { limitInputPixels: MAX_PHOTO_PIXELS, failOn: 'error' })
        .rotate()
        .resize({ width: w, withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: QUALITY, mozjpeg: true })
        .toBuffer({ resolveWithObject: true });
      variants.push({ slot: w, width: info.width, height: info.height, body: data });
    } catch {
      throw new PhotoRefusedError('format', fileName);
    }
  }
  return { variants };
}
