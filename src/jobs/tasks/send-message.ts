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

const messageOf = (payload: string | null) => (JSON.parse(payload ?? '{}') as { message_id?: number }).message_id;

async function run(ctx: TaskContext): Promise<void> {
  const messageId = messageOf(ctx.job.payload);
  if (messageId === undefined) return;
  const message = await findMessage(ctx.db, messageId);
  if (message?.kind === 'email') return deliverEmail(ctx, messageId, { reply: true });
  await deliverMessage(ctx, messageId);
}

async function onParked(db: Db, job: { payload: string | null }, reason: string, now: string): Promise<void> {
  const messageId = messageOf(job.payload);
  if (messageId === undefined) return;
  const message = await findMessage(db, messageId);
  await settleParkedDelivery(db, messageId, reason, now, message?.kind === 'email' ? INTERRUPTED_EMAIL : undefined);
}

export const sendMessageTask = defineTask({ run, onParked });
