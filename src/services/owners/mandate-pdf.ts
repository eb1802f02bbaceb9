/**
 * A mandate as an A4 PDF (CONTRACT §24, `GET /console/properties/{id}/mandate.pdf`), made with
 * pdfkit as the visit sheet is (services/viewings/visit-sheet-pdf.ts), in the console's language
 * (es or en), or for the owner signing through its link in the owner's (es, en, fr, de, it; the
 * agency's clause as the agency wrote it):
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

/** The languages a mandate is printed in: the console's (es, en), and an owner's (fr, de, it too) on its signing link. */
export type MandateLanguage = 'es' | 'en' | 'fr' | 'de' | 'it';

/** The console's languages, which the valuation report is printed in. */
export type ConsoleLanguage = 'es' | 'en';

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
  fr: {
    title: 'Mandat',
    version: 'version',
    draft: 'Projet : non signé. Signez dans le cadre, ou sur l’écran de l’agence.',
    ended: 'Mandat terminé.',
    expired: 'Mandat expiré.',
    listing: 'Bien',
    reference: 'Référence',
    address: 'Adresse',
    owner: 'Propriétaire',
    name: 'Nom et prénom',
    document: 'Pièce d’identité',
    documentTypes: { dni: 'DNI', nie: 'NIE', other: 'Passeport ou autre pièce' },
    terms: 'Conditions du mandat',
    kind: 'Type',
    kinds: { exclusive: 'Exclusif', open: 'Simple (non exclusif)' },
    operation: 'Opération',
    operations: { venta: 'Vente', alquiler: 'Location' },
    price: 'Prix demandé',
    perMonth: 'par mois',
    period: 'Durée',
    periodValue: 'du {from} au {to}',
    fee: 'Honoraires',
    percent: '{value} % du prix',
    minimum: 'minimum {value}',
    vat: { included: 'TVA incluse', excluded: 'plus TVA' },
    keys: 'Clés confiées à l’agence',
    signBoard: 'Panneau sur le bien',
    keepListed: 'Reste publié après la fin',
    yes: 'Oui',
    no: 'Non',
    clause: 'Clauses',
    signature: 'Signature du propriétaire',
    signedAt: { screen: 'Signé à l’écran le', link: 'Signé à distance, par lien, le' },
    date: 'Date',
    locale: 'fr-FR',
    none: 'Aucune adresse enregistrée',
  },
  de: {
    title: 'Maklerauftrag',
    version: 'Version',
    draft: 'Entwurf: nicht unterschrieben. Unterschreiben Sie im Feld oder am Bildschirm der Agentur.',
    ended: 'Auftrag beendet.',
    expired: 'Auftrag abgelaufen.',
    listing: 'Immobilie',
    reference: 'Referenz',
    address: 'Adresse',
    owner: 'Eigentümer',
    name: 'Vor- und Nachname',
    document: 'Ausweisdokument',
    documentTypes: { dni: 'DNI', nie: 'NIE', other: 'Reisepass oder anderes Dokument' },
    terms: 'Bedingungen des Auftrags',
    kind: 'Art',
    kinds: { exclusive: 'Alleinauftrag', open: 'Einfacher Auftrag' },
    operation: 'Vorgang',
    operations: { venta: 'Verkauf', alquiler: 'Vermietung' },
    price: 'Angebotspreis',
    perMonth: 'im Monat',
    period: 'Laufzeit',
    periodValue: 'vom {from} bis {to}',
    fee: 'Provision',
    percent: '{value} % des Preises',
    minimum: 'mindestens {value}',
    vat: { included: 'inkl. MwSt.', excluded: 'zzgl. MwSt.' },
    keys: 'Schlüssel bei der Agentur',
    signBoard: 'Schild an der Immobilie',
    keepListed: 'Bleibt nach Ablauf veröffentlicht',
    yes: 'Ja',
    no: 'Nein',
    clause: 'Klauseln',
    signature: 'Unterschrift des Eigentümers',
    signedAt: { screen: 'Am Bildschirm unterschrieben am', link: 'Aus der Ferne per Link unterschrieben am' },
    date: 'Datum',
    locale: 'de-DE',
    none: 'Keine Adresse erfasst',
  },
  it: {
    title: 'Incarico di mediazione',
    version: 'versione',
    draft: 'Bozza: non firmata. Firmi nel riquadro o sullo schermo dell’agenzia.',
    ended: 'Incarico concluso.',
    expired: 'Incarico scaduto.',
    listing: 'Immobile',
    reference: 'Riferimento',
    address: 'Indirizzo',
    owner: 'Proprietà',
    name: 'Nome e cognome',
    document: 'Documento d’identità',
    documentTypes: { dni: 'DNI', nie: 'NIE', other: 'Passaporto o altro documento' },
    terms: 'Condizioni dell’incarico',
    kind: 'Tipo',
    kinds: { exclusive: 'In esclusiva', open: 'Senza esclusiva' },
    operation: 'Operazione',
    operations: { venta: 'Vendita', alquiler: 'Locazione' },
    price: 'Prezzo richiesto',
    perMonth: 'al mese',
    period: 'Durata',
    periodValue: 'dal {from} al {to}',
    fee: 'Provvigione',
    percent: '{value} % del prezzo',
    minimum: 'minimo {value}',
    vat: { included: 'IVA inclusa', excluded: 'più IVA' },
    keys: 'Chiavi all’agenzia',
    signBoard: 'Cartello sull’immobile',
    keepListed: 'Resta pubblicato dopo la scadenza',
    yes: 'Sì',
    no: 'No',
    clause: 'Clausole',
    signature: 'Firma della proprietà',
    signedAt: { screen: 'Firmato sullo schermo il', link: 'Firmato a distanza, tramite link, il' },
    date: 'Data',
    locale: 'it-IT',
    none: 'Nessun indirizzo registrato',
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
