/**
 * Failed background jobs, and running one again (issue 15: the console's jobs page; `inmo jobs
 * retry`).
 *
 * A job fails for good (`failed`) after its last attempt, or at once on a permanent error
 * (jobs/worker.ts). A retry puts it back to `pending`, due now, with its attempts counted from
 * zero. A job that sends a WhatsApp message (`send_welcome`, `send_message`, `assistant_reply`)
 * is retried only while its message is `failed` (WhatsApp certainly did not take it), which
 * goes back to `pending` with it; a message `sending`, `needs_reconciliation`, or already sent
 * may have reached the lead, and is never sent twice (services/messaging/delivery.ts).
 */
import type { Db } from '../db/database.ts';
import { findMessage, findReplyTo, findWelcome, moveMessage, type MessageRow } from '../db/repositories/messaging.ts';
import { findJobForRetry, listJobs, retryFailedJob } from '../db/repositories/jobs.ts';
import { parseJobPayload } from '../db/job-kinds.ts';
import type { Executor } from '../db/database.ts';
import { nowRfc3339 } from '../domain/time.ts';
import { InmoError } from '../errors.ts';

/** The message a job delivers, for the kinds that send one (it may not exist yet). */
async function messageOfJob(
  db: Executor,
  job: { kind: string; lead_id: number | null; payload: string | null },
): Promise<MessageRow | undefined> {
  if (job.kind === 'send_welcome') return job.lead_id === null ? undefined : findWelcome(db, job.lead_id);
  if (job.kind !== 'send_message' && job.kind !== 'assistant_reply') return undefined;
  // The payload as the worker reads it (db/job-kinds.ts); one it cannot read names no message.
  const parsed = parseJobPayload(job.kind, job.payload);
  if ('error' in parsed) return undefined;
  return job.kind === 'send_message' ? findMessage(db, parsed.payload.message_id) : findReplyTo(db, parsed.payload.message_id);
}

/** A business's failed jobs, newest first. */
export async function listFailedJobs(db: Db, businessId: number, limit = 100) {
  return listJobs(db, { state: 'failed', businessId, limit });
}

/**
 * Runs a failed job again: `pending`, due now, attempts from zero; its failed message, if it
 * sends one, back to `pending` too.
 * @param businessId when given, a job of another business is not found (the console's tenancy).
 * @returns the job's id, kind and new state.
 * @throws InmoError JOB_NOT_FOUND, JOB_NOT_FAILED, JOB_RETRY_UNSAFE.
 */
export async function retryJob(db: Db, id: number, options: { businessId?: number } = {}, now = nowRfc3339()) {
  return db.transaction().execute(async (trx) => {
    const job = await findJobForRetry(trx, id, options.businessId);
    if (!job) throw new InmoError('JOB_NOT_FOUND', { id });
    if (job.state !== 'failed') throw new InmoError('JOB_NOT_FAILED', { id, state: job.state });
    const message = await messageOfJob(trx, job);
    if (message && message.state !== 'failed' && message.state !== 'pending')
      throw new InmoError('JOB_RETRY_UNSAFE', { id, state: message.state });
    if (message?.state === 'failed') await moveMessage(trx, message.id, 'failed', { state: 'pending', last_error: null, updated_at: now });
    if (!(await retryFailedJob(trx, id, now))) throw new InmoError('JOB_NOT_FAILED', { id, state: 'retried already' });
    return { id, kind: job.kind, state: 'pending' as const };
  });
}
