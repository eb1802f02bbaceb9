/**
 * Schedules as data (issue 56 item 2; src/jobs/schedules.ts): each recurring chore runs when its
 * period has passed and not before, once per period between all the workers sharing the
 * database (its last run recorded in `schedule_runs`, migration 0058), and `inmo jobs schedules`
 * lists them with their period, last run and next run. Driven by the worker's manual clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { toRfc3339 } from '../../../src/domain/time.ts';
import type { OutboundPolicy } from '../../../src/config.ts';
import { addFeedSource, removeFeedSource } from '../../../src/services/catalogue/feeds/pulls.ts';
import { addEmailPull } from '../../../src/services/leads/email-pulls.ts';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { SCHEDULES, type Schedule } from '../../../src/jobs/schedules.ts';
import type { WorkerSettings } from '../../../src/jobs/settings.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { inmo } from '../../helpers/cli.ts';
import { freshDb, insertBusinessAtAnyMigration } from '../../helpers/db.ts';

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

/** Every schedule run once. */
const ONCE_EACH = Object.fromEntries(SCHEDULES.map((s) => [s.name, 1]));

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
      ['mandate_expiry', HOUR],
      ['owner_reports', 10 * MINUTE],
      ['pull_chains', 10 * MINUTE],
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
    expect(await at(0)).toEqual(ONCE_EACH);
    // Another worker, 59 s later: nothing is due yet, though it never looked itself.
    expect(await at(MINUTE - SECOND)).toEqual(ONCE_EACH);
    // A minute: the alert round and the reminders.
    expect(await at(MINUTE)).toMatchObject({ events_purge: 1, lead_retention: 1, alert_round: 2, viewing_reminders: 2, pull_chains: 1 });
    // Ten minutes: the pulls' chains.
    expect(await at(10 * MINUTE)).toMatchObject({ events_purge: 1, alert_round: 3, pull_chains: 2 });
    expect(await at(HOUR - SECOND)).toMatchObject({ events_purge: 1, inbound_emails_purge: 1, lead_retention: 1, alert_round: 4 });
    // An hour: the purges.
    expect(await at(HOUR)).toMatchObject({
      events_purge: 2,
      inbound_emails_purge: 2,
      lead_retention: 1,
      alert_round: 4,
      mandate_expiry: 2,
      owner_reports: 3,
    });
    expect(await at(DAY - SECOND)).toMatchObject({ events_purge: 3, lead_retention: 1, alert_round: 5 });
    // A day: retention.
    expect(await at(DAY)).toMatchObject({ events_purge: 3, lead_retention: 2, alert_round: 5 });

    const recorded = await db.selectFrom('schedule_runs').select(['name', 'last_run_at']).orderBy('name').execute();
    expect(recorded).toEqual([
      { name: 'alert_round', last_run_at: toRfc3339(new Date(start + DAY - SECOND)) },
      { name: 'events_purge', last_run_at: toRfc3339(new Date(start + DAY - SECOND)) },
      { name: 'inbound_emails_purge', last_run_at: toRfc3339(new Date(start + DAY - SECOND)) },
      { name: 'lead_retention', last_run_at: toRfc3339(new Date(start + DAY)) },
      { name: 'mandate_expiry', last_run_at: toRfc3339(new Date(start + DAY - SECOND)) },
      { name: 'owner_reports', last_run_at: toRfc3339(new Date(start + DAY - SECOND)) },
      { name: 'pull_chains', last_run_at: toRfc3339(new Date(start + DAY - SECOND)) },
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
    expect(runs()).toEqual(ONCE_EACH);
  });

  it('a chore its setting turns off never runs, and leaves no record', async () => {
    await db.deleteFrom('schedule_runs').execute();
    const { runs, schedules } = counted();
    const clock = new ManualClock('2030-04-01T08:00:00Z');
    await new Worker({ db, clock, settings: { pollMs: 20, leadRetentionDays: null, viewingReminderHours: 0 }, schedules }).drain();
    expect(runs()).toEqual({
      events_purge: 1,
      inbound_emails_purge: 1,
      lead_retention: 0,
      alert_round: 1,
      viewing_reminders: 0,
      mandate_expiry: 1,
      owner_reports: 1,
      pull_chains: 1,
    });
    const names = (await db.selectFrom('schedule_runs').select('name').orderBy('name').execute()).map((r) => r.name);
    expect(names).toEqual(['alert_round', 'events_purge', 'inbound_emails_purge', 'mandate_expiry', 'owner_reports', 'pull_chains']);
  });
});

describe('pull_chains', () => {
  const pullChains = SCHEDULES.find((s) => s.name === 'pull_chains')!;
  const run = (now: string) => pullChains.run({ db, now: new Date(now), settings: ALL_ON as WorkerSettings, log: () => {} });
  /** The pull jobs of the run, as (kind, payload, state), oldest first. */
  const pullJobs = async () =>
    (
      await db
        .selectFrom('jobs')
        .select(['kind', 'payload', 'state', 'run_at'])
        .where('kind', 'in', ['pull_feed', 'pull_email'])
        .orderBy('id')
        .execute()
    ).map((j) => [j.kind, j.payload, j.state, j.run_at]);

  it('starts again at once the chain of a feed source or mailbox whose run failed for good, and of no other', async () => {
    await db.deleteFrom('jobs').execute();
    const { id: businessId } = await insertBusinessAtAnyMigration(db, 'Pulls');
    const outbound = { allowPrivateNetwork: false } as OutboundPolicy;
    const at = '2030-06-01T08:00:00.000+00:00';
    const feeds = [];
    for (const n of [1, 2, 3]) feeds.push((await addFeedSource(db, { businessId, url: `https://feeds.example/${n}.xml` }, outbound)).id);
    const mailbox = (await addEmailPull(db, { businessId, url: 'imaps://a:b@imap.example/INBOX' }, outbound)).id;
    // Feed 1's run failed all its attempts, and so did the mailbox's; feed 2's is running; feed 3 was removed after its run failed.
    const payload = (p: object) => JSON.stringify(p);
    await db
      .updateTable('jobs')
      .set({ state: 'failed' })
      .where('payload', 'in', [payload({ source_id: feeds[0] }), payload({ pull_id: mailbox }), payload({ source_id: feeds[2] })])
      .execute();
    await db
      .updateTable('jobs')
      .set({ state: 'running' })
      .where('payload', '=', payload({ source_id: feeds[1] }))
      .execute();
    await removeFeedSource(db, feeds[2], businessId);
    await db
      .updateTable('jobs')
      .set({ state: 'failed' })
      .where('payload', '=', payload({ source_id: feeds[2] }))
      .execute();

    expect(await run(at)).toBe(2);
    const restarted = (await pullJobs()).filter(([, , state]) => state === 'pending');
    expect(restarted).toEqual([
      ['pull_feed', payload({ source_id: feeds[0] }), 'pending', at],
      ['pull_email', payload({ pull_id: mailbox }), 'pending', at],
    ]);
    // Each chain has its run again: the next look finds none stopped, and never forks one.
    expect(await run('2030-06-01T08:10:00.000+00:00')).toBe(0);
    expect((await pullJobs()).filter(([, , state]) => state === 'pending')).toEqual(restarted);
    // Nothing left for the workers of the next tests to pull.
    await db.deleteFrom('jobs').execute();
    await db.updateTable('feed_sources').set({ removed_at: at }).execute();
    await db.updateTable('email_pulls').set({ removed_at: at }).execute();
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
      ['mandate_expiry', 3600, null, true, null],
      ['owner_reports', 600, null, true, null],
      ['pull_chains', 600, null, true, null],
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
      ['mandate_expiry', ran, '2030-05-04T11:00:00.000+00:00'],
      ['owner_reports', ran, '2030-05-04T10:10:00.000+00:00'],
      ['pull_chains', ran, '2030-05-04T10:10:00.000+00:00'],
    ]);
    const human = await inmo(env, 'jobs', 'schedules');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('alert_round');
    expect(human.stdout).toContain('daily at 09:00, business time');
  });
});
