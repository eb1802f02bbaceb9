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
 * Laid out by signed-sheet-pdf.ts (Helvetica, each value fitted; the clause kept whole, at most
 * 3,000 characters, visit-sheet.ts `CLAUSE_MAX`).
 */
import type { DocumentType } from '../../domain/viewings/visit-sheet.ts';
import { startSignedSheet } from './signed-sheet-pdf.ts';

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

/** Draws the sheet (see the module's comment). @returns the PDF's bytes. */
export async function renderVisitSheet(content: VisitSheetContent): Promise<Buffer> {
  const w = WORDS[content.lang];
  const when = (instant: string) =>
    new Intl.DateTimeFormat(w.locale, { dateStyle: 'full', timeStyle: 'short', timeZone: content.zone }).format(new Date(instant));
  const page = startSignedSheet({ lang: content.lang, title: w.title, reference: content.listing.reference, agency: content.agency });
  page.heading(w.listing);
  page.fact(w.reference, content.listing.reference);
  if (content.listing.title) page.fact(w.listing, content.listing.title);
  page.fact(w.address, content.listing.address || w.none);
  page.fact(w.when, `${when(content.startsAt)} (${content.zone})`);
  page.fact(w.agent, content.agent);

  page.heading(w.visitor);
  const sheet = content.sheet;
  if (sheet) {
    page.fact(w.name, sheet.visitorName);
    page.fact(w.document, `${w.documentTypes[sheet.documentType]} ${sheet.documentNumber}`);
  } else {
    page.note(w.blankNote);
    page.fact(w.name, '', true);
    page.fact(w.document, '', true);
  }
  page.heading(w.clause);
  page.paragraph(content.clause);
  page.signature(w.signature, sheet && { png: sheet.signature, caption: `${w.signedAt} ${when(sheet.signedAt)}` }, w.date);
  return page.end();
}
