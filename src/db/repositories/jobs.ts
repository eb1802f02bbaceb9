/** Jobs: background work recorded in the transaction that makes it necessary. */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../types.ts';

type Executor = Kysely<Database> | Transaction<Database>;

/** Background work a stored lead needs (spec §6). */
export type JobKind = 'match_lead' | 'send_welcome' | 'schedule_follow_ups';

/** Records pending jobs for a lead, due at `at`. */
export async function enqueueLeadJobs(db: Executor, businessId: number, leadId: number, kinds: JobKind[], at: string): Promise<void> {
  if (kinds.length === 0) return;
  await db
    .insertInto('jobs')
    .values(
      kinds.map((kind) => ({
        business_id: businessId,
        lead_id: leadId,
        kind,
        payload: null,
        state: 'pending',
        run_at: at,
        created_at: at,
        updated_at: at,
      })),
    )
    .execute();
}

export async function listJobsOfLead(db: Executor, leadId: number) {
  return db.selectFrom('jobs').select(['kind', 'state', 'run_at']).where('lead_id', '=', leadId).orderBy('id').execute();
}
