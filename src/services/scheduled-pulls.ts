/**
 * A scheduled pull (issue 56 item 4), written once for the two things inmo pulls by itself: feed
 * sources (services/catalogue/feeds/pulls.ts, CONTRACT §15) and mailboxes over IMAP
 * (services/leads/email-pulls.ts, CONTRACT §19). What the two share is here; what a run does
 * (a conditional GET and an import; an IMAP session) stays with each.
 *
 * - **A period** in minutes between runs, each kind with its bounds and default, checked when the
 *   pull is added ({@link checkedPullPeriod}).
 * - **A durable chain of jobs.** Adding a pull queues its first run at once ({@link queueFirstPull});
 *   each run's job ({@link runScheduledPull}, called by jobs/tasks/pull-feed.ts and pull-email.ts)
 *   runs the pull and queues the next run a period later, or at once when the run says there is more
 *   to read, in the transaction that completes the job: a crash before it runs the job again, a crash
 *   after it leaves the next run queued. The chain stops when the pull is removed, and never forks:
 *   no next run is queued while one is already pending ({@link queueNextPull}).
 * - **A failed run is a result, not a failed job**: each kind records it on its row and the next
 *   run comes as usual. (A mailbox's run also holds a lease of its own, so that a run at once by
 *   the CLI and a scheduled one never read the same mailbox together.)
 * - **A chain that ended starts again**: a run whose job failed all its attempts (a bug, a database
 *   down for its whole backoff) ends its chain; the `pull_chains` schedule (jobs/schedules.ts)
 *   queues a run at once for every pull not removed that has no run pending or running
 *   ({@link restartPullChains}).
 * - The worker runs pulls in all its slots but one (jobs/worker.ts `PULL_KINDS`).
 */
import type { Transaction } from 'kysely';
import type { Db, Executor } from '../db/database.ts';
import { enqueueJob, hasPendingJob, listPullsWithoutRun } from '../db/repositories/jobs.ts';
import type { JobPayloads } from '../db/job-kinds.ts';
import { transact } from '../db/transaction.ts';
import type { Database } from '../db/types.ts';
import { toRfc3339 } from '../domain/time.ts';
import { InmoError } from '../errors.ts';

/** A pulled thing as the runner needs it: whose it is, how often it is pulled, whether it was removed. */
export interface Pulled {
  business_id: number;
  every_minutes: number;
  removed_at: string | null;
}

/** One kind of scheduled pull. */
export interface PullKind {
  /** Its job kind. */
  job: 'pull_feed' | 'pull_email';
  /** The payload's field that names the pulled thing: `{"source_id": 3}`, `{"pull_id": 3}`. */
  key: 'source_id' | 'pull_id';
  /** The table of the pulled things. */
  table: 'feed_sources' | 'email_pulls';
  /** Minutes between runs: the bounds, and the period when none is given. */
  minutes: { readonly min: number; readonly max: number; readonly default: number };
  /** The error of a period out of bounds. */
  periodError: 'FEED_SOURCE_PERIOD' | 'EMAIL_PULL_PERIOD';
  /** Its row, removed or not, or undefined when there is none. */
  find(db: Executor, id: number): Promise<Pulled | undefined>;
}

/**
 * The period of a pull being added: `everyMinutes`, or the kind's default.
 * @throws InmoError FEED_SOURCE_PERIOD or EMAIL_PULL_PERIOD (the kind's) when it is not a whole number within its bounds.
 */
export function checkedPullPeriod(kind: PullKind, everyMinutes: number | undefined): number {
  const minutes = everyMinutes ?? kind.minutes.default;
  if (!Number.isInteger(minutes) || minutes < kind.minutes.min || minutes > kind.minutes.max) throw new InmoError(kind.periodError);
  return minutes;
}

/** The payload of a kind's job (db/job-kinds.ts): `{"source_id": id}` or `{"pull_id": id}`. */
const payloadOf = (kind: PullKind, id: number): JobPayloads['pull_feed'] | JobPayloads['pull_email'] =>
  kind.key === 'source_id' ? { source_id: id } : { pull_id: id };

/** Queues the first run of pull `id` of `businessId` at `now`, in the transaction that adds it. */
export async function queueFirstPull(trx: Executor, kind: PullKind, businessId: number, id: number, now: string): Promise<void> {
  await enqueueJob(trx, { businessId, leadId: null, kind: kind.job, payload: payloadOf(kind, id), runAt: now, now });
}

/**
 * Queues pull `id`'s next run at `runAt` in `trx`, unless it was removed or a run is already
 * queued (so a job run twice never makes two chains of runs).
 */
export async function queueNextPull(trx: Executor, kind: PullKind, id: number, runAt: string, now: string): Promise<void> {
  const pulled = await kind.find(trx, id);
  if (!pulled || pulled.removed_at !== null) return;
  if (await hasPendingJob(trx, kind.job, payloadOf(kind, id))) return;
  await enqueueJob(trx, { businessId: pulled.business_id, leadId: null, kind: kind.job, payload: payloadOf(kind, id), runAt, now });
}

/** When the run after one made at `at` (RFC 3339) is due, `everyMinutes` later (RFC 3339). */
export function nextPullAt(at: string, everyMinutes: number): string {
  return toRfc3339(new Date(Date.parse(at) + everyMinutes * 60_000));
}

/** What a pull's job gives the runner: the worker's task context (jobs/task.ts `TaskContext`), as far as it is used. */
export interface PullJob {
  db: Db;
  /** The job's payload as the worker parsed it for its kind (db/job-kinds.ts): `{"source_id"}` or `{"pull_id"}`. */
  payload: Partial<Record<PullKind['key'], number>>;
  /** The worker clock's instant, RFC 3339. */
  now(): string;
  /** Logs a line of the job (no personal data). */
  log(fields: object, message: string): void;
  /** Runs `effects` in the transaction that completes the job. */
  finish<T>(effects: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
}

/** What one run reports to the runner. */
export interface PullRun {
  /** The fields of its log line (counts and words: no personal data). */
  log: object;
  /** Whether there is more to read at once: the next run is queued now instead of a period later. */
  more?: boolean;
}

/**
 * One scheduled run of a pull (see the module's comment): the pulled thing named by the job's
 * payload is run by `run`, unless it is gone or removed, then the next run is queued as the job
 * completes, and a line `message` is logged with the run's fields.
 */
export async function runScheduledPull(
  job: PullJob,
  kind: PullKind,
  message: string,
  run: (id: number) => Promise<PullRun>,
): Promise<void> {
  const id = job.payload[kind.key];
  if (id === undefined) return;
  const pulled = await kind.find(job.db, id);
  if (!pulled || pulled.removed_at !== null) return;
  const outcome = await run(id);
  job.log({ [kind.key]: id, ...outcome.log }, message);
  const now = job.now();
  await job.finish((trx) => queueNextPull(trx, kind, id, outcome.more ? now : nextPullAt(now, pulled.every_minutes), now));
}

/**
 * Queues a run at once of every pull of `kind` not removed whose chain ended (no job of it
 * pending or running), each in a transaction that looks again first, so that a chain that a
 * run continued meanwhile never forks.
 * @param now the instant, RFC 3339.
 * @returns how many chains it started again.
 */
export async function restartPullChains(db: Db, kind: PullKind, now: string): Promise<number> {
  let restarted = 0;
  for (const pulled of await listPullsWithoutRun(db, kind)) {
    const queued = await transact(db, async (trx) => {
      if ((await listPullsWithoutRun(trx, kind, pulled.id)).length === 0) return false;
      await queueFirstPull(trx, kind, pulled.business_id, pulled.id, now);
      return true;
    });
    if (queued) restarted++;
  }
  return restarted;
}
