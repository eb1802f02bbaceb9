/**
 * What is done to a booked viewing (CONTRACT §20): confirm, cancel, done, no show, a new time,
 * the agent's feedback; for the console's `POST /console/viewings/{id}` and the lead's answers
 * to come. Each change raises the viewing's `sequence` (iCalendar's SEQUENCE) and records the
 * event `viewing.updated`, in one transaction; which change applies to which status is
 * domain/viewings/status.ts's. A new time is checked as a booking's is (services/viewings/booking.ts):
 * in the future, within viewing hours, and free for its agent, whose row is locked first.
 *
 * A valuation visit's new status moves its owner along the pipeline in the same transaction
 * (services/leads/owners.ts `ownerMoveOnViewing`).
 *
 * The lead is told of a change the agency makes (services/viewings/notices.ts): a requested
 * viewing accepted, a new time, a cancellation; its notice is queued in the same transaction.
 * The lead's own answers (a WhatsApp button, an e-mail's link: `by: 'lead'`) only confirm a
 * `scheduled` viewing or cancel one, and are not told back.
 */
import type { Transaction } from 'kysely';
import { viewingRulesFromEnv } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/types.ts';
import { findViewing, lockAgents, updateViewing } from '../../db/repositories/viewings.ts';
import { transact } from '../../db/transaction.ts';
import { isRowId } from '../../db/database.ts';
import { freeAgent } from '../../domain/viewings/agenda.ts';
import { MAX_VIEWING_MINUTES, MIN_VIEWING_MINUTES } from '../../domain/viewings/hours.ts';
import { presentViewing, type Viewing } from '../../domain/viewings/presenter.ts';
import { isInterest, nextStatus, type ViewingAction } from '../../domain/viewings/status.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { InmoError, RequestValidationError } from '../../errors.ts';
import { recordEvent } from '../integrations/events.ts';
import { heldBetween } from './availability.ts';
import { businessClock, viewingTimeFault } from './clock.ts';
import { noticeOfChange, queueViewingNotice } from './notices.ts';
import { ownerMoveOnViewing } from '../leads/owners.ts';

const MINUTE_MS = 60_000;

/** A change to a viewing: an action, with a new time for `reschedule` and the notes for `feedback`. */
export type ViewingChange =
  | { action: Exclude<ViewingAction, 'reschedule' | 'feedback'> }
  /** `startsAt` epoch ms; the duration stays unless `durationMinutes` is given. */
  | { action: 'reschedule'; startsAt: number; durationMinutes?: number }
  /** `interest` 1–5; `comment` free text (blank: none). */
  | { action: 'feedback'; interest: number; comment?: string | null };

/**
 * Applies `change` to the business's viewing `id`.
 * @param options.now the instant of the change, epoch ms (tests); now by default.
 * @returns the viewing as it is after the change.
 * @throws InmoError VIEWING_NOT_FOUND; VIEWING_ACTION_REFUSED (409) when the action does not apply
 *   to the viewing's status; for `reschedule`, RequestValidationError (422 at `starts_at`) for a
 *   time in the past, beyond INMO_VIEWING_HORIZON_DAYS or outside viewing hours, VIEWING_DURATION,
 *   VIEWING_SLOT_TAKEN (409) when its agent has another viewing then (`requested` ones aside); for
 *   `confirm` of a `requested` viewing, VIEWING_SLOT_TAKEN when its agent has another viewing
 *   (not requested) at its time; for `feedback`, VIEWING_FEEDBACK_INTEREST.
 */
export async function changeViewing(
  db: Db,
  businessId: number,
  id: number,
  change: ViewingChange,
  options: { now?: number; by?: ChangedBy } = {},
): Promise<Viewing> {
  if (!isRowId(id)) throw new InmoError('VIEWING_NOT_FOUND', { id });
  const now = options.now ?? Date.now();
  if (change.action === 'feedback' && !isInterest(change.interest)) throw new InmoError('VIEWING_FEEDBACK_INTEREST');
  return transact(db, (trx) => changeViewingIn(trx, businessId, id, change, now, options.by ?? 'agency'));
}

/**
 * Who changes a viewing: the agency (the console, the API), or the lead answering a notice
 * (a WhatsApp button, an e-mail's link), who may only confirm a `scheduled` viewing or cancel.
 */
export type ChangedBy = 'agency' | 'lead';

/**
 * {@link changeViewing} inside the caller's transaction `trx` (the lead's WhatsApp answer is
 * applied in its webhook's processing).
 * @param now the instant of the change, epoch ms.
 * @throws as {@link changeViewing}; VIEWING_ACTION_REFUSED also for a lead's action other than
 *   confirming a `scheduled` viewing or cancelling one, or on a viewing that has begun.
 */
export async function changeViewingIn(
  trx: Transaction<Database>,
  businessId: number,
  id: number,
  change: ViewingChange,
  now: number,
  by: ChangedBy,
): Promise<Viewing> {
  if (!isRowId(id)) throw new InmoError('VIEWING_NOT_FOUND', { id });
  const viewing = await findViewing(trx, businessId, id, true);
  if (!viewing) throw new InmoError('VIEWING_NOT_FOUND', { id });
  const leadMay =
    Date.parse(viewing.starts_at) > now && (change.action === 'cancel' || (change.action === 'confirm' && viewing.status === 'scheduled'));
  const status = by === 'lead' && !leadMay ? null : nextStatus(viewing.status, change.action);
  if (status === null) throw new InmoError('VIEWING_ACTION_REFUSED', { action: change.action, status: viewing.status });
  const clock = await businessClock(trx, businessId);
  const at = toRfc3339(new Date(now));
  let set: Parameters<typeof updateViewing>[2] = { status, updated_at: at };
  if (change.action === 'reschedule') {
    const minutes = change.durationMinutes ?? (Date.parse(viewing.ends_at) - Date.parse(viewing.starts_at)) / MINUTE_MS;
    if (!Number.isInteger(minutes) || minutes < MIN_VIEWING_MINUTES || minutes > MAX_VIEWING_MINUTES)
      throw new InmoError('VIEWING_DURATION');
    const slot = { start: change.startsAt, end: change.startsAt + minutes * MINUTE_MS };
    // The agency moves a viewing as the console books one: on any minute, over requests.
    const fault = viewingTimeFault(clock, slot.start, slot.end, now, { horizonDays: viewingRulesFromEnv().horizonDays, grid: false });
    const input = toRfc3339(new Date(slot.start));
    if (fault !== null) {
      throw new RequestValidationError([
        { type: 'value_error', loc: ['body', 'starts_at'], msg: `Value error, ${fault}`, input, ctx: { error: {} } },
      ]);
    }
    await lockAgents(trx, [viewing.user_id]);
    const held = await heldBetween(trx, businessId, [viewing.user_id], slot.start, slot.end, viewing.id, false);
    if (freeAgent(slot, [viewing.user_id], held) === null) throw new InmoError('VIEWING_SLOT_TAKEN');
    set = { ...set, starts_at: input, ends_at: toRfc3339(new Date(slot.end)) };
  } else if (viewing.status === 'requested' && status === 'scheduled') {
    // A request accepted: the agency's bookings were made over requests (services/viewings/booking.ts),
    // so one that now overlaps another viewing of the agent is moved or cancelled instead.
    const slot = { start: Date.parse(viewing.starts_at), end: Date.parse(viewing.ends_at) };
    await lockAgents(trx, [viewing.user_id]);
    const held = await heldBetween(trx, businessId, [viewing.user_id], slot.start, slot.end, viewing.id, false);
    if (freeAgent(slot, [viewing.user_id], held) === null) throw new InmoError('VIEWING_SLOT_TAKEN');
  } else if (change.action === 'feedback') {
    const comment = change.comment?.trim() || null;
    set = { ...set, feedback: JSON.stringify({ interest: change.interest, comment }) };
  }
  const row = await updateViewing(trx, viewing.id, set);
  const changed = presentViewing(row, clock.zone);
  await recordEvent(trx, businessId, 'viewing.updated', viewing.lead_id, { viewing: changed }, at);
  const notice = by === 'agency' ? noticeOfChange(viewing.status, row.status, change.action) : null;
  if (notice !== null) await queueViewingNotice(trx, row, notice, at);
  if (row.status !== viewing.status) await ownerMoveOnViewing(trx, row, at);
  return changed;
}
