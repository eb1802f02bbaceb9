/**
 * The owner's report (CONTRACT §24, issue 58 item 4), pure: what it holds per listing, when an
 * owner's next one is due, and how a lead's first contact with a listing is counted by source.
 *
 * A report covers a period (`from` to `to`, RFC 3339) and, for each listing of the owner under a
 * signed mandate, the figures below; it is composed once and kept as composed (its JSON is
 * stored and never rewritten), so a report read again a month later says what it said when sent.
 * Nothing in it names or reaches a person other than the owner: viewings carry their day, the
 * agent's interest score and comment, never the visitor; leads are counts.
 */
import { toRfc3339 } from '../time.ts';

/** The owner's choices of days between reports (the lead page's select). */
export const REPORT_DAYS_CHOICES = [7, 14, 30] as const;

/**
 * Where a lead came from for a listing, as the report groups it: the agency's website (the
 * listing's page, the website kit, the API), each portal, an e-mail of no known portal, WhatsApp
 * (the assistant booked a viewing), or the agency by hand (the console).
 */
export const REPORT_SOURCES = ['web', 'idealista', 'fotocasa', 'habitaclia', 'pisos.com', 'kyero', 'email', 'whatsapp', 'manual'] as const;
export type ReportSource = (typeof REPORT_SOURCES)[number];

/** A lead's first contact with a listing: a request about it (its `source`), or a viewing of it (its viewing's `source`). */
export type FirstContact = { kind: 'inquiry'; source: string | null } | { kind: 'viewing'; source: string };

/** The report's group of a first contact (see {@link REPORT_SOURCES}). */
export function reportSource(contact: FirstContact): ReportSource {
  if (contact.kind === 'viewing') {
    if (contact.source === 'console') return 'manual';
    if (contact.source === 'assistant') return 'whatsapp';
    return 'web';
  }
  const source = contact.source ?? '';
  if (source === 'listing_page' || source === 'web' || source === 'api') return 'web';
  return (REPORT_SOURCES as readonly string[]).includes(source) ? (source as ReportSource) : 'email';
}

/** A viewing done in the period, as the owner sees it: its day (business time), the agent's 1–5 interest score and comment. */
export interface ReportViewing {
  /** `YYYY-MM-DD`, business time. */
  on: string;
  interest: number | null;
  comment: string | null;
}

/** A price the listing had from an instant on. */
export interface ReportPrice {
  /** RFC 3339. */
  from: string;
  /** €: the sale price, or the monthly rent. */
  price: number | null;
}

/** One listing's figures in a report. */
export interface ListingFigures {
  property_id: number;
  external_ref: string;
  title: string | null;
  /** The mandate's operation: what the prices are (a sale's, or a monthly rent). */
  operation: 'venta' | 'alquiler';
  /** Whole days from its entry in the catalogue to the period's end. */
  days_on_market: number;
  /** Views of its page (`page`) and of the website kit's detail (`kit`), in the period and since it was listed. */
  views: { page: number; kit: number; page_total: number; kit_total: number };
  /** Leads that first asked about it or were booked to see it, by source: in the period, and since it was listed. */
  leads: Array<{ source: ReportSource; period: number; total: number }>;
  /** Viewings done in the period, oldest first, and the number done since it was listed. */
  viewings: ReportViewing[];
  viewings_total: number;
  /** Searching leads it matches now, and how many of them were sent it. */
  matching: { leads: number; sent: number };
  /** Its prices of the operation, oldest first: the first it had, then each change. */
  price_history: ReportPrice[];
  /** €/m² asked now; null without a price or size. */
  price_m2: number | null;
  /** The median €/m² of comparable listings (same type and operation, ±25 % size, same postal code or 1 km), and how many; null with fewer than 3. */
  comparables: { count: number; median_m2: number } | null;
}

/** A report's figures, as stored. */
export interface OwnerReportFigures {
  /** RFC 3339. */
  from: string;
  to: string;
  listings: ListingFigures[];
}

/**
 * When an owner's next report is due: `days` after the end of its last report's period, or after
 * its first signed mandate was signed when it has had none.
 * @returns RFC 3339.
 */
export function nextReportDue(lastTo: string | null, firstSignedAt: string, days: number): string {
  return toRfc3339(new Date(Date.parse(lastTo ?? firstSignedAt) + days * 86_400_000));
}

/** Whole days from `from` to `to` (RFC 3339), never negative. */
export function wholeDays(from: string, to: string): number {
  return Math.max(0, Math.floor((Date.parse(to) - Date.parse(from)) / 86_400_000));
}

/**
 * Counts leads by source in the period and in all: each lead once per listing, by its first
 * contact with it.
 * @param contacts every contact of the listing, any order: the lead, when (RFC 3339), and what it was.
 */
export function leadsBySource(
  contacts: ReadonlyArray<{ lead_id: number; at: string; contact: FirstContact }>,
  period: { from: string; to: string },
): ListingFigures['leads'] {
  const first = new Map<number, { at: string; contact: FirstContact }>();
  for (const c of contacts) {
    const seen = first.get(c.lead_id);
    if (seen === undefined || c.at < seen.at) first.set(c.lead_id, c);
  }
  const rows = new Map<ReportSource, { period: number; total: number }>();
  for (const { at, contact } of first.values()) {
    if (at >= period.to) continue;
    const source = reportSource(contact);
    const row = rows.get(source) ?? { period: 0, total: 0 };
    row.total++;
    if (at >= period.from) row.period++;
    rows.set(source, row);
  }
  return REPORT_SOURCES.filter((s) => rows.has(s)).map((source) => ({ source, ...rows.get(source)! }));
}

/**
 * A listing's prices of one field up to `to`, oldest first: the first it had (the price before its
 * first change, or its price now when it never changed) from `listedAt`, then each change.
 */
export function priceHistory(
  changes: ReadonlyArray<{ old_price: number | null; new_price: number | null; changed_at: string }>,
  current: number | null,
  listedAt: string,
  to: string,
): ReportPrice[] {
  const sorted = [...changes].sort((a, b) => (a.changed_at < b.changed_at ? -1 : a.changed_at > b.changed_at ? 1 : 0));
  const history: ReportPrice[] = [{ from: listedAt, price: sorted.length > 0 ? sorted[0].old_price : current }];
  for (const change of sorted) if (change.changed_at < to) history.push({ from: change.changed_at, price: change.new_price });
  return history;
}
