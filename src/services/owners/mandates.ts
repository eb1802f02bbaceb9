/**
 * Mandates ("hojas de encargo", CONTRACT §24, issue 58 item 3): a listing's mandate drafted from
 * the listing and its owner, signed on the agent's screen (name, DNI/NIE, drawn signature, as a
 * visit sheet is), kept in versions, warned of before its end, and expired at its end.
 *
 * - **Versions.** A listing has at most one `draft` (migration 0062's partial unique index); the
 *   draft is edited freely; once `signed` a version is never changed (MANDATE_SIGNED, 409): a
 *   change is a new draft, and signing it ends the version in force (`ended`, `replaced`).
 * - **Signing** keeps the signer, the clause as it read then, and how it was signed; records
 *   `mandate.signed` (and `mandate.ended` for a version it replaces), moves the owner to
 *   `mandate_signed` (services/leads/owners.ts `ownerMoveOnMandate`), and is audited by the
 *   version's id (`mandate.sign`), never the signer's data.
 * - **The end.** An agent may end a signed mandate early (`ended`, with a reason); at `ends_on`
 *   the worker ({@link expireDueMandates}) makes an unrenewed one `expired`, records
 *   `mandate.ended`, and takes its listing off the public catalogue (not public: out of
 *   `GET /properties`, both feeds and the public pages) unless the owner let it stay
 *   (`keep_listed_after_expiry`). Hoy warns 30, 15 and 7 days before ({@link mandatesEnding}).
 * - **Personal data** (CONTRACT §18): the versions drafted for an owner are in its lead's export
 *   ({@link mandatesOfOwner}) and deleted by its erasure (services/leads/erasure.ts).
 *
 * Events carry `{id, property_id, status}`.
 */
import type { Db, Executor } from '../../db/database.ts';
import { isRowId } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { findLead } from '../../db/repositories/leads.ts';
import * as repo from '../../db/repositories/mandates.ts';
import { transact } from '../../db/transaction.ts';
import {
  DEFAULT_MANDATE_CLAUSE,
  defaultTerms,
  endingWarning,
  MANDATE_CLAUSE_MAX,
  MANDATE_WARNINGS,
  readMandateTerms,
  type MandateTerms,
  type TermField,
  type TermFault,
  type TermsForm,
} from '../../domain/owners/mandates.ts';
import { localDate } from '../../domain/viewings/hours.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { recordAudit, type AuditActor } from '../access/audit.ts';
import { editListing } from '../catalogue/listings.ts';
import { recordEvent } from '../integrations/events.ts';
import { ownerMoveOnMandate } from '../leads/owners.ts';
import { businessClock } from '../viewings/clock.ts';
import { readSigner, type SheetInput } from '../viewings/visit-sheet.ts';
import { findListing } from '../../db/repositories/properties.ts';
import { businessContact, businessName } from '../catalogue/listing-page.ts';
import type { MandateLanguage } from './mandate-pdf.ts';

/** A version as the console shows it and events name it: its terms, status and signature facts (the signature's PNG apart). */
export interface Mandate extends MandateTerms {
  id: number;
  property_id: number;
  owner_lead_id: number | null;
  version: number;
  status: repo.MandateRow['status'];
  signed_at: string | null;
  signed_how: 'screen' | 'link' | null;
  signer_name: string | null;
  signer_document_type: 'dni' | 'nie' | 'other' | null;
  signer_document: string | null;
  clause: string | null;
  ended_reason: string | null;
  ended_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A stored version read. */
export function presentMandate(row: repo.MandateRow): Mandate {
  return {
    id: row.id,
    property_id: row.property_id,
    owner_lead_id: row.owner_lead_id,
    version: row.version,
    kind: row.kind,
    operation: row.operation,
    asking_price: row.asking_price,
    starts_on: row.starts_on,
    ends_on: row.ends_on,
    fee: row.fee_percent_bp !== null ? { percent_bp: row.fee_percent_bp } : { amount: row.fee_amount ?? 0 },
    minimum_fee: row.minimum_fee,
    vat: row.vat,
    keys: row.keys === 1,
    sign_board: row.sign_board === 1,
    keep_listed_after_expiry: row.keep_listed_after_expiry === 1,
    status: row.status,
    signed_at: row.signed_at,
    signed_how: row.signed_how,
    signer_name: row.signer_name,
    signer_document_type: row.signer_document_type,
    signer_document: row.signer_document,
    clause: row.clause,
    ended_reason: row.ended_reason,
    ended_at: row.ended_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The terms as stored columns. */
const termColumns = (terms: MandateTerms) => ({
  kind: terms.kind,
  operation: terms.operation,
  asking_price: terms.asking_price,
  starts_on: terms.starts_on,
  ends_on: terms.ends_on,
  fee_percent_bp: 'percent_bp' in terms.fee ? terms.fee.percent_bp : null,
  fee_amount: 'amount' in terms.fee ? terms.fee.amount : null,
  minimum_fee: terms.minimum_fee,
  vat: terms.vat,
  keys: terms.keys ? 1 : 0,
  sign_board: terms.sign_board ? 1 : 0,
  keep_listed_after_expiry: terms.keep_listed_after_expiry ? 1 : 0,
});

/** The terms' form refused, field by field; nothing was stored. */
export class MandateFormError extends Error {
  constructor(readonly faults: Partial<Record<TermField, TermFault>>) {
    super(`mandate refused: ${Object.keys(faults).join(', ')}`);
  }
}

/** What the event of a version says. */
const eventData = (row: { id: number; property_id: number; status: string }) => ({
  id: row.id,
  property_id: row.property_id,
  status: row.status,
});

/** The listing a mandate is for, with its owner. @throws InmoError PROPERTY_NOT_FOUND. */
async function listingOf(db: Executor, businessId: number, propertyId: number) {
  const listing = isRowId(propertyId) ? await findListing(db, businessId, propertyId) : undefined;
  if (!listing) throw new InmoError('PROPERTY_NOT_FOUND');
  return listing;
}

/**
 * The mandate of the business's listing `propertyId`: the version in force (`signed`), the
 * draft, every version newest first, the business's time zone and day, Hoy's warning of the
 * version in force (30, 15, 7 or null), and the terms a new draft starts from (the draft's, else the
 * version in force's, else {@link defaultTerms} from the listing at the business's `today`).
 * @throws InmoError PROPERTY_NOT_FOUND.
 */
export async function mandateOfListing(db: Db, businessId: number, propertyId: number, now: number = Date.now()) {
  const listing = await listingOf(db, businessId, propertyId);
  const versions = (await repo.listMandatesOfListing(db, businessId, propertyId)).map(presentMandate);
  const draft = versions.find((v) => v.status === 'draft') ?? null;
  const current = versions.find((v) => v.status === 'signed') ?? null;
  const { zone } = await businessClock(db, businessId);
  const today = localDate(now, zone);
  const owner = listing.owner_lead_id === null ? null : ((await findLead(db, listing.owner_lead_id, businessId)) ?? null);
  return {
    listing,
    owner: owner && { id: owner.id, name: owner.name },
    versions,
    draft,
    current,
    zone,
    today,
    warning: current === null ? null : endingWarning(current.ends_on, today),
    terms: draft ?? current ?? defaultTerms(listing, today),
  };
}

/**
 * Saves the draft of the listing's mandate from its terms' form: the draft's terms changed, or a
 * new version drafted (the next number) for the listing's owner. Audited as `mandate.draft`.
 * @returns the draft.
 * @throws InmoError PROPERTY_NOT_FOUND, MANDATE_NO_OWNER (422: the listing has no owner linked);
 *   MandateFormError for the terms' faults (nothing stored).
 */
export async function saveMandateDraft(
  db: Db,
  businessId: number,
  propertyId: number,
  form: TermsForm,
  actor: AuditActor,
): Promise<Mandate> {
  const read = readMandateTerms(form);
  if ('faults' in read) throw new MandateFormError(read.faults);
  const at = toRfc3339(new Date());
  try {
    return await transact(db, async (trx) => {
      const listing = await listingOf(trx, businessId, propertyId);
      if (listing.owner_lead_id === null) throw new InmoError('MANDATE_NO_OWNER');
      const listed = (await repo.listMandatesOfListing(trx, businessId, propertyId)).find((v) => v.status === 'draft');
      // Locked and looked at again: a signature committed meanwhile made it a version that never changes.
      const draft = listed && (await repo.findMandate(trx, businessId, listed.id, true));
      let row: repo.MandateRow;
      if (draft && draft.status === 'draft') {
        row = await repo.updateMandate(trx, draft.id, { ...termColumns(read.terms), owner_lead_id: listing.owner_lead_id, updated_at: at });
        // A link sent for the terms as they were signs nothing now: the owner is sent the new ones.
        await repo.closeOpenLinks(trx, draft.id, at);
      } else {
        const id = await repo.insertMandate(trx, {
          business_id: businessId,
          property_id: propertyId,
          owner_lead_id: listing.owner_lead_id,
          version: (await repo.lastMandateVersion(trx, propertyId)) + 1,
          ...termColumns(read.terms),
          status: 'draft',
          created_at: at,
          updated_at: at,
        });
        row = (await repo.findMandate(trx, businessId, id))!;
      }
      await recordAudit(trx, businessId, actor, 'mandate.draft', row.id, at);
      return presentMandate(row);
    });
  } catch (error) {
    // Two agents drafting the first version at once: the second finds the draft and saves over it.
    if (isUniqueViolation(error)) return saveMandateDraft(db, businessId, propertyId, form, actor);
    throw error;
  }
}

/**
 * Signs the draft `mandateId` (see the module's comment) with what the owner typed and drew.
 * @param how `screen` (the agent's device; `userId` collected it, audited; `shown`: the draft's
 *   `updated_at` as the page showed it) or `link` (the owner's one-use link; not audited as a user's action).
 * @throws InmoError MANDATE_NOT_FOUND, MANDATE_SIGNED (409: not a draft), MANDATE_NO_OWNER (the
 *   listing's owner changed since it was drafted), MANDATE_ENDS_IN_PAST (422: its last day has
 *   passed), MANDATE_DRAFT_CHANGED (409: saved again since the page showed it); VisitSheetFormError for
 *   the signer's faults.
 */
export async function signMandate(
  db: Db,
  businessId: number,
  mandateId: number,
  input: SheetInput,
  how: { by: 'screen'; userId: number; shown?: string } | { by: 'link' },
  now: number = Date.now(),
): Promise<Mandate> {
  if (!isRowId(mandateId)) throw new InmoError('MANDATE_NOT_FOUND');
  const before = await repo.findMandate(db, businessId, mandateId);
  if (!before) throw new InmoError('MANDATE_NOT_FOUND');
  if (before.status !== 'draft') throw new InmoError('MANDATE_SIGNED');
  const signer = await readSigner(input);
  const clause = await mandateClause(db, businessId);
  const at = toRfc3339(new Date(now));
  return transact(db, (trx) => signIn(trx, businessId, mandateId, signer, clause.text, how, at));
}

/** {@link signMandate}'s writes, in `trx` (a link's signing also spends the link there). */
export async function signIn(
  trx: Executor,
  businessId: number,
  mandateId: number,
  signer: Awaited<ReturnType<typeof readSigner>>,
  clause: string,
  how: { by: 'screen'; userId: number; shown?: string } | { by: 'link' },
  at: string,
): Promise<Mandate> {
  const draft = await repo.findMandate(trx, businessId, mandateId, true);
  if (!draft) throw new InmoError('MANDATE_NOT_FOUND');
  if (draft.status !== 'draft') throw new InmoError('MANDATE_SIGNED');
  // On the screen, the terms signed are those the page showed: a draft saved again since is not signed.
  if (how.by === 'screen' && how.shown !== undefined && how.shown !== draft.updated_at) throw new InmoError('MANDATE_DRAFT_CHANGED');
  const listing = await listingOf(trx, businessId, draft.property_id);
  if (listing.owner_lead_id === null || listing.owner_lead_id !== draft.owner_lead_id) throw new InmoError('MANDATE_NO_OWNER');
  if (draft.ends_on < localDate(Date.parse(at), (await businessClock(trx, businessId)).zone)) throw new InmoError('MANDATE_ENDS_IN_PAST');
  for (const previous of await repo.listMandatesOfListing(trx, businessId, draft.property_id)) {
    if (previous.status !== 'signed') continue;
    // Only a version still in force is replaced (one expired or ended meanwhile keeps its end).
    const ended = await repo.updateMandateIf(trx, previous.id, 'signed', {
      status: 'ended',
      ended_reason: 'replaced',
      ended_at: at,
      updated_at: at,
    });
    if (ended) await recordEvent(trx, businessId, 'mandate.ended', ended.owner_lead_id, eventData(ended), at);
  }
  const row = await repo.updateMandate(trx, draft.id, {
    status: 'signed',
    signed_at: at,
    signed_how: how.by,
    signer_name: signer.name,
    signer_document_type: signer.type,
    signer_document: signer.document,
    signature_png: signer.signature,
    clause,
    updated_at: at,
  });
  await recordEvent(trx, businessId, 'mandate.signed', row.owner_lead_id, eventData(row), at);
  if (row.owner_lead_id !== null) await ownerMoveOnMandate(trx, businessId, row.owner_lead_id, at);
  if (how.by === 'screen') await recordAudit(trx, businessId, { type: 'user', id: how.userId }, 'mandate.sign', row.id, at);
  return presentMandate(row);
}

/** The longest reason an agent gives for ending a mandate, characters. */
export const END_REASON_MAX = 500;

/**
 * Ends the signed mandate `mandateId` early (the home sold or let, the owner withdrew), with the
 * agent's reason; records `mandate.ended`, audited as `mandate.end`.
 * @throws InmoError MANDATE_NOT_FOUND, MANDATE_NOT_SIGNED (409: a draft, or over already),
 *   MANDATE_END_REASON (422: no reason, or over {@link END_REASON_MAX} characters).
 */
export async function endMandate(db: Db, businessId: number, mandateId: number, reason: string, actor: AuditActor): Promise<Mandate> {
  const why = reason.trim().replace(/\s+/g, ' ');
  if (why === '' || [...why].length > END_REASON_MAX) throw new InmoError('MANDATE_END_REASON');
  if (!isRowId(mandateId)) throw new InmoError('MANDATE_NOT_FOUND');
  const at = toRfc3339(new Date());
  return transact(db, async (trx) => {
    const row = await repo.findMandate(trx, businessId, mandateId, true);
    if (!row) throw new InmoError('MANDATE_NOT_FOUND');
    if (row.status !== 'signed') throw new InmoError('MANDATE_NOT_SIGNED');
    const ended = await repo.updateMandate(trx, row.id, { status: 'ended', ended_reason: why, ended_at: at, updated_at: at });
    await recordEvent(trx, businessId, 'mandate.ended', ended.owner_lead_id, eventData(ended), at);
    await recordAudit(trx, businessId, actor, 'mandate.end', row.id, at);
    return presentMandate(ended);
  });
}

/** Thrown inside a listing's edit to write nothing: the mandate was no longer due. */
const NOT_DUE = new Error('mandate no longer due');

/**
 * Expires the signed mandates whose `ends_on` is before their business's day at `now` (the
 * worker, hourly), each in a transaction of its own that looks again under the catalogue's lock:
 * `expired`, `mandate.ended`, and its listing made not public unless `keep_listed_after_expiry`.
 * @returns how many expired.
 */
export async function expireDueMandates(db: Db, now: Date, limit = 500, log?: (fields: object, message: string) => void): Promise<number> {
  // A day ahead of UTC covers every zone's today; each candidate is checked against its own.
  const candidates = await repo.listSignedMandates(db, null, localDate(now.getTime() + 86_400_000, 'UTC'), limit);
  let expired = 0;
  const zones = new Map<number, string>();
  for (const candidate of candidates) {
    let zone = zones.get(candidate.business_id);
    if (zone === undefined) zones.set(candidate.business_id, (zone = (await businessClock(db, candidate.business_id)).zone));
    if (candidate.ends_on >= localDate(now.getTime(), zone)) continue;
    const at = toRfc3339(now);
    const expire = async (trx: Executor) => {
      const row = await repo.findMandate(trx, candidate.business_id, candidate.id, true);
      if (!row || row.status !== 'signed') return false;
      const done = await repo.updateMandate(trx, row.id, { status: 'expired', ended_reason: 'expired', ended_at: at, updated_at: at });
      await recordEvent(trx, candidate.business_id, 'mandate.ended', done.owner_lead_id, eventData(done), at);
      return true;
    };
    let changed = false;
    try {
      changed =
        candidate.keep_listed_after_expiry === 1
          ? await transact(db, expire)
          : // The listing leaves the public catalogue in the same transaction, as an agent's unpublishing does.
            await editListing(db, candidate.business_id, candidate.property_id, async ({ record }, trx) => {
              if (!(await expire(trx))) throw NOT_DUE;
              return { record: { ...record, public: false }, value: true };
            });
    } catch (error) {
      // Signed again or ended meanwhile: nothing written. Any other fault (its listing gone, or no
      // longer a valid line) is said and does not hold back the mandates after it.
      if (error !== NOT_DUE) log?.({ mandate: candidate.id, error: (error as Error).message }, 'worker: a mandate could not be expired');
    }
    if (changed) expired++;
  }
  return expired;
}

/** A signed mandate ending soon, as Hoy and the CLI list it. */
export interface EndingMandate extends repo.SignedMandate {
  /** Days left to `ends_on` (0: its last day). */
  days_left: number;
  /** The warning it is at: 30, 15 or 7. */
  warning: (typeof MANDATE_WARNINGS)[number] | null;
}

/**
 * The business's signed mandates ending within `days` of its day at `now` (all signed ones when
 * null), the soonest first, at most `limit`.
 */
export async function mandatesEnding(
  db: Db,
  businessId: number,
  days: number | null,
  now: number = Date.now(),
  limit = 1000,
): Promise<EndingMandate[]> {
  const { zone } = await businessClock(db, businessId);
  const today = localDate(now, zone);
  const until = days === null ? null : localDate(Date.parse(`${today}T12:00:00Z`) + days * 86_400_000, 'UTC');
  const rows = await repo.listSignedMandates(db, businessId, until, limit);
  return rows.map((row) => ({
    ...row,
    days_left: Math.round((Date.parse(`${row.ends_on}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000),
    warning: endingWarning(row.ends_on, today),
  }));
}

/** The business's mandate clause: its own, or the default (`custom` false). */
export async function mandateClause(db: Executor, businessId: number): Promise<{ text: string; custom: boolean }> {
  const own = (await repo.findMandateClause(db, businessId))?.clause ?? null;
  return own === null ? { text: DEFAULT_MANDATE_CLAUSE, custom: false } : { text: own, custom: true };
}

/**
 * Sets the business's mandate clause; empty text (or the default's words) goes back to the default.
 * Versions signed before keep theirs. Audited as `business.mandate_clause`.
 * @throws InmoError MANDATE_CLAUSE_TOO_LONG (over {@link MANDATE_CLAUSE_MAX} characters).
 */
export async function setMandateClauseText(db: Db, businessId: number, text: string, actor: AuditActor): Promise<void> {
  const clause = text.replace(/\r\n?/g, '\n').trim();
  if ([...clause].length > MANDATE_CLAUSE_MAX) throw new InmoError('MANDATE_CLAUSE_TOO_LONG');
  await transact(db, async (trx) => {
    await repo.setMandateClause(trx, businessId, clause === '' || clause === DEFAULT_MANDATE_CLAUSE ? null : clause);
    await recordAudit(trx, businessId, actor, 'business.mandate_clause', businessId);
  });
}

/**
 * The versions drafted for owner `leadId`, for its export (CONTRACT §18): each as kept, the
 * signature's PNG in base64 (`signature_png_base64`), the business's id left out.
 */
export async function mandatesOfOwner(db: Executor, leadId: number) {
  return (await repo.listMandatesOfOwner(db, leadId)).map(({ business_id: _business, signature_png, ...kept }) => ({
    ...kept,
    signature_png_base64: signature_png === null ? null : Buffer.from(signature_png).toString('base64'),
  }));
}

/**
 * The PDF of the listing's mandate (mandate-pdf.ts), in `lang`: version `version`, else the draft,
 * else the version in force, else the newest.
 * @returns the PDF's bytes and a file name (`hoja-de-encargo-<ref>-v<n>.pdf`, `mandate-<ref>-v<n>.pdf`).
 * @throws InmoError PROPERTY_NOT_FOUND; MANDATE_NOT_FOUND (no such version, or none drafted).
 */
export async function mandatePdf(
  db: Db,
  businessId: number,
  propertyId: number,
  lang: MandateLanguage,
  version?: number,
): Promise<{ pdf: Buffer; fileName: string }> {
  const listing = await listingOf(db, businessId, propertyId);
  const rows = await repo.listMandatesOfListing(db, businessId, propertyId);
  const row =
    version !== undefined
      ? rows.find((r) => r.version === version)
      : (rows.find((r) => r.status === 'draft') ?? rows.find((r) => r.status === 'signed') ?? rows[0]);
  if (!row) throw new InmoError('MANDATE_NOT_FOUND');
  const owner = row.owner_lead_id === null ? undefined : await findLead(db, row.owner_lead_id, businessId);
  const { zone } = await businessClock(db, businessId);
  const { renderMandate } = await import('./mandate-pdf.ts');
  const pdf = await renderMandate({
    lang,
    zone,
    agency: await businessContact(db, businessId, await businessName(db, businessId)),
    listing: {
      reference: listing.external_ref,
      title: listing.title,
      address: [listing.address, [listing.postal_code, listing.city].filter(Boolean).join(' '), listing.province]
        .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
        .join(', '),
    },
    version: row.version,
    status: row.status,
    terms: presentMandate(row),
    ownerName: owner?.name ?? null,
    signed:
      row.signed_at && row.signer_name && row.signer_document_type && row.signer_document && row.signature_png && row.signed_how
        ? {
            name: row.signer_name,
            documentType: row.signer_document_type,
            document: row.signer_document,
            signature: Buffer.from(row.signature_png),
            at: row.signed_at,
            how: row.signed_how,
          }
        : null,
    clause: row.clause ?? (await mandateClause(db, businessId)).text,
  });
  const ref = listing.external_ref.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 60);
  return { pdf, fileName: `${lang === 'es' ? 'hoja-de-encargo' : 'mandate'}-${ref}-v${row.version}.pdf` };
}
