/**
 * `send_viewing_notice`: sends what a lead is told about a viewing (CONTRACT §20), queued with
 * the change that calls for it or by the worker's reminders (services/viewings/notices.ts);
 * payload `{"message_id": int}`. A WhatsApp template (jobs/deliver.ts) or an e-mail
 * (jobs/deliver-email.ts), by the message's kind, sent at most once by the welcome's rule: a
 * crash between the send and its record leaves it `needs_reconciliation`, never sent twice; a
 * failure is retried with the job's backoff; a parked job leaves it `failed` or
 * `needs_reconciliation`, never half-way. A template that fails for good (never one whose outcome
 * is unknown) is replaced by an e-mail when the lead has an address, once per notice, so that one
 * notice reaches the person whatever the channel.
 */
import type { Db } from '../../db/database.ts';
import { findMessage } from '../../db/repositories/messaging.ts';
import { deliverMessage, INTERRUPTED_EMAIL, settleParkedDelivery } from '../deliver.ts';
import { deliverEmail } from '../deliver-email.ts';
import { findNoticeOfMessage } from '../../db/repositories/viewing-notices.ts';
import { queueNoticeFallback } from '../../services/viewings/notices.ts';
import { defineTask, PermanentJobError } from '../task.ts';

export const sendViewingNoticeTask = defineTask<'send_viewing_notice'>({
  async run(ctx) {
    const messageId = ctx.payload.message_id;
    const message = await findMessage(ctx.db, messageId);
    if (!message) return;
    if (message.kind === 'email') return deliverEmail(ctx, message.id);
    let refused: unknown = null;
    try {
      await deliverMessage(ctx, message.id);
    } catch (error) {
      if (!(error instanceof PermanentJobError)) throw error;
      refused = error;
    }
    // Only a template that certainly did not go out is replaced.
    const fallback =
      (await findMessage(ctx.db, message.id))?.state === 'failed' ? await queueNoticeFallback(ctx.db, message.id, ctx.now()) : null;
    if (fallback === null) {
      if (refused) throw refused;
      return;
    }
    await deliverEmail(ctx, fallback);
  },
  async onParked(db: Db, job, reason, now) {
    const messageId = job.payload.message_id;
    const message = await findMessage(db, messageId);
    if (!message) return;
    await settleParkedDelivery(db, message.id, reason, now, message.kind === 'email' ? INTERRUPTED_EMAIL : undefined);
    const fallback = (await findNoticeOfMessage(db, message.id))?.fallback_message_id;
    if (fallback) await settleParkedDelivery(db, fallback, reason, now, INTERRUPTED_EMAIL);
  },
});
