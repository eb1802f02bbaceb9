/**
 * Visit sheets ("hojas de visita", CONTRACT §20, issue 44 item 6): on the viewing's console page the
 * visitor signs on the agent's screen with their name, identity document and a signature drawn
 * with the finger; `GET /console/viewings/{id}/sheet.pdf` prints it (visit-sheet-pdf.ts).
 *
 * - One sheet per viewing, never changed once signed (a second signature is refused, 409): it is
 *   the agency's proof that the visitor saw the listing through it, with the clause as it read
 *   when signed.
 * - A viewing `cancelled` or `no_show` takes no sheet (409); any other may (a `requested` one
 *   too: the visit may happen before anyone confirms it in inmo).
 * - What the form holds wrong is refused field by field ({@link VisitSheetFormError}), nothing
 *   stored; the signature is taken only as a PNG read by its content (media/signature.ts).
 * - Personal data (CONTRACT §18): the sheet is in the lead's export ({@link visitSheetsOfLead})
 *   and erased with the lead (services/leads/erasure.ts). The audit entry of a signature names the
 *   viewing and the user by id only.
 * - The clause: the business's own (the console's settings page, owners, at most
 *   {@link CLAUSE_MAX} characters), else {@link DEFAULT_CLAUSE}.
 */
import type { Db } from '../../db/database.ts';
import { isRowId } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import * as repo from '../../db/repositories/visit-sheets.ts';
import { transact } from '../../db/transaction.ts';
import { nowRfc3339 } from '../../domain/time.ts';
import {
  CLAUSE_MAX,
  DEFAULT_CLAUSE,
  DOCUMENT_TYPES,
  readDocument,
  VISITOR_NAME_MAX,
  type DocumentType,
} from '../../domain/viewings/visit-sheet.ts';
import { InmoError } from '../../errors.ts';
import { readSignature, SignatureRefusedError, type SignatureFault } from '../../media/signature.ts';
import { recordAudit, type AuditActor } from '../access/audit.ts';
import { businessContact, businessName } from '../catalogue/listing-page.ts';
import { viewingInFull } from './console.ts';
import type { SheetLanguage } from './visit-sheet-pdf.ts';

/** A field of the signing form. */
export type VisitSheetField = 'visitor_name' | 'document_type' | 'document_number' | 'signature' | 'clause';

/**
 * Why a field was refused: `required`, `too_long`, `format` (not a document of its type), `letter`
 * (a DNI's or NIE's check letter is not its number's), and the signature's (`missing`, `not_png`,
 * `too_large`, `blank`).
 */
export type VisitSheetReason = 'required' | 'too_long' | 'format' | 'letter' | SignatureFault;

/** The form refused, field by field; nothing was stored. */
export class VisitSheetFormError extends Error {
  constructor(readonly faults: Partial<Record<VisitSheetField, VisitSheetReason>>) {
    super(
      `visit sheet refused: ${Object.entries(faults)
        .map(([field, reason]) => `${field} ${reason}`)
        .join(', ')}`,
    );
  }
}

/** What the visitor typed and drew. */
export interface SheetInput {
  visitor_name: string;
  document_type: string;
  document_number: string;
  /** `data:image/png;base64,…` from the console's canvas. */
  signature: string;
}

/** Statuses whose viewing takes no sheet. */
const NO_SHEET = new Set(['cancelled', 'no_show']);

/** A signed sheet as a page shows it (the signature as a `data:` URL). */
export interface SignedSheet {
  visitor_name: string;
  document_type: DocumentType;
  document_number: string;
  signature_url: string;
  signed_at: string;
  clause: string;
}

/** The business's sheet of viewing `viewingId` as a page shows it, or null: not signed. */
export async function visitSheetOf(db: Db, businessId: number, viewingId: number): Promise<SignedSheet | null> {
  if (!isRowId(viewingId)) return null;
  const row = await repo.findVisitSheet(db, businessId, viewingId);
  if (!row) return null;
  return {
    visitor_name: row.visitor_name,
    document_type: row.document_type,
    document_number: row.document_number,
    signature_url: `data:image/png;base64,${Buffer.from(row.signature_png).toString('base64')}`,
    signed_at: row.signed_at,
    clause: row.clause,
  };
}

/** Who signs, as read from the form: the name (spaces folded), the document's type and number (normalised), the signature's PNG. */
export interface Signer {
  name: string;
  type: DocumentType;
  document: string;
  signature: Buffer;
}

/**
 * Reads who signs from what they typed and drew (a visit sheet, a mandate: services/owners/mandates.ts):
 * a name of at most {@link VISITOR_NAME_MAX} characters, an identity document checked as its type
 * says (domain/viewings/visit-sheet.ts `readDocument`), a signature taken only as a PNG read by
 * its content (media/signature.ts).
 * @throws VisitSheetFormError with every refused field at once.
 */
export async function readSigner(input: SheetInput): Promise<Signer> {
  const faults: VisitSheetFormError['faults'] = {};
  const name = input.visitor_name.trim().replace(/\s+/g, ' ');
  if (name === '') faults.visitor_name = 'required';
  else if ([...name].length > VISITOR_NAME_MAX) faults.visitor_name = 'too_long';
  let document: string | null = null;
  const type = (DOCUMENT_TYPES as readonly string[]).includes(input.document_type) ? (input.document_type as DocumentType) : null;
  if (type === null) faults.document_type = 'required';
  else if (input.document_number.trim() === '') faults.document_number = 'required';
  else {
    const read = readDocument(type, input.document_number);
    if ('fault' in read) faults.document_number = read.fault;
    else document = read.number;
  }
  let signature: Buffer | null = null;
  try {
    signature = await readSignature(input.signature);
  } catch (error) {
    if (!(error instanceof SignatureRefusedError)) throw error;
    faults.signature = error.fault;
  }
  if (Object.keys(faults).length > 0 || document === null || signature === null || type === null) throw new VisitSheetFormError(faults);
  return { name, type, document, signature };
}

/** Whether a viewing of status `status` takes a sheet. */
export const takesSheet = (status: string) => !NO_SHEET.has(status);

/**
 * Signs the sheet of viewing `viewingId` (see the module's comment), collected by console user
 * `userId`; audited as `viewing.sheet_sign` on the viewing.
 * @throws InmoError VIEWING_NOT_FOUND; VISIT_SHEET_REFUSED (a cancelled or missed viewing);
 *   VISIT_SHEET_SIGNED (signed before). VisitSheetFormError for what the form holds wrong.
 */
export async function signVisitSheet(db: Db, businessId: number, viewingId: number, input: SheetInput, userId: number): Promise<void> {
  const { viewing } = await viewingInFull(db, businessId, viewingId);
  if (!takesSheet(viewing.status)) throw new InmoError('VISIT_SHEET_REFUSED', { status: viewing.status });
  if (await repo.findVisitSheet(db, businessId, viewingId)) throw new InmoError('VISIT_SHEET_SIGNED');
  const { name, type, document, signature } = await readSigner(input);
  const clause = await visitSheetClause(db, businessId);
  const at = nowRfc3339();
  try {
    await transact(db, async (trx) => {
      await repo.insertVisitSheet(trx, {
        viewing_id: viewingId,
        business_id: businessId,
        visitor_name: name,
        document_type: type,
        document_number: document,
        signature_png: signature,
        clause: clause.text,
        signed_at: at,
        user_id: userId,
      });
      await recordAudit(trx, businessId, { type: 'user', id: userId }, 'viewing.sheet_sign', viewingId, at);
    });
  } catch (error) {
    // Two phones signing the same viewing at once: the second finds it signed.
    if (isUniqueViolation(error)) throw new InmoError('VISIT_SHEET_SIGNED');
    throw error;
  }
}

/** The business's clause: its own, or the default (`custom` false). */
export async function visitSheetClause(db: Db, businessId: number): Promise<{ text: string; custom: boolean }> {
  const row = await repo.findVisitSheetClause(db, businessId);
  const own = row?.clause ?? null;
  return own === null ? { text: DEFAULT_CLAUSE, custom: false } : { text: own, custom: true };
}

/**
 * Sets the business's clause; empty text (or the default's own words) goes back to the default.
 * Sheets signed before keep the clause they were signed with. Audited as
 * `business.visit_sheet_clause`.
 * @throws VisitSheetFormError `clause` `too_long` (over {@link CLAUSE_MAX} characters).
 */
export async function setVisitSheetClauseText(db: Db, businessId: number, text: string, actor: AuditActor): Promise<void> {
  const clause = text.replace(/\r\n?/g, '\n').trim();
  if ([...clause].length > CLAUSE_MAX) throw new VisitSheetFormError({ clause: 'too_long' });
  await transact(db, async (trx) => {
    await repo.setVisitSheetClause(trx, businessId, clause === '' || clause === DEFAULT_CLAUSE ? null : clause);
    await recordAudit(trx, businessId, actor, 'business.visit_sheet_clause', businessId);
  });
}

/**
 * The PDF of viewing `viewingId`'s sheet (visit-sheet-pdf.ts), in `lang`: the signed sheet, or,
 * while unsigned, a blank one to sign on paper (the visitor's lines and the signature's box
 * empty, the business's current clause).
 * @returns the PDF's bytes and a file name (`hoja-de-visita-<id>.pdf`, `visit-sheet-<id>.pdf`).
 * @throws InmoError VIEWING_NOT_FOUND.
 */
export async function visitSheetPdf(
  db: Db,
  businessId: number,
  viewingId: number,
  lang: SheetLanguage,
): Promise<{ pdf: Buffer; fileName: string }> {
  const { clock, viewing } = await viewingInFull(db, businessId, viewingId);
  const sheet = await repo.findVisitSheet(db, businessId, viewingId);
  const place = await repo.findViewingPlace(db, businessId, viewing.property_id);
  // pdfkit and its fonts are loaded by the first sheet printed, not by every importer of this module.
  const { renderVisitSheet } = await import('./visit-sheet-pdf.ts');
  const pdf = await renderVisitSheet({
    lang,
    zone: clock.zone,
    agency: await businessContact(db, businessId, await businessName(db, businessId)),
    listing: {
      reference: viewing.external_ref,
      title: viewing.title,
      address: [place?.address, [place?.postal_code, place?.city].filter(Boolean).join(' '), place?.province]
        .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
        .join(', '),
    },
    startsAt: viewing.starts_at,
    agent: viewing.agent,
    sheet: sheet
      ? {
          visitorName: sheet.visitor_name,
          documentType: sheet.document_type,
          documentNumber: sheet.document_number,
          signature: Buffer.from(sheet.signature_png),
          signedAt: sheet.signed_at,
        }
      : null,
    clause: sheet?.clause ?? (await visitSheetClause(db, businessId)).text,
  });
  return { pdf, fileName: `${lang === 'es' ? 'hoja-de-visita' : 'visit-sheet'}-${viewing.id}.pdf` };
}

/**
 * The visit sheets of lead `leadId`'s viewings, for its export (CONTRACT §18): each as kept, the
 * signature's PNG in base64 (`signature_png_base64`), the business's id left out.
 */
export async function visitSheetsOfLead(db: Db, leadId: number) {
  return (await repo.listVisitSheetsOfLead(db, leadId)).map(({ business_id: _business, signature_png, ...kept }) => ({
    ...kept,
    signature_png_base64: Buffer.from(signature_png).toString('base64'),
  }));
}
