/**
 * `send_message`: delivers an agent's reply (`inmo conversations reply`, CONTRACT §10) at
 * most once, inside the lead's 24-hour window (jobs/deliver.ts).
 */
import type { Db } from '../../db/database.ts';
import { deliverMessage, settleParkedDelivery } from '../deliver.ts';
import { defineTask, type TaskContext } from '../task.ts';

const messageOf = (payload: string | null) => (JSON.parse(payload ?? '{}') as { message_id?: number }).message_id;

async function run(ctx: TaskContext): Promise<void> {
  const messageId = messageOf(ctx.job.payload);
  if (messageId !== undefined) await deliverMessage(ctx, messageId);
}

async function onParked(db: Db, job: { payload: string | null }, reason: string, now: string): Promise<void> {
  const messageId = messageOf(job.payload);
  if (messageId !== undefined) await settleParkedDelivery(db, messageId, reason, now);
}

export const sendMessageTask = defineTask({ run, onParked });
