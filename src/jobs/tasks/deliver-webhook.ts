/**
 * `deliver_webhook`: one attempt of one event's delivery to a webhook endpoint (CONTRACT §13;
 * services/integrations/outgoing-webhooks.ts). A failed attempt is not a failed job: the delivery's own
 * schedule (about 77 h) queues the next attempt in the transaction that records this one.
 */
import { attemptDelivery } from '../../services/integrations/outgoing-webhooks.ts';
import { defineTask, type TaskContext } from '../task.ts';

async function run(ctx: TaskContext<'deliver_webhook'>): Promise<void> {
  const deliveryId = ctx.payload.delivery_id;
  const outcome = await attemptDelivery(
    ctx.db,
    deliveryId,
    () => new Date(Date.parse(ctx.now())),
    (effects) => ctx.finish(effects),
    ctx.outbound,
  );
  if (outcome !== 'gone') ctx.log({ delivery_id: deliveryId, ...outcome }, 'webhook delivery attempt');
}

export const deliverWebhookTask = defineTask<'deliver_webhook'>({ run });
