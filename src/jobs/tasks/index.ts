/** Job kind → task. One file per task, named after its job kind. */
import type { Task } from '../worker.ts';
import { followUp } from './follow-up.ts';
import { matchLead } from './match-lead.ts';
import { scheduleFollowUps } from './schedule-follow-ups.ts';
import { sendWelcome } from './send-welcome.ts';

export const TASKS: Readonly<Record<string, Task>> = {
  match_lead: matchLead,
  send_welcome: sendWelcome,
  schedule_follow_ups: scheduleFollowUps,
  follow_up: followUp,
};
