/**
 * The recurring work of inmo, as data (issue 56 item 2): one list of schedules, each with its
 * name, its period and the work it starts, in the manner of graphile-worker's crontab and
 * immich's cron jobs. The worker (jobs/worker.ts) looks at it before each claim of jobs; a
 * schedule's run is an ordinary piece of the worker's work (logged by the worker, a failure
 * logged and tried again the next period) and whatever it queues (digests' and reminders'
 * `send_message` jobs) is claimed like any other job. `inmo jobs schedules` lists them with their
 * last and next run ({@link listSchedules}).
 *
 * Once per period between all the workers: a worker looks at a schedule at most once per period
 * by its own clock (in memory, so idle workers do not write), and a look runs the work only when
 * it claims the schedule's row of `schedule_runs` (migration 0058, db/repositories/schedules.ts):
 * one conditional upsert that one worker alone wins per period. The work itself stays idempotent
 * besides (one digest per lead and round, one reminder per viewing and start time: unique
 * indexes; an erasure or a purge done twice finds nothing the second time), so a run that fails
 * half way, or a clock set back, does no harm.
 *
 * Feed and mailbox pulls each run by their own period (`every_minutes`), as a chain of `pull_feed`
 * / `pull_email` jobs (services/scheduled-pulls.ts); the schedule here, `pull_chains`, starts again
 * a chain that ended. The purge of expired Idempotency-Keys is not here: the server runs it beside
 * its requests (services/integrations/idempotency.ts).
 */
import type { Db } from '../db/database.ts';
import { purgeEventsBefore } from '../db/repositories/events.ts';
import { claimScheduleRun, listScheduleRuns } from '../db/repositories/schedules.ts';
import { toRfc3339 } from '../domain/time.ts';
import { EVENT_TTL_MS } from '../services/integrations/events.ts';
import { composeDueAlerts } from '../services/leads/alerts.ts';
import { purgeOldInboundEmails } from '../services/leads/email-intake.ts';
import { eraseQuietLeads } from '../services/leads/erasure.ts';
import { composeDueReminders } from '../services/viewings/notices.ts';
import { FEED_PULLS } from '../services/catalogue/feeds/pulls.ts';
import { EMAIL_PULLS } from '../services/leads/email-pulls.ts';
import { restartPullChains } from '../services/scheduled-pulls.ts';
import { expireDueMandates } from '../services/owners/mandates.ts';
import { composeDueReports } from '../services/owners/owner-reports.ts';
import type { WorkerSettings } from './settings.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** What a schedule's run is given. */
export interface ScheduleContext {
  db: Db;
  /** The worker clock's instant of the run. */
  now: Date;
  settings: WorkerSettings;
  /** Logs a line at info level (the worker's logger). No personal data. */
  log(fields: object, message: string): void;
}

/** One kind of recurring work. */
export interface Schedule {
  /** Its name: stable, the key of its row in `schedule_runs`. */
  name: string;
  /** What it does, for `inmo jobs schedules`. */
  description: string;
  /** How often it runs, ms. */
  everyMs: number;
  /**
   * For work done once a day at an hour of each business's own time (the alert round,
   * `INMO_ALERT_HOUR`): that hour. The schedule then looks every {@link everyMs} and the work
   * itself finds the businesses whose hour has come.
   */
  dailyHour?(settings: WorkerSettings): number;
  /** Whether it runs at all under these settings (a setting may turn it off). */
  enabled(settings: WorkerSettings): boolean;
  /**
   * Does the work. @returns the jobs it queued (the worker then claims again at once), or 0.
   * Throws on failure: logged with {@link failure}, and tried again at the next period.
   */
  run(ctx: ScheduleContext): Promise<number>;
  /** The log line of a failed run. */
  failure: string;
}

const always = () => true;

/** The recurring work, in the order a worker looks at it. */
export const SCHEDULES: readonly Schedule[] = [
  {
    name: 'events_purge',
    description: 'deletes events older than 30 days and their webhook deliveries (CONTRACT §13)',
    everyMs: HOUR_MS,
    enabled: always,
    async run({ db, now, log }) {
      const purged = await purgeEventsBefore(db, toRfc3339(new Date(now.getTime() - EVENT_TTL_MS)));
      if (purged) log({ purged }, 'worker: deleted events older than 30 days');
      return 0;
    },
    failure: 'worker: deleting old events failed; it is tried again in an hour',
  },
  {
    name: 'inbound_emails_purge',
    description: 'deletes portal e-mails received more than 30 days ago (CONTRACT §19)',
    everyMs: HOUR_MS,
    enabled: always,
    async run({ db, now, log }) {
      const purged = await purgeOldInboundEmails(db, now);
      if (purged) log({ purged }, 'worker: deleted inbound e-mails older than 30 days');
      return 0;
    },
    failure: 'worker: deleting old inbound e-mails failed; it is tried again in an hour',
  },
  {
    name: 'lead_retention',
    description: 'erases the leads quiet for longer than INMO_LEAD_RETENTION_DAYS (CONTRACT §18); off when unset',
    everyMs: DAY_MS,
    enabled: (settings) => settings.leadRetentionDays !== null,
    async run({ db, now, settings, log }) {
      const days = settings.leadRetentionDays!;
      const erased = await eraseQuietLeads(db, days, now);
      if (erased) log({ erased, days }, 'worker: erased leads past their retention');
      return 0;
    },
    failure: 'worker: retention failed; it runs again tomorrow',
  },
  {
    name: 'alert_round',
    description:
      "composes the day's alert digests of each business whose INMO_ALERT_HOUR has come, in its time zone (CONTRACT §21); their send_message jobs follow",
    everyMs: MINUTE_MS,
    dailyHour: (settings) => settings.alertHour,
    enabled: always,
    async run({ db, now, settings, log }) {
      const written = await composeDueAlerts(db, now, settings.alertHour);
      if (written) log({ digests: written }, 'worker: composed the alert digests of the day');
      return written;
    },
    failure: 'worker: composing alert digests failed; it is tried again in a minute',
  },
  {
    name: 'viewing_reminders',
    description:
      'queues the reminders of viewings starting within INMO_VIEWING_REMINDER_HOURS (CONTRACT §20); off at 0; their send_message jobs follow',
    everyMs: MINUTE_MS,
    enabled: (settings) => settings.viewingReminderHours > 0,
    async run({ db, now, settings, log }) {
      const queued = await composeDueReminders(db, now, settings.viewingReminderHours);
      if (queued) log({ reminders: queued }, 'worker: queued viewing reminders');
      return queued;
    },
    failure: 'worker: queueing viewing reminders failed; it is tried again in a minute',
  },
  {
    name: 'mandate_expiry',
    description:
      'expires the signed mandates whose end passed in their business’s day, taking their listings off the public catalogue unless the owner keeps them listed (CONTRACT §24)',
    everyMs: HOUR_MS,
    enabled: always,
    async run({ db, now, log }) {
      const expired = await expireDueMandates(db, now, 500, log);
      if (expired) log({ mandates: expired }, 'worker: expired mandates');
      return expired;
    },
    failure: 'worker: expiring mandates failed; it is tried again in an hour',
  },
  {
    name: 'owner_reports',
    description:
      'composes the reports due to owners with a signed mandate (every INMO_OWNER_REPORT_DAYS days, or the owner’s choice) once INMO_ALERT_HOUR has come in their business’s day, until 21:00 (CONTRACT §24); their send_message jobs follow',
    everyMs: 10 * MINUTE_MS,
    enabled: always,
    async run({ db, now, settings, log }) {
      const { messages } = await composeDueReports(db, now, settings);
      if (messages.length) log({ reports: messages.length }, 'worker: composed owner reports');
      return messages.length;
    },
    failure: 'worker: composing owner reports failed; it is tried again in 10 minutes',
  },
  {
    name: 'pull_chains',
    description:
      'queues a run at once of every feed source and mailbox whose chain of pulls ended (its last run failed all its attempts); each otherwise pulls by its own period (CONTRACT §15, §19)',
    everyMs: 10 * MINUTE_MS,
    enabled: always,
    async run({ db, now, log }) {
      const at = toRfc3339(now);
      const feeds = await restartPullChains(db, FEED_PULLS, at);
      const mailboxes = await restartPullChains(db, EMAIL_PULLS, at);
      if (feeds + mailboxes) log({ feeds, mailboxes }, 'worker: started again pulls whose runs had stopped');
      return feeds + mailboxes;
    },
    failure: 'worker: looking for stopped pulls failed; it is tried again in 10 minutes',
  },
];

/**
 * Claims schedule `schedule`'s run at `now` for `worker` when it is due (never run, or last run
 * at least a period ago; or recorded more than a period ahead of `now`, by a clock since set
 * back). @returns whether this worker is to run it now.
 */
export function claimRun(db: Db, schedule: Schedule, worker: string, now: Date): Promise<boolean> {
  const ms = now.getTime();
  return claimScheduleRun(db, {
    name: schedule.name,
    worker,
    now: toRfc3339(now),
    dueBy: toRfc3339(new Date(ms - schedule.everyMs)),
    aheadOf: toRfc3339(new Date(ms + schedule.everyMs)),
  });
}

/** A schedule as `inmo jobs schedules --json` lists it. */
export interface ScheduleView {
  name: string;
  description: string;
  /** Seconds between runs (between looks, for a daily hour). */
  every_seconds: number;
  /** The hour of the day (0–23, each business's time) of work done daily, or null. */
  daily_hour: number | null;
  /** Whether it runs under this configuration. */
  enabled: boolean;
  /** When it last ran (RFC 3339), or null when it never has. */
  last_run_at: string | null;
  /** When it runs next (RFC 3339): a period after the last run, `now` when it never ran; null when not enabled. */
  next_run_at: string | null;
}

/**
 * Every schedule with its period and its last and next run, under `settings` (the
 * configuration's worker settings), at `now`.
 */
export async function listSchedules(db: Db, settings: WorkerSettings, now: Date): Promise<ScheduleView[]> {
  const runs = await listScheduleRuns(db);
  return SCHEDULES.map((schedule) => {
    const last = runs.get(schedule.name)?.last_run_at ?? null;
    const enabled = schedule.enabled(settings);
    const next = last === null ? now : new Date(Date.parse(last) + schedule.everyMs);
    return {
      name: schedule.name,
      description: schedule.description,
      every_seconds: schedule.everyMs / 1000,
      daily_hour: schedule.dailyHour?.(settings) ?? null,
      enabled,
      last_run_at: last === null ? null : toRfc3339(new Date(last)),
      next_run_at: enabled ? toRfc3339(next) : null,
    };
  });
}
