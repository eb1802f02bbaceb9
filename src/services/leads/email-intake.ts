/**
 * Portal e-mails in (issue 43, CONTRACT §19): the addresses a business forwards portal
 * notifications to, accepting a message posted to one, and the `process_email` work that
 * turns it into a lead, an interaction of a known lead, or a message "not understood".
 *
 * - **Addresses**: `/webhooks/email/<token>`, and `<token>@INMO_INBOUND_DOMAIN` by SMTP (CONTRACT §25,
 *   services/leads/inbound-address.ts), a capability token (domain/capability-token.ts) of 43
 *   lower-case letters and digits (about 222 bits; older ones are base62) kept as its SHA-256
 *   and sealed (migration 0054: shown again on the console), revocable. A token is checked by
 *   its hash alone: the lookup compares digests, so its time says nothing of the token, and an unknown or
 *   revoked token is a 404 before the body is read.
 * - **Accepting** stores only: the raw bytes once per business (by `Message-ID`, else by the
 *   digest of the bytes; channels/email-message.ts `messageKeyOf`) with a `process_email` job, in
 *   one transaction. A message posted again is acknowledged and nothing new is stored.
 * - **Processing** reads the message (mailparser; domain/leads/portal-emails/ for what it
 *   says) on the e-mail reader's thread, within `INMO_EMAIL_READ_TIMEOUT_MS`
 *   (services/leads/email-read-thread.ts); one not read by then waits as `not_understood`. With a phone, the lead is made as an inquiry makes it (services/leads/intake.ts
 *   `createInquiryLead`: type `demandante`, `source` the portal's name, the message in the
 *   notes, a search from the listing the reference names, and the same jobs: matching, the
 *   welcome, follow-ups), in the transaction that completes the job; a known phone or e-mail
 *   address adds an interaction to that lead instead (CONTRACT §22). Without a phone or a name,
 *   a known phone or e-mail address still adds the interaction; otherwise the message waits as
 *   `not_understood` with a reason, as does a message with no contact at all.
 * - **Believing** (domain/leads/portal-emails/trust.ts): a portal's parser reads only a message
 *   its portal's domain authenticated, or a forward from one of the agency's own addresses; any
 *   other message is read by the generic reader, kept as `unverified` (`trust`), and the lead or
 *   interaction it makes is marked: its consent only tightens, and no automatic e-mail goes to
 *   the address it gave (services/leads/intake.ts `InquiryOrigin.verified`).
 * - **Keeping**: 30 days from receipt (the worker's hourly purge, jobs/worker.ts); gone with
 *   the lead it made or was added to (its erasure, CONTRACT §18), and part of its export.
 *
 * Personal data (the message, its sender and subject, the contact) is never logged or put in
 * an error; a message's reason says what was missing, not what was there.
 */
import type { Transaction } from 'kysely';
import { messageKeyOf } from '../../channels/email-message.ts';
import type { Db } from '../../db/database.ts';
import type { GroupCommit } from '../../db/group-commit.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import * as repo from '../../db/repositories/inbound-email.ts';
import { insertListingInquiry } from '../../db/repositories/listing-activity.ts';
import { enqueueJob } from '../../db/repositories/jobs.ts';
import { findLeadByEmail, findLeadByPhone } from '../../db/repositories/leads.ts';
import { findChannel } from '../../db/repositories/messaging.ts';
import { transact } from '../../db/transaction.ts';
import type { Database, InboundEmailState } from '../../db/types.ts';
import { hashToken, mintToken } from '../../domain/capability-token.ts';
import { cleanStrings, storedText } from '../../domain/catalogue/text.ts';
import { inquiryNotes } from '../../domain/leads/notes.ts';
import { SOURCE_OF } from '../../domain/leads/portal-emails/index.ts';
import type { EmailTrust } from '../../domain/leads/portal-emails/trust.ts';
import { normalizePhone } from '../../domain/leads/phone.ts';
import { searchOfListing } from '../../domain/leads/portal-emails/search.ts';
import { nowRfc3339, toRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { sealSecret } from '../../secrets.ts';
import { keepEmailAnswer, leadAnsweredBy } from '../messaging/email-replies.ts';
import { readAnswerInThread, readInThread, type ReadOutcome } from './email-read-thread.ts';
import { foundFieldsOf, type FoundFields } from './email-reading.ts';
import { keepInteraction, leadNotStored, retryingRaces, storeInquiry, type Inquiry } from './intake.ts';

/** The largest message accepted, bytes: 10 MiB (CONTRACT §19). */
export const EMAIL_MAX_BYTES = 10 * 1024 * 1024;

/** How long a message is kept after it came, ms: 30 days (CONTRACT §19). */
export const EMAIL_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** An address's token: 43 base62 characters (lower-case letters and digits since migration 0054). */
const TOKEN = /^[A-Za-z0-9]{43}$/;

/** The path of a business's address. */
export const inboundPath = (token: string) => `/webhooks/email/${token}`;

/**
 * Why a message waits as `not_understood` (the `reason` column, in words: the console labels
 * each, http/console/labels.ts), and the reason of one an agent discarded.
 */
export const NOT_UNDERSTOOD = {
  unreadable: 'not readable as an e-mail',
  noContact: 'no phone number or e-mail address found',
  noPhone: 'no phone number found: a lead needs one',
  noName: 'no name found',
  timedOut: 'not read within its time limit',
} as const;
export const DISCARDED_BY_AGENT = 'discarded by an agent';

/** The longest subject kept, characters. */
const SUBJECT_MAX = 500;

/**
 * Makes an address to forward a business's portal e-mails to: a token kept as its SHA-256 (for
 * lookups) and sealed (secrets.ts, migration 0054: the console shows its address again, CONTRACT §25).
 * @returns `{id, url, token}`: the URL is a path on this server.
 * @throws InmoError UNKNOWN_BUSINESS.
 */
export async function createInboundAddress(db: Db, businessId: number): Promise<{ id: number; url: string; token: string }> {
  if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  // Lower-case letters and digits, so that a mail system that lower-cases addresses keeps it whole.
  const { token, hash } = mintToken('lowercase');
  const id = await repo.insertInboundToken(db, {
    business_id: businessId,
    token_hash: hash,
    token_sealed: sealSecret(token),
    created_at: nowRfc3339(),
  });
  return { id, url: inboundPath(token), token };
}

/**
 * A business's addresses, newest first: `[{id, created_at, revoked_at}]` (never a URL: only its hash is kept).
 * @throws InmoError UNKNOWN_BUSINESS.
 */
export async function listInboundAddresses(db: Db, businessId: number) {
  if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  return repo.listInboundTokens(db, businessId);
}

/**
 * Revokes an address (idempotent): its URL answers 404 from the next message on.
 * @param businessId the business whose address alone may be revoked, or null for any (the operator's CLI).
 * @throws InmoError INBOUND_EMAIL_NOT_FOUND.
 */
export async function revokeInboundAddress(db: Db, id: number, businessId: number | null): Promise<void> {
  if (!(await repo.revokeInboundToken(db, id, businessId, nowRfc3339()))) throw new InmoError('INBOUND_EMAIL_NOT_FOUND', { id });
}

/**
 * The business whose live address `token` is, or null (a malformed, unknown or revoked token).
 * Compares the token's SHA-256 only: what its lookup takes says nothing of the token.
 */
export async function inboundBusinessOf(db: Db, token: string): Promise<number | null> {
  if (!TOKEN.test(token)) return null;
  return (await repo.findLiveInboundToken(db, hashToken(token)))?.business_id ?? null;
}

/**
 * Keeps a message posted to a business's address, with its `process_email` job, in one
 * transaction; a message the business already has (same `Message-ID`, or the same bytes) is
 * not kept again and queues nothing.
 * @param raw the message as received, at most {@link EMAIL_MAX_BYTES}.
 * @param writes the request path's group commit (db/group-commit.ts: messages arriving together
 *   share a commit on SQLite); without it, a transaction of its own.
 * @returns whether it was new, once committed.
 * @throws InmoError EMAIL_EMPTY for an empty body (nothing stored).
 */
export async function acceptInboundEmail(
  db: Db,
  businessId: number,
  raw: Buffer,
  writes?: Pick<GroupCommit, 'run'>,
): Promise<{ stored: boolean }> {
  if (raw.length === 0) throw new InmoError('EMAIL_EMPTY');
  const key = messageKeyOf(raw);
  const at = nowRfc3339();
  const run = <T>(work: (trx: Transaction<Database>) => Promise<T>) => (writes ? writes.run(work) : transact(db, work));
  const stored = await run(async (trx) => {
    const id = await repo.insertInboundEmail(trx, { business_id: businessId, message_key: key, raw, received_at: at });
    if (id === undefined) return false;
    await enqueueJob(trx, { businessId, leadId: null, kind: 'process_email', payload: { email_id: id }, runAt: at, now: at });
    return true;
  });
  return { stored };
}

/** What processing a message made of it. */
export interface ProcessedEmail {
  /** Its state after this run; `gone` when it was purged before it was read. */
  state: InboundEmailState | 'gone';
  leadId: number | null;
}

/** The notes' heading of a portal's contact: how it came (completed by an agent or not), and the ad it was about. */
function heading(contact: { source: string; reference: string | null }, byHand = false, verified = true): string {
  const through = contact.source === SOURCE_OF.generic ? 'por correo electrónico' : `por correo de ${contact.source}`;
  // An unverified sender says so in the lead's notes and its history (trust.ts).
  const unverified = verified ? '' : ' (remitente no verificado: puede no venir de quien dice)';
  return (
    `Consulta recibida ${through}${unverified}${byHand ? ', completada a mano' : ''}.` +
    (contact.reference ? `\nReferencia del anuncio: ${contact.reference}` : '')
  );
}

/** The inquiry a portal's contact makes (CONTRACT §19): a `demandante` with the portal as `source`, the message as notes, the listing's search. */
function inquiryOf(
  contact: { name: string; phone: string; email: string | null; message: string | null; source: string },
  search: ReturnType<typeof searchOfListing> | null,
): Inquiry {
  return {
    name: contact.name,
    type: 'demandante',
    phone_number_1: contact.phone,
    phone_number_2: null,
    landline_phone: null,
    personal_email: contact.email ?? undefined,
    source: contact.source,
    notes: contact.message ?? undefined,
    search_preferences: search ? ([search] as Inquiry['search_preferences']) : undefined,
  };
}

/**
 * Reads pending message `emailId` and stores what it says (see the module's comment); a
 * message no longer pending (already read, or another run's) is left as it is.
 * @param run.finish runs effects in that transaction.
 * @returns the message's state after this run, and the lead it made or was added to.
 * @throws the database's errors: the job is then run again, and nothing of this run is kept.
 */
export async function processInboundEmail(
  db: Db,
  emailId: number,
  run: { finish: <T>(effects: (trx: Transaction<Database>) => Promise<T>) => Promise<T> },
): Promise<ProcessedEmail> {
  const row = await repo.findInboundEmail(db, emailId);
  if (!row) return { state: 'gone', leadId: null };
  if (row.state !== 'pending') return { state: row.state, leadId: row.lead_id };
  // An answer to an e-mail inmo sent joins the lead's conversation, and is not read as a portal's (CONTRACT §25).
  const answered = await leadAnsweredBy(db, row.business_id, row.raw);
  if (answered !== null) return processAnswer(emailId, row, answered, run);
  const [own, channel] = await Promise.all([repo.listAgencyAddresses(db, row.business_id), findChannel(db, row.business_id)]);
  const read = await readInThread(row.raw, { belief: { ownAddresses: own, listingUrl: channel?.listing_url ?? null } });
  const at = nowRfc3339();
  if (read.outcome !== 'read') {
    const reason = read.outcome === 'timed_out' ? NOT_UNDERSTOOD.timedOut : NOT_UNDERSTOOD.unreadable;
    const unread = { parser: null, sender: null, subject: null, reason, reading: readingOf(read), trust: 'unverified' as const };
    return settle(run, emailId, { state: 'not_understood', ...unread }, at);
  }
  // Text as both engines keep it: no U+0000 (an encoded word may carry one), no half of a surrogate pair.
  const contact = cleanStrings(read.read.contact);
  const reading = readingOf(read);
  const trust: EmailTrust = contact.trust ?? 'unverified';
  const verified = trust !== 'unverified';
  const seen = {
    parser: contact.parser,
    sender: contact.sender,
    subject: storedText(contact.subject.slice(0, SUBJECT_MAX)) || null,
    trust,
  };
  const notUnderstood = (reason: string) => settle(run, emailId, { state: 'not_understood', ...seen, reason, reading }, at);
  if (contact.phone === null && contact.email === null) return notUnderstood(NOT_UNDERSTOOD.noContact);

  // The first way the message names a listing the business holds (references.ts), else a word of it that is one of its references.
  const listing = await repo.findListingOfEmail(db, row.business_id, contact.candidates, contact.words);
  const search = listing ? searchOfListing(listing) : null;
  // The notes name the listing found: its reference, else its inmo id; else the reference as written.
  const about = { ...contact, reference: listing ? (listing.external_ref ?? String(listing.id)) : contact.reference };

  if (contact.phone === null || contact.name === null) {
    // No new lead without a phone and a name; a person known by either contact still has the request added.
    const reason = contact.phone === null ? NOT_UNDERSTOOD.noPhone : NOT_UNDERSTOOD.noName;
    const note = inquiryNotes({ searches: search ? [search] : [], notes: contact.message, heading: heading(about, false, verified) });
    return run.finish(async (trx) => {
      const known =
        (contact.phone === null ? undefined : await findLeadByPhone(trx, row.business_id, contact.phone)) ??
        (contact.email === null ? undefined : await findLeadByEmail(trx, row.business_id, contact.email));
      if (!known) return settleIn(trx, emailId, { state: 'not_understood', ...seen, reason, reading }, at);
      const request = { channel: 'email' as const, source: contact.source, note, consent: undefined, verified };
      await keepInteraction(trx, row.business_id, known.id, request, null, at);
      return settleIn(
        trx,
        emailId,
        { state: 'interaction', ...seen, lead_id: known.id, reason: null, property_id: listing?.id ?? null },
        at,
      );
    });
  }

  const inquiry = inquiryOf({ ...contact, name: contact.name, phone: contact.phone }, search);
  const origin = { channel: 'email' as const, knownEmail: contact.email, heading: heading(about, false, verified), verified };
  // The lead and the message's settled state commit with the job, together; a failure is the
  // spec's LEAD_NOT_STORED, never the database's words (which may quote a phone) in the job's error.
  return retryingRaces(() =>
    run.finish(async (trx) => {
      const stored = await storeInquiry(trx, row.business_id, inquiry, origin);
      const state = stored.outcome === 'known' ? 'interaction' : 'lead';
      const settled = { state, ...seen, lead_id: stored.leadId, reason: null, property_id: listing?.id ?? null } as const;
      return settleIn(trx, emailId, settled, at);
    }),
  ).catch(leadNotStored);
}

/**
 * Keeps message `emailId`, which answers lead `leadId` (services/messaging/email-replies.ts), in
 * the lead's conversation: read on the e-mail reader's thread (its text without the quote), then
 * the message and the e-mail settled as `reply` in the job's completing transaction. One not read
 * in time, or not readable, waits as `not_understood` as any other.
 */
async function processAnswer(
  emailId: number,
  row: { business_id: number; message_key: string; raw: Buffer },
  leadId: number,
  run: { finish: <T>(effects: (trx: Transaction<Database>) => Promise<T>) => Promise<T> },
): Promise<ProcessedEmail> {
  const read = await readAnswerInThread(row.raw);
  const at = nowRfc3339();
  if (read.outcome !== 'read') {
    const reason = read.outcome === 'timed_out' ? NOT_UNDERSTOOD.timedOut : NOT_UNDERSTOOD.unreadable;
    const unread = { parser: null, sender: null, subject: null, reason, reading: JSON.stringify({ text: '', found: null }) };
    return settle(run, emailId, { state: 'not_understood', ...unread, trust: 'unverified' }, at);
  }
  const text = storedText(read.text);
  return run.finish(async (trx) => {
    await keepEmailAnswer(trx, { businessId: row.business_id, leadId, messageKey: row.message_key, text, at });
    return settleIn(trx, emailId, { state: 'reply', parser: null, sender: null, subject: null, lead_id: leadId, reason: null }, at);
  });
}

type Outcome = Pick<repo.InboundOutcome, 'state' | 'parser' | 'sender' | 'subject' | 'reason'> & {
  lead_id?: number | null;
  /** The listing it named (migration 0048); not given: none. */
  property_id?: number | null;
  /** What inmo believed of it (trust.ts); not given: unchanged. */
  trust?: EmailTrust;
  /** JSON of {@link Reading}, kept while the message waits as `not_understood`. */
  reading?: string | null;
};

/** What the console's page of a message not understood shows of it, as kept (migration 0044). */
interface Reading {
  text: string;
  found: FoundFields | null;
}

/** What is kept of a reading for the console (JSON of {@link Reading}). */
function readingOf(read: ReadOutcome): string {
  const reading: Reading =
    read.outcome === 'read' ? { text: read.read.text, found: foundFieldsOf(read.read.contact) } : { text: '', found: null };
  return JSON.stringify(reading);
}

/** Settles the message in the job's completing transaction. */
async function settle(
  run: { finish: <T>(effects: (trx: Transaction<Database>) => Promise<T>) => Promise<T> },
  emailId: number,
  outcome: Outcome,
  at: string,
): Promise<ProcessedEmail> {
  return run.finish((trx) => settleIn(trx, emailId, outcome, at));
}

/**
 * Moves the message from `pending` to `outcome` in `trx`.
 * @throws Error when it is no longer pending (another run settled it): everything of this run rolls back.
 */
async function settleIn(
  trx: Transaction<Database>,
  emailId: number,
  outcome: Outcome,
  at: string,
  from: 'pending' | 'not_understood' = 'pending',
): Promise<ProcessedEmail> {
  const moved = await repo.settleInboundEmail(trx, emailId, { lead_id: null, ...outcome, updated_at: at }, from);
  if (!moved) {
    if (from === 'not_understood') throw new InmoError('EMAIL_MESSAGE_HANDLED', { id: emailId });
    throw new Error(`inbound e-mail ${emailId} was settled by another run`);
  }
  if (outcome.lead_id && outcome.property_id) {
    // A request about the listing that reached a lead: its owner's report counts it by portal (CONTRACT §24).
    const email = await repo.findInboundEmailOrigin(trx, emailId);
    await insertListingInquiry(trx, {
      business_id: email.business_id,
      property_id: outcome.property_id,
      lead_id: outcome.lead_id,
      source: email.parser === null || email.parser === 'generic' ? 'email' : email.parser,
      created_at: at,
    });
  }
  return { state: outcome.state, leadId: outcome.lead_id ?? null };
}

/**
 * Deletes the messages received more than {@link EMAIL_TTL_MS} before `now` (CONTRACT §19).
 * @returns how many.
 */
export async function purgeOldInboundEmails(db: Db, now: Date): Promise<number> {
  return repo.purgeInboundEmailsBefore(db, toRfc3339(new Date(now.getTime() - EMAIL_TTL_MS)));
}

/**
 * The messages that made or were added to lead `leadId`, oldest first, for its export (CONTRACT
 * §18): each with its raw text (`raw`, when its bytes are UTF-8, as nearly all are) or its bytes
 * in base64 (`raw_base64`, otherwise).
 */
export async function inboundEmailsOfLead(db: Db, leadId: number) {
  return (await repo.listInboundEmailsOfLead(db, leadId)).map(({ raw, ...email }) => {
    const bytes = Buffer.from(raw);
    const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
    const isUtf8 = Buffer.from(text, 'utf8').equals(bytes);
    return { ...email, raw: isUtf8 ? text : null, raw_base64: isUtf8 ? null : bytes.toString('base64') };
  });
}

/**
 * The portal e-mails that made or were added to lead `leadId` of `businessId`, oldest first:
 * `[{id, received_at, parser, property_id, external_ref}]`, the listing each named (issue 57;
 * `property_id` null when it named none the business holds), for the lead's page.
 */
export async function emailListingsOfLead(db: Db, businessId: number, leadId: number) {
  return repo.listEmailListingsOfLead(db, businessId, leadId);
}

/**
 * The messages of a business that wait for an agent (`not_understood`, CONTRACT §19), newest
 * first, at most `limit`: `[{id, received_at, parser, sender, subject, reason}]`.
 */
export async function notUnderstoodEmails(db: Db, businessId: number, limit = 200) {
  return repo.listInboundEmailsInState(db, businessId, 'not_understood', limit);
}

/** A message not understood as an agent reads it (CONTRACT §19). */
export interface EmailToReview {
  id: number;
  received_at: string;
  sender: string | null;
  subject: string | null;
  /** One of {@link NOT_UNDERSTOOD}'s. */
  reason: string | null;
  /** What inmo believed of it (trust.ts): `portal`, `agency`, `unverified`; null for a message read before it was recorded. */
  trust: EmailTrust | null;
  /** Its text part, else its HTML part as text; empty when it has neither or cannot be read. */
  text: string;
  /** What the parsers did find, to start the agent's form from; null when it cannot be read. */
  found: FoundFields | null;
}

/**
 * Message `id` of `businessId` while it waits for an agent: what reading it found when it
 * settled (kept, migration 0044), so that its page never reads the bytes again. A message
 * settled before that was kept is read once more, on the reader's thread within its deadline.
 * A message not readable, or not read in time, shows its sender and subject only.
 * @returns null for none such: another business's, already handled, purged or erased.
 */
export async function emailToReview(db: Db, businessId: number, id: number): Promise<EmailToReview | null> {
  const row = await repo.findInboundEmail(db, id);
  if (!row || row.business_id !== businessId || row.state !== 'not_understood') return null;
  // Kept when it settled; one settled before migration 0044 is read once more, as it was then:
  // an unverified message by the generic reader alone.
  const kept = row.reading ?? readingOf(await readInThread(row.raw, { belief: { believed: row.trust !== 'unverified' } }));
  const { text, found } = JSON.parse(kept) as Reading;
  const { sender, subject, reason, received_at, trust } = row;
  return { id, received_at, sender, subject, reason, trust, text, found };
}

/** What an agent writes to make a lead of a message not understood. */
export interface LeadFromEmail {
  name: string;
  /** As written: made E.164 (Spanish when national) here. */
  phone: string;
  email: string | null;
  message: string | null;
  /** The listing's `external_ref` or inmo id, as the ad writes it. */
  reference: string | null;
  /** The lead's `source`: a portal's name (`idealista`, `fotocasa`, `habitaclia`, `pisos.com`) or `email`. */
  source: string;
}

/** The sources an agent may give a lead made from an e-mail: the parsers' (CONTRACT §19). */
export const EMAIL_SOURCES: readonly string[] = [...new Set(Object.values(SOURCE_OF))];

/**
 * Makes the lead of a message not understood from what an agent wrote (CONTRACT §19), as its
 * job would have: an inquiry's lead with its source, notes and the search of the listing the
 * reference names, with the same jobs (matching, welcome, follow-ups); a known phone or e-mail
 * address adds the request to that person instead (CONTRACT §22). The message becomes `lead`
 * or `interaction` in the same transaction.
 * @returns the lead's id, and `created`, `completed` or `known`.
 * @throws InmoError INVALID_PHONE, EMAIL_SOURCE, EMAIL_MESSAGE_NOT_FOUND (none of the business's
 *   waiting), EMAIL_MESSAGE_HANDLED (another agent handled it first): nothing is then stored.
 */
export async function makeLeadFromEmail(db: Db, businessId: number, id: number, input: LeadFromEmail) {
  const phone = normalizePhone(input.phone);
  if (phone === null) throw new InmoError('INVALID_PHONE');
  if (!EMAIL_SOURCES.includes(input.source)) throw new InmoError('EMAIL_SOURCE');
  const row = await repo.findInboundEmail(db, id);
  if (!row || row.business_id !== businessId || row.state !== 'not_understood') throw new InmoError('EMAIL_MESSAGE_NOT_FOUND', { id });
  const reference = input.reference?.trim() || null;
  const listing = reference ? await repo.findListingByReference(db, businessId, reference) : undefined;
  const email = input.email?.trim().toLowerCase() || null;
  const contact = { name: input.name.trim(), phone, email, message: input.message?.trim() || null, source: input.source };
  const at = nowRfc3339();
  const inquiry = inquiryOf(contact, listing ? searchOfListing(listing) : null);
  const origin = {
    channel: 'email' as const,
    knownEmail: email,
    heading: heading({ source: input.source, reference }, true, row.trust !== 'unverified'),
    // Made by an agent, but from the message's words: an unverified message's address stays unverified.
    verified: row.trust !== 'unverified',
  };
  // The lead and the message's settled state commit together.
  return retryingRaces(() =>
    transact(db, async (trx) => {
      const stored = await storeInquiry(trx, businessId, inquiry, origin);
      const state = stored.outcome === 'known' ? ('interaction' as const) : ('lead' as const);
      const outcome = { state, lead_id: stored.leadId, reason: null, property_id: listing?.id ?? null };
      await settleIn(trx, id, { ...outcome, parser: row.parser, sender: row.sender, subject: row.subject }, at, 'not_understood');
      return stored;
    }),
  ).catch(leadNotStored);
}

/**
 * Discards a message not understood (an agent judged it not a contact): it stays until its 30
 * days are over, as `discarded`, and no longer waits.
 * @throws InmoError EMAIL_MESSAGE_NOT_FOUND (none of the business's waiting).
 */
export async function discardEmail(db: Db, businessId: number, id: number): Promise<void> {
  const row = await repo.findInboundEmail(db, id);
  if (!row || row.business_id !== businessId || row.state !== 'not_understood') throw new InmoError('EMAIL_MESSAGE_NOT_FOUND', { id });
  const { parser, sender, subject } = row;
  const moved = await repo.settleInboundEmail(
    db,
    id,
    { state: 'discarded', parser, sender, subject, lead_id: null, reason: DISCARDED_BY_AGENT, updated_at: nowRfc3339() },
    'not_understood',
  );
  if (!moved) throw new InmoError('EMAIL_MESSAGE_NOT_FOUND', { id });
}
