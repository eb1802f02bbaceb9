/**
 * The last runs of the schedules of recurring work (migration 0058; src/jobs/schedules.ts).
 */
import type { Executor } from '../database.ts';

/**
 * Claims the run of schedule `name` for `worker` at `now` when it is due: never run, last run at
 * or before `dueBy` (a period ago), or after `aheadOf` (recorded by a clock set more than a period
 * ahead of this one's, which would otherwise hold the schedule back until the clocks meet). One
 * conditional upsert: of the workers claiming at once, one alone gets the row (SQLite has one
 * writer; PostgreSQL re-reads the condition on the row the first one wrote).
 * @param now, dueBy, aheadOf canonical RFC 3339 instants.
 * @returns whether this worker claimed the run (and is to do it).
 */
export async function claimScheduleRun(
  db: Executor,
  run: { name: string; worker: string; now: string; dueBy: string; aheadOf: string },
): Promise<boolean> {
  // A read first: a look that finds the run not due writes nothing (no SQLite write lock for idle workers).
  const last = await db.selectFrom('schedule_runs').select('last_run_at').where('name', '=', run.name).executeTakeFirst();
  if (last && last.last_run_at > run.dueBy && last.last_run_at <= run.aheadOf) return false;
  const claimed = await db
    .insertInto('schedule_runs')
    .values({ name: run.name, last_run_at: run.now, worker: run.worker })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet({ last_run_at: run.now, worker: run.worker })
        .where((eb) => eb.or([eb('schedule_runs.last_run_at', '<=', run.dueBy), eb('schedule_runs.last_run_at', '>', run.aheadOf)])),
    )
    .returning('name')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** Every schedule's last run, by name. */
export async function listScheduleRuns(db: Executor): Promise<Map<string, { last_run_at: string; worker: string }>> {
  const rows = await db.selectFrom('schedule_runs').select(['name', 'last_run_at', 'worker']).execute();
  return new Map(rows.map((row) => [row.name, { last_run_at: row.last_run_at, worker: row.worker }]));
}
