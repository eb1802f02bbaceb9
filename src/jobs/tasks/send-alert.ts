/**
 * `send_alert`: sends one alert digest (CONTRACT §21), queued with it (services/leads/alerts.ts);
 * payload `{"message_id": int}`, the digest's e-mail. Sent at most once by the welcome's rule
 * (jobs/deliver-email.ts): a crash between the send and its record leaves it
 * `needs_reconciliation`, never sent twice; a failure is retried with the job's backoff; a parked
 * job leaves it `failed` or `needs_reconciliation`, never half-way.
 */
import type { Db } from '../../db/database.ts';
import { INTERRUPTED_EMAIL, settleParkedDelivery } from '../deliver.ts';
import { deliverEmail } from '../deliver-email.ts';
import { defineTask } from '../task.ts';

/** The digest's message id of a job's payload, or null. */
function messageIdOf(payload: string | null): number | null {
  try {
    const id = (JSON.parse(payload ?? 'null') as { message_id?: unknown } | null)?.message_id;
    return Number.isSafeInteger(id) ? (id as number) : null;
  } catch {
    return null;
  }
}

export const sendAlertTask = defineTask({
  async run(ctx) {
    const messageId = messageIdOf(ctx.job.payload);
    if (messageId !== null) await deliverEmail(ctx, messageId);
  },
  async onParked(db: Db, job, reason, now) {
    const messageId = messageIdOf(job.payload);
    if (messageId !== null) await settleParkedDelivery(db, messageId, reason, now, INTERRUPTED_EMAIL);
  },
});
