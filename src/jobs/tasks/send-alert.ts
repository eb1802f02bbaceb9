/**
 * `send_alert`: sends one alert digest (CONTRACT §21), queued with it (services/leads/alerts.ts);
 * payload `{"message_id": int}`, the digest's message: an e-mail (jobs/deliver-email.ts), or the
 * business's `property_alert` WhatsApp template with the link to the digest's page
 * (jobs/deliver.ts, services/leads/alert-pages.ts), by the message's kind. Sent at most once by
 * the welcome's rule: a crash between the send and its record leaves it `needs_reconciliation`,
 * never sent twice; a failure is retried with the job's backoff; a parked job leaves it `failed`
 * or `needs_reconciliation`, never half-way. A template that fails for good is not replaced by an
 * e-mail: a digest goes by WhatsApp only to a lead the business cannot e-mail.
 */
import type { Db } from '../../db/database.ts';
import { findMessage } from '../../db/repositories/messaging.ts';
import { deliverMessage, INTERRUPTED_EMAIL, settleParkedDelivery } from '../deliver.ts';
import { deliverEmail } from '../deliver-email.ts';
import { defineTask, type TaskContext } from '../task.ts';

/**
 * Sends a digest's message by its channel (`template`: WhatsApp, else e-mail); the errors are the
 * deliveries' (PermanentJobError when it failed for good, an Error to retry).
 */
export async function deliverDigest(ctx: TaskContext, messageId: number): Promise<void> {
  const message = await findMessage(ctx.db, messageId);
  if (!message) return;
  if (message.kind === 'template') return deliverMessage(ctx, messageId);
  return deliverEmail(ctx, messageId);
}

export const sendAlertTask = defineTask<'send_alert'>({
  async run(ctx) {
    const messageId = ctx.payload.message_id;
    await deliverDigest(ctx, messageId);
  },
  async onParked(db: Db, job, reason, now) {
    const messageId = job.payload.message_id;
    const message = await findMessage(db, messageId);
    if (!message) return;
    await settleParkedDelivery(db, message.id, reason, now, message.kind === 'template' ? undefined : INTERRUPTED_EMAIL);
  },
});
