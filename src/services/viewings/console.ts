/**
 * Viewings as the console works them (CONTRACT §20, issue 44): the agenda by day and week, the
 * viewings of a lead or a listing with the names a page shows, one viewing in full, and a
 * booking or a new time given as a person types it, a local date and time of the business.
 *
 * Bookings and new times go through {@link bookViewing} and {@link changeViewing}, so the rules,
 * the agent's lock and the events (`viewing.scheduled`, `viewing.updated`) are the API's. What a
 * person typed wrong is refused before any write, as a {@link ViewingFormError} naming the field
 * and why, for the page to say beside it; a refused booking or change stores nothing.
 *
 * Local days are the business's (its time zone, domain/viewings/hours.ts): a day is from its
 * local midnight to the next one, 23 or 25 hours long on the days summer time starts or ends.
 */
import { viewingRulesFromEnv } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { isRowId } from '../../db/database.ts';
import { findIdsByRef } from '../../db/repositories/properties.ts';
import { listNamedViewings, type NamedViewingFilters } from '../../db/repositories/viewings.ts';
import { transact } from '../../db/transaction.ts';
import {
  addDays,
  dayStart,
  isCalendarDate,
  isLocalTime,
  localDate,
  localInstant,
  MAX_VIEWING_MINUTES,
  MIN_VIEWING_MINUTES,
  VIEWING_MINUTES,
  weekStart,
  withinViewingHours,
} from '../../domain/viewings/hours.ts';
import type { Viewing } from '../../domain/viewings/presenter.ts';
import {
  nextStatus,
  type ViewingFeedback,
  type ViewingKind,
  type ViewingSource,
  type ViewingStatus,
} from '../../domain/viewings/status.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { InmoError, RequestValidationError } from '../../errors.ts';
import type { LeadWrites } from '../leads/intake.ts';
import { bookViewing } from './booking.ts';
import { businessClock, type BusinessClock } from './clock.ts';
import { changeViewing } from './transitions.ts';

/** The most viewings an agenda page lists (a week of a busy agency holds a few hundred). */
export const AGENDA_MAX = 1000;

/** The most viewings a lead's or a listing's page lists, latest first. */
export const VIEWINGS_SHOWN = 50;

/** A viewing with the words a page shows beside it. Times are canonical RFC 3339 UTC; a page shows them in the business's zone. */
export interface NamedViewing {
  id: number;
  lead_id: number;
  /** The lead's name, null when the lead has none. */
  lead_name: string | null;
  /** The lead's first phone (E.164), for the agent to call. */
  lead_phone: string;
  property_id: number;
  title: string | null;
  external_ref: string;
  /** The listing's exact address and city (the console's agents go there), null when not given. */
  address: string | null;
  city: string | null;
  user_id: number;
  /** The agent's display name, else their e-mail (CONTRACT §23). */
  agent: string;
  /** `visit`, or `valuation`: the agent values the home of its owner, the lead (CONTRACT §24). */
  kind: ViewingKind;
  starts_at: string;
  ends_at: string;
  status: ViewingStatus;
  source: ViewingSource;
  feedback: ViewingFeedback | null;
  created_at: string;
  updated_at: string;
}

const named = (row: Awaited<ReturnType<typeof listNamedViewings>>[number]): NamedViewing => ({
  id: row.id,
  lead_id: row.lead_id,
  lead_name: row.lead_name,
  lead_phone: row.lead_phone,
  property_id: row.property_id,
  title: row.title,
  external_ref: row.external_ref,
  address: row.address,
  city: row.city,
  user_id: row.user_id,
  agent: row.agent_display_name ?? row.agent_email,
  kind: row.kind,
  starts_at: row.starts_at,
  ends_at: row.ends_at,
  status: row.status,
  source: row.source,
  feedback: row.feedback === null ? null : (JSON.parse(row.feedback) as ViewingFeedback),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** What an agenda page asks for. */
export interface AgendaQuery {
  /** A local date `YYYY-MM-DD` of the business; today when absent or not a date. */
  date?: string;
  view: 'day' | 'week';
  /** One agent's viewings; every agent's when null. */
  userId: number | null;
}

/** One local day of an agenda and its viewings in time order. */
export interface AgendaDay {
  date: string;
  viewings: NamedViewing[];
}

/**
 * The agenda: the viewings (any status) starting on the local day `date`, or in its week (Monday
 * to Sunday), of one agent or of all.
 * @returns `{zone, today, date, view, days: [{date, viewings}] (every day of the range, empty
 *   ones too), previous, next (the date a day or a week before and after), truncated (more than
 *   {@link AGENDA_MAX} viewings: the later ones are left out), clashes (the ids of `requested`
 *   viewings that a scheduled or confirmed viewing of the same agent overlaps: the agency booked
 *   over them, services/viewings/booking.ts, and the agent moves or cancels them)}`.
 */
export async function agendaOf(db: Db, businessId: number, query: AgendaQuery, now: number = Date.now()) {
  const { zone } = await businessClock(db, businessId);
  const today = localDate(now, zone);
  const date = query.date !== undefined && isCalendarDate(query.date) ? query.date : today;
  const first = query.view === 'week' ? weekStart(date) : date;
  const count = query.view === 'week' ? 7 : 1;
  const filters: NamedViewingFilters = {
    userId: query.userId ?? undefined,
    from: toRfc3339(new Date(dayStart(first, zone))),
    to: toRfc3339(new Date(dayStart(addDays(first, count), zone))),
  };
  const rows = (await listNamedViewings(db, businessId, filters, AGENDA_MAX + 1)).map(named);
  const days: AgendaDay[] = Array.from({ length: count }, (_, i) => ({ date: addDays(first, i), viewings: [] }));
  const byDate = new Map(days.map((day) => [day.date, day]));
  for (const viewing of rows.slice(0, AGENDA_MAX)) byDate.get(localDate(Date.parse(viewing.starts_at), zone))?.viewings.push(viewing);
  return {
    zone,
    today,
    date,
    view: query.view,
    days,
    previous: addDays(date, -count),
    next: addDays(date, count),
    truncated: rows.length > AGENDA_MAX,
    clashes: requestClashes(rows),
  };
}

/** The ids of the `requested` viewings among `rows` that a `scheduled` or `confirmed` one of the same agent overlaps. */
export function requestClashes(rows: readonly NamedViewing[]): number[] {
  const holding = rows.filter((v) => v.status === 'scheduled' || v.status === 'confirmed');
  return rows
    .filter((r) => r.status === 'requested')
    .filter((r) => holding.some((h) => h.user_id === r.user_id && h.starts_at < r.ends_at && r.starts_at < h.ends_at))
    .map((r) => r.id);
}

/**
 * The viewings of a lead or of a listing, latest first, {@link VIEWINGS_SHOWN} at most, with the
 * business's time zone to show them in.
 */
export async function viewingsOf(
  db: Db,
  businessId: number,
  of: { leadId: number } | { propertyId: number },
): Promise<{ zone: string; viewings: NamedViewing[] }> {
  const [{ zone }, rows] = [await businessClock(db, businessId), await listNamedViewings(db, businessId, of, VIEWINGS_SHOWN, 'desc')];
  return { zone, viewings: rows.map(named) };
}

/** The business's viewing `id` with its names, and the business's clock. @throws InmoError VIEWING_NOT_FOUND. */
export async function viewingInFull(db: Db, businessId: number, id: number): Promise<{ clock: BusinessClock; viewing: NamedViewing }> {
  const [row] = isRowId(id) ? await listNamedViewings(db, businessId, { id }, 1) : [];
  if (!row) throw new InmoError('VIEWING_NOT_FOUND', { id });
  return { clock: await businessClock(db, businessId), viewing: named(row) };
}

/** A field of the console's viewing forms. */
export type ViewingFormField = 'property_id' | 'property_ref' | 'lead_id' | 'date' | 'time' | 'duration_minutes' | 'user_id' | 'kind';

/**
 * Why a field was refused: `required` (nothing chosen), `date` (not a date), `time` (not `HH:MM`),
 * `time_skipped` (a local time the change to summer time skips), `past`, `horizon` (more than
 * INMO_VIEWING_HORIZON_DAYS ahead), `outside_hours` (not within one period of the day's viewing
 * hours), `taken` (the agent, or every agent of the listing, has another viewing then, requests
 * aside), `lead_busy` (the lead has another viewing then), `not_found` (no such listing or lead in
 * the business), `agent` (not an active user of the business), `duration` (not 5 to 240 minutes),
 * `not_owner` (a valuation of a lead not `propietario`, or at a listing not linked to it), `kind`
 * (neither `visit` nor `valuation`).
 */
export type ViewingFormReason =
  | 'required'
  | 'date'
  | 'time'
  | 'time_skipped'
  | 'past'
  | 'horizon'
  | 'outside_hours'
  | 'taken'
  | 'lead_busy'
  | 'not_found'
  | 'agent'
  | 'duration'
  | 'not_owner'
  | 'kind';

/** A form's fields refused, each with why; nothing was stored. */
export class ViewingFormError extends Error {
  constructor(readonly faults: Array<{ field: ViewingFormField; reason: ViewingFormReason }>) {
    super(`Viewing form refused: ${faults.map((f) => `${f.field} ${f.reason}`).join(', ')}`);
  }
}

/** A booking as the console's form gives it. */
export interface LocalBooking {
  /** The listing by id, or by its reference (`propertyRef`, which wins when given). */
  propertyId: number | null;
  propertyRef?: string | null;
  leadId: number | null;
  /** The business's local date `YYYY-MM-DD` and time `HH:MM`. */
  date: string;
  time: string;
  /** Minutes, {@link VIEWING_MINUTES} by default. */
  durationMinutes?: number;
  /** The agent; null: the listing's agent, else a free active user (the lead's own first). */
  userId: number | null;
  /** `visit` (the default) or `valuation` (an owner's home, CONTRACT §24). */
  kind?: ViewingKind;
}

/**
 * The instant of a local date and time of the business, checked as a viewing's start: a real
 * date and time, existing in its zone, in the future, at most INMO_VIEWING_HORIZON_DAYS ahead, and
 * (with `minutes`) within viewing hours.
 * @throws ViewingFormError at `date` or `time`.
 */
function checkedStart(clock: BusinessClock, date: string, time: string, minutes: number, now: number): number {
  const faults: ViewingFormError['faults'] = [];
  if (!isCalendarDate(date)) faults.push({ field: 'date', reason: date === '' ? 'required' : 'date' });
  if (!isLocalTime(time)) faults.push({ field: 'time', reason: time === '' ? 'required' : 'time' });
  if (faults.length) throw new ViewingFormError(faults);
  const start = localInstant(date, time, clock.zone);
  if (start === null) throw new ViewingFormError([{ field: 'time', reason: 'time_skipped' }]);
  if (start <= now) throw new ViewingFormError([{ field: date < localDate(now, clock.zone) ? 'date' : 'time', reason: 'past' }]);
  if (start > now + viewingRulesFromEnv().horizonDays * 86_400_000) throw new ViewingFormError([{ field: 'date', reason: 'horizon' }]);
  if (!withinViewingHours(clock.zone, clock.hours, start, start + minutes * 60_000)) {
    throw new ViewingFormError([{ field: 'time', reason: 'outside_hours' }]);
  }
  return start;
}

/** A time the services refused after the form's checks (a race with the clock, or the hours changed): outside hours. */
const refusedTime = (error: unknown) =>
  error instanceof RequestValidationError ? new ViewingFormError([{ field: 'time', reason: 'outside_hours' }]) : error;

/**
 * Books a viewing from the console: source `console`, status `scheduled`, any listing of the
 * business (published or not), through {@link bookViewing} (event `viewing.scheduled`).
 * @param now the instant of the booking, epoch ms (tests).
 * @returns the viewing as the API shows it.
 * @throws ViewingFormError (every fault of the form at once where it can: a missing listing or
 *   lead, a bad date, time or duration; then the time's own faults, then the booking's).
 */
export async function bookFromConsole(db: Db, businessId: number, booking: LocalBooking, now: number = Date.now()): Promise<Viewing> {
  const minutes = booking.durationMinutes ?? VIEWING_MINUTES;
  const faults: ViewingFormError['faults'] = [];
  const ref = booking.propertyRef?.trim() ?? '';
  let propertyId = booking.propertyId;
  if (ref !== '') {
    propertyId = (await findIdsByRef(db, businessId, [ref])).get(ref) ?? null;
    if (propertyId === null) faults.push({ field: 'property_ref', reason: 'not_found' });
  } else if (propertyId === null) faults.push({ field: 'property_id', reason: 'required' });
  else if (!isRowId(propertyId)) faults.push({ field: 'property_id', reason: 'not_found' });
  if (booking.leadId === null) faults.push({ field: 'lead_id', reason: 'required' });
  else if (!isRowId(booking.leadId)) faults.push({ field: 'lead_id', reason: 'not_found' });
  if (booking.userId !== null && !isRowId(booking.userId)) faults.push({ field: 'user_id', reason: 'agent' });
  if (!Number.isInteger(minutes) || minutes < MIN_VIEWING_MINUTES || minutes > MAX_VIEWING_MINUTES)
    faults.push({ field: 'duration_minutes', reason: 'duration' });
  const clock = await businessClock(db, businessId);
  let start: number | null = null;
  try {
    start = checkedStart(clock, booking.date, booking.time, minutes, now);
  } catch (error) {
    if (!(error instanceof ViewingFormError)) throw error;
    faults.push(...error.faults);
  }
  if (faults.length || start === null || propertyId === null || booking.leadId === null) throw new ViewingFormError(faults);
  const writes: LeadWrites = { run: (work) => transact(db, work) };
  try {
    const { viewing } = await bookViewing(writes, businessId, {
      propertyId,
      startsAt: start,
      durationMinutes: minutes,
      lead: { id: booking.leadId },
      status: 'scheduled',
      source: 'console',
      kind: booking.kind,
      userId: booking.userId ?? undefined,
      listedOnly: false,
      // An agent may book any minute within viewing hours (the grid binds the website and the API).
      offGrid: true,
      now,
    });
    return viewing;
  } catch (error) {
    if (error instanceof InmoError) {
      const fault = BOOKING_FAULTS[error.code];
      if (fault) throw new ViewingFormError([ref !== '' && fault.field === 'property_id' ? { ...fault, field: 'property_ref' } : fault]);
    }
    throw refusedTime(error);
  }
}

/** The booking's refusals as faults of the form. */
const BOOKING_FAULTS: Partial<Record<string, { field: ViewingFormField; reason: ViewingFormReason }>> = {
  PROPERTY_NOT_FOUND: { field: 'property_id', reason: 'not_found' },
  LEAD_NOT_FOUND: { field: 'lead_id', reason: 'not_found' },
  VIEWING_AGENT_UNKNOWN: { field: 'user_id', reason: 'agent' },
  VIEWING_SLOT_TAKEN: { field: 'time', reason: 'taken' },
  VIEWING_LEAD_BUSY: { field: 'time', reason: 'lead_busy' },
  VIEWING_DURATION: { field: 'duration_minutes', reason: 'duration' },
  VALUATION_NOT_OWNER: { field: 'property_id', reason: 'not_owner' },
};

/**
 * Moves viewing `id` to a local date and time of the business (its length kept), through
 * {@link changeViewing} (event `viewing.updated`; a confirmed viewing goes back to scheduled).
 * @throws ViewingFormError at `date` or `time` (a bad, skipped, past or taken time, or one
 *   outside viewing hours); InmoError VIEWING_NOT_FOUND, VIEWING_ACTION_REFUSED (409: a viewing
 *   over or cancelled).
 */
export async function rescheduleFromConsole(
  db: Db,
  businessId: number,
  id: number,
  at: { date: string; time: string },
  now: number = Date.now(),
): Promise<Viewing> {
  const { clock, viewing } = await viewingInFull(db, businessId, id);
  // A viewing that cannot move says so before anything about the time typed.
  if (nextStatus(viewing.status, 'reschedule') === null)
    throw new InmoError('VIEWING_ACTION_REFUSED', { action: 'reschedule', status: viewing.status });
  const minutes = (Date.parse(viewing.ends_at) - Date.parse(viewing.starts_at)) / 60_000;
  const start = checkedStart(clock, at.date, at.time, minutes, now);
  try {
    return await changeViewing(db, businessId, id, { action: 'reschedule', startsAt: start }, { now });
  } catch (error) {
    if (error instanceof InmoError && error.code === 'VIEWING_SLOT_TAKEN') throw new ViewingFormError([{ field: 'time', reason: 'taken' }]);
    throw refusedTime(error);
  }
}
