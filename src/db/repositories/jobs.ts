/**
 * Jobs: background work recorded in the transaction that makes it necessary (CONTRACT §7),
 * and the queue operations the worker uses (src/jobs/worker.ts).
 *
 * States: `pending` (waits for `run_at`), `running` (a worker holds it until `locked_until`),
 * `done`, `failed` (parked: retries exhausted or a permanent error; `last_error` says why).
 */
import { sql, type Selectable } from 'kysely';
import { runCompiledOnce } from '../compiled-once.ts';
import { locksRows, type Db, type Executor } from '../database.ts';
import type { JobKind, PayloadlessJobKind, PayloadOf } from '../job-kinds.ts';
import type { JobTable } from '../types.ts';

/** Background work, and the payload of each kind (db/job-kinds.ts). */
export type { JobKind, JobPayloads } from '../job-kinds.ts';

/** How long a catalogue change waits for the next one before searching leads are matched again, ms. */
export const REMATCH_DEBOUNCE_MS = 2000;

/** A job a worker has claimed; `attempts` counts its runs so far, this one included. */
export type ClaimedJob = Pick<Selectable<JobTable>, 'id' | 'business_id' | 'lead_id' | 'kind' | 'payload' | 'attempts'>;

/**
 * A pending job's row, from the markers of a query compiled once (compiled-once.ts): the values
 * come in their places when it runs.
 */
const pendingJobRow = (business: string, lead: string, kind: string, payload: string, pending: string, runAt: string, now: string) => ({
  business_id: business as unknown as number,
  lead_id: lead as unknown as number,
  kind,
  payload,
  state: pending,
  run_at: runAt,
  created_at: now,
  updated_at: now,
});

/** Records pending jobs for a lead, due at `at`. (Compiled once per number of jobs: it runs for every new lead.) */
export async function enqueueLeadJobs(
  db: Executor,
  businessId: number,
  leadId: number,
  kinds: readonly PayloadlessJobKind[],
  at: string,
): Promise<void> {
  if (kinds.length === 0) return;
  const values = [businessId, leadId, at, 'pending', null, ...kinds];
  await runCompiledOnce(db, `enqueueLeadJobs:${kinds.length}`, values, ([business, lead, atParam, pending, none, ...kindParams]) =>
    db.insertInto('jobs').values(kindParams.map((kind) => pendingJobRow(business, lead, kind, none, pending, atParam, atParam))),
  );
}

/**
 * Records one pending job. Its payload is checked against its kind's (db/job-kinds.ts
 * `JobPayloads`) where it is queued. (Compiled once: a webhook delivery's job is queued for every
 * new lead's event.)
 */
export async function enqueueJob<K extends JobKind>(
  db: Executor,
  job: { businessId: number; leadId: number | null; kind: K; runAt: string; now: string } & PayloadOf<K>,
): Promise<void> {
  const given = (job as { payload?: unknown }).payload;
  const payload = given === undefined || given === null ? null : JSON.stringify(given);
  const values = [job.businessId, job.leadId, job.kind, payload, 'pending', job.runAt, job.now];
  await runCompiledOnce(db, 'enqueueJob', values, ([business, lead, kind, payloadParam, pending, runAt, now]) =>
    db.insertInto('jobs').values(pendingJobRow(business, lead, kind, payloadParam, pending, runAt, now)),
  );
}

/**
 * Records that the business's catalogue changed, in the transaction that changes it: one
 * pending `rematch_catalogue` job per business, due at `runAt` ({@link REMATCH_DEBOUNCE_MS}
 * after the latest change), so an import of many batches queues the matching of searching leads once,
 * after its last batch, and a crash after any batch still leaves it queued.
 */
export async function noteCatalogueChange(db: Executor, businessId: number, at: string, runAt: string): Promise<void> {
  const postponed = await db
    .updateTable('jobs')
    .set({ run_at: runAt, updated_at: at })
    .where('business_id', '=', businessId)
    .where('kind', '=', 'rematch_catalogue')
    .where('state', '=', 'pending')
    .executeTakeFirst();
  if (Number(postponed.numUpdatedRows) === 0) {
    await enqueueJob(db, { businessId, leadId: null, kind: 'rematch_catalogue', runAt, now: at });
  }
}

/**
 * Claims up to `limit` due pending jobs for `workerId`, oldest due first, holding each until
 * `lockedUntil`; counts the attempt. Jobs of the kinds in `except` are left (the worker's pulls
 * when they hold all the slots they may, jobs/worker.ts).
 *
 * On PostgreSQL the candidates are locked with `FOR UPDATE SKIP LOCKED`, so workers running
 * this at once each take different jobs without waiting on one another. SQLite has one
 * writer at a time, which gives the same guarantee to the single statement.
 */
export async function claimJobs(
  db: Db,
  workerId: string,
  limit: number,
  now: string,
  lockedUntil: string,
  except: readonly JobKind[] = [],
): Promise<ClaimedJob[]> {
  let candidates = dueJobIds(db, limit, now, except);
  if (locksRows(db)) candidates = candidates.forUpdate().skipLocked();
  return db
    .updateTable('jobs')
    .set({ state: 'running', locked_by: workerId, locked_until: lockedUntil, attempts: sql`attempts + 1`, updated_at: now })
    .where('id', 'in', candidates)
    .returning(['id', 'business_id', 'lead_id', 'kind', 'payload', 'attempts'])
    .execute();
}

/**
 * The ids of up to `limit` due pending jobs (`run_at` ≤ `now`), earliest `run_at` first: read
 * in order from the `jobs_due (state, run_at, id)` index (migration 0013), never by sorting the
 * whole backlog; jobs of the kinds in `except` are passed over.
 */
export function dueJobIds(db: Executor, limit: number, now: string, except: readonly JobKind[] = []) {
  let query = db.selectFrom('jobs').select('id').where('state', '=', 'pending').where('run_at', '<=', now);
  if (except.length > 0) query = query.where('kind', 'not in', [...except]);
  return query.orderBy('run_at').orderBy('id').limit(limit);
}

/**
 * Takes back running jobs whose worker's lease ran out (the worker died or hung): pending
 * again, or parked as failed when that was their last attempt.
 * @returns how many went back to pending, and the jobs parked.
 */
export async function releaseExpiredJobs(
  db: Executor,
  now: string,
  maxAttempts: number,
): Promise<{ released: number; failed: Array<{ id: number; kind: string; lead_id: number | null; payload: string | null }> }> {
  const lost = 'the worker running it stopped before it finished (lease expired)';
  const failed = await db
    .updateTable('jobs')
    .set({ state: 'failed', locked_by: null, locked_until: null, last_error: lost, updated_at: now })
    .where('state', '=', 'running')
    .where('locked_until', '<', now)
    .where('attempts', '>=', maxAttempts)
    .returning(['id', 'kind', 'lead_id', 'payload'])
    .execute();
  const retried = await db
    .updateTable('jobs')
    .set({ state: 'pending', locked_by: null, locked_until: null, last_error: lost, run_at: now, updated_at: now })
    .where('state', '=', 'running')
    .where('locked_until', '<', now)
    .executeTakeFirst();
  return { released: Number(retried.numUpdatedRows), failed };
}

/** The worker no longer holds the job: its lease ran out and the job was taken back. */
export class LeaseLostError extends Error {
  constructor(jobId: number) {
    super(`job ${jobId} is no longer held by this worker`);
  }
}

/**
 * Marks a claimed job done, in the caller's transaction (so the job's effects and its end
 * commit together).
 * @throws LeaseLostError when another worker has taken the job back; the caller's transaction
 *   must then roll back.
 */
export async function completeJob(db: Executor, job: ClaimedJob, workerId: string, now: string): Promise<void> {
  const result = await db
    .updateTable('jobs')
    .set({ state: 'done', locked_by: null, locked_until: null, updated_at: now })
    .where('id', '=', job.id)
    .where('state', '=', 'running')
    .where('locked_by', '=', workerId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new LeaseLostError(job.id);
}

/** Puts a claimed job back to wait until `runAt`, or parks it as failed (`runAt` null). */
export async function settleFailedRun(
  db: Executor,
  job: ClaimedJob,
  workerId: string,
  error: string,
  runAt: string | null,
  now: string,
): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      state: runAt === null ? 'failed' : 'pending',
      run_at: runAt ?? sql`run_at`,
      last_error: error,
      locked_by: null,
      locked_until: null,
      updated_at: now,
    })
    .where('id', '=', job.id)
    .where('state', '=', 'running')
    .where('locked_by', '=', workerId)
    .execute();
}

/**
 * Whether a claim or a take-back would find work: a due pending job, or a running one whose
 * lease has run out. A read, so idle workers polling never take SQLite's write lock.
 */
export async function hasClaimableJobs(db: Executor, now: string): Promise<boolean> {
  return (await anyJob(db, 'pending', 'run_at', '<=', now)) || (await anyJob(db, 'running', 'locked_until', '<', now));
}

/** Whether a job in `state` has `column` `op` `at` (served by the partial indexes on state). */
async function anyJob(db: Executor, state: string, column: 'run_at' | 'locked_until', op: '<' | '<=', at: string): Promise<boolean> {
  const row = await db.selectFrom('jobs').select('id').where('state', '=', state).where(column, op, at).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Whether any job is due (pending with `run_at` ≤ now) or running, and the latest lease end of the running ones. */
export async function hasUnfinishedDueJobs(db: Executor, now: string): Promise<{ due: boolean; runningUntil: string | null }> {
  const running = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.max('locked_until').as('until'))
    .where('state', '=', 'running')
    .executeTakeFirst();
  return { due: await anyJob(db, 'pending', 'run_at', '<=', now), runningUntil: (running?.until as string | null | undefined) ?? null };
}

/** Whether a pending job of `kind` with exactly this payload is queued (a scheduled pull's next run, services/scheduled-pulls.ts). */
export async function hasPendingJob(db: Executor, kind: JobKind, payload: unknown): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', kind)
    .where('state', '=', 'pending')
    .where('payload', '=', JSON.stringify(payload))
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The scheduled pulls of `table` (feed sources, mailboxes) not removed whose chain of jobs
 * has ended: no `job` of theirs pending or running (services/scheduled-pulls.ts `restartPullChains`).
 * A job's payload is the JSON `{"<key>":<id>}` exactly as db/job-kinds.ts writes it.
 * @param only the pull of this id alone, when given.
 * @returns `{id, business_id}` each, in id order.
 */
export async function listPullsWithoutRun(
  db: Executor,
  pulls: { table: 'feed_sources' | 'email_pulls'; job: 'pull_feed' | 'pull_email'; key: 'source_id' | 'pull_id' },
  only?: number,
): Promise<Array<{ id: number; business_id: number }>> {
  const prefix = `{"${pulls.key}":`;
  let query = db.selectFrom(pulls.table).select(['id', 'business_id']);
  if (only !== undefined) query = query.where('id', '=', only);
  return query
    .where('removed_at', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('jobs')
            .select('jobs.id')
            .where('jobs.kind', '=', pulls.job)
            .where('jobs.state', 'in', ['pending', 'running'])
            .where('jobs.payload', '=', sql<string>`${prefix} || cast(${sql.ref(`${pulls.table}.id`)} as text) || '}'`),
        ),
      ),
    )
    .orderBy('id')
    .execute();
}

/** Jobs for `inmo jobs list`, newest first. */
export async function listJobs(db: Executor, options: { state?: string; businessId?: number; limit: number }) {
  let query = db
    .selectFrom('jobs')
    .select(['id', 'business_id', 'lead_id', 'kind', 'state', 'attempts', 'run_at', 'last_error', 'created_at', 'updated_at'])
    .orderBy('id', 'desc')
    .limit(options.limit);
  if (options.state) query = query.where('state', '=', options.state);
  if (options.businessId !== undefined) query = query.where('business_id', '=', options.businessId);
  return query.execute();
}

/**
 * The job `id` as a retry reads it: `{ id, business_id, lead_id, kind, state, payload }`, or
 * undefined when there is none (or, with `businessId`, when it is another business's).
 */
export async function findJobForRetry(db: Executor, id: number, businessId?: number) {
  let query = db.selectFrom('jobs').select(['id', 'business_id', 'lead_id', 'kind', 'state', 'payload']).where('id', '=', id);
  if (businessId !== undefined) query = query.where('business_id', '=', businessId);
  return query.executeTakeFirst();
}

/**
 * Puts failed job `id` back to `pending`, due at `now`, attempts from zero, lease and last error
 * cleared (issue 15). @returns whether it was still `failed` (false: retried already, or not failed).
 */
export async function retryFailedJob(db: Executor, id: number, now: string): Promise<boolean> {
  const moved = await db
    .updateTable('jobs')
    .set({ state: 'pending', attempts: 0, run_at: now, last_error: null, locked_by: null, locked_until: null, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'failed')
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

export async function listJobsOfLead(db: Executor, leadId: number) {
  return db
    .selectFrom('jobs')
    .select(['id', 'kind', 'state', 'attempts', 'run_at', 'last_error'])
    .where('lead_id', '=', leadId)
    .orderBy('id')
    .execute();
}

/**
 * Jobs counted by kind and state, and the oldest due pending job's `run_at` (the metrics of
 * CONTRACT §11). A pending job scheduled for later (a follow-up 30 days ahead) is not late,
 * so only due ones count for the age.
 */
export async function jobStatistics(
  db: Executor,
  now: string,
): Promise<{ counts: Array<{ kind: string; state: string; count: number }>; oldestDueRunAt: string | null }> {
  const counts = await db
    .selectFrom('jobs')
    .select(['kind', 'state', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy(['kind', 'state'])
    .execute();
  const oldest = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.min<string>('run_at').as('run_at'))
    .where('state', '=', 'pending')
    .where('run_at', '<=', now)
    .executeTakeFirst();
  return { counts: counts.map((c) => ({ ...c, count: Number(c.count) })), oldestDueRunAt: oldest?.run_at ?? null };
}
