/**
 * Free viewing slots of a listing (CONTRACT §20: `GET /v1/ext/viewings/availability`, and the
 * assistant's three slots): within the business's viewing hours, of the listing's agent (or,
 * when the listing has none, of any active user of the business), never a time every one of
 * them has taken (a viewing in any status but `cancelled`), never in the past.
 */
import { viewingRulesFromEnv } from '../../config.ts';
import type { Executor } from '../../db/database.ts';
import { findListingToView, listActiveAgents, listHeldTimes, type HeldTime } from '../../db/repositories/viewings.ts';
import { freeSlots, type Held } from '../../domain/viewings/agenda.ts';
import { candidateSlots, localDate, MAX_VIEWING_MINUTES, VIEWING_MINUTES, type Slot } from '../../domain/viewings/hours.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { businessClock, type BusinessClock } from './clock.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** The listing a viewing is for and the agents who may show it. */
export interface ListingToView {
  id: number;
  title: string | null;
  external_ref: string;
  /** Its owner, a `propietario` lead (CONTRACT §24), or null. */
  owner_lead_id: number | null;
  /** Who may show it, in order of preference: the listing's agent, else every active user by id. */
  agents: number[];
}

/**
 * The business's listing `propertyId` and its agents: the listing's agent when it has an active
 * one, else every active user of the business.
 * @param listedOnly only a listing the API publishes (public, `disponible` or `reservada`, CONTRACT §5).
 * @throws InmoError PROPERTY_NOT_FOUND when there is no such listing (or it is not published and `listedOnly`).
 */
export async function listingToView(db: Executor, businessId: number, propertyId: number, listedOnly: boolean): Promise<ListingToView> {
  const listing = await findListingToView(db, businessId, propertyId);
  if (!listing || (listedOnly && listing.listed !== 1)) throw new InmoError('PROPERTY_NOT_FOUND');
  const own = listing.agent_user_id === null ? [] : await listActiveAgents(db, businessId, listing.agent_user_id);
  const agents = own.length ? own : await listActiveAgents(db, businessId);
  return { id: listing.id, title: listing.title, external_ref: listing.external_ref, owner_lead_id: listing.owner_lead_id, agents };
}

/** Held times as the domain reads them (epoch ms). */
export const heldPeriods = (rows: readonly HeldTime[]): Held[] =>
  rows.map((r) => ({ userId: r.user_id, start: Date.parse(r.starts_at), end: Date.parse(r.ends_at) }));

/**
 * The times `agents` hold that overlap `[start, end)` (epoch ms), read with the longest
 * viewing's bound so that the read stays on the index.
 */
export async function heldBetween(
  db: Executor,
  businessId: number,
  agents: readonly number[],
  start: number,
  end: number,
  except?: number,
  withRequested = true,
): Promise<Held[]> {
  const range = {
    from: toRfc3339(new Date(start)),
    to: toRfc3339(new Date(end)),
    earliest: toRfc3339(new Date(start - MAX_VIEWING_MINUTES * MINUTE_MS)),
  };
  return heldPeriods(await listHeldTimes(db, businessId, agents, range, except, withRequested));
}

/**
 * The free slots of listing `propertyId` from local date `from` (today in the business's time
 * zone when absent) for `days` days: every `durationMinutes` (30 by default) period that starts
 * on the half hour of a period of viewing hours (the grid, domain/viewings/hours.ts `onSlotGrid`),
 * ends within it, starts after `now` and at most `horizonDays` after it (INMO_VIEWING_HORIZON_DAYS:
 * what lies beyond is never offered, whatever `from` and `days` say), and in which at least one of
 * the listing's agents has no viewing.
 * @param options.listedOnly only a listing the API publishes (the API; the console may book any).
 * @param options.withRequested whether `requested` viewings hold their agent's time, as they do
 *   against another request (a publishable key, a listing page; the default); the agency's
 *   bookings (a secret key, the assistant) are made over them (services/viewings/booking.ts).
 * @returns the business's clock and the slots in time order (epoch ms).
 * @throws InmoError PROPERTY_NOT_FOUND, UNKNOWN_BUSINESS.
 */
export async function viewingAvailability(
  db: Executor,
  businessId: number,
  options: {
    propertyId: number;
    from?: string;
    days: number;
    now?: number;
    listedOnly: boolean;
    durationMinutes?: number;
    withRequested?: boolean;
    horizonDays?: number;
  },
): Promise<{ clock: BusinessClock; slots: Slot[] }> {
  const now = options.now ?? Date.now();
  const horizon = now + (options.horizonDays ?? viewingRulesFromEnv().horizonDays) * DAY_MS;
  const [clock, listing] = await Promise.all([
    businessClock(db, businessId),
    listingToView(db, businessId, options.propertyId, options.listedOnly),
  ]);
  const from = options.from ?? localDate(now, clock.zone);
  // Days past the horizon are not even walked (a `from` of 9999-12-31 reads nothing).
  const lastDay = localDate(horizon, clock.zone);
  if (from > lastDay) return { clock, slots: [] };
  const days = Math.min(options.days, Math.round((Date.parse(`${lastDay}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1);
  const candidates = candidateSlots({
    zone: clock.zone,
    hours: clock.hours,
    from,
    days,
    after: now,
    durationMinutes: options.durationMinutes ?? VIEWING_MINUTES,
  }).filter((slot) => slot.start <= horizon);
  if (candidates.length === 0 || listing.agents.length === 0) return { clock, slots: [] };
  const held = await heldBetween(
    db,
    businessId,
    listing.agents,
    candidates[0].start,
    candidates.at(-1)!.end,
    undefined,
    options.withRequested ?? true,
  );
  return { clock, slots: freeSlots(candidates, listing.agents, held) };
}
