/**
 * The rules of alerts (CONTRACT §21, issue 45): when a lead's daily digest is due, which price a
 * listing is sent at and when it has dropped enough to be sent again, and which listings a
 * digest carries. Pure functions; the use cases are in services/leads/alerts.ts.
 */

/**
 * A listing is news again to a lead it matches when its price fell by at least this share (3 %)
 * below the reference: the price the lead last saw it at, else the price it had when it started
 * matching (CONTRACT §21).
 */
export const PRICE_DROP_SHARE = 0.03;

/** Listings in one digest, at most. */
export const DIGEST_SIZE = 5;

/** The `author` of an alert digest's message, by e-mail or by WhatsApp template. */
export const ALERT_AUTHOR = 'alert';

/** The business time zone until businesses carry their own (CONTRACT §20: `Europe/Madrid` by default). */
export const DEFAULT_TIME_ZONE = 'Europe/Madrid';

/** The hour of the alert round by default, business time (`INMO_ALERT_HOUR`). */
export const DEFAULT_ALERT_HOUR = 10;

/**
 * The time zone a business's alert hour is read in: its own `timezone` when it has one, else
 * {@link DEFAULT_TIME_ZONE}. The one place that decides it, so a business's zone plugs in here.
 */
export function alertTimeZone(business: { id: number; timezone?: string | null }): string {
  return business.timezone || DEFAULT_TIME_ZONE;
}

/** The local calendar date (`YYYY-MM-DD`) and hour (0–23) of an instant in a time zone. */
export function localDateAndHour(at: Date, timeZone: string): { date: string; hour: number } {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { date: `${part('year')}-${part('month')}-${part('day')}`, hour: Number(part('hour')) };
}

/** The calendar date after `date` (`YYYY-MM-DD`). */
function nextDate(date: string): string {
  const next = new Date(`${date}T12:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

/**
 * The round due at `at`: today's local date once the alert hour has come, else null (the
 * worker composes a round's digests from its hour to the end of that local day).
 * @param alertHour 0–23, business time.
 */
export function dueRound(at: Date, timeZone: string, alertHour: number): string | null {
  const local = localDateAndHour(at, timeZone);
  return local.hour >= alertHour ? local.date : null;
}

/**
 * The round of the next alert hour after `at` (`inmo alerts run` sends it ahead of time): today's
 * local date before the hour, else tomorrow's.
 */
export function nextRound(at: Date, timeZone: string, alertHour: number): string {
  const local = localDateAndHour(at, timeZone);
  return local.hour < alertHour ? local.date : nextDate(local.date);
}

/** The price columns of a listing, €. */
export type PriceField = 'price' | 'price_rent' | 'price_transfer';

const FIELD_OF: Readonly<Record<string, PriceField>> = { venta: 'price', alquiler: 'price_rent', traspaso: 'price_transfer' };

/**
 * Which price a listing is sent at: that of the first operation the lead's search asks for that
 * the listing offers with a price, else the first price it states (sale, rent, transfer), else
 * the sale price.
 * @param wanted the search entry's `operations` (`venta`, `alquiler`, `traspaso`), maybe empty.
 */
export function alertPriceField(
  listing: {
    op_venta: number;
    op_alquiler: number;
    op_traspaso: number;
    price: number | null;
    price_rent: number | null;
    price_transfer: number | null;
  },
  wanted: readonly string[],
): PriceField {
  const offers: Record<PriceField, boolean> = {
    price: listing.op_venta === 1 && listing.price !== null,
    price_rent: listing.op_alquiler === 1 && listing.price_rent !== null,
    price_transfer: listing.op_traspaso === 1 && listing.price_transfer !== null,
  };
  for (const op of wanted) {
    const field = FIELD_OF[op];
    if (field && offers[field]) return field;
  }
  for (const field of ['price', 'price_rent', 'price_transfer'] as const) if (listing[field] !== null) return field;
  return 'price';
}

/** Whether a price fell by {@link PRICE_DROP_SHARE} or more since `sent` (both €; unknown prices never dropped). */
export function priceDropped(sent: number | null, now: number | null): boolean {
  return sent !== null && now !== null && sent > 0 && now <= sent * (1 - PRICE_DROP_SHARE);
}

/** A listing that may go in a lead's digest. */
export interface DigestCandidate {
  property_id: number;
  reason: 'new' | 'price_drop';
  /** When it became a candidate (RFC 3339); a price drop counts as now. */
  since: string;
  /** For a price drop: the column the reference price was read from, and that price (€). */
  drop?: { field: PriceField; before: number };
}

/**
 * The listings of one digest: at most {@link DIGEST_SIZE}, each once, newest first (a price drop
 * first on a tie); the rest wait for a later digest.
 */
export function pickDigest(candidates: readonly DigestCandidate[]): DigestCandidate[] {
  const byListing = new Map<number, DigestCandidate>();
  for (const c of candidates) {
    const seen = byListing.get(c.property_id);
    if (!seen || c.reason === 'price_drop') byListing.set(c.property_id, c);
  }
  return [...byListing.values()]
    .sort(
      (a, b) =>
        b.since.localeCompare(a.since) || (a.reason === b.reason ? b.property_id - a.property_id : a.reason === 'price_drop' ? -1 : 1),
    )
    .slice(0, DIGEST_SIZE);
}

/**
 * The link to a listing in a message (CONTRACT §21): the business's own `listing_url` template
 * (`{id}`, `{ref}`, CONTRACT §10) when it set one, else the listing's page on inmo (`/l/<token>`,
 * its absolute URL as `pageUrl`), else null (a caller that has no page to give).
 */
export function listingLink(
  template: string | null | undefined,
  listing: { id: number; external_ref: string },
  pageUrl: string | null = null,
): string | null {
  if (!template) return pageUrl;
  return template.replaceAll('{id}', String(listing.id)).replaceAll('{ref}', encodeURIComponent(listing.external_ref));
}
