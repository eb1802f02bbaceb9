/**
 * The background worker (spec §6, CONTRACT §7): claims due jobs from the jobs table and runs
 * their tasks (src/jobs/tasks/, one file per job kind).
 *
 * Why it is built this way:
 * - **Leases, not locks held open.** A claim marks jobs `running` for this worker until a
 *   lease end. A worker that dies (SIGKILL, power loss) leaves jobs whose lease runs out;
 *   any worker then takes them back. The lease is far longer than any job's run.
 * - **Effects and completion commit together.** A task writes its effects in the
 *   transaction that marks its job done ({@link TaskContext.finish}), which checks that
 *   this worker still holds the job. Database effects therefore happen exactly once, however
 *   often a job is started. Effects outside the database (the WhatsApp send) are guarded by
 *   their own recorded state (tasks/send-welcome.ts).
 * - **A throw means try again later**, after an exponential backoff with jitter; after
 *   `maxAttempts` runs, or on a {@link PermanentJobError}, the job is parked as `failed` with
 *   its error, for `inmo jobs list --state failed`. A job that kills its worker every time
 *   is parked the same way, since each claim counts an attempt.
 * - **Several workers** (`inmo worker` ×N, with or without `inmo serve`) share the table:
 *   the claim is one statement, with `FOR UPDATE SKIP LOCKED` on PostgreSQL.
 * - **Pulls never take every slot.** A pull (`pull_email`, `pull_feed`) waits on a server
 *   outside (a slow or hostile one holds it until its deadline), so pulls run in at most
 *   `concurrency - 1` slots (1 when `concurrency` is 1): a new lead's matching, welcome and
 *   follow-ups always find a slot ({@link PULL_KINDS}, issue 55).
 * - **Recurring work is data** (jobs/schedules.ts): before each claim the worker looks at the
 *   schedules whose period has passed since its last look, and runs those whose run it claims
 *   (once per period between all the workers, migration 0058).
 * - **Stopping** (SIGTERM) stops claiming and lets the jobs already running finish.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from '../db/database.ts';
import {
  claimJobs,
  completeJob,
  hasClaimableJobs,
  hasUnfinishedDueJobs,
  LeaseLostError,
  releaseExpiredJobs,
  settleFailedRun,
  type ClaimedJob,
  type JobKind,
} from '../db/repositories/jobs.ts';
import { transact } from '../db/transaction.ts';
import { isJobKind, parseJobPayload } from '../db/job-kinds.ts';
import { toRfc3339 } from '../domain/time.ts';
import { CatalogueSnapshots } from '../services/leads/matching.ts';
import { systemClock, type Clock } from './clock.ts';
import { failpoint } from './failpoints.ts';
import { DEFAULT_WORKER_SETTINGS, type WorkerSettings } from './settings.ts';
import { outboundPolicy, type OutboundPolicy } from '../config.ts';
import { claimRun, SCHEDULES, type Schedule } from './schedules.ts';
import { PermanentJobError, type TaskContext } from './task.ts';
import { taskFor } from './tasks/index.ts';

/** Job kinds that wait on a server outside for long: they share all the worker's slots but one. */
export const PULL_KINDS: readonly JobKind[] = ['pull_email', 'pull_feed'];

/** Structured logger (pino's shape). */
export interface WorkerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const silentLogger: WorkerLogger = { info() {}, warn() {}, error() {} };

/** Delay before retry number `attempt` (1 = first retry), ms: exponential, capped, with jitter. */
export function backoffDelayMs(
  attempt: number,
  settings: Pick<WorkerSettings, 'backoffMs' | 'maxBackoffMs'>,
  random = Math.random,
): number {
  const exponential = Math.min(settings.maxBackoffMs, settings.backoffMs * 2 ** Math.min(attempt - 1, 30));
  // Jitter spreads retries of jobs that failed together (a provider outage) over half the delay.
  return Math.round(exponential * (0.5 + random() / 2));
}

export class Worker {
  /** Identifies this worker in `jobs.locked_by`. */
  readonly id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  readonly settings: WorkerSettings;
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly logger: WorkerLogger;
  private readonly snapshots = new CatalogueSnapshots();
  private stopping = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  /** Whether the last claim found jobs. */
  private busy = false;
  /** Pull jobs ({@link PULL_KINDS}) claimed and not yet finished. */
  private pullsRunning = 0;
  /** When expired leases were last looked for, ms since the epoch by the worker's clock. */
  private releasedAt = Number.NEGATIVE_INFINITY;
  /** The recurring work this worker looks at (jobs/schedules.ts). */
  private readonly schedules: readonly Schedule[];
  /** When this worker last looked at each schedule, ms since the epoch by its clock. */
  private readonly lookedAt = new Map<string, number>();

  /** Where the jobs' outgoing requests (sends, the assistant's model, webhooks) may go. */
  readonly outbound: OutboundPolicy;

  /**
   * @param options.outbound where outgoing requests may go: `inmo serve` and `inmo worker` pass
   *   their configuration's; by default, the policy of this process's environment (config.ts).
   * @param options.schedules the recurring work, by default {@link SCHEDULES} (tests count its runs).
   */
  constructor(options: {
    db: Db;
    clock?: Clock;
    logger?: WorkerLogger;
    settings?: Partial<WorkerSettings>;
    outbound?: OutboundPolicy;
    schedules?: readonly Schedule[];
  }) {
    this.db = options.db;
    this.schedules = options.schedules ?? SCHEDULES;
    this.outbound = options.outbound ?? outboundPolicy();
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.settings = { ...DEFAULT_WORKER_SETTINGS, ...options.settings };
  }

  private now(): string {
    return toRfc3339(this.clock.now());
  }

  /** Starts the loop in the background. */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = this.run();
  }

  /** Looks at the table now (new jobs were just committed, or a slot came free). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops claiming; resolves when the jobs already running have finished. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
    this.loop = null;
  }

  /**
   * The long-running loop: keeps up to `concurrency` jobs running, claiming again as soon as
   * one finishes, so one slow job (a provider taking its time) does not hold the others up.
   */
  private async run(): Promise<void> {
    const running = new Set<Promise<void>>();
    while (!this.stopping) {
      const free = this.settings.concurrency - running.size;
      if (free > 0) {
        try {
          for (const job of await this.claim(free)) {
            const run: Promise<void> = this.runJob(job).finally(() => {
              running.delete(run);
              this.wake();
            });
            running.add(run);
          }
        } catch (error) {
          // The database may be briefly unavailable (busy, restarting): wait and try again.
          this.logger.error({ err: error }, 'worker: could not claim jobs');
        }
      }
      // Wait for new jobs, a free slot, or the next look at the table.
      if (!this.stopping) await this.idle(this.settings.pollMs);
    }
    await Promise.all(running);
  }

  /**
   * Waits `ms`, or less when woken; a wake that came while busy ends the next wait as soon as
   * the event loop has turned once (`setImmediate`): on SQLite every statement is synchronous,
   * so a worker that went from claim to claim in promise callbacks alone held the loop for as
   * long as jobs kept coming (a re-match of 1,000 leads: 2.5 s in which `inmo serve`'s API
   * answered nothing; bench/alerts.ts). Between claims, requests and timers now run.
   */
  private idle(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return new Promise((resolve) => setImmediate(resolve));
    }
    return new Promise((resolve) => {
      // Not unref'd: an idle `inmo worker` has nothing else keeping the process alive.
      const timer = setTimeout(() => this.wakeUp?.(), ms);
      this.wakeUp = () => {
        this.wakeUp = null;
        this.woken = false;
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /**
   * Takes back jobs of dead workers, then claims up to `limit` due jobs.
   * @returns the jobs claimed.
   */
  private async claim(limit: number): Promise<ClaimedJob[]> {
    const now = this.now();
    await this.runDueSchedules();
    // While jobs keep coming, claim straight away; after an empty claim, look with a read
    // first, so idle workers polling never take SQLite's write lock.
    if (!this.busy && !(await hasClaimableJobs(this.db, now))) return [];
    // Dead workers' jobs are looked for at most once per poll interval.
    const nowMs = this.clock.now().getTime();
    if (nowMs - this.releasedAt >= this.settings.pollMs) {
      this.releasedAt = nowMs;
      const parked = await releaseExpiredJobs(this.db, now, this.settings.maxAttempts);
      if (parked.released) this.logger.warn({ released: parked.released }, 'worker: took back jobs whose worker stopped');
      for (const job of parked.failed) await this.afterParking(job, 'the worker running it stopped on its last attempt');
    }
    const lease = toRfc3339(new Date(nowMs + this.settings.leaseMs));
    // Pulls may take every slot but one: while the room left for them is smaller than `limit`,
    // up to that room is claimed of any kind, then the rest of other kinds only.
    const pullRoom = Math.max(1, this.settings.concurrency - 1) - this.pullsRunning;
    let jobs: ClaimedJob[];
    if (pullRoom >= limit) jobs = await claimJobs(this.db, this.id, limit, now, lease);
    else {
      jobs = pullRoom > 0 ? await claimJobs(this.db, this.id, pullRoom, now, lease) : [];
      if (jobs.length === Math.max(0, pullRoom))
        jobs.push(...(await claimJobs(this.db, this.id, limit - jobs.length, now, lease, PULL_KINDS)));
    }
    this.pullsRunning += jobs.filter((job) => PULL_KINDS.includes(job.kind as JobKind)).length;
    this.busy = jobs.length > 0;
    if (jobs.length) failpoint('job:claimed');
    return jobs;
  }

  /**
   * Runs the recurring work that is due (jobs/schedules.ts): each enabled schedule this worker
   * has not looked at for a period by its clock is looked at, and run when this worker claims
   * its run (one worker per period). A run that queued jobs makes the next claim come at once;
   * a failed run is logged and tried again the next period.
   */
  private async runDueSchedules(): Promise<void> {
    const at = this.clock.now();
    const nowMs = at.getTime();
    for (const schedule of this.schedules) {
      if (!schedule.enabled(this.settings)) continue;
      if (nowMs - (this.lookedAt.get(schedule.name) ?? Number.NEGATIVE_INFINITY) < schedule.everyMs) continue;
      this.lookedAt.set(schedule.name, nowMs);
      try {
        if (!(await claimRun(this.db, schedule, this.id, at))) continue;
        const queued = await schedule.run({
          db: this.db,
          now: at,
          settings: this.settings,
          log: (fields, message) => this.logger.info(fields, message),
        });
        if (queued > 0) this.busy = true;
      } catch (error) {
        this.logger.error({ schedule: schedule.name, err: error }, schedule.failure);
      }
    }
  }

  /** Lets a parked job's task leave its records in a final state (its `onParked`, given the parsed payload). */
  private async afterParking(job: { kind: string; lead_id: number | null; payload: string | null }, reason: string): Promise<void> {
    try {
      const parsed = isJobKind(job.kind) ? parseJobPayload(job.kind, job.payload) : null;
      if (parsed === null || 'error' in parsed) return;
      await taskFor(job.kind)?.onParked?.(this.db, { lead_id: job.lead_id, payload: parsed.payload }, reason, this.now());
    } catch (error) {
      this.logger.error({ kind: job.kind, lead_id: job.lead_id, err: error }, 'worker: could not settle a parked job');
    }
  }

  /**
   * One round: claims up to `concurrency` due jobs and runs them to the end.
   * @returns the number of jobs run.
   */
  async tick(): Promise<number> {
    const jobs = await this.claim(this.settings.concurrency);
    await Promise.all(jobs.map((job) => this.runJob(job)));
    return jobs.length;
  }

  /**
   * Runs jobs until none is due and none is running (waiting out the leases of jobs a dead
   * worker left), then resolves: `inmo worker --until-idle`, tests and benchmarks.
   * @returns the number of jobs run.
   */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const ran = await this.tick();
      total += ran;
      // The event loop turns between rounds, as in the long-running loop ({@link idle}).
      await new Promise((resolve) => setImmediate(resolve));
      if (ran > 0) continue;
      const { due, runningUntil } = await hasUnfinishedDueJobs(this.db, this.now());
      if (due) continue;
      if (runningUntil === null) return total;
      // Another worker holds jobs: wait for them to finish or for their lease to run out
      // (looked for again on the next claim).
      await new Promise((resolve) => setTimeout(resolve, Math.min(this.settings.pollMs, 250)));
      this.releasedAt = Number.NEGATIVE_INFINITY;
    }
  }

  private async runJob(job: ClaimedJob): Promise<void> {
    try {
      await this.runClaimedJob(job);
    } finally {
      if (PULL_KINDS.includes(job.kind as JobKind)) this.pullsRunning--;
    }
  }

  private async runClaimedJob(job: ClaimedJob): Promise<void> {
    const task = taskFor(job.kind);
    const log = { job_id: job.id, kind: job.kind, lead_id: job.lead_id, attempt: job.attempts };
    let finished = false;
    // The payload is parsed once, here, for its kind (db/job-kinds.ts); one that cannot be read parks the job.
    const parsed = isJobKind(job.kind) ? parseJobPayload(job.kind, job.payload) : null;
    const context: TaskContext = {
      db: this.db,
      job,
      payload: parsed !== null && 'payload' in parsed ? parsed.payload : (null as never),
      settings: this.settings,
      outbound: this.outbound,
      snapshots: this.snapshots,
      now: () => this.now(),
      log: (fields, message) => this.logger.info({ ...log, ...fields }, message),
      finalAttempt: job.attempts >= this.settings.maxAttempts,
      finish: async (effects) => {
        const result = await transact(this.db, async (trx) => {
          const value = await effects(trx);
          await completeJob(trx, job, this.id, this.now());
          return value;
        });
        finished = true;
        return result;
      },
    };
    try {
      if (!task || parsed === null) throw new PermanentJobError(`no task for job kind ${JSON.stringify(job.kind)}`);
      if ('error' in parsed) throw new PermanentJobError(parsed.error);
      await task.run(context);
      if (!finished) await context.finish(async () => undefined);
      failpoint('job:finished');
    } catch (error) {
      if (error instanceof LeaseLostError) {
        this.logger.warn(log, 'worker: the job was taken back by another worker; its work here was rolled back');
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      const park = error instanceof PermanentJobError || context.finalAttempt;
      const runAt = park ? null : toRfc3339(new Date(this.clock.now().getTime() + backoffDelayMs(job.attempts, this.settings)));
      try {
        await settleFailedRun(this.db, job, this.id, message, runAt, this.now());
      } catch (settleError) {
        // The lease will run out and another run will take the job again.
        this.logger.error({ ...log, err: settleError }, 'worker: could not record a failed run');
        return;
      }
      if (park) {
        this.logger.error({ ...log, error: message }, 'worker: job failed and was parked');
        await this.afterParking(job, message);
      } else this.logger.warn({ ...log, error: message, retry_at: runAt }, 'worker: job failed; it will be retried');
    }
  }
}
