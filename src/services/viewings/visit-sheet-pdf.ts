/**
 * A visit sheet as an A4 PDF (CONTRACT §20, `GET /console/viewings/{id}/sheet.pdf`), made with
 * pdfkit as the listing's sheet is (services/catalogue/listing-sheet.ts), in the console's language
 * (es or en):
 *
 * - the agency's name and contact at the top;
 * - the listing's reference, title and full address (the sheet is the agency's own record, not a
 *   published page: the address is shown whatever its privacy level);
 * - the viewing's date and time in the business's time zone, and the agent's display name;
 * - the visitor's name, identity document and signature (the stored PNG), and when it was signed;
 *   or, for a viewing not signed on the screen, the same sheet blank, with lines and a box to fill
 *   in and sign on paper;
 * - the agency's clause.
 *
 * Text uses the standard Helvetica (WinAnsi, `winAnsi` of listing-sheet.ts), each value fitted as
 * the listing's sheet fits it (`fitText`: at most 500 characters, words wider than their line
 * broken, so the layout's time is linear in the text); the clause is kept whole (at most 3,000
 * characters, visit-sheet.ts `CLAUSE_MAX`).
 */
import PDFDocument from 'pdfkit';
import type { DocumentType } from '../../domain/viewings/visit-sheet.ts';
import { A4, ACCENT, cutText, drawAgency, fitText, INK, MUTED, pdfBytes, SHEET_TEXT_MAX, winAnsi } from '../catalogue/listing-sheet.ts';

/** The languages a sheet is written in: the console's. */
export type SheetLanguage = 'es' | 'en';

/** What a sheet is made of. */
export interface VisitSheetContent {
  lang: SheetLanguage;
  /** The business's IANA time zone: the viewing's and the signature's times are shown in it. */
  zone: string;
  agency: { name: string; email: string | null };
  listing: { reference: string; title: string | null; address: string };
  /** The viewing's start, RFC 3339. */
  startsAt: string;
  /** The agent's display name (else e-mail). */
  agent: string;
  /** The signed sheet, or null: a blank sheet to sign on paper. */
  sheet: {
    visitorName: string;
    documentType: DocumentType;
    documentNumber: string;
    /** PNG bytes. */
    signature: Buffer;
    signedAt: string;
  } | null;
  clause: string;
}

const WORDS = {
  es: {
    title: 'Hoja de visita',
    listing: 'Inmueble',
    reference: 'Referencia',
    address: 'Dirección',
    when: 'Fecha y hora de la visita',
    agent: 'Agente',
    visitor: 'Visitante',
    name: 'Nombre y apellidos',
    document: 'Documento',
    documentTypes: { dni: 'DNI', nie: 'NIE', other: 'Pasaporte u otro documento' },
    clause: 'Condiciones',
    signature: 'Firma del visitante',
    signedAt: 'Firmada en pantalla el',
    blankNote: 'Hoja para firmar en papel: escriba sus datos y firme en el recuadro.',
    date: 'Fecha',
    locale: 'es-ES',
    none: 'Sin dirección registrada',
  },
  en: {
    title: 'Visit sheet',
    listing: 'Listing',
    reference: 'Reference',
    address: 'Address',
    when: 'Date and time of the viewing',
    agent: 'Agent',
    visitor: 'Visitor',
    name: 'Full name',
    document: 'Identity document',
    documentTypes: { dni: 'DNI', nie: 'NIE', other: 'Passport or other document' },
    clause: 'Terms',
    signature: "Visitor's signature",
    signedAt: 'Signed on screen on',
    blankNote: 'Sheet to sign on paper: write your details and sign in the box.',
    date: 'Date',
    locale: 'en-GB',
    none: 'No address recorded',
  },
} as const;

/** A4 in points, and the page's margin. */
const PAGE = { ...A4, margin: 48 };
const CONTENT = PAGE.width - 2 * PAGE.margin;
/** The lines to write on and the signature's box: darker than the listing sheet's rules, to be seen on paper. */
const LINE = '#9aa4b1';

/** The signature's box, points. */
const SIGNATURE_BOX = { width: 260, height: 104 };

/** Draws the sheet (see the module's comment). @returns the PDF's bytes. */
export async function renderVisitSheet(content: VisitSheetContent): Promise<Buffer> {
  const w = WORDS[content.lang];
  const when = (instant: string) =>
    new Intl.DateTimeFormat(w.locale, { dateStyle: 'full', timeStyle: 'short', timeZone: content.zone }).format(new Date(instant));
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: PAGE.margin, left: PAGE.margin, right: PAGE.margin, bottom: PAGE.margin },
    lang: content.lang,
    displayTitle: true,
    info: {
      Title: winAnsi(cutText(`${w.title} · ${content.listing.reference}`, SHEET_TEXT_MAX)),
      Author: winAnsi(cutText(content.agency.name, SHEET_TEXT_MAX)),
    },
  });
  const bytes = pdfBytes(doc);
  const left = PAGE.margin;
  drawAgency(doc, content.agency, left, PAGE.margin, CONTENT);

  doc
    .font('Helvetica-Bold')
    .fontSize(20)
    .fillColor(INK)
    .text(winAnsi(w.title), left, PAGE.margin + 34, { width: CONTENT });
  let y = doc.y + 10;

  /** A label and its value on one row; the value wraps. */
  const fact = (label: string, value: string, blank = false) => {
    doc.font('Helvetica').fontSize(9).fillColor(MUTED).text(winAnsi(label), left, y, { width: 150 });
    const labelBottom = doc.y;
    if (blank) {
      rule(doc, y + 14, 0.5, left + 160);
      y = Math.max(labelBottom, y + 14) + 12;
      return;
    }
    doc
      .font('Helvetica-Bold')
      .fontSize(10.5)
      .fillColor(INK)
      .text(fitText(doc, value, CONTENT - 160), left + 160, y - 1, { width: CONTENT - 160 });
    y = Math.max(labelBottom, doc.y) + 6;
  };
  const heading = (text: string) => {
    y += 6;
    doc.font('Helvetica-Bold').fontSize(12).fillColor(ACCENT).text(winAnsi(text), left, y, { width: CONTENT });
    y = doc.y + 6;
  };

  heading(w.listing);
  fact(w.reference, content.listing.reference);
  if (content.listing.title) fact(w.listing, content.listing.title);
  fact(w.address, content.listing.address || w.none);
  fact(w.when, `${when(content.startsAt)} (${content.zone})`);
  fact(w.agent, content.agent);

  heading(w.visitor);
  const sheet = content.sheet;
  if (sheet) {
    fact(w.name, sheet.visitorName);
    fact(w.document, `${w.documentTypes[sheet.documentType]} ${sheet.documentNumber}`);
  } else {
    doc.font('Helvetica').fontSize(9).fillColor(MUTED).text(winAnsi(w.blankNote), left, y, { width: CONTENT });
    y = doc.y + 8;
    fact(w.name, '', true);
    fact(w.document, '', true);
  }

  heading(w.clause);
  doc
    .font('Helvetica')
    .fontSize(9.5)
    .fillColor(INK)
    .text(fitText(doc, content.clause, CONTENT, Infinity), left, y, { width: CONTENT, lineGap: 1.5, align: 'justify' });
  y = doc.y + 16;

  // The signature: never split from its label; on a new page when this one is full.
  const needed = SIGNATURE_BOX.height + 44;
  if (y + needed > PAGE.height - PAGE.margin) {
    doc.addPage();
    y = PAGE.margin;
  }
  doc.font('Helvetica-Bold').fontSize(10).fillColor(INK).text(winAnsi(w.signature), left, y, { width: SIGNATURE_BOX.width });
  y = doc.y + 4;
  doc.rect(left, y, SIGNATURE_BOX.width, SIGNATURE_BOX.height).lineWidth(0.75).strokeColor(LINE).stroke();
  if (sheet)
    doc.image(sheet.signature, left + 4, y + 4, {
      fit: [SIGNATURE_BOX.width - 8, SIGNATURE_BOX.height - 8],
      align: 'center',
      valign: 'center',
    });
  y += SIGNATURE_BOX.height + 6;
  if (sheet) {
    doc
      .font('Helvetica')
      .fontSize(9)
      .fillColor(MUTED)
      .text(winAnsi(`${w.signedAt} ${when(sheet.signedAt)}`), left, y, { width: CONTENT });
  } else {
    doc
      .font('Helvetica')
      .fontSize(9)
      .fillColor(MUTED)
      .text(winAnsi(w.date), left, y + 6, { width: 60 });
    rule(doc, y + 18, 0.5, left + 60, left + SIGNATURE_BOX.width);
  }
  doc.end();
  return bytes;
}

/** A horizontal line at `y` from `from` to `to` (the content's width by default). */
function rule(doc: PDFKit.PDFDocument, y: number, width: number, from = PAGE.margin, to = PAGE.margin + CONTENT): void {
  doc.moveTo(from, y).lineTo(to, y).lineWidth(width).strokeColor(LINE).stroke();
}
