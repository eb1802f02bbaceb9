/**
 * Alerts: listings reach the searching leads they match (CONTRACT §21, issue 45).
 *
 * - **Who.** A lead takes alerts while it is `searching_property` and active, its newest consent
 *   says `marketing` yes or its agent ticked "wants alerts", and it has not opted out
 *   (db/repositories/alerts.ts `TAKES_ALERTS`).
 * - **How.** By e-mail when the business sends e-mail and the lead has an address; else by the
 *   business's WhatsApp channel when it names a `property_alert` template, the lead has a phone
 *   and its newest consent does not refuse WhatsApp: the template links the digest's page
 *   (services/leads/alert-pages.ts); else not at all (nothing is composed for that lead). The
 *   rule is the purpose's (services/messaging/purposes/alert-digest.ts `digestMessage`).
 * - **What.** A listing that newly matches one of its searches after its first matching (entering
 *   the public catalogue, or starting to match after a change) becomes a candidate when matching
 *   stores it (jobs/tasks/match-lead.ts → {@link recordAlertCandidates}). A listing it matches
 *   whose price fell 3 % or more below the reference is found when a digest is composed, sent
 *   before or not (issue 57): the reference is the price the lead last saw (the newest item sent,
 *   in an alert or by hand), else the price the listing had when it started matching (recorded
 *   by matching, {@link recordMatchPrices}); it moves only on a send or a new start of matching,
 *   so small drops add up. Never a listing sent before at the same price, never one the lead
 *   dismissed ("No me interesa"). A price drop's item keeps the reference (`price_before`), which
 *   the digest shows struck through ("antes 180.000 €").
 * - **When.** One digest a day per lead at `INMO_ALERT_HOUR` (business time, domain/leads/alerts.ts),
 *   at most 5 listings, newest first. The worker composes a round's digests once its hour has come
 *   ({@link composeDueAlerts}); `inmo alerts run` composes the next round's now and sends them
 *   ({@link runAlertsNow}), so that round is not composed again.
 * - **Durably.** A digest is its message row (`author = 'alert'`, `pending`; kind `email`, or
 *   `template` for WhatsApp) queued in the outbox (services/messaging/outbox.ts, purpose
 *   `alert-digest`: services/messaging/purposes/alert-digest.ts) with its `send_message` job, and
 *   its listings, written in one transaction with the candidates it consumes; one digest per lead
 *   and round (a unique index). The send is the outbox's send-once (services/messaging/delivery.ts):
 *   a crash never sends it twice, a failure is retried, a parked job leaves it `failed` or
 *   `needs_reconciliation`.
 */
import type { OutboundPolicy } from '../../config.ts';
import type { Db, Executor } from '../../db/database.ts';
import {
  advanceAlertsRound,
  claimDigest,
  deleteAlertCandidates,
  deleteSpentCandidates,
  findAlertItemByToken,
  insertAlertCandidates,
  insertAlertItems,
  insertDismissal,
  isDismissed,
  listListingPrices,
  listAlertRounds,
  listLeadsTakingAlerts,
  listDigestCandidates,
  listDigestSources,
  setDigestMessage,
  setWantsAlerts,
  writeMatchPrices,
} from '../../db/repositories/alerts.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import { findLead, insertInteraction } from '../../db/repositories/leads.ts';
import { transact } from '../../db/transaction.ts';
import {
  alertPriceField,
  alertTimeZone,
  dueRound,
  nextRound,
  pickDigest,
  PRICE_DROP_SHARE,
  type DigestCandidate,
  type PriceField,
} from '../../domain/leads/alerts.ts';
import { nowRfc3339, toRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { DEFAULT_WORKER_SETTINGS, type WorkerSettings } from '../../worker-settings.ts';
import { deliverNow } from '../messaging/delivery.ts';
import { queueMessage } from '../messaging/outbox.ts';
import { emailSenderOf } from '../messaging/email.ts';
import { unsubscribeTokenHash } from '../messaging/unsubscribe.ts';
import { emailLanguage } from '../messaging/welcome.ts';
import { digestChannels, digestMessage, type DigestChannels } from '../messaging/purposes/alert-digest.ts';

/** Leads whose digests are written per transaction. */
const LEADS_PER_TRANSACTION = 100;

/**
 * How long the `send_message` job of a digest `inmo alerts run` sends itself waits before it
 * looks, ms: longer than any send, so the job and the command never claim the same send.
 */
const RUN_NOW_JOB_DELAY_MS = 15 * 60_000;

/**
 * Records the listings a lead newly matches as candidates of its next digest, in the matching's
 * transaction (jobs/tasks/match-lead.ts), when the lead takes alerts; one query when it does not.
 * @param newlyMatched property ids matched now and not at the lead's previous matching (none at its first).
 */
export async function recordAlertCandidates(
  trx: Executor,
  lead: { id: number; business_id: number },
  newlyMatched: readonly number[],
  at: string,
): Promise<void> {
  await recordAlertCandidatesOfLeads(trx, lead.business_id, new Map([[lead.id, newlyMatched]]), at);
}

/**
 * {@link recordAlertCandidates} for several leads of a business at once (a catalogue re-match,
 * services/leads/rematch.ts): two statements per 500 leads or candidates.
 * @param newlyMatched per lead, the property ids it matches now and did not at its previous matching.
 */
export async function recordAlertCandidatesOfLeads(
  trx: Executor,
  businessId: number,
  newlyMatched: ReadonlyMap<number, readonly number[]>,
  at: string,
): Promise<void> {
  const leadIds = [...newlyMatched].filter(([, ids]) => ids.length > 0).map(([leadId]) => leadId);
  if (leadIds.length === 0) return;
  const taking = await listLeadsTakingAlerts(trx, leadIds);
  const candidates = leadIds.filter((id) => taking.has(id)).map((leadId) => ({ leadId, propertyIds: newlyMatched.get(leadId)! }));
  await insertAlertCandidates(trx, businessId, candidates, at);
}

/**
 * Records, in the matching's transaction, the price each listing that started matching a lead has
 * now (the reference of a price drop while it is never sent, CONTRACT §21), read from the column
 * of the operation the first search entry it matches asks for ({@link alertPriceField}); and
 * forgets the references of listings that stopped matching. Two statements per 500 rows.
 * @param leads per lead: its searches (`search_preferences` JSON), the listings that started
 *   matching it with the entry each matches (`[{property_id, search_index}]`, the lead's first
 *   matching included), and the listings it stopped matching.
 * @param at RFC 3339.
 */
export async function recordMatchPrices(
  trx: Executor,
  businessId: number,
  leads: ReadonlyArray<{
    leadId: number;
    searchPreferences: string | null;
    started: ReadonlyArray<{ property_id: number; search_index: number }>;
    stopped: readonly number[];
  }>,
  at: string,
): Promise<void> {
  const ids = [...new Set(leads.flatMap((l) => l.started.map((r) => r.property_id)))];
  const listings = new Map((await listListingPrices(trx, ids)).map((l) => [l.id, l]));
  const started = leads.flatMap((lead) => {
    const operations = searchOperations(lead.searchPreferences);
    const entry = new Map<number, number>();
    for (const r of lead.started) entry.set(r.property_id, Math.min(entry.get(r.property_id) ?? r.search_index, r.search_index));
    return [...entry].flatMap(([propertyId, index]) => {
      const listing = listings.get(propertyId);
      if (!listing) return [];
      const field = alertPriceField(listing, operations[index] ?? []);
      return [{ lead_id: lead.leadId, property_id: propertyId, price_field: field, price: listing[field] }];
    });
  });
  const stopped = leads.filter((l) => l.stopped.length > 0).map((l) => ({ leadId: l.leadId, propertyIds: l.stopped }));
  await writeMatchPrices(trx, businessId, started, stopped, at);
}

/** The operations each of a lead's searches asks for (`venta`, `alquiler`, `traspaso`), by entry. */
export function searchOperations(searchPreferences: string | null): string[][] {
  let entries: unknown;
  try {
    entries = JSON.parse(searchPreferences ?? '[]');
  } catch {
    return [];
  }
  if (!Array.isArray(entries)) return [];
  return entries.map((entry) => {
    const ops = entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>).operations : null;
    return Array.isArray(ops) ? ops.filter((op): op is string => typeof op === 'string') : [];
  });
}

/**
 * Writes one lead's digest of `round` in the caller's transaction: the message (an e-mail, or the
 * WhatsApp template, {@link digestMessage}), the listings at their current prices, the
 * `send_message` job (the outbox), and the consumed candidates dropped.
 * @returns the message's id, or undefined when nothing can carry it or the lead has that round's digest already.
 */
async function writeDigest(
  trx: Executor,
  businessId: number,
  leadId: number,
  picks: readonly DigestCandidate[],
  round: string,
  at: { now: string; jobAt: string },
  channels: DigestChannels,
): Promise<number | undefined> {
  const { lead, listings, matches } = await listDigestSources(
    trx,
    leadId,
    picks.map((p) => p.property_id),
  );
  const carrier = lead && (await digestMessage(trx, lead, channels));
  if (!lead || !carrier) return undefined;
  const digestId = await claimDigest(trx, { business_id: businessId, lead_id: leadId, round, created_at: at.now });
  if (digestId === undefined) return undefined;
  const messageId = (await queueMessage(trx, {
    lead: { id: leadId, business_id: businessId },
    purpose: 'alert-digest',
    ...carrier,
    at: at.now,
    sendAt: at.jobAt,
  }))!;
  await setDigestMessage(trx, digestId, messageId);
  const operations = searchOperations(lead.search_preferences);
  const entryOf = new Map<number, number>();
  for (const m of matches) if (!entryOf.has(m.property_id)) entryOf.set(m.property_id, m.search_index);
  const byId = new Map(listings.map((l) => [l.id, l]));
  const items = picks.flatMap((pick) => {
    const listing = byId.get(pick.property_id);
    if (!listing) return [];
    // A price drop is sent at the price of the column its reference was read from.
    const field: PriceField = pick.drop?.field ?? alertPriceField(listing, operations[entryOf.get(pick.property_id) ?? -1] ?? []);
    return [
      {
        business_id: businessId,
        digest_id: digestId,
        property_id: pick.property_id,
        reason: pick.reason,
        price: listing[field],
        price_before: pick.drop?.before ?? null,
        price_field: field,
        token_hash: null,
        created_at: at.now,
      },
    ];
  });
  await insertAlertItems(trx, leadId, items);
  await deleteAlertCandidates(
    trx,
    leadId,
    picks.map((p) => p.property_id),
  );
  return messageId;
}

/**
 * Composes the digests of `round` for a business's leads that take alerts and have something to
 * be sent, each with its `send_message` job (due at `jobAt`, now unless said). Safe to run again
 * and from several workers at once: one digest per lead and round.
 * @param round the round's local date, `YYYY-MM-DD`.
 * @returns the ids of the messages written.
 */
export async function composeDigests(db: Db, businessId: number, round: string, now: string, jobAt: string = now): Promise<number[]> {
  const channels = await digestChannels(db, businessId);
  if (!channels.email && !channels.whatsapp) return [];
  await deleteSpentCandidates(db, businessId);
  const rows = await listDigestCandidates(db, businessId, round, 1 - PRICE_DROP_SHARE);
  const byLead = new Map<number, DigestCandidate[]>();
  for (const row of rows) {
    const list = byLead.get(row.lead_id) ?? [];
    list.push(
      row.reason === 'price_drop'
        ? {
            property_id: row.property_id,
            reason: row.reason,
            since: now,
            drop: { field: row.price_field as PriceField, before: row.before },
          }
        : { property_id: row.property_id, reason: row.reason, since: row.since },
    );
    byLead.set(row.lead_id, list);
  }
  const leads = [...byLead.keys()].sort((a, b) => a - b);
  const written: number[] = [];
  for (let i = 0; i < leads.length; i += LEADS_PER_TRANSACTION) {
    const batch = leads.slice(i, i + LEADS_PER_TRANSACTION);
    const ids = await transact(db, async (trx) => {
      const made: number[] = [];
      for (const leadId of batch) {
        const id = await writeDigest(trx, businessId, leadId, pickDigest(byLead.get(leadId)!), round, { now, jobAt }, channels);
        if (id !== undefined) made.push(id);
      }
      return made;
    });
    written.push(...ids);
  }
  return written;
}

/**
 * The worker's look at the alert hour: composes the digests of every business whose round is due
 * (its `INMO_ALERT_HOUR` has come today, business time) and not composed yet, then records the
 * round. Runs again harmlessly.
 * @returns the number of digests written.
 */
export async function composeDueAlerts(db: Db, at: Date, alertHour: number): Promise<number> {
  let written = 0;
  const now = toRfc3339(at);
  for (const business of await listAlertRounds(db)) {
    const round = dueRound(at, alertTimeZone(business), alertHour);
    if (round === null || (business.alerts_round !== null && business.alerts_round >= round)) continue;
    written += (await composeDigests(db, business.id, round, now)).length;
    await advanceAlertsRound(db, business.id, round);
  }
  return written;
}

/**
 * Why this process cannot send a business's digests now, or null when it can: its e-mail
 * settings cannot be opened here (a password sealed with another `INMO_SECRET_KEY`), or it has
 * neither e-mail (its own server, `INMO_SMTP_URL` of this process) nor the WhatsApp template.
 * Read before composing, so a shell that lacks a setting leaves the round due rather than failing
 * its digests for good (CONTRACT §21).
 */
async function cannotSendHere(db: Db, businessId: number): Promise<string | null> {
  try {
    if (await emailSenderOf(db, businessId)) return null;
  } catch (error) {
    return `business ${businessId}'s e-mail settings cannot be used from this process: ${(error as Error).message}`;
  }
  if ((await digestChannels(db, businessId)).whatsapp) return null;
  return (
    `e-mail cannot be sent from this process: INMO_SMTP_URL and INMO_SMTP_FROM are not set here, and business ${businessId} ` +
    'has not connected its own server (inmo email connect) nor the WhatsApp alert template'
  );
}

/** What `inmo alerts run` did (CONTRACT §21). */
export interface AlertsRunResult {
  /** Digests sent now (e-mails and WhatsApp templates). */
  sent: number;
  /** Leads a digest was composed for. */
  leads: number;
  /**
   * Why fewer were sent than composed, in words (English, for the operator; never a person's
   * data): a business skipped, its round left due for the worker or the next run; digests left
   * to their jobs' retries. Absent when every digest composed was sent (none composed included:
   * no lead had listings it was not sent yet).
   */
  reason?: string;
}

/**
 * `inmo alerts run`: composes now the digests each lead would get at the next alert hour, and
 * sends them at once (their jobs stay queued, later, to retry a send that failed); that round is
 * then not composed again, so a second run right after sends nothing. A business this process
 * cannot send for (no e-mail settings here nor for it, a password it cannot open) is skipped: its
 * round stays due, nothing is marked failed, and the reason says so.
 * @param options.businessId only this business (every business when omitted).
 * @returns `{sent, leads, reason?}` ({@link AlertsRunResult}).
 * @throws InmoError UNKNOWN_BUSINESS.
 */
export async function runAlertsNow(
  db: Db,
  options: {
    businessId?: number;
    alertHour: number;
    outbound: OutboundPolicy;
    settings?: Partial<Pick<WorkerSettings, 'sendTimeoutMs'>>;
    at?: Date;
  },
): Promise<AlertsRunResult> {
  const at = options.at ?? new Date();
  const now = toRfc3339(at);
  const jobAt = toRfc3339(new Date(at.getTime() + RUN_NOW_JOB_DELAY_MS));
  let businesses = await listAlertRounds(db);
  if (options.businessId !== undefined) {
    businesses = businesses.filter((b) => b.id === options.businessId);
    if (businesses.length === 0) throw new InmoError('UNKNOWN_BUSINESS', { id: options.businessId });
  }
  const reasons: string[] = [];
  const messages: number[] = [];
  for (const business of businesses) {
    const blocked = await cannotSendHere(db, business.id);
    if (blocked) {
      reasons.push(`${blocked}; its digests stay due for the worker or a run where this is set`);
      continue;
    }
    const round = nextRound(at, alertTimeZone(business), options.alertHour);
    messages.push(...(await composeDigests(db, business.id, round, now, jobAt)));
    await advanceAlertsRound(db, business.id, round);
  }
  // Sent as the worker sends them (services/messaging/delivery.ts), once; a failure is left to its job.
  const { sent, errors } = await deliverNow(db, messages, {
    outbound: options.outbound,
    sendTimeoutMs: options.settings?.sendTimeoutMs ?? DEFAULT_WORKER_SETTINGS.sendTimeoutMs,
    now: nowRfc3339,
  });
  if (sent < messages.length) {
    const why = errors.length > 0 ? ` (${errors.join('; ')})` : '';
    reasons.unshift(`${messages.length - sent} digest(s) not sent now${why}; their jobs retry them`);
  }
  return reasons.length > 0 ? { sent, leads: messages.length, reason: reasons.join('; ') } : { sent, leads: messages.length };
}

/** The form of a "No me interesa" token: 43 base64url characters. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The item a token stands for, or undefined. */
async function itemOfToken(db: Executor, token: string) {
  if (!TOKEN.test(token)) return undefined;
  return findAlertItemByToken(db, unsubscribeTokenHash(token));
}

/**
 * What the "No me interesa" page shows for a token: the business's name, the listing's title,
 * the lead's e-mail language, and whether the listing is dismissed already; null for an unknown token.
 */
export async function dismissPage(db: Db, token: string) {
  const item = await itemOfToken(db, token);
  if (!item) return null;
  const [lead, business] = await Promise.all([findLead(db, item.lead_id), findBusiness(db, item.business_id)]);
  if (!lead || !business) return null;
  const done = await isDismissed(db, item.lead_id, item.property_id);
  return { businessName: business.name, title: item.title, language: emailLanguage(lead.preferred_language), done };
}

/** The note of the interaction a dismissal leaves (no personal data; the listing by its reference). */
export function dismissalNote(externalRef: string): string {
  return `No me interesa: ${externalRef} (alerta)`;
}

/**
 * Records "No me interesa" for the listing a token stands for, once: the listing is never offered
 * to that lead again, and the lead gets an interaction (channel `alert`) saying so.
 * @returns the page's values ({@link dismissPage}, `done` true), or null for an unknown token, writing nothing.
 */
export async function dismissListing(db: Db, token: string, at: string = nowRfc3339()) {
  const page = await dismissPage(db, token);
  if (!page) return null;
  await transact(db, async (trx) => {
    const item = await itemOfToken(trx, token);
    if (!item) return;
    const row = { lead_id: item.lead_id, property_id: item.property_id, business_id: item.business_id, created_at: at };
    if (!(await insertDismissal(trx, row))) return;
    await insertInteraction(trx, {
      business_id: item.business_id,
      lead_id: item.lead_id,
      channel: 'alert',
      source: null,
      note: dismissalNote(item.external_ref),
      created_at: at,
    });
  });
  return { ...page, done: true };
}

/**
 * Sets the agent's "wants alerts" of a lead (the console's lead page).
 * @throws InmoError LEAD_NOT_FOUND when it is not the business's.
 */
export async function setLeadWantsAlerts(db: Db, businessId: number, leadId: number, wants: boolean): Promise<void> {
  if (!(await setWantsAlerts(db, businessId, leadId, wants))) throw new InmoError('LEAD_NOT_FOUND', { id: leadId });
}
