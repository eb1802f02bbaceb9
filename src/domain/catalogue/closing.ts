/**
 * A listing's sale or rental as the console records it (CONTRACT §23): marking a listing sold
 * or rented asks for the price it fetched (the rent a month for a rental), in €, and the day it
 * happened in the business's time zone (today by default, never a day to come). Kept for the
 * owner's figures (services/console/owner-figures.ts). Pure rules; no I/O.
 */
import { DateTime } from 'luxon';

/** The statuses whose move asks for a price and a day. */
export const CLOSING_STATUSES = ['vendida', 'alquilada'] as const;
export type ClosingStatus = (typeof CLOSING_STATUSES)[number];

/** Whether a move to `status` asks for a price and a day. */
export const isClosingStatus = (status: string): status is ClosingStatus => (CLOSING_STATUSES as readonly string[]).includes(status);

/** Highest price recorded, € (a building of a billion euros is a typing slip more likely than a sale). */
export const CLOSING_PRICE_MAX = 1_000_000_000;

/** Earliest day recorded. */
export const CLOSING_DAY_MIN = '1900-01-01';

/** A sale or rental recorded: the price (€; a month's rent for a rental) and the day (`YYYY-MM-DD`, the business's). */
export interface Closing {
  price: number;
  on: string;
}

/**
 * What is wrong with a recorded sale or rental, field by field: the price is `missing`, not a
 * `number` (text as typed), or out of `range` (more than 0, at most {@link CLOSING_PRICE_MAX});
 * the day is `missing`, not a `date` (`YYYY-MM-DD` of the calendar), in the `future` (after
 * `today`), or `too_old` (before {@link CLOSING_DAY_MIN}).
 */
export interface ClosingFault {
  field: 'closed_price' | 'closed_on';
  kind: 'missing' | 'number' | 'range' | 'date' | 'future' | 'too_old';
}

/**
 * Checks a sale or rental as typed.
 * @param price the price as read (a number, text that is not one, or null when empty).
 * @param on the day as typed (`YYYY-MM-DD`, the date field's value).
 * @param today the business's day now, `YYYY-MM-DD`.
 * @returns the closing, or every fault (at most one per field).
 */
export function checkClosing(price: number | string | null, on: string, today: string): { closing: Closing } | { faults: ClosingFault[] } {
  const faults: ClosingFault[] = [];
  if (price === null) faults.push({ field: 'closed_price', kind: 'missing' });
  else if (typeof price !== 'number' || !Number.isFinite(price)) faults.push({ field: 'closed_price', kind: 'number' });
  else if (price <= 0 || price > CLOSING_PRICE_MAX) faults.push({ field: 'closed_price', kind: 'range' });
  const day = on.trim();
  if (day === '') faults.push({ field: 'closed_on', kind: 'missing' });
  else if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || !DateTime.fromISO(day, { zone: 'UTC' }).isValid)
    faults.push({ field: 'closed_on', kind: 'date' });
  else if (day > today) faults.push({ field: 'closed_on', kind: 'future' });
  else if (day < CLOSING_DAY_MIN) faults.push({ field: 'closed_on', kind: 'too_old' });
  return faults.length > 0 ? { faults } : { closing: { price: price as number, on: day } };
}

/** The business's day at `now` (epoch ms) in time zone `zone`, `YYYY-MM-DD`. */
export function dayIn(zone: string, now: number): string {
  return DateTime.fromMillis(now, { zone }).toISODate()!;
}
