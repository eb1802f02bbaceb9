/**
 * Leads: listing for GET /leads (spec §4.1), reading one and its matches back (CONTRACT §13), and the operator's hand-recorded lead
 * (CONTRACT §9 `inmo leads create`), which may have no name and so may later be completed
 * by an inquiry with the same phone (spec §4.2 rule 3).
 */
import { isRowId, type Db } from '../../db/database.ts';
import { listPublishedDocs } from '../../db/repositories/properties.ts';
import { propertyJson } from '../../domain/catalogue/property-doc.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import { listFollowUpsOfLead } from '../../db/repositories/follow-ups.ts';
import * as repo from '../../db/repositories/leads.ts';
import { listOwnedListingIds } from '../../db/repositories/listing-owners.ts';
import { findOwnerStage } from '../../db/repositories/owners.ts';
import { ownerStageOf } from '../../domain/leads/owner-stages.ts';
import { listAlertMarks, listLeadAlertItems } from '../../db/repositories/alerts.ts';

export type { LeadSearch } from '../../db/repositories/leads.ts';
import { findLeadMatchRun, listCoverImages, listLeadMatches, listPropertySummaries } from '../../db/repositories/matches.ts';
import { countPublished } from '../../db/repositories/properties.ts';
import { keyState, listApiKeys } from '../access/api-keys.ts';
import { findConversation, findWelcome, listThread } from '../../db/repositories/messaging.ts';
import { listEventsOfLead } from '../../db/repositories/events.ts';
import { conversationOf } from '../messaging/conversations.ts';
import { presentEvent, recordLeadEvent } from '../integrations/events.ts';
import { transact } from '../../db/transaction.ts';
import type { LeadRow } from '../../db/types.ts';
import { normalizePhone } from '../../domain/leads/phone.ts';
import { LEAD_STATUSES } from '../../domain/leads/rules.ts';
import { presentLead } from '../../domain/leads/presenter.ts';
import { nowRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { LRUCache } from 'lru-cache';
import type { ChangeWatch } from '../../db/change-watch.ts';
import { recordAudit, type AuditActor } from '../access/audit.ts';
import { inboundEmailsOfLead } from './email-intake.ts';
import { viewingsOfLead } from '../viewings/reads.ts';
import { visitSheetsOfLead } from '../viewings/visit-sheet.ts';
import { mandatesOfOwner } from '../owners/mandates.ts';
import { listReportsOfOwner } from '../../db/repositories/owner-reports.ts';

/**
 * Records a lead by hand: type `demandante`, status `new`, source `manual`, active, rating 3.
 * @throws InmoError UNKNOWN_BUSINESS, INVALID_PHONE, DUPLICATE_PHONE.
 */
export async function createLeadByHand(db: Db, options: { businessId: number; phone: string; name?: string | null }): Promise<LeadRow> {
  if (!(await findBusiness(db, options.businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: options.businessId });
  const phone = normalizePhone(options.phone);
  if (phone === null) throw new InmoError('INVALID_PHONE');
  const name = options.name?.trim() ? options.name.trim() : null;
  if (await repo.findLeadByPhone(db, options.businessId, phone)) throw new InmoError('DUPLICATE_PHONE');
  const now = nowRfc3339();
  try {
    return await transact(db, async (trx) => {
      const lead = await repo.insertLead(trx, {
        business_id: options.businessId,
        name,
        type: 'demandante',
        status: 'new',
        active: 1,
        source: 'manual',
        phone_number_1: phone,
        rating: 3,
        captured_by: 'manual',
        created_at: now,
        updated_at: now,
      });
      await recordLeadEvent(trx, options.businessId, lead.id, 'lead.created', now);
      return lead;
    });
  } catch (error) {
    // A concurrent insert of the same phone loses to the unique constraint.
    if (isUniqueViolation(error)) throw new InmoError('DUPLICATE_PHONE');
    throw error;
  }
}

/**
 * One page of leads in the API's shape, `{data: [Lead], total, limit, offset}` (CONTRACT §1),
 * newest first, narrowed by `search` (CONTRACT §13: `updated_since`, `status`, `type`, `source`).
 */
export async function listLeadsPage(db: Db, businessId: number, search: repo.LeadSearch, limit: number, offset: number) {
  const { rows, total } = await repo.searchLeads(db, businessId, search, limit, offset);
  return { data: rows.map(presentLead), total, limit, offset };
}

/**
 * Who entered each of the business's leads among `ids`: its `captured_by` (the console's user, or
 * an API request's `captured_by`), which the API's Lead does not carry; the console's list says
 * who entered a `manual` lead. @returns `captured_by` (or null) by lead id.
 */
export async function capturedByOf(db: Db, businessId: number, ids: readonly number[]): Promise<Map<number, string | null>> {
  return new Map((await repo.listCapturedBy(db, businessId, ids)).map((r) => [r.id, r.captured_by]));
}

/**
 * GET /leads's pages as the bytes sent (issue 32), kept under the business's lead version
 * (migration 0020, db/change-watch.ts `leadVersion`): any write to one of its leads, by any
 * process, moves the version, so a kept page is the page. Where the version cannot be known
 * (PostgreSQL), pages are read every time.
 */
export class LeadPages {
  private readonly pages: LRUCache<string, Buffer> | null;

  /** @param cacheBytes bytes of pages kept; 0 keeps none. */
  constructor(
    private readonly db: Db,
    private readonly changes: ChangeWatch,
    cacheBytes: number,
  ) {
    this.pages = cacheBytes > 0 ? new LRUCache({ maxSize: cacheBytes, sizeCalculation: (body: Buffer) => Math.max(1, body.length) }) : null;
  }

  /**
   * The page of {@link listLeadsPage} as UTF-8 JSON.
   * @returns the body, and the lead version it is the page of (null: read without one, not kept).
   */
  async page(
    businessId: number,
    search: repo.LeadSearch,
    limit: number,
    offset: number,
  ): Promise<{ body: Buffer; version: number | null }> {
    // The version is read before the page: a write landing in between makes the page newer than
    // its version, never older, and the version has moved on past it by then.
    const version = this.pages === null ? null : this.changes.leadVersion(businessId);
    const key = version === null ? null : `${businessId}:${version}:${limit}:${offset}:${JSON.stringify(search)}`;
    const kept = key === null ? undefined : this.pages!.get(key);
    if (kept !== undefined) return { body: kept, version };
    const body = Buffer.from(JSON.stringify(await listLeadsPage(this.db, businessId, search, limit, offset)));
    if (key !== null) this.pages!.set(key, body);
    return { body, version };
  }
}

/** How many of the business's leads `search` finds, by status (its own `status` aside): `{status: count}` for each of the five. */
export async function countLeadsByStatus(db: Db, businessId: number, search: repo.LeadSearch): Promise<Record<string, number>> {
  const counts = await repo.countLeadsByStatus(db, businessId, search);
  return Object.fromEntries(LEAD_STATUSES.map((s) => [s, counts.get(s) ?? 0]));
}

/**
 * Leads to choose from (the listing page's viewing form): the business's newest, or those whose
 * name, e-mail or phone has `text` (as the lead list searches), `{id, name, phone}` each,
 * newest first, `limit` at most.
 */
export async function leadChoices(db: Db, businessId: number, limit: number, text?: string, type?: string) {
  const rows = await repo.listLeadChoices(db, businessId, { text: text?.trim() || undefined, type }, limit);
  return rows.map((r) => ({ id: r.id, name: r.name, phone: r.phone_number_1 }));
}

/**
 * Listings of the business for a lead's page, by id: `{id, external_ref, title, op_*, price*,
 * city, size_total (m²), bedrooms, image (cover URL or null)}`; ids of another business are left out.
 */
export async function listingSummaries(db: Db, businessId: number, ids: readonly number[]) {
  const [rows, covers] = await Promise.all([listPropertySummaries(db, businessId, ids), listCoverImages(db, businessId, ids)]);
  return rows.map((p) => ({ ...p, image: covers.get(p.id) ?? null }));
}

/**
 * The workspace in figures (the console's overview): leads in all and created in the last 7
 * days, published listings, active API keys.
 */
export async function workspaceFigures(db: Db, businessId: number, now = Date.now()) {
  const [leads, recent, properties, keys] = await Promise.all([
    repo.searchLeads(db, businessId, {}, 0, 0),
    repo.searchLeads(db, businessId, { createdFrom: new Date(now - 7 * 24 * 3600 * 1000).toISOString() }, 0, 0),
    countPublished(db, businessId, { limit: 0, offset: 0, areas: [] }),
    listApiKeys(db, businessId),
  ]);
  return {
    leads: leads.total,
    recent: recent.total,
    properties,
    keys: keys.filter((k) => keyState(k, now) === 'active').length,
  };
}

/**
 * The business's lead in the API's shape (CONTRACT §13 `GET /leads/{lead_id}`).
 * @throws InmoError LEAD_NOT_FOUND when it does not exist or belongs to another business.
 */
export async function getLead(db: Db, businessId: number, id: number) {
  const row = isRowId(id) ? await repo.findPresentedLead(db, businessId, id) : undefined;
  if (!row) throw new InmoError('LEAD_NOT_FOUND', { id });
  const lead = presentLead(row);
  if (row.type !== 'propietario') return lead;
  // An owner's listings, omitted when none as every empty value of a Lead, and its stage (CONTRACT §24).
  const listings = await listOwnedListingIds(db, businessId, id);
  const stage = await findOwnerStage(db, businessId, id);
  return { ...lead, ...(listings.length > 0 ? { listings } : {}), owner_stage: ownerStageOf(stage) };
}

/**
 * Everything held on a lead (CONTRACT §18 access; GDPR Art. 15 and 20): `GET /leads/{id}/export`
 * and the console's download. The lead as GET /leads/{id} shows it, then each stored record of it
 * as kept (the business's id left out): consents, requests that came again, searches, notes, matches, messages, the
 * conversation, follow-ups, the console's history, the events still in the log, and the portal
 * e-mails that made the lead or were added to it (`emails`: each as received, kept 30 days,
 * CONTRACT §19), its viewings and the visit sheets signed at them (CONTRACT §20: name, document,
 * signature as base64 PNG, the clause signed). The export is recorded in the audit trail (by `actor`).
 * @throws InmoError LEAD_NOT_FOUND when it does not exist or belongs to another business.
 */
export async function exportLead(db: Db, businessId: number, id: number, actor: AuditActor) {
  const row = isRowId(id) ? await repo.findPresentedLead(db, businessId, id) : undefined;
  if (!row) throw new InmoError('LEAD_NOT_FOUND', { id });
  await transact(db, (trx) => recordAudit(trx, businessId, actor, 'lead.export', id));
  const stored = (await repo.findLead(db, id, businessId))!;
  const without = <T extends { business_id?: number }>(record: T) => {
    const { business_id: _business, ...kept } = record;
    return kept;
  };
  const conversation = await findConversation(db, id);
  return {
    exported_at: nowRfc3339(),
    lead: presentLead(row),
    consents: (await repo.listConsents(db, id)).map(without),
    interactions: (await repo.listInteractions(db, id)).reverse().map(without),
    searches: JSON.parse(stored.search_preferences ?? '[]') as object[],
    notes: await repo.listNotes(db, id),
    matches: await listLeadMatches(db, id),
    messages: (await listThread(db, id)).map(without),
    conversation: conversation ? without(conversation) : null,
    follow_ups: await listFollowUpsOfLead(db, id),
    history: (await repo.listHistory(db, businessId, id)).reverse().map((h) => ({ ...h, detail: JSON.parse(h.detail) as unknown })),
    events: (await listEventsOfLead(db, businessId, id)).map(presentEvent),
    emails: await inboundEmailsOfLead(db, id),
    viewings: await viewingsOfLead(db, businessId, id),
    visit_sheets: await visitSheetsOfLead(db, id),
    mandates: await mandatesOfOwner(db, id),
    owner_reports: (await listReportsOfOwner(db, businessId, id)).reverse().map((r) => ({
      id: r.id,
      period_from: r.period_from,
      period_to: r.period_to,
      language: r.language,
      created_at: r.created_at,
      figures: JSON.parse(r.figures) as unknown,
    })),
  };
}

/**
 * What a lead was matched to (CONTRACT §13 `GET /leads/{lead_id}/matches`), as UTF-8 JSON:
 * `{"data": [Property + {sent_at, dismissed}], "near_misses": [{"property": Property, "missed": [criterion]}]}`
 * (`sent_at`: when last sent, in an alert or by hand, by e-mail or WhatsApp, RFC 3339 or null;
 * `dismissed`: "No me interesa", CONTRACT §21).
 * Each property appears once, best first (catalogue order: newest update first, as matching
 * keeps them). A property that matches one search entry is not a near miss of another; one
 * that nearly matches several entries names each criterion it missed, once. Properties no
 * longer public are left out. Built as text from the stored, privacy-filtered documents.
 * @throws InmoError LEAD_NOT_FOUND when it does not exist or belongs to another business.
 */
export async function leadMatchesJson(db: Db, businessId: number, id: number): Promise<string> {
  if (!isRowId(id) || !(await repo.findPresentedLead(db, businessId, id))) throw new InmoError('LEAD_NOT_FOUND', { id });
  const stored = await listLeadMatches(db, id);
  const matched = new Set(stored.filter((m) => m.failed === null).map((m) => m.property_id));
  const missed = new Map<number, string[]>();
  for (const { property_id, failed } of stored) {
    if (failed === null || matched.has(property_id)) continue;
    const names = missed.get(property_id) ?? [];
    if (!names.includes(failed)) names.push(failed);
    missed.set(property_id, names);
  }
  const docs = await listPublishedDocs(db, businessId, [...matched, ...missed.keys()]);
  const marks = await listAlertMarks(db, id);
  const data = docs
    .filter((d) => matched.has(d.id))
    .map((d) => {
      const mark = marks.get(d.id);
      return propertyJson(
        d.id,
        `{"sent_at":${JSON.stringify(mark?.sent_at ?? null)},"dismissed":${mark?.dismissed ?? false},${d.api_doc.slice(1)}`,
      );
    });
  const nearMisses = docs
    .filter((d) => missed.has(d.id))
    .map((d) => `{"property":${propertyJson(d.id, d.api_doc)},"missed":${JSON.stringify(missed.get(d.id))}}`);
  return `{"data":[${data.join(',')}],"near_misses":[${nearMisses.join(',')}]}`;
}

/**
 * A lead in full, with everything the background did for it, for `inmo leads show` (CONTRACT §9)
 * and the console's lead page:
 * `{lead, notes, consents: [{marketing, whatsapp, text, version, source_page, created_at, verified,
 * carried_marketing, carried_whatsapp}] (the last two null on verified records, CONTRACT §18),
 * matches: [{property_id, search_index}], near_misses: [{…, failed}],
 * matching: {catalogue_version, matched_at, matches_total, near_misses_total} | null,
 * message: {state, template, provider_message_id, …} | null, follow_ups: [{id, due_at, every_days, state}],
 * conversation: {lead_id, state, window_open_until, messages},
 * alerts: [{property_id, external_ref, title, reason: 'new'|'price_drop'|'chosen', price, round, origin:
 *   'alert'|'agent', user_id (the agent who sent it by hand, else null), channel: 'email'|'text' (WhatsApp),
 *   state, sent_at, created_at, dismissed_at}] (the listings sent, in alerts or by hand, newest first, CONTRACT §21)}`
 * (CONTRACT §10).
 * @param businessId the business it must belong to (the console's); any business when omitted (the CLI).
 * @returns undefined when there is no such lead (of that business).
 */
export async function leadInFull(db: Db, id: number, businessId?: number) {
  const found = await repo.findLead(db, id, businessId);
  if (!found) return undefined;
  // search_text is the search's copy of the name and addresses: nothing of the lead's own.
  const { search_text: _searchText, ...lead } = found;
  const matched = await listLeadMatches(db, id);
  const message = await findWelcome(db, id);
  const json = (text: string | null) => (text === null ? null : (JSON.parse(text) as unknown));
  return {
    lead: {
      ...lead,
      active: lead.active === 1,
      search_preferences: json(lead.search_preferences),
      agency_property_ids: json(lead.agency_property_ids),
      services: json(lead.services),
      wants_alerts: lead.wants_alerts === 1,
      contact_verified: lead.contact_verified === 1,
    },
    notes: await repo.listNotes(db, id),
    consents: (await repo.listConsents(db, id)).map((c) => ({
      marketing: c.marketing === 1,
      whatsapp: c.whatsapp === 1,
      text: c.text,
      version: c.version,
      source_page: c.source_page,
      created_at: c.created_at,
      // Carried by a request that could not prove it came from the person: what it said, when it did not take effect (migration 0045).
      verified: c.verified === 1,
      carried_marketing: c.carried_marketing === null ? null : c.carried_marketing === 1,
      carried_whatsapp: c.carried_whatsapp === null ? null : c.carried_whatsapp === 1,
    })),
    matches: matched.filter((m) => m.failed === null).map(({ property_id, search_index }) => ({ property_id, search_index })),
    near_misses: matched.filter((m) => m.failed !== null),
    matching: (await findLeadMatchRun(db, id)) ?? null,
    message: message
      ? {
          state: message.state,
          id: message.id,
          template: message.template,
          language: message.language,
          recipient: message.recipient,
          provider_message_id: message.provider_message_id,
          last_error: message.last_error,
          updated_at: message.updated_at,
        }
      : null,
    follow_ups: (await listFollowUpsOfLead(db, id)).map(({ id: followUpId, due_at, every_days, state }) => ({
      id: followUpId,
      due_at,
      every_days,
      state,
    })),
    conversation: await conversationOf(db, id),
    alerts: (await listLeadAlertItems(db, id)).map((a) => ({
      property_id: a.property_id,
      external_ref: a.external_ref,
      title: a.title,
      reason: a.reason,
      price: a.price,
      round: a.round,
      origin: a.origin,
      user_id: a.user_id,
      channel: a.kind,
      state: a.state,
      sent_at: a.sent_at,
      created_at: a.created_at,
      dismissed_at: a.dismissed_at,
    })),
  };
}
