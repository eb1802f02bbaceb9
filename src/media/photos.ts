/**
 * Listing photos (CONTRACT §14): an uploaded file is read by its content, never its name, and
 * only JPEG, PNG or WebP of at most 15 MB (and 50 megapixels) is taken. It is turned upright
 * and re-encoded as JPEG in standard widths, with no EXIF or other metadata left: a phone
 * photo carries the GPS position of the flat, which would undo the `hidden` and `approximate`
 * privacy levels of its address. Images are processed by sharp (libvips) from the file, so
 * memory holds only what libvips needs and the encoded results.
 */
import type { Metadata, OutputInfo, default as Sharp } from 'sharp';
import { PHOTO_WIDTHS } from './photo-widths.ts';

/** Widths every photo is stored in, px (none wider than the original): media/photo-widths.ts. */
export { PHOTO_WIDTHS };

/** The name a stored width of an uploaded photo ends in (services/catalogue/photos.ts): `p/<listing>/<uuid>-<width>.jpg`. */
const STORED_WIDTH = /(\/p\/\d+\/[0-9a-f-]{36})-\d+\.jpg$/;

/**
 * The URL of a listing photo at its stored width `width` (one of {@link PHOTO_WIDTHS}); a photo
 * not stored by inmo (an import's) has only its own URL. Only the smallest width is stored for
 * every photo, however narrow: for the others, media/photo-widths.ts says which exist.
 */
export function photoAtWidth(url: string, width: (typeof PHOTO_WIDTHS)[number]): string {
  return url.replace(STORED_WIDTH, `$1-${width}.jpg`);
}

/** Largest file taken, bytes (15 MB). */
export const MAX_PHOTO_BYTES = 15 * 1024 * 1024;

/** Largest image taken, pixels: a 50-megapixel photo; anything larger is a decompression bomb or a panorama. */
export const MAX_PHOTO_PIXELS = 50_000_000;

/** Longest side taken, pixels: more is no photo of a flat (and the decoder's rows grow with it). */
export const MAX_PHOTO_SIDE = 12_000;

/** Most times longer than wide (or wide than long) an image may be: a 20:1 panorama, no strip of pixels. */
export const MAX_PHOTO_ASPECT = 20;

/**
 * Most bytes the decoded pixels of an image may take (width × height × channels × bytes per
 * sample, 2 for 16-bit): 200 MB, a 50-megapixel RGBA photo at 8 bits, or 33 megapixels of
 * 16-bit RGB. A 16-bit PNG of 50 megapixels takes 300 MB and more again while it is read.
 */
export const MAX_DECODED_BYTES = 200_000_000;

/**
 * Photos rendered at a time in the process; more wait their turn (in arrival order). Each
 * render holds one decode of its photo, so memory stays bounded by this, not by how many
 * uploads arrive together (CONTRACT §14; ten at once of the largest photo taken stay under 1 GB).
 * A photo whose decode takes more than a turn's share of {@link MAX_DECODED_BYTES} (a large
 * progressive JPEG) takes more turns, and may render alone.
 */
export const PHOTO_RENDERS = 2;

/** Formats taken, as sharp names what it reads in the file. */
const FORMATS = new Set(['jpeg', 'png', 'webp']);

/** Bytes of one sample of each pixel format sharp reports (`Metadata.depth`). */
const SAMPLE_BYTES: Record<string, number> = {
  uchar: 1,
  char: 1,
  ushort: 2,
  short: 2,
  uint: 4,
  int: 4,
  float: 4,
  complex: 8,
  double: 8,
  dpcomplex: 16,
};

/** JPEG quality of the stored widths (mozjpeg). */
const QUALITY = 80;

/**
 * Why a file was refused: not a JPEG, PNG or WebP (`format`); over 15 MB (`too_large`); over
 * 50 megapixels (`too_many_pixels`); a side over {@link MAX_PHOTO_SIDE}, a shape longer than
 * {@link MAX_PHOTO_ASPECT}:1 or pixels over {@link MAX_DECODED_BYTES} (`too_large_dimensions`);
 * cut short (`truncated`: an upload that broke off, or a damaged file).
 */
export type PhotoRefusal = 'format' | 'too_large' | 'too_many_pixels' | 'too_large_dimensions' | 'truncated';

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

let loaded: Promise<typeof Sharp> | null = null;

/**
 * sharp, loaded at the first photo (most processes never render one, and it costs a tenth of a
 * second to load): one thread per libvips operation, and no cache of decoded images between them.
 */
export function sharpLoaded(): Promise<typeof Sharp> {
  return (loaded ??= import('sharp').then(({ default: sharp }) => {
    sharp.concurrency(1);
    sharp.cache(false);
    return sharp;
  }));
}

/** Turns free, and the renders waiting for theirs in arrival order (each with the turns it needs). */
let free = PHOTO_RENDERS;
const waiting: Array<{ turns: number; start: () => void }> = [];

/**
 * Runs `work` holding `turns` of the {@link PHOTO_RENDERS} turns, waiting in arrival order (a
 * render needing more turns is not overtaken by later ones needing fewer).
 */
async function inTurn<T>(turns: number, work: () => Promise<T>): Promise<T> {
  if (waiting.length > 0 || free < turns) await new Promise<void>((start) => waiting.push({ turns, start }));
  else free -= turns;
  try {
    return await work();
  } finally {
    free += turns;
    while (waiting.length > 0 && waiting[0].turns <= free) {
      const next = waiting.shift()!;
      free -= next.turns;
      next.start();
    }
  }
}

/**
 * Bytes a decode of the photo holds at once, estimated from its header: its pixels (width ×
 * height × channels × bytes per sample), and for a progressive JPEG also libjpeg's coefficients
 * of the whole image (2 bytes per sample, every component: a CMYK one has four), which it keeps
 * until the last scan.
 */
function decodeBytes(metadata: Metadata): number {
  const samples = (metadata.width ?? 0) * (metadata.height ?? 0) * (metadata.channels ?? 4);
  const pixels = samples * (SAMPLE_BYTES[metadata.depth ?? ''] ?? 8);
  return metadata.format === 'jpeg' && metadata.isProgressive ? pixels + samples * 2 : pixels;
}

/**
 * Reads the file at `path` by its content and renders the stored widths. Its header alone is
 * read first: the format, sides, shape and decoded size are checked before any pixel is
 * decoded. The pixels are then decoded once, in one of {@link PHOTO_RENDERS} turns, reduced
 * while read where the format allows (JPEG shrink-on-load, read sequentially), and every width
 * made from that.
 * @param fileName the name the browser gave, for the refusal's message only.
 * @throws PhotoRefusedError when the file is not a JPEG, PNG or WebP image, is too large (see
 *   {@link PhotoRefusal}) or is cut short.
 */
export async function renderPhoto(path: string, fileName: string): Promise<RenderedPhoto> {
  const sharp = await sharpLoaded();
  let metadata: Metadata;
  try {
    // The header only: no pixel is decoded here.
    metadata = await sharp(path, { limitInputPixels: false }).metadata();
  } catch {
    throw new PhotoRefusedError('format', fileName);
  }
  if (!metadata.format || !FORMATS.has(metadata.format)) throw new PhotoRefusedError('format', fileName);
  const { width = 0, height = 0 } = metadata;
  if (width < 1 || height < 1) throw new PhotoRefusedError('format', fileName);
  if (width > MAX_PHOTO_SIDE || height > MAX_PHOTO_SIDE || Math.max(width, height) > MAX_PHOTO_ASPECT * Math.min(width, height))
    throw new PhotoRefusedError('too_large_dimensions', fileName);
  if (width * height > MAX_PHOTO_PIXELS) throw new PhotoRefusedError('too_many_pixels', fileName);
  const pixels = width * height * (metadata.channels ?? 4) * (SAMPLE_BYTES[metadata.depth ?? ''] ?? 8);
  if (pixels > MAX_DECODED_BYTES) throw new PhotoRefusedError('too_large_dimensions', fileName);
  // A decode larger than a turn's share (a progressive JPEG's coefficients, say) renders with
  // more turns, alone at most: ten at once still keep the process under 1 GB.
  const turns = Math.min(PHOTO_RENDERS, Math.max(1, Math.ceil(decodeBytes(metadata) / (MAX_DECODED_BYTES / PHOTO_RENDERS))));
  return inTurn(turns, () => render(path, fileName, metadata));
}

/** Decodes the photo once, at the widest slot, and encodes every slot from that. */
async function render(path: string, fileName: string, metadata: Metadata): Promise<RenderedPhoto> {
  const sharp = await sharpLoaded();
  // EXIF orientation 5–8 swap width and height once the photo is turned upright.
  const width = (metadata.orientation ?? 1) >= 5 ? metadata.height! : metadata.width!;
  const slots: number[] = PHOTO_WIDTHS.filter((w) => w < width);
  if (slots.length < PHOTO_WIDTHS.length) slots.push(PHOTO_WIDTHS[slots.length]);
  let widest: { data: Buffer; info: OutputInfo };
  try {
    widest = await sharp(path, {
      limitInputPixels: MAX_PHOTO_PIXELS,
      sequentialRead: true,
      // A JPEG cut short and closed with an end marker is only a libjpeg warning ("premature
      // end of data segment"), rendered padded with grey: JPEGs are read at sharp's strictest.
      // libpng calls benign much that is (an sRGB profile it knows to be wrong), so PNG and
      // WebP stop at errors, which a file cut short is for them.
      failOn: metadata.format === 'jpeg' ? 'warning' : 'error',
    })
      .rotate()
      .resize({ width: slots.at(-1)!, withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw new PhotoRefusedError(truncation(error) ? 'truncated' : 'format', fileName);
  }
  const { data, info } = widest;
  const variants = [];
  for (const slot of slots) {
    const { data: body, info: out } = await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
      .resize({ width: Math.min(slot, info.width), withoutEnlargement: true })
      .jpeg({ quality: QUALITY, mozjpeg: true })
      .toBuffer({ resolveWithObject: true });
    variants.push({ slot, width: out.width, height: out.height, body });
  }
  return { variants };
}

/** Whether libvips's error says the file ends before its pixels do. */
function truncation(error: unknown): boolean {
  return /premature end|corrupt jpeg data|not enough data|truncated|unexpected end/i.test(String((error as Error)?.message ?? error));
}
