/**
 * A business's clock for viewings (CONTRACT §20): its time zone (`Europe/Madrid` by default,
 * `inmo business create --timezone`, the console's settings) and its viewing hours (by default
 * Monday to Friday 10:00–14:00 and 16:00–20:00, Saturday 10:00–14:00). Local times are shown
 * in it; the rules are domain/viewings/hours.ts's.
 */
import type { Executor } from '../../db/database.ts';
import { findBusinessClock, setBusinessClock } from '../../db/repositories/businesses.ts';
import {
  canonicalTimeZone,
  checkViewingHours,
  onSlotGrid,
  parseViewingHours,
  withinViewingHours,
  type ViewingHours,
} from '../../domain/viewings/hours.ts';
import { InmoError } from '../../errors.ts';
import { transact } from '../../db/transaction.ts';
import type { Db } from '../../db/database.ts';
import { recordAudit, type AuditActor } from '../access/audit.ts';

const DAY_MS = 86_400_000;

/** A business's time zone (IANA name) and viewing hours. */
export interface BusinessClock {
  zone: string;
  hours: ViewingHours;
}

/**
 * The business's clock. @throws InmoError UNKNOWN_BUSINESS when there is no such business.
 */
export async function businessClock(db: Executor, businessId: number): Promise<BusinessClock> {
  const row = await findBusinessClock(db, businessId);
  if (!row) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  return { zone: row.timezone, hours: parseViewingHours(row.viewing_hours) };
}

/**
 * The canonical IANA name of `text` (`europe/madrid` → `Europe/Madrid`).
 * @throws InmoError TIME_ZONE_INVALID when it names no zone of the IANA database.
 */
export function checkedTimeZone(text: string): string {
  const zone = canonicalTimeZone(text);
  if (zone === null) throw new InmoError('TIME_ZONE_INVALID');
  return zone;
}

/**
 * Sets the business's time zone and, when given, its viewing hours (`null`: back to the
 * default hours). Viewings already booked keep their instants; they are shown in the new zone.
 * @param hours `{"mon": [["10:00", "14:00"], …], …}` (domain/viewings/hours.ts).
 * @throws InmoError TIME_ZONE_INVALID, VIEWING_HOURS_INVALID, UNKNOWN_BUSINESS.
 */
export async function setBusinessClockTo(
  db: Executor,
  businessId: number,
  clock: { timezone?: string; hours?: unknown },
): Promise<BusinessClock> {
  const set: { timezone?: string; viewing_hours?: string | null } = {};
  if (clock.timezone !== undefined) set.timezone = checkedTimeZone(clock.timezone);
  if (clock.hours !== undefined) {
    if (clock.hours === null) set.viewing_hours = null;
    else {
      const checked = checkViewingHours(clock.hours);
      if ('error' in checked) throw new InmoError('VIEWING_HOURS_INVALID', { reason: checked.error });
      set.viewing_hours = JSON.stringify(checked.hours);
    }
  }
  if (Object.keys(set).length > 0 && !(await setBusinessClock(db, businessId, set)))
    throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  return businessClock(db, businessId);
}

/**
 * {@link setBusinessClockTo} by a person (the console's settings), with an audit entry
 * `business.clock` (the business's id only), in one transaction: a refusal stores neither.
 * @throws InmoError TIME_ZONE_INVALID, VIEWING_HOURS_INVALID, UNKNOWN_BUSINESS.
 */
export async function setBusinessClockBy(
  db: Db,
  businessId: number,
  clock: { timezone: string; hours: unknown },
  actor: AuditActor,
): Promise<BusinessClock> {
  return transact(db, async (trx) => {
    const set = await setBusinessClockTo(trx, businessId, clock);
    await recordAudit(trx, businessId, actor, 'business.clock', businessId);
    return set;
  });
}

/**
 * Why `[start, end)` cannot be a viewing of the business, or null when it can: in the past, more
 * than `horizonDays` days after `now`, not within one period of its day's viewing hours, or (with
 * `grid`) not on the slot grid availability offers. (Whether an agent is free is another matter.)
 */
export function viewingTimeFault(
  clock: BusinessClock,
  start: number,
  end: number,
  now: number,
  bounds: { horizonDays: number; grid: boolean },
): string | null {
  if (start <= now) return 'the viewing would start in the past';
  if (start > now + bounds.horizonDays * DAY_MS) return `a viewing starts at most ${bounds.horizonDays} days ahead`;
  if (!withinViewingHours(clock.zone, clock.hours, start, end)) {
    return `the viewing must lie within the business's viewing hours, in its time zone ${clock.zone}`;
  }
  if (bounds.grid && !onSlotGrid(clock.zone, clock.hours, start, end)) {
    return 'the viewing must start on a slot of GET /viewings/availability: every 30 minutes from the start of the viewing hours';
  }
  return null;
}
