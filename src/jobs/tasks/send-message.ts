/**
 * `send_message`: sends one queued message of the outbox (services/messaging/outbox.ts), whatever
 * its purpose; payload `{"message_id": int}`. The delivery (services/messaging/delivery.ts) claims
 * the send once, writes what its purpose says, and goes through the channel adapters: a crash
 * between the send and its record leaves the message `needs_reconciliation`, never sent twice; a
 * failure is retried with the job's backoff; a message refused for good parks the job, after its
 * purpose's replacement (an e-mail in place of a notice's template) was tried; a parked job leaves
 * its message, and the one queued in its place, `failed` or `needs_reconciliation`, never half-way.
 *
 * `send_alert` and `send_viewing_notice`, the kinds digests and notices were queued with before,
 * run this same task (jobs/tasks/index.ts): rows of theirs still stored are sent the same way.
 */
import { deliverQueuedMessage, SendRefusedError, settleParkedMessage, type DeliveryContext } from '../../services/messaging/delivery.ts';
import { failpoint } from '../failpoints.ts';
import { defineTask, PermanentJobError, type TaskContext } from '../task.ts';

/** What the outbox's delivery needs, from a job's context: its clock, settings, attempts and failpoints. */
export function deliveryContext(ctx: TaskContext): DeliveryContext {
  return {
    db: ctx.db,
    now: ctx.now,
    outbound: ctx.outbound,
    sendTimeoutMs: ctx.settings.sendTimeoutMs,
    attempts: ctx.job.attempts,
    finalAttempt: ctx.finalAttempt,
    failpoint,
  };
}

/**
 * Delivers the message `messageId` in a job: a send refused for good parks the job
 * (PermanentJobError, with the delivery's words); any other error retries it.
 */
export async function deliverInJob(ctx: TaskContext, messageId: number): Promise<void> {
  try {
    await deliverQueuedMessage(deliveryContext(ctx), messageId);
  } catch (error) {
    if (error instanceof SendRefusedError) throw new PermanentJobError(error.message);
    throw error;
  }
}

/** The task of `send_message` and of the kinds it replaced (they carry the same payload). */
export const sendMessageTask = defineTask<'send_message' | 'send_alert' | 'send_viewing_notice'>({
  run: (ctx) => deliverInJob(ctx, ctx.payload.message_id),
  onParked: (db, job, reason, now) => settleParkedMessage(db, job.payload.message_id, reason, now),
});
