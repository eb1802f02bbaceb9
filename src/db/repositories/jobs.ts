/** Jobs: background work recorded in the transaction that makes it necessary. */
import type { Kysely, Transaction } from 'kysely';
import { runCompiledOnce } from '../compiled-once.ts';
import type { Database } from '../types.ts';

type Executor = Kysely<Database> | Transaction<Database>;

/** Background work a stored lead needs (spec §6). */
export type JobKind = 'match_lead' | 'send_welcome' | 'schedule_follow_ups';

/** Records pending jobs for a lead, due at `at`. (Compiled once per number of jobs: it runs for every new lead.) */
export async function enqueueLeadJobs(db: Executor, businessId: number, leadId: number, kinds: JobKind[], at: string): Promise<void> {
  if (kinds.length === 0) return;
  const values = [businessId, leadId, at, 'pending', null, ...kinds];
  await runCompiledOnce(db, `enqueueLeadJobs:${kinds.length}`, values, ([business, lead, atParam, pending, none, ...kindParams]) =>
    db.insertInto('jobs').values(
      kindParams.map((kind) => ({
        business_id: business as unknown as number,
        lead_id: lead as unknown as number,
        kind,
        payload: none,
        state: pending,
        run_at: atParam,
        created_at: atParam,
        updated_at: atParam,
      })),
    ),
  );
}

export async function listJobsOfLead(db: Executor, leadId: number) {
  return db.selectFrom('jobs').select(['kind', 'state', 'run_at']).where('lead_id', '=', leadId).orderBy('id').execute();
}
