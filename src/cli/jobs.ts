/**
 * `inmo jobs list|retry|schedules` (CONTRACT §7, §9): the background jobs, their state, and running a
 * failed one again; the recurring work (jobs/schedules.ts, issue 56) with its period, last run and
 * next run.
 */
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { action, cli, CliError, command, positiveInt, print, withDb } from './common.ts';

const STATES = ['pending', 'running', 'done', 'failed'];

export function register(program: Command): void {
  const jobs = program.command('jobs').description('background jobs');
  command(jobs, 'list', 'list background jobs, newest first (failed ones are parked: see last_error)')
    .option('--state <state>', `only jobs in this state: ${STATES.join(', ')}`)
    .option('--business <id>', 'only this business', positiveInt)
    .option('--limit <n>', 'most jobs listed', positiveInt, 100)
    .action(
      action(async (opts: { state?: string; business?: number; limit: number }) => {
        const { listJobs } = await import('../db/repositories/jobs.ts');
        if (opts.state !== undefined && !STATES.includes(opts.state)) throw new CliError(`--state must be one of: ${STATES.join(', ')}`);
        const list = await withDb((db) => listJobs(db, { state: opts.state, businessId: opts.business, limit: opts.limit }), {
          mustExist: true,
        });
        const human = list
          .map(
            (j) =>
              `#${j.id}  ${j.kind.padEnd(19)} lead ${String(j.lead_id ?? '-').padEnd(6)} ${j.state.padEnd(7)} attempts ${j.attempts}  run at ${j.run_at}` +
              (j.last_error ? `\n    ${j.last_error}` : ''),
          )
          .join('\n');
        print(list, human || 'no jobs');
      }),
    );
  command(jobs, 'retry', 'run a failed job again now (a message WhatsApp may have taken is never sent twice)')
    .argument('<id>', 'the job id (from jobs list --state failed)', positiveInt)
    .action(
      action(async (id: number) => {
        const { retryJob } = await import('../services/failed-jobs.ts');
        const job = await withDb((db) => retryJob(db, id), { mustExist: true });
        print(job, `job #${job.id} (${job.kind}) is pending again and runs at the next poll`);
      }),
    );
  command(jobs, 'schedules', 'list the recurring work the workers do, with its period, last run and next run').action(
    action(async () => {
      const { listSchedules } = await import('../jobs/schedules.ts');
      const settings = loadConfig(cli.env).worker;
      const list = await withDb((db) => listSchedules(db, settings, new Date()), { mustExist: true });
      const every = (seconds: number) => (seconds % 3600 === 0 ? `${seconds / 3600} h` : `${seconds / 60} min`);
      const human = list
        .map(
          (s) =>
            `${s.name.padEnd(21)} every ${every(s.every_seconds).padEnd(7)}` +
            (s.daily_hour === null ? '' : ` (daily at ${String(s.daily_hour).padStart(2, '0')}:00, business time)`) +
            (s.enabled ? `  last ${s.last_run_at ?? 'never'}  next ${s.next_run_at}` : '  off') +
            `\n    ${s.description}`,
        )
        .join('\n');
      print(list, human);
    }),
  );
}
