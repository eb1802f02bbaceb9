/**
 * Text on the PDF sheets is laid out in bounded time whatever a listing holds (issue 55, item 5
 * and 9): a description is read as text in one pass (14,000 nested `<b>` overflowed
 * html-to-text's recursion: a 500), cut to about a page with an ellipsis, and no word pdfkit gets
 * is wider than its line (pdfkit measures the rest of a longer word again at every line: a
 * description of 99,000 characters without a space took 18 to 42 s). The listing's and the
 * visit's sheets are read back with pdf.js.
 */
import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import { descriptionText } from '../../src/domain/catalogue/html.ts';
import { listingView } from '../../src/domain/catalogue/listing-words.ts';
import { cutText, fitText, renderListingSheet, SHEET_DESCRIPTION_MAX, SHEET_TEXT_MAX } from '../../src/services/catalogue/listing-sheet.ts';
import { renderVisitSheet } from '../../src/services/viewings/visit-sheet-pdf.ts';
import { readPdf } from '../helpers/pdf.ts';

/** The sheet of a listing whose published object holds `doc`, read back. */
async function sheetOf(doc: Record<string, unknown>) {
  const view = listingView(JSON.stringify({ operation: 'venta', type: 'apartamento', price: 100000, city: 'Madrid', ...doc }), null, 'es');
  const pdf = await renderListingSheet({
    view,
    business: { name: 'Agencia', email: null },
    pageUrl: 'https://inmo.example/l/x',
    photos: [],
  });
  return readPdf(pdf);
}

describe('a description as a sheet shows it', () => {
  it('puts paragraphs, headings and list items on lines of their own, decodes entities, drops tags and comments', () => {
    expect(descriptionText('<p>Ático luminoso con <strong>terraza</strong>.</p>')).toBe('Ático luminoso con terraza.');
    expect(
      descriptionText(
        '<h2>Casa</h2><p>Luminoso &amp; <b>exterior</b>.<br>Con ascensor.</p><!-- nota --><ul><li>Piscina</li><li>Garaje</li></ul><p>Fin</p>',
      ),
    ).toBe('Casa\n\nLuminoso & exterior.\nCon ascensor.\n\n• Piscina\n• Garaje\n\nFin');
    expect(descriptionText('<p>  uno\n  dos  </p><script>alert(1)</script><style>p{}</style>tres')).toBe('uno dos\n\ntres');
    expect(descriptionText('a < b y c > d, 1 <2')).toBe('a < b y c > d, 1 <2');
  });

  it('reads 14,000 nested <b> and 100,000 stray < in one pass', () => {
    expect(descriptionText(`${'<b>'.repeat(14_000)}hola${'</b>'.repeat(14_000)}`)).toBe('hola');
    expect(descriptionText(`<p>${'<b>'.repeat(200_000)}x`)).toBe('x');
    const stray = '<'.repeat(100_000);
    expect(descriptionText(stray)).toBe(stray);
  });
});

describe('text fitted to a sheet', () => {
  it('cuts at a space near the end with an ellipsis, never inside a surrogate pair', () => {
    expect(cutText('corto', 10)).toBe('corto');
    expect(cutText('uno dos tres cuatro', 15)).toBe('uno dos tres…');
    expect(cutText('uno dos tres cuatro', 17)).toBe('uno dos tres cuat…');
    expect(cutText('x'.repeat(20), 10)).toBe(`${'x'.repeat(10)}…`);
    expect(cutText(`${'x'.repeat(9)}😀😀`, 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('breaks a word wider than its line into pieces that each fit, measured in the font they are written in', () => {
    const doc = new PDFDocument({ size: 'A4' });
    for (const [font, size, width] of [
      ['Helvetica', 9.5, 515],
      ['Helvetica-Bold', 18, 515],
      ['Helvetica', 9, 170],
    ] as const) {
      doc.font(font).fontSize(size);
      const word = 'Wmi@'.repeat(25_000);
      const fitted = fitText(doc, word, width, Infinity);
      const pieces = fitted.split(' ');
      expect(pieces.join('')).toBe(word);
      expect(pieces.length).toBeGreaterThan(100);
      for (const piece of pieces) expect(doc.widthOfString(piece)).toBeLessThanOrEqual(width);
      // Words that fit are left alone.
      expect(fitText(doc, 'Ático con vistas al mar', width)).toBe('Ático con vistas al mar');
    }
    doc.end();
  });

  it('lays out the issue’s reproductions: a 99,000-character word cut to about a page, 14,000 nested <b> read', async () => {
    const word = await sheetOf({ title: 'Palabra', description: `<p>Empieza ${'a'.repeat(99_000)}</p>` });
    const text = word.text.join(' ');
    expect(text).toContain('Empieza aaaa');
    expect(text).toContain('a…');
    const written = (text.match(/a/g) ?? []).length;
    expect(written).toBeGreaterThan(SHEET_DESCRIPTION_MAX / 2);
    expect(written).toBeLessThan(SHEET_DESCRIPTION_MAX + 100);
    expect(word.pages).toBeLessThanOrEqual(2);

    const nested = await sheetOf({ title: 'Anidado', description: `${'<b>'.repeat(14_000)}Hola anidado${'</b>'.repeat(14_000)}` });
    expect(nested.text.join(' ')).toContain('Hola anidado');
  });

  it('cuts a title of 10,000 characters without a space on the visit sheet; its clause stays whole', async () => {
    const clause = `Condiciones ${'z'.repeat(2_900)} fin`;
    const pdf = await readPdf(
      await renderVisitSheet({
        lang: 'es',
        zone: 'Europe/Madrid',
        agency: { name: 'Agencia', email: null },
        listing: { reference: 'R-1', title: 't'.repeat(10_000), address: 'Calle Mayor 1' },
        startsAt: '2026-03-02T10:00:00+01:00',
        agent: 'Ana',
        sheet: null,
        clause,
      }),
    );
    const text = pdf.text.join(' ');
    const titled = (text.match(/t/g) ?? []).length;
    expect(titled).toBeLessThan(SHEET_TEXT_MAX + 50);
    expect(text).toContain('t…');
    expect(text.replace(/\s/g, '')).toContain(clause.replace(/\s/g, ''));
  });
});
