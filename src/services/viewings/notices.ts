/**
 * The lead is told (CONTRACT §20, issue 44): when the agency schedules a viewing (or accepts a
 * requested one), moves it or cancels it, and `INMO_VIEWING_REMINDER_HOURS` before it.
 *
 * - **Which channel**, decided when the notice is queued, in the transaction of the change, by the
 *   purpose's rule (services/messaging/purposes/viewing-notice.ts `noticeCarrier`): the business's
 *   WhatsApp template for the purpose, else an e-mail, else nothing (the notice row is kept,
 *   without a message).
 * - **Durably, once.** A notice is a `viewing_notices` row and its message (`author = 'viewing'`,
 *   `pending`) queued in the outbox with its `send_message` job (services/messaging/outbox.ts),
 *   committed with the change; the outbox's delivery sends it once (services/messaging/delivery.ts).
 *   What it says is written when its send is claimed, from the viewing as it is then, and a
 *   template that fails for good is replaced by an e-mail once: the purposes `viewing-notice` and
 *   `viewing-reminder` (services/messaging/purposes/viewing-notice.ts, viewing-reminder.ts).
 * - **Reminders** are found by the worker ({@link composeDueReminders}): `scheduled` and
 *   `confirmed` viewings starting within the reminder hours; one per viewing and start time (a
 *   partial unique index), so a moved viewing gets a new one and a start time never two. A
 *   viewing whose time the lead was told within those hours gets none (the row is kept).
 * - **Answers.** The template's quick-reply buttons ("Confirmar", "Cancelar") carry the payloads
 *   `viewing:<id>:confirm|cancel`; their replies come through the WhatsApp webhook
 *   (services/viewings/answers.ts `answerViewingButton`). The e-mail carries two one-click links `/v/<token>` (256
 *   random bits, base64url; only the SHA-256 kept, `viewing_links`) whose page shows the viewing
 *   and one button that posts the answer (a GET changes nothing: mail scanners follow links),
 *   then says in the lead's language what happened. Both go through services/viewings/transitions.ts,
 *   so `viewing.updated` is recorded as for any change.
 */
import type { Db, Executor } from '../../db/database.ts';
import { findLead } from '../../db/repositories/leads.ts';
import { findTimeNotice, insertNotice, listReminderCandidates, setNoticeMessage } from '../../db/repositories/viewing-notices.ts';
import { findViewing, type ViewingRow } from '../../db/repositories/viewings.ts';
import { transact } from '../../db/transaction.ts';
import type { NoticePurpose } from '../../domain/messaging/viewing-notice.ts';
import type { ViewingAction, ViewingStatus } from '../../domain/viewings/status.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { queueMessage } from '../messaging/outbox.ts';
import { noticeCarrier } from '../messaging/purposes/viewing-notice.ts';

export { VIEWING_AUTHOR, VIEWING_LINK_PATH } from '../messaging/purposes/viewing-notice.ts';

const HOUR_MS = 3_600_000;

/**
 * What a change tells the lead: a requested viewing accepted is `scheduled`; a new time of a
 * viewing the lead was told of (it is `scheduled` after it) is `rescheduled`; a cancellation is
 * `cancelled`; anything else (done, no show, feedback, a requested viewing moved) nothing.
 */
export function noticeOfChange(before: ViewingStatus, after: ViewingStatus, action: ViewingAction): NoticePurpose | null {
  if (action === 'confirm' && before === 'requested' && after === 'scheduled') return 'scheduled';
  if (action === 'reschedule' && after === 'scheduled') return 'rescheduled';
  if (action === 'cancel' && after === 'cancelled') return 'cancelled';
  return null;
}

/** A notice's row, without its message yet. */
const noticeRow = (viewing: ViewingRow, purpose: NoticePurpose, at: string) => ({
  business_id: viewing.business_id,
  lead_id: viewing.lead_id,
  viewing_id: viewing.id,
  purpose,
  starts_at: viewing.starts_at,
  sequence: viewing.sequence,
  message_id: null,
  created_at: at,
});

/**
 * Queues the lead's notice of `viewing` (as it is after the change) in the caller's transaction:
 * the notice row, and when a channel can carry it, its message and job (the outbox).
 * @param at the instant of the change, canonical RFC 3339 (the job is due then).
 * @returns the message's id; null when nothing can carry it, or for a reminder its start time
 *   already has.
 */
export async function queueViewingNotice(trx: Executor, viewing: ViewingRow, purpose: NoticePurpose, at: string): Promise<number | null> {
  const noticeId = await insertNotice(trx, noticeRow(viewing, purpose, at));
  if (noticeId === undefined) return null;
  const lead = await findLead(trx, viewing.lead_id, viewing.business_id);
  if (!lead) return null;
  const message = await noticeCarrier(trx, lead, purpose, viewing.kind);
  if (message === null) return null;
  const messageId = await queueMessage(trx, {
    lead,
    purpose: purpose === 'reminder' ? 'viewing-reminder' : 'viewing-notice',
    ...message,
    at,
  });
  if (messageId === undefined) return null;
  await setNoticeMessage(trx, noticeId, messageId);
  return messageId;
}

/**
 * Queues the reminders due now (the worker, once a minute): `scheduled` and `confirmed` viewings
 * starting after `now` and within `hours`, each in a transaction of its own that locks the
 * viewing and looks again. A viewing whose time the lead was told within those hours gets a
 * reminder row without a message.
 * @param hours `INMO_VIEWING_REMINDER_HOURS`.
 * @returns how many reminders were queued with a message.
 */
export async function composeDueReminders(db: Db, now: Date, hours: number, limit = 500): Promise<number> {
  const at = toRfc3339(now);
  const until = toRfc3339(new Date(now.getTime() + hours * HOUR_MS));
  let queued = 0;
  for (const candidate of await listReminderCandidates(db, at, until, limit)) {
    const sent = await transact(db, async (trx) => {
      const viewing = await findViewing(trx, candidate.business_id, candidate.id, true);
      if (!viewing || (viewing.status !== 'scheduled' && viewing.status !== 'confirmed')) return false;
      if (viewing.starts_at <= at || viewing.starts_at > until) return false;
      const told = await findTimeNotice(trx, viewing.id, viewing.starts_at);
      const remindAt = toRfc3339(new Date(Date.parse(viewing.starts_at) - hours * HOUR_MS));
      if (told && told.created_at >= remindAt) {
        await insertNotice(trx, noticeRow(viewing, 'reminder', at));
        return false;
      }
      return (await queueViewingNotice(trx, viewing, 'reminder', at)) !== null;
    });
    if (sent) queued++;
  }
  return queued;
}
