/** `inmo jobs list|retry` (CONTRACT §7, §9): the background jobs, their state, and running a failed one again. */
import type { Command } from 'commander';
import { action, CliError, command, positiveInt, print, withDb } from './common.ts';

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
}
