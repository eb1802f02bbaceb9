/**
 * 0013: the index that claiming reads due jobs through (jobs/worker.ts; found by
 * `npm run bench -- --only events`).
 *
 * Claiming asks for `state = 'pending' and run_at <= now order by run_at, id`. SQLite, with no
 * statistics gathered (inmo never runs ANALYZE), preferred the `(state, id)` index to the
 * partial `(run_at, id) where state = 'pending'` one, then sorted every pending job on each
 * claim: 2.4 ms a claim with 10,000 queued, and a worker capped near 350 jobs a second. A
 * `(state, run_at, id)` index answers the whole query in order whatever the planner knows, on
 * both engines; it replaces the partial index, which it covers.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index jobs_due on jobs (state, run_at, id)`.execute(db);
  await sql`drop index jobs_pending`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index jobs_pending on jobs (run_at, id) where state = 'pending'`.execute(db);
  await sql`drop index jobs_due`.execute(db);
}
