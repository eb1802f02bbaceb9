/**
 * Follow-up periods (spec §6 step 3, CONTRACT §7), as pure functions.
 *
 * Inquiries only. A `demandante` whose searches include the operation `alquiler` is followed
 * up every 30 days; one searching to buy or take over (`venta`, `traspaso`) every 90 days.
 * Any other lead (another type, or a `demandante` with no operation) follows the workspace's
 * rule for its type (`inmo followups rules`), and has none when there is no rule. The first
 * follow-up is due one period after the lead was created; each one, when it comes due,
 * schedules the next.
 */

/** Days between follow-ups of a lead searching to rent. */
export const RENT_FOLLOW_UP_DAYS = 30;
/** Days between follow-ups of a lead searching to buy or take over a business. */
export const SALE_FOLLOW_UP_DAYS = 90;

import { toRfc3339 } from '../time.ts';

const DAY_MS = 86_400_000;

/**
 * The follow-up period of a lead, in days, or null when it gets none.
 * @param searches the lead's `search_preferences` (spec §2.4), or null.
 * @param rules the workspace's periods by lead type, days.
 */
export function followUpPeriodDays(
  leadType: string,
  searches: ReadonlyArray<Record<string, unknown>> | null,
  rules: ReadonlyMap<string, number>,
): number | null {
  if (leadType === 'demandante') {
    const operations = new Set((searches ?? []).flatMap((entry) => (Array.isArray(entry?.operations) ? entry.operations : [])));
    if (operations.has('alquiler')) return RENT_FOLLOW_UP_DAYS;
    if (operations.has('venta') || operations.has('traspaso')) return SALE_FOLLOW_UP_DAYS;
  }
  return rules.get(leadType) ?? null;
}

/** `at` (canonical RFC 3339) plus whole days, in canonical form. */
export function addDays(at: string, days: number): string {
  return toRfc3339(new Date(Date.parse(at) + days * DAY_MS));
}
