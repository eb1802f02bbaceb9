/**
 * Schedules as data (issue 56 item 2; src/jobs/schedules.ts): each recurring chore runs when its
 * period has passed and not before, once per period between all the workers sharing the
 * database (its last run recorded in `schedule_runs`, migration 0058), and `inmo jobs schedules`
 * lists them with their period, last run and next run. Driven by the worker's manual clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { toRfc3339 } from '../../../src/domain/time.ts';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { SCHEDULES, type Schedule } from '../../../src/jobs/schedules.ts';
import type { WorkerSettings } from '../../../src/jobs/settings.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { inmo } from '../../helpers/cli.ts';
import { freshDb } from '../../helpers/db.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Every chore on: retention after 30 days, reminders 24 hours ahead. */
const ALL_ON: Partial<WorkerSettings> = { pollMs: 20, leadRetentionDays: 30, viewingReminderHours: 24, alertHour: 10 };

let db: Db;
let url: string;
beforeAll(async () => {
  ({ db, url } = await freshDb());
});
afterAll(async () => {
  await db.destroy();
});

/** The schedules, each counting its runs (the real work still done). */
function counted() {
  const runs = new Map<string, number>(SCHEDULES.map((s) => [s.name, 0]));
  const schedules: Schedule[] = SCHEDULES.map((s) => ({
    ...s,
    run: (ctx) => {
      runs.set(s.name, runs.get(s.name)! + 1);
      return s.run(ctx);
    },
  }));
  return { runs: () => Object.fromEntries(runs), schedules };
}

describe('schedules', () => {
  it('every chore is on the list once, with a period', () => {
    expect(SCHEDULES.map((s) => [s.name, s.everyMs])).toEqual([
      ['events_purge', HOUR],
      ['inbound_emails_purge', HOUR],
      ['lead_retention', DAY],
      ['alert_round', MINUTE],
      ['viewing_reminders', MINUTE],
    ]);
    expect(SCHEDULES.find((s) => s.name === 'alert_round')!.dailyHour!({ alertHour: 7 } as WorkerSettings)).toBe(7);
  });

  it('each chore runs when its period has passed and not before, once between all the workers', async () => {
    await db.deleteFrom('schedule_runs').execute();
    const start = Date.parse('2030-01-07T12:00:00Z');
    const clock = new ManualClock(new Date(start));
    const { runs, schedules } = counted();
    const worker = () => new Worker({ db, clock, settings: ALL_ON, schedules });
    const at = async (ms: number) => {
      clock.set(new Date(start + ms));
      await worker().drain();
      return runs();
    };

    // A worker starts: everything is due.
    expect(await at(0)).toEqual({ events_purge: 1, inbound_emails_purge: 1, lead_retention: 1, alert_round: 1, viewing_reminders: 1 });
    // Another worker, 59 s later: nothing is due yet, though it never looked itself.
    expect(await at(MINUTE - SECOND)).toEqual({
      events_purge: 1,
      inbound_emails_purge: 1,
      lead_retention: 1,
      alert_round: 1,
      viewing_reminders: 1,
    });
    // A minute: the alert round and the reminders.
    expect(await at(MINUTE)).toMatchObject({ events_purge: 1, lead_retention: 1, alert_round: 2, viewing_reminders: 2 });
    expect(await at(HOUR - SECOND)).toMatchObject({ events_purge: 1, inbound_emails_purge: 1, lead_retention: 1, alert_round: 3 });
    // An hour: the purges.
    expect(await at(HOUR)).toMatchObject({ events_purge: 2, inbound_emails_purge: 2, lead_retention: 1, alert_round: 3 });
    expect(await at(DAY - SECOND)).toMatchObject({ events_purge: 3, lead_retention: 1, alert_round: 4 });
    // A day: retention.
    expect(await at(DAY)).toMatchObject({ events_purge: 3, lead_retention: 2, alert_round: 4 });

    const recorded = await db.selectFrom('schedule_runs').select(['name', 'last_run_at']).orderBy('name').execute();
    expect(recorded).toEqual([
      { name: 'alert_round', last_run_at: toRfc3339(new Date(start + DAY - SECOND)) },
      { name: 'events_purge', last_run_at: toRfc3339(new Date(start + DAY - SECOND)) },
      { name: 'inbound_emails_purge', last_run_at: toRfc3339(new Date(start + DAY - SECOND)) },
      { name: 'lead_retention', last_run_at: toRfc3339(new Date(start + DAY)) },
      { name: 'viewing_reminders', last_run_at: toRfc3339(new Date(start + DAY - SECOND)) },
    ]);
  });

  it('one worker looking again within a period does not touch the database, and a clock set far back runs again', async () => {
    await db.deleteFrom('schedule_runs').execute();
    const clock = new ManualClock('2030-02-01T09:00:00Z');
    const { runs, schedules } = counted();
    const worker = new Worker({ db, clock, settings: ALL_ON, schedules });
    await worker.drain();
    await db.deleteFrom('schedule_runs').execute();
    // Its own look is remembered: no new run within the period, even with the record gone.
    clock.set('2030-02-01T09:00:30Z');
    await worker.drain();
    expect(runs().alert_round).toBe(1);
    // A new worker whose clock is a day behind the record: the record cannot be of its period.
    await new Worker({ db, clock: new ManualClock('2030-02-01T09:00:00Z'), settings: ALL_ON, schedules }).drain();
    await new Worker({ db, clock: new ManualClock('2030-01-31T09:00:00Z'), settings: ALL_ON, schedules }).drain();
    expect(runs().alert_round).toBe(3);
  });

  it('workers claiming at the same instant run each chore once', async () => {
    await db.deleteFrom('schedule_runs').execute();
    const { runs, schedules } = counted();
    const at = '2030-03-01T08:00:00Z';
    await Promise.all(Array.from({ length: 3 }, () => new Worker({ db, clock: new ManualClock(at), settings: ALL_ON, schedules }).drain()));
    expect(runs()).toEqual({ events_purge: 1, inbound_emails_purge: 1, lead_retention: 1, alert_round: 1, viewing_reminders: 1 });
  });

  it('a chore its setting turns off never runs, and leaves no record', async () => {
    await db.deleteFrom('schedule_runs').execute();
    const { runs, schedules } = counted();
    const clock = new ManualClock('2030-04-01T08:00:00Z');
    await new Worker({ db, clock, settings: { pollMs: 20, leadRetentionDays: null, viewingReminderHours: 0 }, schedules }).drain();
    expect(runs()).toEqual({ events_purge: 1, inbound_emails_purge: 1, lead_retention: 0, alert_round: 1, viewing_reminders: 0 });
    const names = (await db.selectFrom('schedule_runs').select('name').orderBy('name').execute()).map((r) => r.name);
    expect(names).toEqual(['alert_round', 'events_purge', 'inbound_emails_purge']);
  });
});

describe('inmo jobs schedules', () => {
  it('lists each schedule with its period, last run and next run (RFC 3339)', async () => {
    await db.deleteFrom('schedule_runs').execute();
    const env = { DATABASE_URL: url, LOG_LEVEL: 'warn', INMO_ALERT_HOUR: '9', INMO_VIEWING_REMINDER_HOURS: '0' };
    const before = await inmo(env, 'jobs', 'schedules', '--json');
    expect(before.code).toBe(0);
    expect(before.json.map((s: any) => [s.name, s.every_seconds, s.daily_hour, s.enabled, s.last_run_at])).toEqual([
      ['events_purge', 3600, null, true, null],
      ['inbound_emails_purge', 3600, null, true, null],
      ['lead_retention', 86400, null, false, null],
      ['alert_round', 60, 9, true, null],
      ['viewing_reminders', 60, null, false, null],
    ]);
    // Never run: due now; off: no next run.
    expect(before.json[0].next_run_at).toMatch(RFC3339);
    expect(before.json[2].next_run_at).toBeNull();
    expect(before.json.every((s: any) => typeof s.description === 'string' && s.description.length > 0)).toBe(true);

    const ran = '2030-05-04T10:00:00.000+00:00';
    await new Worker({ db, clock: new ManualClock(ran), settings: { pollMs: 20, alertHour: 9, viewingReminderHours: 0 } }).drain();
    const after = await inmo(env, 'jobs', 'schedules', '--json');
    expect(after.json.map((s: any) => [s.name, s.last_run_at, s.next_run_at])).toEqual([
      ['events_purge', ran, '2030-05-04T11:00:00.000+00:00'],
      ['inbound_emails_purge', ran, '2030-05-04T11:00:00.000+00:00'],
      ['lead_retention', null, null],
      ['alert_round', ran, '2030-05-04T10:01:00.000+00:00'],
      ['viewing_reminders', null, null],
    ]);
    const human = await inmo(env, 'jobs', 'schedules');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('alert_round');
    expect(human.stdout).toContain('daily at 09:00, business time');
  });
});
