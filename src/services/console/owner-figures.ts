/**
 * The owner's figures of the last 30 days on "Hoy" (`GET /console`, CONTRACT §23): leads by
 * source and by status, the median time to first contact, the same per agent, and the listings
 * published, reserved, sold or rented with their days on market. Plain data, no words: the
 * console labels it (http/console/owner-figures-view.ts).
 *
 * The period is the business's last 30 local days: from the start of the day 29 days before
 * today in its time zone (`businesses.timezone`) to now.
 *
 * First contact: the first of an agent's WhatsApp message to the lead and a status change made
 * by a console user (lead_history); the assistant, the welcome template and the service's own
 * changes are not a person. A lead is counted for the agent it is assigned to now.
 *
 * A listing's date of sale or rental is the day the console recorded when it was marked sold or
 * rented (`closed_on`, migration 0038); without one (an import's, a feed's, an older sale) and
 * for a reservation it is its last write (`updated_at`): inmo keeps no other date of a status
 * change. Its days on market run from its `created_at` (the listing's own date when an import
 * line gave one) to that date (whole days of the business's calendar to a recorded day), or to
 * now for one still available.
 */
import { DateTime } from 'luxon';
import type { Db } from '../../db/database.ts';
import { findBusinessClock } from '../../db/repositories/businesses.ts';
import * as repo from '../../db/repositories/owner-figures.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { DEFAULT_TIME_ZONE } from '../../domain/viewings/hours.ts';
import { LEAD_STATUSES, type LeadStatus } from '../../domain/leads/rules.ts';

/** Days the figures cover, today included. */
export const FIGURES_DAYS = 30;

/** What happened to listings in the period, in the order shown. */
export const LISTING_MOVES = ['published', 'reservada', 'vendida', 'alquilada'] as const;
export type ListingMove = (typeof LISTING_MOVES)[number];

/** Time to first contact of a set of leads. */
export interface FirstContact {
  /** Leads of the set. */
  leads: number;
  /** Of them, those a person has contacted. */
  contacted: number;
  /** Median seconds from a contacted lead's creation to its first contact; null when none was contacted. */
  medianSeconds: number | null;
}

/** The figures of one agent: the leads created in the period assigned to them now. */
export interface AgentFigures extends FirstContact {
  userId: number;
  /** The user's e-mail (the users table has no name yet: CONTRACT §23 display names). */
  name: string;
}

export interface OwnerFigures {
  /** The business's IANA time zone, in which the period's days are counted. */
  timezone: string;
  /** Start of the period (local midnight 29 days before today), canonical RFC 3339 UTC. */
  from: string;
  /** End of the period (now), canonical RFC 3339 UTC. */
  to: string;
  /** Leads created in the period. */
  leads: number;
  /** Those leads by `source` (null: none given), most first, then by source, none given last among equals. */
  bySource: Array<{ source: string | null; count: number }>;
  /** Those leads by their status now, every status of CONTRACT §6 in its order, zeros included. */
  byStatus: Array<{ status: LeadStatus; count: number }>;
  /** Time to first contact of all the period's leads. */
  firstContact: FirstContact;
  /**
   * Per agent: every active user, and any disabled one with leads of the period, by id; the
   * leads assigned to nobody in `unassigned`.
   */
  agents: AgentFigures[];
  unassigned: FirstContact;
  /** Per move, in {@link LISTING_MOVES} order: listings, and their median days on market (null when none). */
  listings: Array<{ move: ListingMove; count: number; medianDays: number | null }>;
}

const DAY_MS = 86_400_000;

/** The median of numbers (the mean of the two middle ones for an even count); null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Start of the period ending at `now` (epoch ms): local midnight {@link FIGURES_DAYS} − 1 days before today in `zone`. */
export function periodStart(now: number, zone: string): string {
  const start = DateTime.fromMillis(now, { zone })
    .startOf('day')
    .minus({ days: FIGURES_DAYS - 1 });
  return toRfc3339(start.toJSDate());
}

/** The first instant a person contacted a lead, or null. */
function firstContactAt(row: repo.LeadContactRow): string | null {
  const times = [row.first_agent_message_at, row.first_status_change_at].filter((t): t is string => t !== null);
  if (times.length === 0) return null;
  return times.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b));
}

function firstContactOf(rows: readonly repo.LeadContactRow[]): FirstContact {
  const seconds: number[] = [];
  for (const row of rows) {
    const at = firstContactAt(row);
    if (at !== null) seconds.push(Math.max(0, Math.round((Date.parse(at) - Date.parse(row.created_at)) / 1000)));
  }
  const m = median(seconds);
  return { leads: rows.length, contacted: seconds.length, medianSeconds: m === null ? null : Math.round(m) };
}

/**
 * The business's figures of the period ending at `now` (see {@link OwnerFigures}).
 * @param now epoch milliseconds; the clock by default.
 * @throws Error when the business does not exist.
 */
export async function ownerFigures(db: Db, businessId: number, now: number = Date.now()): Promise<OwnerFigures> {
  const business = await findBusinessClock(db, businessId);
  if (!business) throw new Error(`business ${businessId} does not exist`);
  const timezone = business.timezone || DEFAULT_TIME_ZONE;
  const from = periodStart(now, timezone);
  const fromDay = DateTime.fromISO(from, { zone: timezone }).toISODate()!;
  const [leads, listings, users] = await Promise.all([
    repo.leadsWithFirstContact(db, businessId, from),
    repo.listingsMovedSince(db, businessId, from, fromDay),
    repo.consoleUsers(db, businessId),
  ]);

  const sources = new Map<string | null, number>();
  const statuses = new Map<string, number>();
  const byAgent = new Map<number | null, repo.LeadContactRow[]>();
  for (const lead of leads) {
    sources.set(lead.source, (sources.get(lead.source) ?? 0) + 1);
    statuses.set(lead.status, (statuses.get(lead.status) ?? 0) + 1);
    const own = byAgent.get(lead.assigned_user_id);
    if (own) own.push(lead);
    else byAgent.set(lead.assigned_user_id, [lead]);
  }
  const bySource = [...sources]
    .map(([source, count]) => ({ source, count }))
    .sort(
      (a, b) =>
        b.count - a.count || Number(a.source === null) - Number(b.source === null) || (a.source ?? '').localeCompare(b.source ?? ''),
    );
  const byStatus = LEAD_STATUSES.map((status) => ({ status, count: statuses.get(status) ?? 0 }));
  const agents = users
    .filter((u) => u.disabled_at === null || byAgent.has(u.id))
    .map((u) => ({ userId: u.id, name: u.display_name ?? u.email, ...firstContactOf(byAgent.get(u.id) ?? []) }));

  const days = new Map<ListingMove, number[]>(LISTING_MOVES.map((m) => [m, []]));
  const daysBetween = (a: string, b: number) => Math.max(0, (b - Date.parse(a)) / DAY_MS);
  /** Whole days of the business's calendar from the day of instant `a` to day `day` (YYYY-MM-DD), at least 0. */
  const daysTo = (a: string, day: string) =>
    Math.max(0, DateTime.fromISO(day, { zone: timezone }).diff(DateTime.fromISO(a, { zone: timezone }).startOf('day'), 'days').days);
  for (const l of listings) {
    const closed = l.status === 'reservada' || l.status === 'vendida' || l.status === 'alquilada';
    const recorded = closed && l.status !== 'reservada' ? l.closed_on : null;
    const onMarket =
      recorded !== null ? daysTo(l.created_at, recorded) : daysBetween(l.created_at, closed ? Date.parse(l.updated_at) : now);
    if (l.public === 1 && l.created_at >= from) days.get('published')!.push(onMarket);
    if (closed && (recorded !== null ? recorded >= fromDay : l.updated_at >= from)) days.get(l.status as ListingMove)!.push(onMarket);
  }
  return {
    timezone,
    from,
    to: toRfc3339(new Date(now)),
    leads: leads.length,
    bySource,
    byStatus,
    firstContact: firstContactOf(leads),
    agents,
    unassigned: firstContactOf(byAgent.get(null) ?? []),
    listings: LISTING_MOVES.map((move) => {
      const m = median(days.get(move)!);
      return { move, count: days.get(move)!.length, medianDays: m === null ? null : Math.round(m) };
    }),
  };
}
