/** Mailboxes pulled over IMAP (migrations 0026 and 0046, CONTRACT §19): SQL only (see services/leads/email-pulls.ts). */
import type { Updateable } from 'kysely';
import type { Executor } from '../database.ts';
import { insertReturningId } from '../compiled-once.ts';
import type { EmailPullTable } from '../types.ts';

/** Records a business's new pull. @returns its id. */
export async function insertEmailPull(
  db: Executor,
  row: { business_id: number; url: string; password_sealed: string; every_minutes: number; created_at: string },
): Promise<number> {
  return insertReturningId(db, 'email_pulls', row);
}

/** A pull by id (a removed one too), of `businessId` only unless it is omitted or null. */
export async function findEmailPull(db: Executor, id: number, businessId: number | null = null) {
  let query = db.selectFrom('email_pulls').selectAll().where('id', '=', id);
  if (businessId !== null) query = query.where('business_id', '=', businessId);
  return query.executeTakeFirst();
}

/** A business's pulls not removed, oldest first. */
export async function listEmailPulls(db: Executor, businessId: number) {
  return db
    .selectFrom('email_pulls')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('removed_at', 'is', null)
    .orderBy('id')
    .execute();
}

/** Changes a pull's columns. */
export async function updateEmailPull(db: Executor, id: number, values: Updateable<EmailPullTable>): Promise<void> {
  await db.updateTable('email_pulls').set(values).where('id', '=', id).execute();
}

/**
 * Takes a pull's lease for run `run` until `until`, when it is not removed and no other run holds
 * a lease that lasts past `now` (RFC 3339 texts compare as times).
 * @returns whether it was taken.
 */
export async function takeEmailPullLease(db: Executor, id: number, run: string, now: string, until: string): Promise<boolean> {
  const result = await db
    .updateTable('email_pulls')
    .set({ running_run: run, running_until: until })
    .where('id', '=', id)
    .where('removed_at', 'is', null)
    .where((eb) => eb.or([eb('running_until', 'is', null), eb('running_until', '<', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ends run `run`'s lease and records its outcome (nothing, when another run holds the lease). */
export async function finishEmailPullRun(
  db: Executor,
  id: number,
  run: string,
  outcome: Pick<EmailPullTable, 'last_run_at' | 'last_status' | 'last_result' | 'last_error'> &
    Partial<Pick<EmailPullTable, 'skipped_uids'>>,
): Promise<void> {
  await db
    .updateTable('email_pulls')
    .set({ ...outcome, running_run: null, running_until: null })
    .where('id', '=', id)
    .where('running_run', '=', run)
    .execute();
}
