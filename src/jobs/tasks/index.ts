/**
 * Job kind → task: one file per task, named after its job kind. `satisfies` makes a job kind
 * without a task (or a task for no kind) a compile error.
 */
import { isJobKind, type JobKind } from '../../db/job-kinds.ts';
import type { TaskDefinition } from '../task.ts';
import { assistantReplyTask } from './assistant-reply.ts';
import { deliverWebhookTask } from './deliver-webhook.ts';
import { followUpTask } from './follow-up.ts';
import { matchLeadTask } from './match-lead.ts';
import { rematchCatalogueTask } from './rematch-catalogue.ts';
import { processEmailTask } from './process-email.ts';
import { processWebhookTask } from './process-webhook.ts';
import { pullEmailTask } from './pull-email.ts';
import { pullFeedTask } from './pull-feed.ts';
import { scheduleFollowUpsTask } from './schedule-follow-ups.ts';
import { sendMessageTask } from './send-message.ts';
import { sendWelcomeTask } from './send-welcome.ts';

export const TASKS = {
  match_lead: matchLeadTask,
  send_welcome: sendWelcomeTask,
  schedule_follow_ups: scheduleFollowUpsTask,
  follow_up: followUpTask,
  rematch_catalogue: rematchCatalogueTask,
  process_webhook: processWebhookTask,
  assistant_reply: assistantReplyTask,
  send_message: sendMessageTask,
  deliver_webhook: deliverWebhookTask,
  pull_feed: pullFeedTask,
  process_email: processEmailTask,
  pull_email: pullEmailTask,
  // The kinds digests and notices were queued with before the outbox: run as send_message.
  send_alert: sendMessageTask,
  send_viewing_notice: sendMessageTask,
} as const satisfies { [K in JobKind]: TaskDefinition<K> };

/**
 * The task of a stored job kind, or undefined for a kind this release does not know. Its context's
 * payload is that kind's (the worker parses it with db/job-kinds.ts `parseJobPayload` for `kind`).
 */
export function taskFor(kind: string): TaskDefinition | undefined {
  return isJobKind(kind) ? (TASKS[kind] as TaskDefinition) : undefined;
}
