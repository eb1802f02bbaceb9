/**
 * A listing's sheet ("ficha", CONTRACT §21): an A4 PDF brochure of one listing to print or send,
 * made with pdfkit, in the language asked for (es, en, fr, de, it):
 *
 * - the agency's name and contact at the top, and "offered by" at the foot of every page;
 * - the title, the kind (type and operation) and the prices (es-ES euros);
 * - the primary photo and up to 4 more, read from the media store (the stored widths of 960 and
 *   480 pixels): a photo inmo does not keep (an import's, on another host) is left out, since a
 *   sheet never fetches from elsewhere;
 * - the key facts and the energy rating on the A–G scale in its familiar colours (the console's
 *   `.energy-*`), the letter written on each bar;
 * - the features, the location as the API publishes it (CONTRACT §5) and the description as text;
 * - a QR code (the `qrcode` package, embedded as a PNG image) of the absolute URL of the listing's
 *   page `/l/<token>`, with that URL written under it.
 *
 * Text uses the PDF's standard Helvetica (WinAnsi): every letter of the five languages, the
 * euro sign and typographic quotes; a character outside it (an emoji in a description) is
 * written as its closest letters or left out. No code of a vocabulary is written (words come
 * from domain/catalogue/listing-words.ts).
 *
 * Layout takes time linear in what the listing holds (issue 55): every text is fitted before
 * pdfkit gets it ({@link fitText}: at most {@link SHEET_TEXT_MAX} characters, the description
 * {@link SHEET_DESCRIPTION_MAX}, read from its HTML in one pass, and no word wider than its
 * line), and a sheet is laid out once for the same inputs (sheet-cache.ts).
 *
 * Two ways to one sheet: the public `/l/<token>.pdf` of a listing in the public catalogue, and
 * the console's `/console/properties/{id}/sheet.pdf` of any listing of the business (its
 * published object as it would be published, privacy applied, so the sheet shows no more than
 * the page would).
 */
import { createHash } from 'node:crypto';
import type PDFKit from 'pdfkit';
import type QRCodeModule from 'qrcode';
import type { Db } from '../../db/database.ts';
import { findListingOfPage } from '../../db/repositories/listing-pages.ts';
import type { ListingLanguage } from '../../domain/catalogue/languages.ts';
import { buildPublishedDocs } from '../../domain/catalogue/property-doc.ts';
import { fill, listingView, type ListingView } from '../../domain/catalogue/listing-words.ts';
import { descriptionText } from '../../domain/catalogue/html.ts';
import type { MediaStore } from '../../media/store.ts';
import {
  businessContact,
  businessName,
  listingPageToken,
  PAGE_PATH,
  PAGE_TOKEN,
  storedWidths,
  type BusinessContact,
} from './listing-page.ts';
import { listingInFull } from './listings.ts';
import { listingSheets, type CachedSheet } from './sheet-cache.ts';

/** Photos on a sheet: the primary one and up to 4 more. */
export const SHEET_PHOTOS = 5;

/** The widest stored width read for the primary photo, and for the others (media/photos.ts `PHOTO_WIDTHS`). */
const PRIMARY_WIDTH = 960;
const THUMB_WIDTH = 480;
/** Largest photo read from the store, bytes (a stored width is a fraction of this). */
const PHOTO_MAX_BYTES = 8 * 1024 * 1024;

/** A4 in points. */
export const A4 = { width: 595.28, height: 841.89 };
/** The page's margin, points. */
const PAGE = { ...A4, margin: 40 };
const CONTENT = PAGE.width - 2 * PAGE.margin;
/** The sheets' colours: text, quieter text, the agency's accent (the console's). */
export const INK = '#1b1f24';
export const MUTED = '#4a5360';
export const ACCENT = '#0b5cad';
const LINE = '#d0d6de';

/** The energy scale's bars: colour and the letter's colour (console.css `.energy-*`). */
const ENERGY_BARS = {
  A: ['#00643a', '#ffffff'],
  B: ['#1e7d32', '#ffffff'],
  C: ['#8dc63f', INK],
  D: ['#ffe100', INK],
  E: ['#f9b000', INK],
  F: ['#ec6b1f', INK],
  G: ['#d0021b', '#ffffff'],
} as const;

/** WinAnsi's characters beyond Latin-1 (the euro sign, quotes, dashes…). */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/** Whether the standard fonts can write `c`. */
const writable = (c: string) => {
  const code = c.codePointAt(0)!;
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || c === '\n' || WIN_ANSI_EXTRA.has(c);
};

/** `text` as the standard fonts can write it: each other character as its closest letters (`₂` → `2`), or left out. */
export function winAnsi(text: string): string {
  let out = '';
  for (const c of text.normalize('NFC')) {
    if (writable(c)) out += c;
    else if (c === '\t') out += ' ';
    else out += [...c.normalize('NFKD')].filter(writable).join('');
  }
  return out.replace(/[ \u00a0]{3,}/g, '  ');
}

/** The most characters of a short text on a sheet (a title, an address line, the features). */
export const SHEET_TEXT_MAX = 500;
/** The most characters of a description on a sheet: about one A4 page of its text (9.5 pt across the page). */
export const SHEET_DESCRIPTION_MAX = 6_000;
/** The most characters of the features' line on a sheet. */
const SHEET_FEATURES_MAX = 1_000;

/**
 * `text` cut to `max` UTF-16 code units: at the last space or line end of its last fifth when
 * there is one, else where `max` falls (never inside a surrogate pair), with `…` added. A text
 * within `max` is returned as it is.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let head = text.slice(0, max);
  if (/[\ud800-\udbff]$/.test(head)) head = head.slice(0, -1);
  const space = Math.max(head.lastIndexOf(' '), head.lastIndexOf('\n'));
  if (space >= max * 0.8) head = head.slice(0, space);
  return `${head.trimEnd()}…`;
}

/**
 * `text` as a sheet lays it out `width` points wide in the document's current font and size:
 * cut to `max` characters ({@link cutText}), written as the standard fonts can ({@link winAnsi}),
 * and each word wider than `width` broken by spaces into pieces that fit.
 *
 * pdfkit breaks a word wider than its line itself, measuring the rest of the word again for
 * every line it fills: time quadratic in the word's length (a description of 99,000 characters
 * without a space took 18 s on an idle core, 42 to 67 s on a loaded one). Here each character
 * is measured once (widths kept per character), so the time is linear in the text's length and
 * pdfkit only ever gets words that fit a line.
 * @param max the most characters kept; `Infinity` keeps them all (a text bounded elsewhere).
 */
export function fitText(doc: PDFKit.PDFDocument, text: string, width: number, max: number = SHEET_TEXT_MAX): string {
  const written = winAnsi(cutText(text, max));
  const widths = new Map<string, number>();
  const widthOf = (c: string) => {
    let w = widths.get(c);
    if (w === undefined) widths.set(c, (w = doc.widthOfString(c)));
    return w;
  };
  // Kerning is left out of the sum: a margin keeps each piece within the line either way.
  const room = width * 0.95 - widthOf(' ');
  return written.replace(/[^ \n]{8,}/g, (word) => {
    let total = 0;
    for (const c of word) total += widthOf(c);
    if (total <= room) return word;
    const pieces: string[] = [];
    let piece = '';
    let w = 0;
    for (const c of word) {
      const cw = widthOf(c);
      if (piece !== '' && w + cw > room) {
        pieces.push(piece);
        piece = '';
        w = 0;
      }
      piece += c;
      w += cw;
    }
    pieces.push(piece);
    return pieces.join(' ');
  });
}

/** What a sheet is made of. */
export interface SheetContent {
  view: ListingView;
  business: BusinessContact;
  /** The absolute URL of the listing's page (the QR code's). */
  pageUrl: string;
  /** JPEG bytes of the photos, the primary one first ({@link SHEET_PHOTOS} at most). */
  photos: Buffer[];
}

/** Reads a stored object whole (null when missing, unreadable or larger than {@link PHOTO_MAX_BYTES}). */
async function readPhoto(store: MediaStore, key: string): Promise<Buffer | null> {
  try {
    const object = await store.get(key);
    if (!object) return null;
    if (object.bytes > PHOTO_MAX_BYTES) {
      object.body.destroy();
      return null;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of object.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } catch {
    return null;
  }
}

/** The media keys of the listing's photos that inmo keeps, at the width a sheet reads, the primary one first, {@link SHEET_PHOTOS} at most. */
async function sheetPhotoKeys(db: Db, businessId: number, propertyId: number, view: ListingView): Promise<string[]> {
  const stored = await storedWidths(db, businessId, propertyId, (key) => key);
  const keys: string[] = [];
  for (const photo of view.photos) {
    if (keys.length >= SHEET_PHOTOS) break;
    const widths = stored.get(photo.url);
    if (!widths?.length) continue;
    const wanted = keys.length === 0 ? PRIMARY_WIDTH : THUMB_WIDTH;
    keys.push((widths.find((w) => w.width >= wanted) ?? widths.at(-1)!).key);
  }
  return keys;
}

/** A sheet as the routes send it: its bytes, their ETag, and the listing's title in the sheet's language. */
export interface ListingSheet extends CachedSheet {
  title: string;
}

/**
 * The sheet of a published listing, from this process's cache when one was laid out from the
 * same inputs (sheet-cache.ts): the key is a hash of everything the sheet shows, so any change
 * (the listing, a photo, the language, the agency's name or e-mail, the page's URL) lays it out
 * again.
 */
async function cachedSheet(
  db: Db,
  store: MediaStore,
  listing: { businessId: number; id: number; apiDoc: string; langTexts: string | null; businessName: string },
  lang: ListingLanguage,
  pageUrl: string,
): Promise<ListingSheet> {
  const view = listingView(listing.apiDoc, listing.langTexts, lang);
  const business = await businessContact(db, listing.businessId, listing.businessName);
  const photoKeys = await sheetPhotoKeys(db, listing.businessId, listing.id, view);
  const key = createHash('sha256')
    .update(JSON.stringify([lang, listing.apiDoc, listing.langTexts, business.name, business.email, pageUrl, photoKeys]))
    .digest('base64url');
  const sheet = await listingSheets.get(key, async () => {
    const photos: Buffer[] = [];
    for (const photoKey of photoKeys) {
      const bytes = await readPhoto(store, photoKey);
      if (bytes) photos.push(bytes);
    }
    return renderListingSheet({ view, business, pageUrl, photos });
  });
  return { ...sheet, title: view.title };
}

/**
 * The sheet of the listing whose page is `token`, in language `lang` (laid out once for the same
 * inputs: {@link cachedSheet}).
 * @param origin this server's public origin (no trailing slash), for the page's absolute URL.
 * @returns the PDF, its ETag and the listing's title in `lang`; `gone` for a listing no longer in the public catalogue; null for a token no listing has.
 */
export async function publicListingSheet(
  db: Db,
  store: MediaStore,
  token: string,
  lang: ListingLanguage,
  origin: string,
): Promise<ListingSheet | 'gone' | null> {
  if (!PAGE_TOKEN.test(token)) return null;
  const row = await findListingOfPage(db, token);
  if (!row) return null;
  if (row.listed !== 1 || row.api_doc === null) return 'gone';
  return cachedSheet(
    db,
    store,
    { businessId: row.business_id, id: row.id, apiDoc: row.api_doc, langTexts: row.lang_texts, businessName: row.business_name },
    lang,
    `${origin}${PAGE_PATH}${token}`,
  );
}

/**
 * The sheet of listing `id` of the business, made from the console: any listing of the
 * business, shown as it would be published (privacy applied); laid out once for the same
 * inputs ({@link cachedSheet}).
 * @returns the PDF, its ETag and the listing's title in `lang`, or undefined when the business has no such listing.
 */
export async function consoleListingSheet(
  db: Db,
  store: MediaStore,
  businessId: number,
  id: number,
  lang: ListingLanguage,
  origin: string,
): Promise<ListingSheet | undefined> {
  const listing = await listingInFull(db, businessId, id);
  if (!listing) return undefined;
  const token = await listingPageToken(db, businessId, id);
  if (token === undefined) return undefined;
  const docs = buildPublishedDocs(listing.fields, listing.images, listing.videos);
  return cachedSheet(
    db,
    store,
    { businessId, id, apiDoc: docs.api_doc, langTexts: docs.lang_texts, businessName: await businessName(db, businessId) },
    lang,
    `${origin}${PAGE_PATH}${token}`,
  );
}

/**
 * A file name for a sheet: the title's letters and digits (`atico-en-malaga.pdf`), else `listing.pdf`.
 */
export function sheetFileName(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/[\s_-]+/g, '-')
    .toLowerCase()
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${slug || 'listing'}.pdf`;
}

/** Draws the sheet (see the module's comment). @returns the PDF's bytes. */
export async function renderListingSheet(content: SheetContent): Promise<Buffer> {
  const { view, business, pageUrl, photos } = content;
  const w = view.words;
  // pdfkit (with fontkit and its fonts) and qrcode take about a third of a second to load: a
  // process loads them at its first sheet, never at start.
  const [{ default: PDFDocument }, { default: QRCode }] = (await Promise.all([import('pdfkit'), import('qrcode')])) as [
    { default: typeof PDFKit },
    { default: typeof QRCodeModule },
  ];
  const qr = await QRCode.toBuffer(pageUrl, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 6 });
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: PAGE.margin, left: PAGE.margin, right: PAGE.margin, bottom: PAGE.margin + 16 },
    bufferPages: true,
    lang: view.lang,
    displayTitle: true,
    info: {
      Title: winAnsi(cutText(view.title, SHEET_TEXT_MAX)),
      Author: winAnsi(cutText(business.name, SHEET_TEXT_MAX)),
      Subject: winAnsi(cutText(fill(w.offeredBy, { business: business.name }), SHEET_TEXT_MAX)),
    },
  });
  const bytes = pdfBytes(doc);
  // Every text fitted to its width in the font it is written in (set before `text` reads its arguments).
  const fit = (text: string, width: number, max?: number) => fitText(doc, text, width, max);
  const left = PAGE.margin;

  // The agency.
  drawAgency(doc, business, left, PAGE.margin, CONTENT);

  // Title, kind and prices.
  let y = PAGE.margin + 30;
  doc
    .font('Helvetica-Bold')
    .fontSize(18)
    .fillColor(INK)
    .text(fit(view.title, CONTENT), left, y, { width: CONTENT, height: 48, ellipsis: true });
  y = doc.y + 2;
  if (view.kind) {
    doc.font('Helvetica').fontSize(10).fillColor(MUTED).text(fit(view.kind, CONTENT), left, y, { width: CONTENT });
    y = doc.y + 2;
  }
  if (view.prices.length) {
    doc
      .font('Helvetica-Bold')
      .fontSize(16)
      .fillColor(ACCENT)
      .text(fit(view.prices.join('  ·  '), CONTENT), left, y, { width: CONTENT });
    y = doc.y + 8;
  }

  // Photos: the primary one, then a row of up to four.
  if (photos.length) {
    const height = 210;
    doc.image(photos[0], left, y, { fit: [CONTENT, height], align: 'center', valign: 'center' });
    y += height + 6;
    const thumbs = photos.slice(1, SHEET_PHOTOS);
    if (thumbs.length) {
      const gap = 8;
      const width = (CONTENT - gap * 3) / 4;
      thumbs.forEach((photo, i) => doc.image(photo, left + i * (width + gap), y, { fit: [width, 72], align: 'center', valign: 'center' }));
      y += 72 + 8;
    }
  }

  // Facts and energy on the left; the QR code and the location on the right.
  const columnTop = y + 4;
  const leftWidth = 320;
  const rightX = left + leftWidth + 25;
  const rightWidth = CONTENT - leftWidth - 25;
  doc.font('Helvetica-Bold').fontSize(11).fillColor(INK).text(winAnsi(w.facts), left, columnTop, { width: leftWidth });
  y = doc.y + 3;
  for (const fact of view.facts) {
    doc.font('Helvetica').fontSize(9).fillColor(MUTED).text(fit(fact.label, 125), left, y, { width: 125 });
    const labelBottom = doc.y;
    doc
      .font('Helvetica-Bold')
      .fontSize(9.5)
      .fillColor(INK)
      .text(fit(fact.value, leftWidth - 130), left + 130, y, { width: leftWidth - 130 });
    y = Math.max(labelBottom, doc.y) + 1;
  }
  if (view.features.length) {
    y += 6;
    doc.font('Helvetica-Bold').fontSize(11).fillColor(INK).text(winAnsi(w.featuresHeading), left, y, { width: leftWidth });
    doc
      .font('Helvetica')
      .fontSize(9.5)
      .fillColor(INK)
      .text(fit(view.features.join('  ·  '), leftWidth, SHEET_FEATURES_MAX), left, doc.y + 2, { width: leftWidth });
    y = doc.y;
  }
  if (view.energy) {
    y += 6;
    doc.font('Helvetica-Bold').fontSize(11).fillColor(INK).text(winAnsi(w.energy), left, y, { width: leftWidth });
    y = doc.y + 3;
    if (view.energy.rating) {
      (Object.keys(ENERGY_BARS) as Array<keyof typeof ENERGY_BARS>).forEach((letter, i) => {
        const [fillColour, letterColour] = ENERGY_BARS[letter];
        const barWidth = 40 + i * 14;
        const barHeight = 9.5;
        doc
          .polygon(
            [left, y],
            [left + barWidth - 6, y],
            [left + barWidth, y + barHeight / 2],
            [left + barWidth - 6, y + barHeight],
            [left, y + barHeight],
          )
          .fillColor(fillColour)
          .fill();
        doc
          .font('Helvetica-Bold')
          .fontSize(7.5)
          .fillColor(letterColour)
          .text(letter, left + 4, y + 1.5, { lineBreak: false });
        if (letter === view.energy!.rating) {
          const arrowX = left + barWidth + 6;
          doc
            .polygon([arrowX, y + barHeight / 2], [arrowX + 7, y], [arrowX + 7, y + barHeight])
            .fillColor(INK)
            .fill();
          doc
            .font('Helvetica-Bold')
            .fontSize(8.5)
            .fillColor(INK)
            .text(winAnsi(`${letter} · ${w.energyThis}`), arrowX + 11, y + 0.75, { lineBreak: false });
        }
        y += barHeight + 1.5;
      });
      if (view.energy.figures) {
        doc
          .font('Helvetica')
          .fontSize(8)
          .fillColor(MUTED)
          .text(fit(view.energy.figures, leftWidth), left, y + 2, { width: leftWidth });
        y = doc.y;
      }
    } else if (view.energy.state) {
      doc.font('Helvetica').fontSize(9.5).fillColor(INK).text(fit(view.energy.state, leftWidth), left, y, { width: leftWidth });
      y = doc.y;
    }
  }
  const leftBottom = y;

  const qrSize = 120;
  doc.image(qr, rightX + (rightWidth - qrSize) / 2, columnTop, { width: qrSize, height: qrSize });
  y = columnTop + qrSize + 2;
  doc.font('Helvetica').fontSize(8).fillColor(INK).text(winAnsi(w.scan), rightX, y, { width: rightWidth, align: 'center' });
  doc
    .font('Helvetica')
    .fontSize(7)
    .fillColor(ACCENT)
    .text(pageUrl, rightX, doc.y + 1, { width: rightWidth, align: 'center', link: pageUrl });
  y = doc.y + 8;
  if (view.location.lines.length || view.location.note) {
    doc.font('Helvetica-Bold').fontSize(11).fillColor(INK).text(winAnsi(view.location.heading), rightX, y, { width: rightWidth });
    for (const line of view.location.lines)
      doc
        .font('Helvetica')
        .fontSize(9)
        .fillColor(INK)
        .text(fit(line, rightWidth), rightX, doc.y + 1, { width: rightWidth });
    if (view.location.note)
      doc
        .font('Helvetica')
        .fontSize(8)
        .fillColor(MUTED)
        .text(fit(view.location.note, rightWidth), rightX, doc.y + 2, { width: rightWidth });
  }
  y = Math.max(leftBottom, doc.y) + 14;

  // The description, on as many pages as it takes.
  // Cut to about a page before it is fitted; what was cut is said by an ellipsis.
  const described = view.description ? descriptionText(view.description) : '';
  if (described) {
    doc.font('Helvetica').fontSize(9.5);
    const description = fit(described, CONTENT, SHEET_DESCRIPTION_MAX);
    // The heading and the first lines (or all of a short text) go together: never a heading alone at the foot of a page.
    const opening = Math.min(doc.heightOfString(description, { width: CONTENT, lineGap: 1.5 }), 40);
    if (y + 18 + opening > PAGE.height - PAGE.margin - 16) {
      doc.addPage();
      y = PAGE.margin;
    }
    doc.font('Helvetica-Bold').fontSize(11).fillColor(INK).text(winAnsi(w.description), left, y, { width: CONTENT });
    doc
      .font('Helvetica')
      .fontSize(9.5)
      .fillColor(INK)
      .text(description, left, doc.y + 3, { width: CONTENT, lineGap: 1.5 });
    y = doc.y + 10;
  }
  // The foot of every page: who offers it, and how to reach them.
  doc.font('Helvetica').fontSize(8);
  const foot = fit([fill(w.offeredBy, { business: business.name }), business.email].filter(Boolean).join('  ·  '), CONTENT);
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .moveTo(left, PAGE.height - 34)
      .lineTo(left + CONTENT, PAGE.height - 34)
      .lineWidth(0.75)
      .strokeColor(LINE)
      .stroke();
    doc
      .font('Helvetica')
      .fontSize(8)
      .fillColor(MUTED)
      .text(foot, left, PAGE.height - 28, { width: CONTENT, align: 'center', lineBreak: false, ellipsis: true });
    doc.page.margins.bottom = bottom;
  }
  doc.end();
  return bytes;
}

/** The bytes `doc` writes, once it ends (call before drawing; rejects on pdfkit's error). */
export function pdfBytes(doc: PDFKit.PDFDocument): Promise<Buffer> {
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}

/**
 * The agency at the top of a sheet: its name on the left, its e-mail on the right, a rule under
 * both (20 pt below `top`), across `width` points from `left`.
 */
export function drawAgency(doc: PDFKit.PDFDocument, business: BusinessContact, left: number, top: number, width: number): void {
  doc
    .font('Helvetica-Bold')
    .fontSize(12)
    .fillColor(ACCENT)
    .text(fitText(doc, business.name, width * 0.6), left, top, { width: width * 0.6, lineBreak: false, ellipsis: true });
  if (business.email) {
    doc
      .font('Helvetica')
      .fontSize(9)
      .fillColor(MUTED)
      .text(fitText(doc, business.email, width * 0.4), left + width * 0.6, top + 2, {
        width: width * 0.4,
        align: 'right',
        lineBreak: false,
        ellipsis: true,
      });
  }
  doc
    .moveTo(left, top + 20)
    .lineTo(left + width, top + 20)
    .lineWidth(0.75)
    .strokeColor(LINE)
    .stroke();
}
