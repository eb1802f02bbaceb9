/**
 * `send_viewing_notice`: sends what a lead is told about a viewing (CONTRACT §20), queued with
 * the change that calls for it or by the worker's reminders (services/viewings/notices.ts);
 * payload `{"message_id": int}`. A WhatsApp template (jobs/deliver.ts) or an e-mail
 * (jobs/deliver-email.ts), by the message's kind, sent at most once by the welcome's rule: a
 * crash between the send and its record leaves it `needs_reconciliation`, never sent twice; a
 * failure is retried with the job's backoff; a parked job leaves it `failed` or
 * `needs_reconciliation`, never half-way.
 */
import type { Db } from '../../db/database.ts';
import { findMessage } from '../../db/repositories/messaging.ts';
import { deliverMessage, INTERRUPTED_EMAIL, settleParkedDelivery } from '../deliver.ts';
import { deliverEmail } from '../deliver-email.ts';
import { defineTask } from '../task.ts';

/** The message id of a job's payload, or null. */
function messageIdOf(payload: string | null): number | null {
  try {
    const id = (JSON.parse(payload ?? 'null') as { message_id?: unknown } | null)?.message_id;
    return Number.isSafeInteger(id) ? (id as number) : null;
  } catch {
    return null;
  }
}

export const sendViewingNoticeTask = defineTask({
  async run(ctx) {
    const messageId = messageIdOf(ctx.job.payload);
    const message = messageId === null ? undefined : await findMessage(ctx.db, messageId);
    if (!message) return;
    if (message.kind === 'email') await deliverEmail(ctx, message.id);
    else await deliverMessage(ctx, message.id);
  },
  async onParked(db: Db, job, reason, now) {
    const messageId = messageIdOf(job.payload);
    const message = messageId === null ? undefined : await findMessage(db, messageId);
    if (message) await settleParkedDelivery(db, message.id, reason, now, message.kind === 'email' ? INTERRUPTED_EMAIL : undefined);
  },
});
