/**
 * Lead creation from websites (spec §4.2 inquiries, §4.3 ingest; CONTRACT §6, §7).
 *
 * Each creation is one unit of work: the lead, its generated notes, its welcome message
 * (pending, when the business has a channel), its event (`lead.created` or `lead.updated`,
 * services/integrations/events.ts) and the jobs of what must happen next (matching,
 * the welcome message, follow-ups) are committed together or not at all (db/group-commit.ts shares one commit among the units that arrive together). The database's unique constraint on (business, primary phone) settles races: a
 * transaction that loses one is run again and then sees the winner, so every request gets
 * the answer it would get had the requests run one by one.
 *
 * This is the transactional path. Where the engine runs writes concurrently (PostgreSQL), a lead
 * whose phone is new is first tried as one statement (services/leads/new-lead-at-once.ts, its
 * twin, which applies the same rules and stores the same rows; test/db/leads/new-lead-statement.test.ts
 * proves it); a known phone writes nothing there and comes here.
 */
import type { Transaction } from 'kysely';
import { decideWelcome } from '../messaging/purposes/welcome.ts';
import { leadEmailAddress } from '../messaging/welcome.ts';
import { sendsEmail } from '../messaging/email.ts';
import { findEmailSettings } from '../../db/repositories/email-out.ts';
import type { GroupCommit } from '../../db/group-commit.ts';
import { findChannel, findConversation, insertWelcome } from '../../db/repositories/messaging.ts';
import type { Database, LeadInteractionTable } from '../../db/types.ts';
import { isKeyTaken, isUniqueViolation } from '../../db/errors.ts';
import { enqueueLeadJobs, listJobsOfLead } from '../../db/repositories/jobs.ts';
import type { PayloadlessJobKind as JobKind } from '../../db/job-kinds.ts';
import * as repo from '../../db/repositories/leads.ts';
import type { NewLead } from '../../db/types.ts';
import { ingestNotes, inquiryNotes } from '../../domain/leads/notes.ts';
import { initialLeadStatus, OWNS_AGENCY_PROPERTY_IDS, OWNS_SERVICES, parseBudget, parseHabs } from '../../domain/leads/rules.ts';
import { nowRfc3339 } from '../../domain/time.ts';
import type { IngestBody, InquiryBody } from '../../schemas/lead-requests.ts';
import { InmoError } from '../../errors.ts';
import { recordEvent, recordLeadEvent } from '../integrations/events.ts';
import { writeKeyRecord, type KeyRecord } from '../../db/repositories/idempotency.ts';
import { newLeadAtOnce, type NewLeadParts } from './new-lead-at-once.ts';

/** Attempts of a creation that keeps losing unique-constraint races (each loss means a winner exists). */
const MAX_ATTEMPTS = 5;

/** Jobs of a new inquiry lead and of an ingest lead (spec §6: follow-ups for inquiries only). */
const INQUIRY_JOBS: JobKind[] = ['match_lead', 'send_welcome', 'schedule_follow_ups'];
const INGEST_JOBS: JobKind[] = ['match_lead', 'send_welcome'];

/** What an inquiry did: a new lead, an unnamed lead completed, or a known lead's interaction (CONTRACT §22). */
export type InquiryOutcome = 'created' | 'completed' | 'known';

/**
 * What writes a lead: the request path's {@link GroupCommit}, or a caller's own transaction
 * (a savepoint of a booking's, services/viewings/booking.ts). `alone`, where there is one, is the
 * engine's one-statement write (PostgreSQL); without it, every lead takes the transaction.
 */
export type LeadWrites = Pick<GroupCommit, 'run'> & Partial<Pick<GroupCommit, 'alone'>>;

/** What an inquiry stored: the lead it created, completed or kept an interaction of, and how. */
export interface StoredInquiry {
  leadId: number;
  outcome: InquiryOutcome;
}

/** How an inquiry came: who vouches for it, and, when not through POST /leads/inquiries, its way (CONTRACT §19: a portal's e-mail). */
export interface InquiryOrigin {
  /**
   * Whether the request can prove it comes from the person or the agency: a secret key (the
   * agency's own systems), an agent in the console. Not given (false): a publishable key, the
   * listing page's forms, a portal e-mail inmo could not verify. An unverified request's consent
   * only tightens a known lead's (a refusal applies, a "yes" never lifts a refusal), and the
   * lead it makes gets no automatic e-mail at the address it gave (CONTRACT §18; docs/security.md).
   */
  verified?: boolean;
  /** The interaction's channel when the person is known (CONTRACT §22): `inquiry` unless said. */
  channel?: 'inquiry' | 'email';
  /** Also known by this e-mail address (any lead of the business with it, personal or professional), when the phone is new. */
  knownEmail?: string | null;
  /** The first line of the generated notes, instead of the web's. */
  heading?: string;
}

/** An inquiry after validation: type canonical, phones in E.164. */
export interface Inquiry extends Omit<InquiryBody, 'type' | 'phone_number_1' | 'phone_number_2' | 'landline_phone'> {
  type: string;
  phone_number_1: string;
  phone_number_2: string | null;
  landline_phone: string | null;
}

/**
 * Runs `work` (a unit of work that writes a lead) again when it lost a race for a lead's unique
 * phone to another writer (each loss means a winner exists, which the next try sees), up to
 * {@link MAX_ATTEMPTS} times.
 * @throws what `work` throws otherwise, and a taken Idempotency-Key's violation at once.
 */
export async function retryingRaces<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      // A taken Idempotency-Key is not a race another try wins (http/idempotency.ts answers it).
      if (!isUniqueViolation(error) || isKeyTaken(error) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

/**
 * Writes the lead's welcome message as `pending` when the business can send one now, as the
 * lead arrives (CONTRACT §9: no channel when the lead arrived, no message; §19: an e-mail when
 * WhatsApp cannot carry it). Which one, its template and its language (from
 * `preferred_language`) are fixed here by services/messaging/purposes/welcome.ts `decideWelcome`, after
 * the consent the lead gave is recorded; the `send_welcome` job sends it.
 */
async function queueWelcome(
  trx: Transaction<Database>,
  businessId: number,
  leadId: number,
  contact: { phone: string; email: string | null },
  language: string | null,
  at: string,
) {
  const welcome = decideWelcome(await findChannel(trx, businessId), sendsEmail(await findEmailSettings(trx, businessId)), {
    phone: contact.phone,
    email: contact.email,
    preferredLanguage: language,
    refusesWhatsApp: await repo.refusesWhatsApp(trx, leadId),
  });
  if (!welcome) return;
  await insertWelcome(trx, {
    lead_id: leadId,
    business_id: businessId,
    kind: welcome.kind,
    template: welcome.template,
    language: welcome.language,
    recipient: welcome.recipient,
    state: 'pending',
    created_at: at,
    updated_at: at,
  });
}

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** The lead columns an inquiry sets (spec §4.2 rules 1, 6; the accepted-but-ignored fields are not read). */
function inquiryColumns(inquiry: Inquiry, at: string, verified: boolean): Omit<NewLead, 'business_id' | 'phone_number_1' | 'created_at'> {
  const searches = (inquiry.search_preferences ?? []) as Array<Record<string, unknown>>;
  return {
    name: inquiry.name.trim(),
    type: inquiry.type,
    status: initialLeadStatus(searches),
    active: 1,
    rating: 3,
    captured_by: 'Web',
    source: inquiry.source?.trim() || 'manual',
    phone_number_2: inquiry.phone_number_2,
    landline_phone: inquiry.landline_phone,
    personal_email: inquiry.personal_email ?? null,
    professional_email: inquiry.professional_email ?? null,
    preferred_language: inquiry.preferred_language ?? null,
    dni: inquiry.dni ?? null,
    profile_category: inquiry.profile_category ?? 'potencial',
    urgency_profile: inquiry.urgency_profile ?? 'poca-urgencia',
    search_preferences: searches.length ? JSON.stringify(searches) : null,
    agency_property_ids: OWNS_AGENCY_PROPERTY_IDS.has(inquiry.type) ? json(inquiry.agency_property_ids) : null,
    services: OWNS_SERVICES.has(inquiry.type) ? json(inquiry.services) : null,
    updated_at: at,
    // Unverified: no automatic e-mail to the address it gave (docs/security.md); verified: the default, 1.
    ...(verified ? {} : { contact_verified: 0 }),
  };
}

/** Keeps what a completed lead already had where the inquiry provides nothing (CONTRACT §6). */
function providedOnly(columns: ReturnType<typeof inquiryColumns>): Partial<NewLead> {
  return Object.fromEntries(Object.entries(columns).filter(([, v]) => v !== null && v !== undefined));
}

/**
 * Creates a lead from an inquiry, or completes the unnamed lead with the same primary phone;
 * for a named lead with that phone (spec §4.2 rule 4: the 409 of a secret key), keeps the
 * request as an interaction of that lead instead, changing nothing of the lead (CONTRACT §22).
 * A new phone is first tried as one statement where `writes` has one (PostgreSQL); otherwise,
 * or when that cannot answer, {@link storeInquiry} in a transaction of `writes`, again when it
 * lost a race for the phone.
 * @param origin how it came when not by the API (a portal's e-mail, CONTRACT §19): the
 *   interaction's channel, an e-mail address that also makes the person known, the notes' heading.
 * @param key the request's Idempotency-Key record (services/integrations/idempotency.ts
 *   `recordFor`), written with the lead in the same unit of work; null: no key.
 * @returns the lead's id, and `created`, `completed` (`Inmo-Lead-Outcome`) or `known`.
 * @throws InmoError LEAD_NOT_STORED, with the failure as its `cause`, when it cannot be stored (rule 5: 400).
 */
export async function createInquiryLead(
  writes: LeadWrites,
  businessId: number,
  inquiry: Inquiry,
  origin: InquiryOrigin = {},
  key: KeyRecord | null = null,
): Promise<StoredInquiry> {
  try {
    const at = nowRfc3339();
    const plan = inquiryPlan(businessId, inquiry, origin, at);
    // A person also known by e-mail is looked for in the transaction: never in one statement.
    const created = plan.knownEmail === null ? await newLeadAtOnce(writes, plan.newLead, key) : null;
    if (created !== null) return { leadId: created, outcome: 'created' };
    return await retryingRaces(() => writes.run((trx) => storePlannedInquiry(trx, plan, key)));
  } catch (error) {
    return leadNotStored(error);
  }
}

/**
 * Rethrows what storing a lead threw as the spec's answer: an InmoError as it is, any other
 * failure as InmoError LEAD_NOT_STORED with it as its `cause` (spec §4.2 rule 5: 400).
 */
export function leadNotStored(error: unknown): never {
  if (error instanceof InmoError) throw error;
  throw new InmoError('LEAD_NOT_STORED').because(error);
}

/**
 * {@link createInquiryLead}'s rules in the caller's transaction `trx`, for a caller that stores
 * more in that unit of work (the portal e-mail's settled state, services/leads/email-intake.ts).
 * Never one statement; a lost race for the phone throws the unique violation: run it again with
 * {@link retryingRaces}.
 * @returns as {@link createInquiryLead}.
 * @throws the database's errors.
 */
export function storeInquiry(
  trx: Transaction<Database>,
  businessId: number,
  inquiry: Inquiry,
  origin: InquiryOrigin = {},
  key: KeyRecord | null = null,
): Promise<StoredInquiry> {
  return storePlannedInquiry(trx, inquiryPlan(businessId, inquiry, origin, nowRfc3339()), key);
}

/** What an inquiry would store, decided before any read: the lead's columns, its note, and the new lead's rows. */
interface InquiryPlan {
  businessId: number;
  inquiry: Inquiry;
  columns: ReturnType<typeof inquiryColumns>;
  notes: string;
  knownEmail: string | null;
  channel: 'inquiry' | 'email';
  verified: boolean;
  newLead: NewLeadParts;
  at: string;
}

function inquiryPlan(businessId: number, inquiry: Inquiry, origin: InquiryOrigin, at: string): InquiryPlan {
  const verified = origin.verified === true;
  const columns = inquiryColumns(inquiry, at, verified);
  const notes = inquiryNotes({
    searches: (inquiry.search_preferences ?? []) as Array<Record<string, unknown>>,
    sourcePage: inquiry.sourcePage,
    notes: inquiry.notes,
    heading: origin.heading,
  });
  const lead: NewLead = { ...columns, business_id: businessId, phone_number_1: inquiry.phone_number_1, created_at: at };
  const consent = consentColumns(inquiry.consent, inquiry.sourcePage);
  return {
    businessId,
    inquiry,
    columns,
    notes,
    knownEmail: origin.knownEmail?.trim() || null,
    channel: origin.channel ?? 'inquiry',
    verified,
    newLead: newLead(businessId, lead, notes, consent, inquiry.preferred_language ?? null, INQUIRY_JOBS, at, verified),
    at,
  };
}

async function storePlannedInquiry(trx: Transaction<Database>, plan: InquiryPlan, key: KeyRecord | null): Promise<StoredInquiry> {
  const { businessId, inquiry, columns, notes, knownEmail, channel, verified, at } = plan;
  const existing = await repo.findLeadByPhone(trx, businessId, inquiry.phone_number_1);
  const known = async (leadId: number): Promise<StoredInquiry> => {
    // A request about a known person (CONTRACT §22): the lead does not change.
    const interaction = { channel, source: inquiry.source, note: notes, consent: inquiry.consent, verified };
    await keepInteraction(trx, businessId, leadId, interaction, inquiry.sourcePage, at);
    if (key) await writeKeyRecord(trx, key, { leadId: null, outcome: 'unchanged', about: leadId, known: true });
    return { leadId, outcome: 'known' };
  };
  // Known by the e-mail address though the phone is new.
  const byEmail = existing || knownEmail === null ? undefined : await repo.findLeadByEmail(trx, businessId, knownEmail);
  if (byEmail) return known(byEmail.id);
  if (!existing) {
    const leadId = await writeNewLead(trx, plan.newLead);
    if (key) await writeKeyRecord(trx, key, { leadId, outcome: 'created', about: leadId });
    return { leadId, outcome: 'created' };
  }
  // A named lead, or one another request completed since it was read: this request came
  // again about a known person, kept as an interaction.
  const named = existing.name !== null && existing.name.trim() !== '';
  if (named || !(await repo.completeUnnamedLead(trx, existing.id, providedOnly(columns)))) return known(existing.id);
  const leadId = existing.id;
  // One welcome per lead, ever (spec §6): a lead that was already queued one keeps it,
  // and a lead who wrote on WhatsApp first is already in a conversation (CONTRACT §10).
  const queued = new Set((await listJobsOfLead(trx, leadId)).map((j) => j.kind));
  const talking = (await findConversation(trx, leadId)) !== undefined;
  const jobs = INQUIRY_JOBS.filter((kind) => kind !== 'send_welcome' || (!queued.has(kind) && !talking));
  await repo.insertNote(trx, leadId, notes, at);
  // A completed lead was known before this request: its consent is only tightened by an unverified one.
  await recordConsent(trx, businessId, leadId, inquiry.consent, inquiry.sourcePage, at, !verified);
  if (jobs.includes('send_welcome')) {
    await queueWelcome(
      trx,
      businessId,
      leadId,
      // No automatic e-mail to an address an unverified request gave (docs/security.md).
      { phone: inquiry.phone_number_1, email: !verified ? null : (leadEmailAddress(inquiry) ?? leadEmailAddress(existing)) },
      inquiry.preferred_language ?? existing.preferred_language ?? null,
      at,
    );
  }
  await enqueueLeadJobs(trx, businessId, leadId, jobs, at);
  await recordLeadEvent(trx, businessId, leadId, 'lead.updated', at);
  if (key) await writeKeyRecord(trx, key, { leadId, outcome: 'completed', about: leadId });
  return { leadId, outcome: 'completed' };
}

/**
 * Writes a new lead as planned ({@link NewLeadParts}), in the transaction: the lead, its note,
 * the consent given, its welcome (decided in the transaction, {@link queueWelcome}), its jobs and
 * its `lead.created` event, as the one statement of services/leads/new-lead-at-once.ts does.
 * @returns the lead's id.
 * @throws the unique violation of a phone another writer took meanwhile.
 */
async function writeNewLead(trx: Transaction<Database>, parts: NewLeadParts): Promise<number> {
  const { businessId, lead, at } = parts;
  const leadId = await repo.insertLeadId(trx, lead);
  await repo.insertNote(trx, leadId, parts.note, at);
  if (parts.consent) await repo.insertConsent(trx, { business_id: businessId, lead_id: leadId, ...parts.consent, created_at: at });
  if (parts.welcome) {
    const email = parts.welcome.byEmail ? leadEmailAddress(lead) : null;
    await queueWelcome(trx, businessId, leadId, { phone: lead.phone_number_1, email }, parts.welcome.preferredLanguage, at);
  }
  await enqueueLeadJobs(trx, businessId, leadId, parts.jobs, at);
  await recordLeadEvent(trx, businessId, leadId, 'lead.created', at);
  return leadId;
}

/**
 * A new lead for the one-statement write (services/leads/new-lead-at-once.ts), by the same rules
 * as the transactional path: its note, the consent given, a welcome when its jobs queue one, its
 * jobs.
 */
function newLead(
  businessId: number,
  lead: NewLead,
  note: string,
  consent: NewLeadParts['consent'],
  preferredLanguage: string | null,
  jobs: JobKind[],
  at: string,
  verified: boolean,
): NewLeadParts {
  const welcome = jobs.includes('send_welcome') ? { preferredLanguage, byEmail: verified } : null;
  return { businessId, lead, note, consent, welcome, jobs, at };
}

/** The columns of the `consent` a POST carried, with the form's page (CONTRACT §18); null: none given. */
function consentColumns(consent: InquiryBody['consent'], sourcePage: string | null | undefined): NewLeadParts['consent'] {
  if (!consent) return null;
  return {
    marketing: consent.marketing ? 1 : 0,
    whatsapp: consent.whatsapp ? 1 : 0,
    text: consent.text ?? null,
    version: consent.version ?? null,
    source_page: sourcePage ?? null,
  };
}

/**
 * Records the `consent` a POST carried (CONTRACT §18), with the form's page and the time; none
 * given, nothing is recorded.
 * @param tightenOnly the request cannot prove it comes from the person and the lead was known
 *   before it: the record is kept as not verified (`verified` 0), with what it said in
 *   `carried_marketing`/`carried_whatsapp`, and its `marketing`/`whatsapp` are what takes effect:
 *   each what it said and what the consent in force allowed ({@link repo.consentInForce}), so a
 *   refusal applies and a "yes" never lifts an earlier refusal, nor gives what was never given.
 */
async function recordConsent(
  trx: Transaction<Database>,
  businessId: number,
  leadId: number,
  consent: InquiryBody['consent'],
  sourcePage: string | null | undefined,
  at: string,
  tightenOnly: boolean,
): Promise<void> {
  const columns = consentColumns(consent, sourcePage);
  if (!columns) return;
  if (!tightenOnly) {
    await repo.insertConsent(trx, { business_id: businessId, lead_id: leadId, ...columns, created_at: at });
    return;
  }
  const inForce = await repo.consentInForce(trx, leadId);
  await repo.insertConsent(trx, {
    business_id: businessId,
    lead_id: leadId,
    ...columns,
    marketing: Math.min(columns.marketing, inForce.marketing),
    whatsapp: Math.min(columns.whatsapp, inForce.whatsapp),
    verified: 0,
    carried_marketing: columns.marketing,
    carried_whatsapp: columns.whatsapp,
    created_at: at,
  });
}

/**
 * Keeps a request about a known lead as its interaction (CONTRACT §22): the way it came
 * (`inquiry`, `ingest`, or a portal's `email`, CONTRACT §19), the request's `source` and the
 * note a new lead would have got (message, page, search), the consent it carried (recorded as
 * any consent is when `verified`; otherwise it only tightens the lead's, {@link recordConsent}),
 * and the event `lead.contacted_again` (`{id, source}`). The lead's own columns and `updated_at`
 * do not change. Runs in the caller's transaction.
 */
export async function keepInteraction(
  trx: Transaction<Database>,
  businessId: number,
  leadId: number,
  request: {
    channel: LeadInteractionTable['channel'];
    source: string | null | undefined;
    note: string;
    consent: InquiryBody['consent'];
    /** The request proves it comes from the person or the agency ({@link InquiryOrigin.verified}). */
    verified: boolean;
  },
  sourcePage: string | null | undefined,
  at: string,
): Promise<void> {
  const source = request.source?.trim() || null;
  await repo.insertInteraction(trx, {
    business_id: businessId,
    lead_id: leadId,
    channel: request.channel,
    source,
    note: request.note,
    created_at: at,
  });
  await recordConsent(trx, businessId, leadId, request.consent, sourcePage, at, !request.verified);
  await recordEvent(trx, businessId, 'lead.contacted_again', leadId, { id: leadId, source: source ?? request.channel }, at);
}

/**
 * Creates a rental-seeking lead from the compact landing-form payload (spec §4.3).
 * @param phone the primary phone, already chosen and normalised.
 * @param verified the request proves it comes from the person or the agency (a secret key);
 *   not (a publishable key): see {@link InquiryOrigin.verified}.
 * @param key the request's Idempotency-Key record, written with what it stored (as {@link createInquiryLead}).
 * @returns the new lead's id, or null when a lead with that phone exists: the lead does not
 *   change, and the request is kept as its interaction (CONTRACT §22).
 * @throws MalformedBudgetError (MALFORMED_BUDGET) for a budget that is not a whole number or range (nothing stored),
 *   checked first: the spec makes it a 500 without condition.
 */
export async function ingestRentalLead(
  writes: LeadWrites,
  businessId: number,
  body: IngestBody,
  phone: string,
  verified = false,
  key: KeyRecord | null = null,
): Promise<number | null> {
  // A malformed budget is the documented 500 whether or not the phone is known (spec §4.3 rule 3).
  const rentMax = parseBudget(body.search.budget);
  const bedrooms = parseHabs(body.search.habs);
  const criteria: Record<string, number> = {};
  if (rentMax !== null) criteria.price_rent_max = rentMax;
  if (bedrooms !== null) criteria.bedrooms_min = bedrooms;
  const entry: Record<string, unknown> = { operations: ['alquiler'], property_types: ['apartamento', 'casa'] };
  if (Object.keys(criteria).length) {
    entry.apartamento = { ...criteria };
    entry.casa = { ...criteria };
  }
  if (body.search.location) entry.locations = [body.search.location];
  const at = nowRfc3339();
  const lead: NewLead = {
    business_id: businessId,
    name: body.contact.name.trim() || null,
    type: 'demandante',
    status: 'searching_property',
    active: 1,
    rating: 3,
    captured_by: 'Web',
    source: body.source.trim() || null,
    phone_number_1: phone,
    profile_category: 'potencial',
    urgency_profile: 'alta-urgencia',
    search_preferences: JSON.stringify([entry]),
    created_at: at,
    updated_at: at,
    ...(verified ? {} : { contact_verified: 0 }),
  };
  const habsInNotes = bedrooms === null && Boolean(body.search.habs?.trim());
  const notes = ingestNotes(body, habsInNotes, rentMax);
  const parts = newLead(businessId, lead, notes, consentColumns(body.consent, body.sourcePage), null, INGEST_JOBS, at, verified);
  const created = await newLeadAtOnce(writes, parts, key);
  if (created !== null) return created;
  return retryingRaces(() =>
    writes.run(async (trx) => {
      const existing = await repo.findLeadByPhone(trx, businessId, phone);
      if (existing) {
        const interaction = { channel: 'ingest' as const, source: body.source, note: notes, consent: body.consent, verified };
        await keepInteraction(trx, businessId, existing.id, interaction, body.sourcePage, at);
        if (key) await writeKeyRecord(trx, key, { leadId: null, outcome: 'unchanged', about: existing.id });
        return null;
      }
      const leadId = await writeNewLead(trx, parts);
      if (key) await writeKeyRecord(trx, key, { leadId, outcome: 'created', about: leadId });
      return leadId;
    }),
  );
}
