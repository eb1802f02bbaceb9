/**
 * 0058: the last run of each schedule of recurring work (issue 56 item 2; src/jobs/schedules.ts),
 * so that the workers sharing a database run each schedule once per period between them, and
 * `inmo jobs schedules` can say when it last ran and runs next.
 *
 * - schedule_runs.name: the schedule's name (`alert_round`, `viewing_reminders`, …).
 * - last_run_at: when its last run was claimed, canonical RFC 3339, by the clock of the worker
 *   that claimed it. A worker claims a run with one conditional upsert of this row, so of the
 *   workers looking at once, one alone runs it.
 * - worker: the worker that claimed it (jobs.locked_by's form).
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table schedule_runs (
    name text primary key,
    last_run_at text not null,
    worker text not null
  )`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table schedule_runs`.execute(db);
}
