/**
 * PDFs read back as a person's reader would (the listing sheet, CONTRACT §21): pdf.js (Mozilla's
 * reader, its legacy build for Node) gives each page's text and the pixels of its images, and
 * jsQR reads any QR code among those images.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import jsQRModule from 'jsqr';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** pdf.js's own copies of the standard fonts, so it reads Helvetica text without warnings. */
const STANDARD_FONTS = `${join(dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'standard_fonts')}/`;

/** jsQR's function (a CommonJS module that is the function itself, though its types say `export default`). */
type ReadQr = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsQR = jsQRModule as unknown as ReadQr;

/** An image drawn on a page: its size in pixels and its pixels as RGBA. */
export interface PdfImage {
  width: number;
  height: number;
  rgba: Uint8ClampedArray;
}

/** What a PDF holds: its pages' count, each page's text (its text items joined by spaces), its images, and the QR codes they carry. */
export interface PdfContent {
  pages: number;
  text: string[];
  images: PdfImage[];
  qrCodes: string[];
  /** The document's title and language, as its metadata says. */
  title: string | null;
  language: string | null;
}

/** pdf.js's decoded image (its `ImageKind`: 1 one bit a pixel, 2 RGB, 3 RGBA). */
interface DecodedImage {
  width: number;
  height: number;
  kind: number;
  data: Uint8Array | Uint8ClampedArray;
}

function rgbaOf(image: DecodedImage): Uint8ClampedArray {
  const { width, height, kind, data } = image;
  const rgba = new Uint8ClampedArray(width * height * 4);
  if (kind === 3) rgba.set(data.subarray(0, rgba.length));
  else if (kind === 2) {
    for (let p = 0, q = 0; q < rgba.length; p += 3, q += 4) {
      rgba[q] = data[p];
      rgba[q + 1] = data[p + 1];
      rgba[q + 2] = data[p + 2];
      rgba[q + 3] = 255;
    }
  } else {
    const row = (width + 7) >> 3;
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const value = (data[y * row + (x >> 3)] >> (7 - (x & 7))) & 1 ? 255 : 0;
        const q = (y * width + x) * 4;
        rgba[q] = rgba[q + 1] = rgba[q + 2] = value;
        rgba[q + 3] = 255;
      }
  }
  return rgba;
}

/** Reads a PDF's pages: text, images, QR codes. */
export async function readPdf(bytes: Uint8Array): Promise<PdfContent> {
  const pdf = await getDocument({
    data: new Uint8Array(bytes),
    standardFontDataUrl: STANDARD_FONTS,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    verbosity: 0,
  }).promise;
  const content: PdfContent = { pages: pdf.numPages, text: [], images: [], qrCodes: [], title: null, language: null };
  const { info } = (await pdf.getMetadata()) as { info: { Title?: string; Language?: string } };
  content.title = info.Title ?? null;
  content.language = info.Language ?? null;
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    const text = await page.getTextContent();
    content.text.push(
      text.items
        .map((item) => ('str' in item ? item.str : ''))
        .join(' ')
        .replace(/[ \t\r\n]+/g, ' '),
    );
    const operators = await page.getOperatorList();
    for (let i = 0; i < operators.fnArray.length; i++) {
      if (operators.fnArray[i] !== OPS.paintImageXObject) continue;
      const name = operators.argsArray[i][0] as string;
      const image = await new Promise<DecodedImage>((resolve) => page.objs.get(name, resolve));
      const decoded = { width: image.width, height: image.height, rgba: rgbaOf(image) };
      content.images.push(decoded);
      const code = jsQR(decoded.rgba, decoded.width, decoded.height);
      if (code) content.qrCodes.push(code.data);
    }
  }
  await pdf.destroy();
  return content;
}
