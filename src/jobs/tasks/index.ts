/** Job kind → task. One file per task, named after its job kind. */
import type { Db } from '../../db/database.ts';
import type { Task } from '../worker.ts';
import { followUp } from './follow-up.ts';
import { matchLead } from './match-lead.ts';
import { rematchCatalogue } from './rematch-catalogue.ts';
import { scheduleFollowUps } from './schedule-follow-ups.ts';
import { sendWelcome, settleParkedWelcome } from './send-welcome.ts';

export const TASKS: Readonly<Record<string, Task>> = {
  match_lead: matchLead,
  send_welcome: sendWelcome,
  schedule_follow_ups: scheduleFollowUps,
  follow_up: followUp,
  rematch_catalogue: rematchCatalogue,
};

/** What to do when a job of a kind is parked as failed, so its records end in a final state. */
export const PARK_HANDLERS: Readonly<Record<string, (db: Db, leadId: number | null, reason: string, now: string) => Promise<void>>> = {
  send_welcome: settleParkedWelcome,
};
