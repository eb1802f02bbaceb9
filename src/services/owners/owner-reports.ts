/**
 * The owner's report (CONTRACT §24, issue 58 item 4): every owner with a signed mandate is told,
 * every 7, 14 or 30 days (the owner's choice on the lead page, else `INMO_OWNER_REPORT_DAYS`),
 * how each listing under mandate is doing, with figures only inmo has (domain/owners/owner-report.ts).
 *
 * - **When.** An owner's report is due that many days after its last report's period ended (or
 *   after its first mandate in force was signed); the worker's `owner_reports` schedule (every 10
 *   minutes) composes the due ones once the business's day has reached `INMO_ALERT_HOUR` (and before
 *   21:00, or within that hour when it is later),
 *   `inmo owners report run` composes the due ones at once ({@link runOwnerReportsNow}).
 * - **Composed once, kept as sent.** The figures are read just before, and stored
 *   (`owner_reports.figures`) in the transaction that queues the message carrying them, where the
 *   owner's last report is read again under a lock (and a unique index on the owner and the period's
 *   start stands behind it): two composers at once (the worker, the command) send one report; the page shows that JSON, so later
 *   activity never changes a report sent.
 * - **How.** By e-mail when the business sends e-mail and the owner has an address, else the
 *   business's WhatsApp `owner_report` template with the page's link when the owner has a phone
 *   and does not refuse WhatsApp (the alerts' rule, purposes/alert-digest.ts `digestMessage`);
 *   else nothing is composed for that owner. The e-mail's and the template's link to the page
 *   `/o/<token>` is minted when the send is claimed (256 bits; only its SHA-256 kept; a claim
 *   again mints a new one and the old link stops working).
 * - **Many owners.** One read of the business's comparable listings per run, kept in a grid by
 *   type, operation, postal code and ~1 km cells; per owner, one statement per kind of figure for
 *   all its listings, and a turn of the event loop between owners, so the API keeps answering.
 */
import { DateTime } from 'luxon';
import type { OutboundPolicy } from '../../config.ts';
import type { Db, Executor } from '../../db/database.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import { findLead } from '../../db/repositories/leads.ts';
import * as repo from '../../db/repositories/owner-reports.ts';
import { transact } from '../../db/transaction.ts';
import { storedTemplates } from '../../domain/messaging/templates.ts';
import {
  leadsBySource,
  nextReportDue,
  REPORT_DAYS_CHOICES,
  priceHistory,
  wholeDays,
  type FirstContact,
  type ListingFigures,
  type OwnerReportFigures,
} from '../../domain/owners/owner-report.ts';
import { searchBox, SIZE_SPREAD, valuate, type Candidate } from '../../domain/owners/valuation.ts';
import { nowRfc3339, toRfc3339 } from '../../domain/time.ts';
import { DEFAULT_TIME_ZONE } from '../../domain/viewings/hours.ts';
import { InmoError } from '../../errors.ts';
import { recordAudit, type AuditActor } from '../access/audit.ts';
import { DEFAULT_WORKER_SETTINGS } from '../../worker-settings.ts';
import { hourOf } from '../catalogue/listing-views.ts';
import { deliverNow } from '../messaging/delivery.ts';
import { queueMessage } from '../messaging/outbox.ts';
import { digestChannels, digestMessage, type DigestChannels } from '../messaging/purposes/alert-digest.ts';
import { emailLanguage } from '../messaging/welcome.ts';
import { findChannel } from '../../db/repositories/messaging.ts';

/** The last local hour (exclusive) at which the schedule still composes a due report. */
const LAST_HOUR = 21;

/** The job of a report the command sends itself waits this long before it looks, ms (as `alerts run`'s). */
const RUN_NOW_JOB_DELAY_MS = 15 * 60_000;

/** Degrees of latitude in a cell of the comparables' grid: about 1 km. */
const CELL_DEG = 0.009;

/** A business's comparable listings, found by type, operation, postal code and grid cell. */
export class ComparableIndex {
  private byPostal = new Map<string, Candidate[]>();
  private byCell = new Map<string, Candidate[]>();

  constructor(rows: readonly repo.ComparableRow[]) {
    for (const row of rows) {
      for (const operation of ['venta', 'alquiler'] as const) {
        const candidate = candidateOf(row, operation);
        if (candidate === null) continue;
        const postal = row.postal_code?.trim();
        if (postal) push(this.byPostal, `${candidate.type}|${operation}|${postal}`, candidate);
        if (candidate.lat !== null && candidate.lon !== null) {
          push(this.byCell, `${candidate.type}|${operation}|${cellOf(candidate.lat, candidate.lon)}`, candidate);
        }
      }
    }
  }

  /** The median €/m² of a listing's comparables (domain/owners/valuation.ts), or null with too few. */
  medianFor(listing: {
    id: number;
    type: string | null;
    operation: 'venta' | 'alquiler';
    size: number;
    postal_code: string | null;
    lat: number | null;
    lon: number | null;
  }): { count: number; median_m2: number } | null {
    if (!listing.type || !(listing.size > 0)) return null;
    const prefix = `${listing.type}|${listing.operation}|`;
    // Only those of the size band reach the domain's rules (which check it again): fewer objects made.
    const min = listing.size * (1 - SIZE_SPREAD);
    const max = listing.size * (1 + SIZE_SPREAD);
    const found = new Set<Candidate>();
    const add = (list: readonly Candidate[] | undefined) => {
      if (list) for (const c of list) if (c.size >= min && c.size <= max) found.add(c);
    };
    add(this.byPostal.get(prefix + (listing.postal_code?.trim() ?? '')));
    if (listing.lat !== null && listing.lon !== null) {
      const box = searchBox({ lat: listing.lat, lon: listing.lon });
      const [r0, c0] = cellOf(box.minLat, box.minLon).split(':').map(Number);
      const [r1, c1] = cellOf(box.maxLat, box.maxLon).split(':').map(Number);
      for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) add(this.byCell.get(`${prefix}${r}:${c}`));
    }
    const valuation = valuate(
      {
        id: listing.id,
        type: listing.type,
        operation: listing.operation,
        size: listing.size,
        bedrooms: null,
        postal_code: listing.postal_code,
        lat: listing.lat,
        lon: listing.lon,
      },
      [...found],
    );
    return valuation.range === null ? null : { count: valuation.comparables.length, median_m2: valuation.range.median_m2 };
  }
}

const push = <T>(map: Map<string, T[]>, key: string, value: T) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/** A grid cell: rows of {@link CELL_DEG} latitude, columns of as many degrees of longitude as make ~1 km at 40° N. */
const cellOf = (lat: number, lon: number) => `${Math.floor(lat / CELL_DEG)}:${Math.floor(lon / (CELL_DEG * 1.31))}`;

/** A listing as a comparable of `operation`, or null when it offers no price of it. */
function candidateOf(row: repo.ComparableRow, operation: 'venta' | 'alquiler'): Candidate | null {
  const closedStatus = operation === 'venta' ? 'vendida' : 'alquilada';
  const closed = row.status === closedStatus;
  if (!closed && (row.status === 'vendida' || row.status === 'alquilada')) return null;
  const offered = operation === 'venta' ? row.op_venta === 1 : row.op_alquiler === 1;
  const price = closed ? row.closed_price : offered ? (operation === 'venta' ? row.price : row.price_rent) : null;
  if (price === null || !(Number(price) > 0) || !row.type) return null;
  return {
    id: row.id,
    external_ref: row.external_ref,
    title: row.title,
    type: row.type,
    size: Number(row.size_total),
    bedrooms: row.bedrooms,
    price: Number(price),
    closed,
    postal_code: row.postal_code,
    lat: row.lat === null ? null : Number(row.lat),
    lon: row.lon === null ? null : Number(row.lon),
  };
}

/** What a set of listings went through before an instant, read once for all of them (every owner of a chunk). */
interface Activity {
  contacts: Awaited<ReturnType<typeof repo.listListingContacts>>;
  visits: Awaited<ReturnType<typeof repo.listDoneVisits>>;
  matching: Awaited<ReturnType<typeof repo.listMatchingCounts>>;
  changes: Awaited<ReturnType<typeof repo.listPriceChanges>>;
}

/** The activity of listings `ids` before `to` (RFC 3339): one statement of each kind for all. */
async function readActivity(db: Executor, ids: readonly number[], to: string): Promise<Activity> {
  const [contacts, visits, matching, changes] = await Promise.all([
    repo.listListingContacts(db, ids, to),
    repo.listDoneVisits(db, ids, to),
    repo.listMatchingCounts(db, ids),
    repo.listPriceChanges(db, ids, to),
  ]);
  return { contacts, visits, matching, changes };
}

/** An owner's listings' views in its period and before its end. */
const viewsOf = (db: Executor, ids: readonly number[], period: { from: string; to: string }) =>
  repo.listViewCounts(db, ids, hourOf(Date.parse(period.from)), hourOf(Date.parse(period.to)));

/**
 * The figures of an owner's report for the period `from`–`to` (RFC 3339), read now.
 * @param listings the owner's listings under a signed mandate.
 * @param timeZone the business's (the viewings' days).
 */
export async function composeFigures(
  db: Executor,
  listings: readonly repo.MandatedListingRow[],
  comparables: ComparableIndex,
  period: { from: string; to: string },
  timeZone: string,
): Promise<OwnerReportFigures> {
  const ids = listings.map((l) => l.id);
  const [activity, views] = await Promise.all([readActivity(db, ids, period.to), viewsOf(db, ids, period)]);
  return figuresOf(listings, activity, views, comparables, period, timeZone);
}

/** The figures of an owner's listings from what was read (see {@link composeFigures}). */
function figuresOf(
  listings: readonly repo.MandatedListingRow[],
  { contacts, visits, matching, changes }: Activity,
  views: Awaited<ReturnType<typeof repo.listViewCounts>>,
  comparables: ComparableIndex,
  period: { from: string; to: string },
  timeZone: string,
): OwnerReportFigures {
  const figures = listings.map((listing): ListingFigures => {
    const field = listing.operation === 'venta' ? 'price' : 'price_rent';
    const price = listing[field] === null ? null : Number(listing[field]);
    const size = Number(listing.size_total ?? 0);
    const seen = { page: 0, kit: 0, page_total: 0, kit_total: 0 };
    for (const v of views) {
      if (v.property_id !== listing.id) continue;
      seen[v.source] += Number(v.period);
      seen[`${v.source}_total`] += Number(v.total);
    }
    const its: Array<{ lead_id: number; at: string; contact: FirstContact }> = [
      ...contacts.inquiries
        .filter((c) => c.property_id === listing.id)
        .map((c) => ({ lead_id: c.lead_id, at: c.at, contact: { kind: 'inquiry' as const, source: c.source } })),
      ...contacts.viewings
        .filter((c) => c.property_id === listing.id)
        .map((c) => ({ lead_id: c.lead_id, at: c.at, contact: { kind: 'viewing' as const, source: c.source } })),
    ];
    const done = visits.filter((v) => v.property_id === listing.id);
    const match = matching.find((m) => m.property_id === listing.id);
    return {
      property_id: listing.id,
      external_ref: listing.external_ref,
      title: listing.title,
      operation: listing.operation,
      days_on_market: wholeDays(listing.created_at, period.to),
      views: seen,
      leads: leadsBySource(its, period),
      viewings: done
        .filter((v) => v.starts_at >= period.from)
        .map((v) => {
          const feedback = v.feedback === null ? null : (JSON.parse(v.feedback) as { interest?: number; comment?: string });
          return {
            on: DateTime.fromISO(v.starts_at).setZone(timeZone).toISODate()!,
            interest: typeof feedback?.interest === 'number' ? feedback.interest : null,
            comment: feedback?.comment?.trim() || null,
          };
        }),
      viewings_total: done.length,
      matching: { leads: Number(match?.leads ?? 0), sent: Number(match?.sent ?? 0) },
      price_history: priceHistory(
        changes.filter((c) => c.property_id === listing.id && c.field === field),
        price,
        listing.created_at,
        period.to,
      ),
      price_m2: price !== null && size > 0 ? Math.round(price / size) : null,
      comparables: comparables.medianFor({
        id: listing.id,
        type: listing.type,
        operation: listing.operation,
        size,
        postal_code: listing.postal_code,
        lat: listing.lat === null ? null : Number(listing.lat),
        lon: listing.lon === null ? null : Number(listing.lon),
      }),
    };
  });
  return { from: period.from, to: period.to, listings: figures };
}

/** Whether the business's local hour at `now` is one a report may be composed in. */
function inSendingHours(now: Date, timeZone: string, alertHour: number): boolean {
  const hour = DateTime.fromJSDate(now).setZone(timeZone).hour;
  // At least the alert hour itself, however late it is set.
  return hour >= alertHour && hour < Math.max(alertHour + 1, LAST_HOUR);
}

/** How a business can carry its reports: e-mail, and its WhatsApp `owner_report` template. */
async function reportChannels(db: Executor, businessId: number): Promise<DigestChannels> {
  const channels = await digestChannels(db, businessId);
  const channel = await findChannel(db, businessId);
  const template = channel ? storedTemplates(channel.templates).owner_report : undefined;
  return {
    email: channels.email,
    whatsapp: channel && template ? { template, languages: JSON.parse(channel.languages) as Record<string, string> } : null,
  };
}

/** What a composing round did. */
export interface ComposedReports {
  /** The messages queued, one per owner reported. */
  messages: number[];
  /** Owners whose report was due (composed or not: no way to reach them). */
  due: number;
}

/**
 * Composes and queues the reports due at `now` (see the module's comment).
 * @param options `businessId` only that business; `anyHour` not waiting for the business's sending hours
 *   (the command); `jobDelayMs` how long the queued jobs wait (the command sends them itself).
 * @throws InmoError UNKNOWN_BUSINESS for a `businessId` of no business.
 */
export async function composeDueReports(
  db: Db,
  now: Date,
  settings: { ownerReportDays: number; alertHour: number },
  options: { businessId?: number; anyHour?: boolean; jobDelayMs?: number } = {},
): Promise<ComposedReports> {
  if (options.businessId !== undefined && !(await findBusiness(db, options.businessId))) {
    throw new InmoError('UNKNOWN_BUSINESS', { id: options.businessId });
  }
  const at = toRfc3339(now);
  const sendAt = toRfc3339(new Date(now.getTime() + (options.jobDelayMs ?? 0)));
  const owners = (await repo.listOwnersWithSignedMandates(db, options.businessId)).filter(
    (o) => nextReportDue(o.last_to, o.first_signed_at, o.owner_report_days ?? settings.ownerReportDays) <= at,
  );
  const byBusiness = new Map<number, repo.ReportOwnerRow[]>();
  for (const owner of owners) {
    const list = byBusiness.get(owner.business_id);
    if (list) list.push(owner);
    else byBusiness.set(owner.business_id, [owner]);
  }
  const messages: number[] = [];
  let due = 0;
  for (const [businessId, list] of byBusiness) {
    const business = await findBusiness(db, businessId);
    if (!business) continue;
    const timeZone = business.timezone || DEFAULT_TIME_ZONE;
    if (!options.anyHour && !inSendingHours(now, timeZone, settings.alertHour)) continue;
    due += list.length;
    const channels = await reportChannels(db, businessId);
    if (!channels.email && !channels.whatsapp) continue;
    const comparables = new ComparableIndex(await repo.listComparableListings(db, businessId));
    for (let i = 0; i < list.length; i += OWNERS_PER_CHUNK) {
      messages.push(...(await composeChunk(db, list.slice(i, i + OWNERS_PER_CHUNK), comparables, channels, timeZone, { at, sendAt })));
      // A turn of the event loop between chunks: requests are answered meanwhile.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return { messages, due };
}

/** Owners whose reports are composed and written together: one read of each kind and one transaction for all. */
const OWNERS_PER_CHUNK = 50;

/**
 * The reports of `owners` composed, stored and queued, one transaction for them all.
 * @returns the ids of the messages queued (none for an owner the business cannot reach, or with no listing left under mandate).
 */
async function composeChunk(
  db: Db,
  owners: readonly repo.ReportOwnerRow[],
  comparables: ComparableIndex,
  channels: DigestChannels,
  timeZone: string,
  when: { at: string; sendAt: string },
): Promise<number[]> {
  const listings = await repo.listListingsUnderMandate(
    db,
    owners.map((o) => o.id),
  );
  if (listings.length === 0) return [];
  const activity = await readActivity(
    db,
    listings.map((l) => l.id),
    when.at,
  );
  const composed: Array<{ owner: repo.ReportOwnerRow; period: { from: string; to: string }; figures: OwnerReportFigures }> = [];
  for (const owner of owners) {
    const own = listings.filter((l) => l.owner_lead_id === owner.id);
    if (own.length === 0) continue;
    const period = { from: owner.last_to ?? owner.first_signed_at, to: when.at };
    const views = await viewsOf(
      db,
      own.map((l) => l.id),
      period,
    );
    composed.push({ owner, period, figures: figuresOf(own, activity, views, comparables, period, timeZone) });
    // A turn of the event loop after each owner's figures: requests are answered meanwhile.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return transact(db, async (trx) => {
    const ids: number[] = [];
    for (const { owner, period, figures } of composed) {
      // Composed meanwhile by another (the worker, the command): this one is not sent again.
      if ((await repo.lastReportEnd(trx, owner.id)) !== owner.last_to) continue;
      const way = await digestMessage(trx, owner, channels);
      if (way === null) continue;
      const messageId = await queueMessage(trx, {
        lead: owner,
        purpose: 'owner-report',
        kind: way.kind,
        template: way.template,
        language: way.language,
        recipient: way.recipient,
        at: when.at,
        sendAt: when.sendAt,
      });
      if (messageId === undefined) continue;
      await repo.insertOwnerReport(trx, {
        business_id: owner.business_id,
        lead_id: owner.id,
        period_from: period.from,
        period_to: period.to,
        figures: JSON.stringify(figures),
        language: emailLanguage(owner.preferred_language),
        message_id: messageId,
        page_token_hash: null,
        created_at: when.at,
      });
      ids.push(messageId);
    }
    return ids;
  });
}

/** What `inmo owners report run` did (CONTRACT §24). */
export interface OwnerReportsRunResult {
  /** Reports sent now. */
  sent: number;
  /** Owners a report was composed for. */
  owners: number;
  /** Why fewer were sent than composed, in words (English, for the operator). */
  reason?: string;
}

/**
 * `inmo owners report run`: composes the reports due now whatever the hour and sends them as the
 * worker does (services/messaging/delivery.ts), once; one not sent now is left to its job.
 */
export async function runOwnerReportsNow(
  db: Db,
  options: { businessId?: number; ownerReportDays: number; outbound: OutboundPolicy; sendTimeoutMs?: number; at?: Date },
): Promise<OwnerReportsRunResult> {
  const at = options.at ?? new Date();
  const { messages, due } = await composeDueReports(
    db,
    at,
    { ownerReportDays: options.ownerReportDays, alertHour: 0 },
    { businessId: options.businessId, anyHour: true, jobDelayMs: RUN_NOW_JOB_DELAY_MS },
  );
  const { sent, errors } = await deliverNow(db, messages, {
    outbound: options.outbound,
    sendTimeoutMs: options.sendTimeoutMs ?? DEFAULT_WORKER_SETTINGS.sendTimeoutMs,
    now: nowRfc3339,
  });
  const reasons: string[] = [];
  if (due > messages.length)
    reasons.push(
      `${due - messages.length} owner(s) due got none: no e-mail address the business can write to nor a WhatsApp template to reach them, no listing left under mandate, or a report composed meanwhile`,
    );
  if (sent < messages.length) {
    const why = errors.length > 0 ? ` (${errors.join('; ')})` : '';
    reasons.push(`${messages.length - sent} report(s) not sent now${why}; their jobs retry them`);
  }
  return reasons.length > 0 ? { sent, owners: messages.length, reason: reasons.join('; ') } : { sent, owners: messages.length };
}

/** An owner's reports as its lead page lists them: newest first, with how the message carrying each stands. */
export async function reportsOfOwner(db: Db, businessId: number, leadId: number) {
  return (await repo.listReportsOfOwner(db, businessId, leadId)).map((r) => ({
    id: r.id,
    period_from: r.period_from,
    period_to: r.period_to,
    listings: (JSON.parse(r.figures) as OwnerReportFigures).listings.length,
    message_state: r.message_state,
    message_kind: r.message_kind,
  }));
}

/**
 * Sets an owner's days between reports (CONTRACT §24): 7, 14 or 30, or null for the
 * installation's (`INMO_OWNER_REPORT_DAYS`); audited as `lead.owner_report_days`.
 * @throws InmoError LEAD_NOT_FOUND (not an owner of the business); OWNER_REPORT_DAYS (422: another number).
 */
export async function setOwnerReportDays(
  db: Db,
  businessId: number,
  leadId: number,
  days: number | null,
  actor: AuditActor,
): Promise<void> {
  if (days !== null && !(REPORT_DAYS_CHOICES as readonly number[]).includes(days)) throw new InmoError('OWNER_REPORT_DAYS');
  await transact(db, async (trx) => {
    const lead = await findLead(trx, leadId, businessId);
    if (!lead || lead.type !== 'propietario') throw new InmoError('LEAD_NOT_FOUND', { id: leadId });
    await repo.setOwnerReportDays(trx, businessId, leadId, days);
    await recordAudit(trx, businessId, actor, 'lead.owner_report_days', leadId);
  });
}
