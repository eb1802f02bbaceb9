/**
 * `send_message`: delivers an agent's reply (`inmo conversations reply`, CONTRACT §10, §25) at
 * most once: by WhatsApp inside the lead's 24-hour window (jobs/deliver.ts), or by e-mail
 * (jobs/deliver-email.ts, as a reply in the thread of the lead's e-mails), by the message's kind.
 */
import type { Db } from '../../db/database.ts';
import { findMessage } from '../../db/repositories/messaging.ts';
import { deliverMessage, INTERRUPTED_EMAIL, settleParkedDelivery } from '../deliver.ts';
import { deliverEmail } from '../deliver-email.ts';
import { defineTask, type TaskContext } from '../task.ts';

async function run(ctx: TaskContext<'send_message'>): Promise<void> {
  const messageId = ctx.payload.message_id;
  const message = await findMessage(ctx.db, messageId);
  if (message?.kind === 'email') return deliverEmail(ctx, messageId, { reply: true });
  await deliverMessage(ctx, messageId);
}

async function onParked(db: Db, job: { payload: { message_id: number } }, reason: string, now: string): Promise<void> {
  const messageId = job.payload.message_id;
  const message = await findMessage(db, messageId);
  await settleParkedDelivery(db, messageId, reason, now, message?.kind === 'email' ? INTERRUPTED_EMAIL : undefined);
}

export const sendMessageTask = defineTask<'send_message'>({ run, onParked });
