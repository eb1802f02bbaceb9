/**
 * The viewing object of the API and of events (CONTRACT §20, §24): `{id, lead_id, property_id,
 * user_id, kind, starts_at, ends_at, status, source, feedback, created_at, updated_at}`. `starts_at`
 * and `ends_at` carry the business's local offset (`2026-03-30T10:00:00+02:00`: the appointment
 * as the agency keeps it); `created_at` and `updated_at` are canonical UTC like every other
 * timestamp (CONTRACT §1).
 */
import { toLocalRfc3339 } from './hours.ts';
import type { ViewingFeedback, ViewingKind, ViewingSource, ViewingStatus } from './status.ts';

/** A stored viewing, as the presenter reads it: times canonical RFC 3339 UTC, `feedback` JSON. */
export interface StoredViewing {
  id: number;
  lead_id: number;
  property_id: number;
  /** The agent: a console user of the business. */
  user_id: number;
  /** `visit`, or `valuation` (an owner's home valued, CONTRACT §24). */
  kind: ViewingKind;
  starts_at: string;
  ends_at: string;
  status: ViewingStatus;
  source: ViewingSource;
  feedback: string | null;
  created_at: string;
  updated_at: string;
}

/** The viewing object: the stored one with its times in the business's local offset and its feedback read. */
export type Viewing = Omit<StoredViewing, 'feedback'> & { feedback: ViewingFeedback | null };

/** A stored viewing as the API shows it, its times in `zone` (the business's time zone). */
export function presentViewing(row: StoredViewing, zone: string): Viewing {
  return {
    id: row.id,
    lead_id: row.lead_id,
    property_id: row.property_id,
    user_id: row.user_id,
    kind: row.kind,
    starts_at: toLocalRfc3339(Date.parse(row.starts_at), zone),
    ends_at: toLocalRfc3339(Date.parse(row.ends_at), zone),
    status: row.status,
    source: row.source,
    feedback: row.feedback === null ? null : (JSON.parse(row.feedback) as ViewingFeedback),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
