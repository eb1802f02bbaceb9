/**
 * `process_webhook`: turns a stored WhatsApp webhook delivery into messages, leads,
 * conversations and statuses (CONTRACT §10, services/messaging/whatsapp-inbound.ts), all committed with the
 * job's completion. Running it again stores nothing twice.
 */
import { processWebhookEvent } from '../../services/messaging/whatsapp-inbound.ts';
import { defineTask, type TaskContext } from '../task.ts';

async function run(ctx: TaskContext<'process_webhook'>): Promise<void> {
  const eventId = ctx.payload.event_id;
  await processWebhookEvent(ctx.db, eventId, ctx.now, (effects) => ctx.finish(effects));
}

export const processWebhookTask = defineTask<'process_webhook'>({ run });
