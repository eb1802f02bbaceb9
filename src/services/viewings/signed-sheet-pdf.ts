/**
 * The layout of an A4 sheet a person signs (a visit sheet, visit-sheet-pdf.ts; a mandate,
 * services/owners/mandate-pdf.ts), drawn with pdfkit as the listing's sheet is
 * (services/catalogue/listing-sheet.ts): the agency at the top and the sheet's title; rows of a
 * label and its value (or a line to write on); headings; a paragraph kept whole (the clause);
 * the signature's box with the stored PNG in it and a caption, or empty with a date line to sign
 * on paper. Text uses the standard Helvetica (WinAnsi), each value fitted (`fitText`), so a page's
 * layout time is linear in its text.
 */
import PDFDocument from 'pdfkit';
import { A4, ACCENT, cutText, drawAgency, fitText, INK, MUTED, pdfBytes, SHEET_TEXT_MAX, winAnsi } from '../catalogue/listing-sheet.ts';

/** A4 in points, and the page's margin. */
const PAGE = { ...A4, margin: 48 };
const CONTENT = PAGE.width - 2 * PAGE.margin;
/** The lines to write on and the signature's box: darker than the listing sheet's rules, to be seen on paper. */
const LINE = '#9aa4b1';
/** The signature's box, points. */
const SIGNATURE_BOX = { width: 260, height: 104 };

/** A sheet being drawn: call its parts in order, then `end()` for the PDF's bytes. */
export interface SignedSheet {
  /** A label and its value on one row (the value wraps); `blank`: a line to write on instead. */
  fact(label: string, value: string, blank?: boolean): void;
  heading(text: string): void;
  /** Words in smaller, muted type (`accent`: bold, in the accent colour). */
  note(text: string, accent?: boolean): void;
  /** A paragraph kept whole and justified (a clause). */
  paragraph(text: string): void;
  /**
   * A table: a bold header row then `rows`, each cell fitted to its column (`widths`, fractions of
   * the content's width summing to 1), a new page with the header again when this one is full.
   */
  table(header: readonly string[], rows: readonly (readonly string[])[], widths: readonly number[]): void;
  /**
   * The signature's box under `label`, never split from it (on a new page when this one is full):
   * the PNG and `caption` under it, or, for null, an empty box and a date line to sign on paper.
   */
  signature(label: string, signed: { png: Buffer; caption: string } | null, dateLabel: string): void;
  end(): Promise<Buffer>;
}

/**
 * Starts a sheet: the PDF's metadata (`title · reference`, the agency as author, `lang`), the
 * agency at the top and `title` under it.
 */
export function startSignedSheet(options: {
  lang: string;
  title: string;
  reference: string;
  agency: { name: string; email: string | null };
}): SignedSheet {
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: PAGE.margin, left: PAGE.margin, right: PAGE.margin, bottom: PAGE.margin },
    lang: options.lang,
    displayTitle: true,
    info: {
      Title: winAnsi(cutText(`${options.title} · ${options.reference}`, SHEET_TEXT_MAX)),
      Author: winAnsi(cutText(options.agency.name, SHEET_TEXT_MAX)),
    },
  });
  const bytes = pdfBytes(doc);
  const left = PAGE.margin;
  drawAgency(doc, options.agency, left, PAGE.margin, CONTENT);
  doc
    .font('Helvetica-Bold')
    .fontSize(20)
    .fillColor(INK)
    .text(winAnsi(options.title), left, PAGE.margin + 34, { width: CONTENT });
  let y = doc.y + 10;
  const rule = (at: number, from: number, to = PAGE.margin + CONTENT) =>
    doc.moveTo(from, at).lineTo(to, at).lineWidth(0.5).strokeColor(LINE).stroke();
  return {
    fact(label, value, blank = false) {
      doc.font('Helvetica').fontSize(9).fillColor(MUTED).text(winAnsi(label), left, y, { width: 150 });
      const labelBottom = doc.y;
      if (blank) {
        rule(y + 14, left + 160);
        y = Math.max(labelBottom, y + 14) + 12;
        return;
      }
      doc
        .font('Helvetica-Bold')
        .fontSize(10.5)
        .fillColor(INK)
        .text(fitText(doc, value, CONTENT - 160), left + 160, y - 1, { width: CONTENT - 160 });
      y = Math.max(labelBottom, doc.y) + 6;
    },
    heading(text) {
      y += 6;
      doc.font('Helvetica-Bold').fontSize(12).fillColor(ACCENT).text(winAnsi(text), left, y, { width: CONTENT });
      y = doc.y + 6;
    },
    note(text, accent = false) {
      doc
        .font(accent ? 'Helvetica-Bold' : 'Helvetica')
        .fontSize(accent ? 10 : 9)
        .fillColor(accent ? ACCENT : MUTED)
        .text(winAnsi(text), left, y, { width: CONTENT });
      y = doc.y + 8;
    },
    paragraph(text) {
      doc
        .font('Helvetica')
        .fontSize(9.5)
        .fillColor(INK)
        .text(fitText(doc, text, CONTENT, Infinity), left, y, { width: CONTENT, lineGap: 1.5, align: 'justify' });
      y = doc.y + 16;
    },
    table(header, rows, widths) {
      const xs = widths.reduce<number[]>((acc, w, i) => [...acc, i === 0 ? left : acc[i - 1] + widths[i - 1] * CONTENT], []);
      const line = (cells: readonly string[], bold: boolean) => {
        if (y + 16 > PAGE.height - PAGE.margin) {
          doc.addPage();
          y = PAGE.margin;
          if (!bold) line(header, true);
        }
        doc
          .font(bold ? 'Helvetica-Bold' : 'Helvetica')
          .fontSize(8.5)
          .fillColor(bold ? MUTED : INK);
        cells.forEach((cell, i) => {
          const width = widths[i] * CONTENT - 4;
          doc.text(fitText(doc, cell, width, 80), xs[i], y, { width, lineBreak: false, ellipsis: true, height: 12 });
        });
        y += 13;
      };
      line(header, true);
      for (const row of rows) line(row, false);
      y += 8;
    },
    signature(label, signed, dateLabel) {
      if (y + SIGNATURE_BOX.height + 44 > PAGE.height - PAGE.margin) {
        doc.addPage();
        y = PAGE.margin;
      }
      doc.font('Helvetica-Bold').fontSize(10).fillColor(INK).text(winAnsi(label), left, y, { width: SIGNATURE_BOX.width });
      y = doc.y + 4;
      doc.rect(left, y, SIGNATURE_BOX.width, SIGNATURE_BOX.height).lineWidth(0.75).strokeColor(LINE).stroke();
      if (signed)
        doc.image(signed.png, left + 4, y + 4, {
          fit: [SIGNATURE_BOX.width - 8, SIGNATURE_BOX.height - 8],
          align: 'center',
          valign: 'center',
        });
      y += SIGNATURE_BOX.height + 6;
      doc.font('Helvetica').fontSize(9).fillColor(MUTED);
      if (signed) doc.text(winAnsi(signed.caption), left, y, { width: CONTENT });
      else {
        doc.text(winAnsi(dateLabel), left, y + 6, { width: 60 });
        rule(y + 18, left + 60, left + SIGNATURE_BOX.width);
      }
    },
    end() {
      doc.end();
      return bytes;
    },
  };
}
