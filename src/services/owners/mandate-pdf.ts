/**
 * A mandate as an A4 PDF (CONTRACT §24, `GET /console/properties/{id}/mandate.pdf`), made with
 * pdfkit as the visit sheet is (services/viewings/visit-sheet-pdf.ts), in the console's language
 * (es or en):
 *
 * - the agency's name and contact; the title with the version (`Hoja de encargo · versión 2`);
 * - the listing's reference, title and full address (the agency's own record: whatever its privacy);
 * - the owner (the signer's name and identity document once signed; the owner lead's name before);
 * - the terms: exclusive or not, sale or letting, asking price, from and to (dates of the
 *   business), the fee (a percentage or an amount, its minimum, VAT included or not), keys, sign board,
 *   and whether the listing stays published after the end;
 * - the clause (as signed; before signing, the agency's current one);
 * - the signature (the stored PNG) and when and how it was signed; a draft gets an empty box and
 *   says it is a draft, to sign on paper or on the screen.
 *
 * Laid out by services/viewings/signed-sheet-pdf.ts, as the visit sheet is.
 */
import { formatPercent, type MandateTerms } from '../../domain/owners/mandates.ts';
import type { DocumentType } from '../../domain/viewings/visit-sheet.ts';
import { startSignedSheet } from '../viewings/signed-sheet-pdf.ts';

/** The languages a mandate is printed in: the console's. */
export type MandateLanguage = 'es' | 'en';

/** What a mandate's PDF is made of. */
export interface MandateContent {
  lang: MandateLanguage;
  /** The business's IANA time zone (when it was signed is shown in it). */
  zone: string;
  agency: { name: string; email: string | null };
  listing: { reference: string; title: string | null; address: string };
  version: number;
  status: 'draft' | 'signed' | 'ended' | 'expired';
  terms: MandateTerms;
  /** The owner lead's name (a draft's), or null. */
  ownerName: string | null;
  signed: { name: string; documentType: DocumentType; document: string; signature: Buffer; at: string; how: 'screen' | 'link' } | null;
  clause: string;
}

const WORDS = {
  es: {
    title: 'Hoja de encargo',
    version: 'versión',
    draft: 'Borrador: sin firmar. Firme en el recuadro o en la pantalla de la agencia.',
    ended: 'Encargo terminado.',
    expired: 'Encargo vencido.',
    listing: 'Inmueble',
    reference: 'Referencia',
    address: 'Dirección',
    owner: 'Propiedad',
    name: 'Nombre y apellidos',
    document: 'Documento',
    documentTypes: { dni: 'DNI', nie: 'NIE', other: 'Pasaporte u otro documento' },
    terms: 'Condiciones del encargo',
    kind: 'Tipo',
    kinds: { exclusive: 'En exclusiva', open: 'Sin exclusiva' },
    operation: 'Operación',
    operations: { venta: 'Venta', alquiler: 'Alquiler' },
    price: 'Precio de salida',
    perMonth: 'al mes',
    period: 'Vigencia',
    periodValue: 'del {from} al {to}',
    fee: 'Honorarios',
    percent: '{value} % del precio',
    minimum: 'mínimo {value}',
    vat: { included: 'IVA incluido', excluded: 'más IVA' },
    keys: 'Llaves en la agencia',
    signBoard: 'Cartel en el inmueble',
    keepListed: 'Sigue publicado al vencer',
    yes: 'Sí',
    no: 'No',
    clause: 'Cláusulas',
    signature: 'Firma de la propiedad',
    signedAt: { screen: 'Firmada en pantalla el', link: 'Firmada a distancia, por enlace, el' },
    date: 'Fecha',
    locale: 'es-ES',
    none: 'Sin dirección registrada',
  },
  en: {
    title: 'Mandate',
    version: 'version',
    draft: 'Draft: not signed. Sign in the box, or on the agency’s screen.',
    ended: 'Mandate ended.',
    expired: 'Mandate expired.',
    listing: 'Listing',
    reference: 'Reference',
    address: 'Address',
    owner: 'Owner',
    name: 'Full name',
    document: 'Identity document',
    documentTypes: { dni: 'DNI', nie: 'NIE', other: 'Passport or other document' },
    terms: 'Terms of the mandate',
    kind: 'Kind',
    kinds: { exclusive: 'Exclusive', open: 'Not exclusive' },
    operation: 'Operation',
    operations: { venta: 'Sale', alquiler: 'Letting' },
    price: 'Asking price',
    perMonth: 'a month',
    period: 'Term',
    periodValue: 'from {from} to {to}',
    fee: 'Fee',
    percent: '{value} % of the price',
    minimum: 'minimum {value}',
    vat: { included: 'VAT included', excluded: 'plus VAT' },
    keys: 'Keys held by the agency',
    signBoard: 'Sign board on the property',
    keepListed: 'Stays published after the end',
    yes: 'Yes',
    no: 'No',
    clause: 'Clauses',
    signature: "Owner's signature",
    signedAt: { screen: 'Signed on screen on', link: 'Signed remotely, through a link, on' },
    date: 'Date',
    locale: 'en-GB',
    none: 'No address recorded',
  },
} as const;

/** Draws the mandate (see the module's comment). @returns the PDF's bytes. */
export async function renderMandate(content: MandateContent): Promise<Buffer> {
  const w = WORDS[content.lang];
  const euros = (value: number) =>
    new Intl.NumberFormat(w.locale, { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 }).format(value);
  const day = (date: string) =>
    new Intl.DateTimeFormat(w.locale, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${date}T12:00:00Z`));
  const when = (instant: string) =>
    new Intl.DateTimeFormat(w.locale, { dateStyle: 'full', timeStyle: 'short', timeZone: content.zone }).format(new Date(instant));
  const page = startSignedSheet({
    lang: content.lang,
    title: `${w.title} · ${w.version} ${content.version}`,
    reference: content.listing.reference,
    agency: content.agency,
  });
  const status =
    content.status === 'draft' ? w.draft : content.status === 'ended' ? w.ended : content.status === 'expired' ? w.expired : null;
  if (status) page.note(status, true);

  page.heading(w.listing);
  page.fact(w.reference, content.listing.reference);
  if (content.listing.title) page.fact(w.listing, content.listing.title);
  page.fact(w.address, content.listing.address || w.none);

  page.heading(w.owner);
  const signed = content.signed;
  if (signed) {
    page.fact(w.name, signed.name);
    page.fact(w.document, `${w.documentTypes[signed.documentType]} ${signed.document}`);
  } else {
    page.fact(w.name, content.ownerName ?? '', content.ownerName === null);
    page.fact(w.document, '', true);
  }

  const t = content.terms;
  page.heading(w.terms);
  page.fact(w.kind, w.kinds[t.kind]);
  page.fact(w.operation, w.operations[t.operation]);
  page.fact(w.price, `${euros(t.asking_price)}${t.operation === 'alquiler' ? ` ${w.perMonth}` : ''}`);
  page.fact(w.period, w.periodValue.replace('{from}', day(t.starts_on)).replace('{to}', day(t.ends_on)));
  const fee = 'percent_bp' in t.fee ? w.percent.replace('{value}', formatPercent(t.fee.percent_bp)) : euros(t.fee.amount);
  const minimum = t.minimum_fee === null ? '' : `, ${w.minimum.replace('{value}', euros(t.minimum_fee))}`;
  page.fact(w.fee, `${fee}${minimum}, ${w.vat[t.vat]}`);
  page.fact(w.keys, t.keys ? w.yes : w.no);
  page.fact(w.signBoard, t.sign_board ? w.yes : w.no);
  page.fact(w.keepListed, t.keep_listed_after_expiry ? w.yes : w.no);

  page.heading(w.clause);
  page.paragraph(content.clause);
  page.signature(w.signature, signed && { png: signed.signature, caption: `${w.signedAt[signed.how]} ${when(signed.at)}` }, w.date);
  return page.end();
}
