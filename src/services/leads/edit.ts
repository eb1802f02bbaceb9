/**
 * A lead edited (issue 57 item 2, CONTRACT §25): the inquiry's contact fields (`name`,
 * `phone_number_1`, `phone_number_2`, `personal_email`, `professional_email`,
 * `preferred_language`) and its searches (`search_preferences`, spec §2.4, replaced whole), by
 * `PATCH /v1/ext/leads/{id}` and the console's lead page; and a portal e-mail's listing linked
 * by hand (issue 57 item 1), which gives the lead the search intake gives a listing's inquiry.
 *
 * The request is checked before this module by the inquiry's own schema (schemas/lead-requests.ts
 * `LeadPatchBody`, validation/validator.ts); phones are made E.164 here as intake makes them
 * (domain/leads/phone.ts). An edit is one transaction: the lead's columns with `updated_at` and
 * its search text, a line of its history naming the fields changed (never their values: the
 * history outlives corrections and holds no personal data), the event `lead.updated`, and,
 * when the searches changed, a `match_lead` job (the lead is matched again; a result computed
 * from its old searches is never stored, jobs/tasks/match-lead.ts). An edit that changes
 * nothing writes nothing. A refusal (LEAD_NOT_FOUND, LEAD_PHONE_TAKEN) writes nothing either.
 */
import { insertListingInquiry } from '../../db/repositories/listing-activity.ts';
import { isDeepStrictEqual } from 'node:util';
import type { Transaction } from 'kysely';
import { isRowId, type Db } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { enqueueLeadJobs } from '../../db/repositories/jobs.ts';
import { findInboundEmail, findListingByReference, setInboundEmailListing } from '../../db/repositories/inbound-email.ts';
import * as repo from '../../db/repositories/leads.ts';
import { transact } from '../../db/transaction.ts';
import type { Database, LeadRow, NewLead } from '../../db/types.ts';
import { normalizePhone } from '../../domain/leads/phone.ts';
import { searchOfListing } from '../../domain/leads/portal-emails/search.ts';
import { initialLeadStatus } from '../../domain/leads/rules.ts';
import { nowRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import type { LeadPatchBody } from '../../schemas/lead-requests.ts';
import { recordLeadEvent } from '../integrations/events.ts';

/** The fields an edit may change, in the order the history names them. */
export const EDITABLE_FIELDS = [
  'name',
  'phone_number_1',
  'phone_number_2',
  'personal_email',
  'professional_email',
  'preferred_language',
  'search_preferences',
] as const;
export type EditableField = (typeof EDITABLE_FIELDS)[number];

/** The phone fields of an edit, each normalised to E.164. */
export type PhoneField = 'phone_number_1' | 'phone_number_2';

/** A checked edit with its phones in E.164: a field left out (undefined) keeps its value; null clears an optional one. */
export type LeadEdit = LeadPatchBody;

/** Who edits: a console user, or an API key (by its id: the history says "through the API"). */
export type Editor = { userId: number } | { keyId: string };

/** What an edit did: the fields it changed (none: nothing was written), and whether the lead is matched again. */
export interface EditOutcome {
  changed: EditableField[];
  rematch: boolean;
}

/**
 * The phones of a checked edit in E.164, as intake makes them (numbers without `+` read as
 * Spanish; valid, not merely possible, for their region; CONTRACT §6).
 * @returns the edit with its phones normalised, and the phone fields that are not valid numbers
 *   (an empty second phone is no fault: it clears it).
 */
export function normalizeEditPhones(body: LeadPatchBody): { edit: LeadEdit; invalid: PhoneField[] } {
  const edit: LeadEdit = { ...body };
  const invalid: PhoneField[] = [];
  if (typeof body.phone_number_1 === 'string') {
    const phone = normalizePhone(body.phone_number_1);
    if (phone === null) invalid.push('phone_number_1');
    else edit.phone_number_1 = phone;
  }
  if (typeof body.phone_number_2 === 'string') {
    const phone = body.phone_number_2.trim() === '' ? null : normalizePhone(body.phone_number_2);
    if (phone === null && body.phone_number_2.trim() !== '') invalid.push('phone_number_2');
    else edit.phone_number_2 = phone;
  }
  return { edit, invalid };
}

const optionalText = (value: string | null | undefined) => (value === null || value === undefined ? null : value.trim() || null);

/** The stored searches, parsed; [] for none. */
function storedSearches(lead: Pick<LeadRow, 'search_preferences'>): Array<Record<string, unknown>> {
  if (lead.search_preferences === null) return [];
  try {
    const parsed: unknown = JSON.parse(lead.search_preferences);
    return Array.isArray(parsed) ? (parsed as Array<Record<string, unknown>>) : [];
  } catch {
    return [];
  }
}

/** The columns an edit writes, for the fields whose stored value it changes. */
function changesOf(lead: LeadRow, edit: LeadEdit): { columns: Partial<NewLead>; changed: EditableField[] } {
  const columns: Partial<NewLead> = {};
  const changed: EditableField[] = [];
  const set = <K extends Exclude<EditableField, 'search_preferences'>>(field: K, value: string | null) => {
    if (lead[field] === value) return;
    (columns as Record<string, unknown>)[field] = value;
    changed.push(field);
  };
  if (edit.name !== undefined) set('name', edit.name.trim());
  if (edit.phone_number_1 !== undefined) set('phone_number_1', edit.phone_number_1);
  if (edit.phone_number_2 !== undefined) set('phone_number_2', edit.phone_number_2 ?? null);
  if (edit.personal_email !== undefined) set('personal_email', optionalText(edit.personal_email));
  if (edit.professional_email !== undefined) set('professional_email', optionalText(edit.professional_email));
  if (edit.preferred_language !== undefined) set('preferred_language', edit.preferred_language ?? null);
  if (edit.search_preferences !== undefined) {
    const searches = (edit.search_preferences ?? []) as Array<Record<string, unknown>>;
    if (!isDeepStrictEqual(searches, storedSearches(lead))) {
      columns.search_preferences = searches.length ? JSON.stringify(searches) : null;
      changed.push('search_preferences');
    }
  }
  return { columns, changed };
}

/**
 * Applies `edit` to `lead` in the caller's transaction (see the module's comment). A lead that
 * was `new` and now has a search with content becomes `searching_property`, as an inquiry with
 * that search would have been (spec §3.1); its history says so.
 * @param extra more of the history line's detail (`property_id` of a linked listing).
 * @throws InmoError LEAD_PHONE_TAKEN (409) when another lead of the business has the new primary phone.
 */
async function applyEdit(
  trx: Transaction<Database>,
  lead: LeadRow,
  edit: LeadEdit,
  by: Editor,
  extra: Record<string, unknown> = {},
): Promise<EditOutcome> {
  const { columns, changed } = changesOf(lead, edit);
  if (changed.length === 0) return { changed, rematch: false };
  if (columns.phone_number_1 !== undefined) {
    const holder = await repo.findLeadByPhone(trx, lead.business_id, columns.phone_number_1);
    if (holder && holder.id !== lead.id) throw new InmoError('LEAD_PHONE_TAKEN');
  }
  const rematch = changed.includes('search_preferences');
  const now = nowRfc3339();
  const searches = rematch ? ((edit.search_preferences ?? []) as Array<Record<string, unknown>>) : [];
  const status = rematch && lead.status === 'new' && initialLeadStatus(searches) === 'searching_property' ? 'searching_property' : null;
  await repo.updateLeadContact(trx, lead.id, { ...columns, ...(status ? { status } : {}), updated_at: now });
  const userId = 'userId' in by ? by.userId : null;
  const line = { business_id: lead.business_id, lead_id: lead.id, user_id: userId, created_at: now };
  const detail = { fields: changed, ...('keyId' in by ? { via: 'api' } : {}), ...extra };
  await repo.insertHistory(trx, { ...line, change: 'edit', detail: JSON.stringify(detail) });
  if (status)
    await repo.insertHistory(trx, { ...line, change: 'status', detail: JSON.stringify({ from: lead.status, to: status, reason: null }) });
  if (rematch) await enqueueLeadJobs(trx, lead.business_id, lead.id, ['match_lead'], now);
  await recordLeadEvent(trx, lead.business_id, lead.id, 'lead.updated', now);
  return { changed, rematch };
}

/** The business's lead `leadId` in the transaction; else LEAD_NOT_FOUND (another business's too). */
async function leadOf(trx: Transaction<Database>, businessId: number, leadId: number): Promise<LeadRow> {
  const lead = isRowId(leadId) ? await repo.findLead(trx, leadId, businessId) : undefined;
  if (!lead) throw new InmoError('LEAD_NOT_FOUND', { id: leadId });
  return lead;
}

/** Runs an edit's transaction; a race for the primary phone lost to another write is LEAD_PHONE_TAKEN. */
async function editing<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  try {
    return await transact(db, work);
  } catch (error) {
    if (isUniqueViolation(error)) throw new InmoError('LEAD_PHONE_TAKEN');
    throw error;
  }
}

/**
 * Edits lead `leadId` of `businessId` (CONTRACT §25; see the module's comment).
 * @param edit checked by `LeadPatchBody`, phones in E.164 ({@link normalizeEditPhones}).
 * @returns the fields changed, and whether a `match_lead` job was queued (the caller wakes the worker).
 * @throws InmoError LEAD_NOT_FOUND (404), LEAD_PHONE_TAKEN (409); nothing is then written.
 */
export async function editLead(db: Db, businessId: number, leadId: number, edit: LeadEdit, by: Editor): Promise<EditOutcome> {
  return editing(db, async (trx) => applyEdit(trx, await leadOf(trx, businessId, leadId), edit, by));
}

/**
 * Links the listing a portal e-mail was about when reading it found none (issue 57 item 1):
 * the message then names listing `reference` (its `external_ref`, else its inmo id), and the
 * lead gets the search intake gives a listing's inquiry (domain/leads/portal-emails/search.ts
 * `searchOfListing`: its operation, type, city and a ±15 % price band) after the searches it
 * has, unless it has that one already; matched again as any edit of searches is. The history's
 * line names the listing by id.
 * @returns the listing's id, and what the edit changed.
 * A message whose listing is known already is left as it is (the form sent twice).
 * @throws InmoError EMAIL_LISTING_NOT_FOUND (400: no listing of the business has that reference),
 *   NOT_FOUND (404: not a message of this lead), LEAD_NOT_FOUND (404); nothing is then written.
 */
export async function linkEmailListing(
  db: Db,
  businessId: number,
  leadId: number,
  emailId: number,
  reference: string,
  by: Editor,
): Promise<{ propertyId: number } & EditOutcome> {
  return editing(db, async (trx) => {
    const lead = await leadOf(trx, businessId, leadId);
    const email = isRowId(emailId) ? await findInboundEmail(trx, emailId) : undefined;
    if (!email || email.business_id !== businessId || email.lead_id !== leadId) throw new InmoError('NOT_FOUND');
    // Linked already (the same form sent twice): nothing more to do.
    if (email.property_id !== null) return { propertyId: email.property_id, changed: [], rematch: false };
    const ref = reference.trim();
    const listing = ref === '' ? undefined : await findListingByReference(trx, businessId, ref);
    if (!listing) throw new InmoError('EMAIL_LISTING_NOT_FOUND');
    if (!(await setInboundEmailListing(trx, emailId, listing.id))) return { propertyId: listing.id, changed: [], rematch: false };
    // The portal's request about the listing, for its owner's report (CONTRACT §24), as if read at once.
    await insertListingInquiry(trx, {
      business_id: businessId,
      property_id: listing.id,
      lead_id: leadId,
      source: email.parser === null || email.parser === 'generic' ? 'email' : email.parser,
      created_at: email.received_at,
    });
    const searches = storedSearches(lead);
    const search = searchOfListing(listing);
    const next = search === null || searches.some((s) => isDeepStrictEqual(s, search)) ? searches : [...searches, search];
    const outcome = await applyEdit(trx, lead, { search_preferences: next as LeadEdit['search_preferences'] }, by, {
      property_id: listing.id,
    });
    if (outcome.changed.length === 0) {
      // The lead already searched for it: its history still says the listing was linked.
      await repo.insertHistory(trx, {
        business_id: businessId,
        lead_id: leadId,
        user_id: 'userId' in by ? by.userId : null,
        change: 'edit',
        detail: JSON.stringify({ fields: [], ...('keyId' in by ? { via: 'api' } : {}), property_id: listing.id }),
        created_at: nowRfc3339(),
      });
    }
    return { propertyId: listing.id, ...outcome };
  });
}
