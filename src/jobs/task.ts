/**
 * What a task is (CONTRACT §7): the work of one job kind, defined with {@link defineTask} in a
 * file of src/jobs/tasks/ named after the kind, and listed in the registry of
 * src/jobs/tasks/index.ts, which the compiler checks covers every {@link JobKind}.
 *
 * A task must be safe to start again after a crash at any point: its database effects commit
 * with the job's completion ({@link TaskContext.finish}), and effects outside the database
 * guard themselves with recorded state (services/messaging/outbox.ts). A throw means "retry later";
 * a {@link PermanentJobError} parks the job at once.
 */
import type { OutboundPolicy } from '../config.ts';
import type { Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ClaimedJob } from '../db/repositories/jobs.ts';
import type { JobKind, JobPayloads } from '../db/job-kinds.ts';
import type { Database } from '../db/types.ts';
import type { CatalogueSnapshots } from '../services/leads/matching.ts';
import type { WorkerSettings } from './settings.ts';

/** A failure that retrying cannot fix: the job is parked as failed at once. */
export class PermanentJobError extends Error {}

/** What a task gets to do its job. */
export interface TaskContext<K extends JobKind = JobKind> {
  db: Db;
  job: ClaimedJob;
  /** The job's payload, parsed once by the worker for its kind (db/job-kinds.ts). */
  payload: JobPayloads[K];
  settings: WorkerSettings;
  /** Where the job's outgoing requests may go (config.ts). */
  outbound: OutboundPolicy;
  snapshots: CatalogueSnapshots;
  /** The worker clock's current instant, canonical RFC 3339. */
  now(): string;
  /** Logs a line of this job (the worker's logger, at info level, with the job's fields). */
  log(fields: object, message: string): void;
  /** Whether a failure of this run parks the job instead of retrying it. */
  finalAttempt: boolean;
  /**
   * Runs `effects` in one transaction that also marks the job done, so the task's last
   * effects and its completion commit together or not at all. A task that returns without
   * calling it is marked done by the worker on its own.
   * @returns what `effects` returned.
   * @throws LeaseLostError when another worker took the job back (everything rolls back).
   */
  finish<T>(effects: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
}

/** The work of one job kind. */
export interface TaskDefinition<K extends JobKind = JobKind> {
  /** Does the job; throws to be retried later. */
  run(ctx: TaskContext<K>): Promise<void>;
  /**
   * Called when a job of this kind is parked as failed, so that its records end in a final
   * state (a message never stays `sending` or `pending` for ever).
   */
  onParked?(db: Db, job: { lead_id: number | null; payload: JobPayloads[K] }, reason: string, now: string): Promise<void>;
}

/**
 * Declares the task of kind `K` (or of several kinds with the same payload); the identity, typed,
 * so the registry can be checked against {@link JobKind} and the task reads its payload typed.
 */
export function defineTask<K extends JobKind>(definition: TaskDefinition<K>): TaskDefinition<K> {
  return definition;
}

export type { JobKind };
