/**
 * A visitor's signature drawn on the agent's screen (CONTRACT §20, visit sheets): the console's
 * canvas sends it as a `data:image/png;base64,…` URL; it is taken only when its bytes are a PNG
 * (read by content with sharp, whatever the URL says), of bounded size and sides, and with some
 * ink on it. What is stored is inmo's own encoding of its pixels, flattened on white and at most
 * {@link SIGNATURE_MAX_WIDTH} × {@link SIGNATURE_MAX_HEIGHT}: no chunk of text or metadata the
 * sender put in the file is kept.
 */
import { sharpLoaded } from './photos.ts';

/** Largest PNG taken, bytes (a signature of a phone's canvas at 3× is about 40 KB). */
export const SIGNATURE_MAX_BYTES = 256 * 1024;

/** Longest side taken, pixels. */
const MAX_SIDE = 4000;

/** The stored signature's largest sides, pixels. */
export const SIGNATURE_MAX_WIDTH = 1200;
export const SIGNATURE_MAX_HEIGHT = 480;

/** A channel value darker than this (of 255) on the white-flattened image is ink. */
const INK_BELOW = 200;

/** Why a signature is refused: none sent, not a PNG, too large, or blank (no stroke on it). */
export type SignatureFault = 'missing' | 'not_png' | 'too_large' | 'blank';

export class SignatureRefusedError extends Error {
  constructor(readonly fault: SignatureFault) {
    super(`signature refused: ${fault}`);
  }
}

const DATA_URL = /^data:image\/png;base64,([A-Za-z0-9+/]*={0,2})$/;

/**
 * Reads the signature of a `data:image/png;base64,…` URL.
 * @returns the PNG inmo stores (see the module's comment).
 * @throws SignatureRefusedError `missing` (empty), `not_png` (not such a URL, or its bytes are no
 *   PNG sharp can read whole), `too_large` (over {@link SIGNATURE_MAX_BYTES} or 4,000 px a side),
 *   `blank` (no ink).
 */
export async function readSignature(dataUrl: string): Promise<Buffer> {
  const text = dataUrl.trim();
  if (text === '') throw new SignatureRefusedError('missing');
  const match = DATA_URL.exec(text);
  if (!match) throw new SignatureRefusedError('not_png');
  if (Math.floor((match[1].length * 3) / 4) > SIGNATURE_MAX_BYTES + 2) throw new SignatureRefusedError('too_large');
  const bytes = Buffer.from(match[1], 'base64');
  if (bytes.length > SIGNATURE_MAX_BYTES) throw new SignatureRefusedError('too_large');
  const sharp = await sharpLoaded();
  let width = 0;
  let height = 0;
  try {
    const metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
    if (metadata.format !== 'png') throw new SignatureRefusedError('not_png');
    width = metadata.width ?? 0;
    height = metadata.height ?? 0;
  } catch (error) {
    if (error instanceof SignatureRefusedError) throw error;
    throw new SignatureRefusedError('not_png');
  }
  if (width < 1 || height < 1) throw new SignatureRefusedError('not_png');
  if (width > MAX_SIDE || height > MAX_SIDE) throw new SignatureRefusedError('too_large');
  try {
    const flat = sharp(bytes, { limitInputPixels: MAX_SIDE * MAX_SIDE, failOn: 'error' })
      .flatten({ background: '#ffffff' })
      .resize({ width: SIGNATURE_MAX_WIDTH, height: SIGNATURE_MAX_HEIGHT, fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb');
    const { data, info } = await flat.clone().raw().toBuffer({ resolveWithObject: true });
    let ink = false;
    for (let i = 0; i < data.length && !ink; i += info.channels) {
      if (data[i] < INK_BELOW || data[i + 1] < INK_BELOW || data[i + 2] < INK_BELOW) ink = true;
    }
    if (!ink) throw new SignatureRefusedError('blank');
    return await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
      .png({ compressionLevel: 9, palette: true, colours: 16 })
      .toBuffer();
  } catch (error) {
    if (error instanceof SignatureRefusedError) throw error;
    throw new SignatureRefusedError('not_png');
  }
}
