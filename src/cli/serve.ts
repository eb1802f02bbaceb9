/**
 * `inmo serve`, `inmo worker` and `inmo migrate` (CONTRACT §9, §11): the processes of an
 * installation and its schema. What they do is in cli/processes.ts (serve) and
 * cli/worker-process.ts (worker, migrate), loaded when one runs.
 */
import type { Command } from 'commander';
import { action, command, port, positiveInt } from './common.ts';

export function register(program: Command): void {
  command(program, 'serve', 'migrate the database, serve /v1/ext (and /healthz, /readyz, /metrics), run the worker')
    .option('--port <port>', 'TCP port (default: PORT, else 8080)', port)
    .option('--host <host>', 'interface to listen on (default: HOST, else 127.0.0.1)')
    .option('--demo', 'on an empty database, create a demo business, catalogue and key')
    .option('--no-worker', 'run no background worker in this process (run `inmo worker` elsewhere)')
    .action(
      action(async (opts: { port?: number; host?: string; demo?: boolean; worker: boolean }) => {
        const { serve } = await import('./processes.ts');
        await serve(opts);
      }),
    );

  command(program, 'worker', 'run background jobs only (any number of workers may share a database)')
    .option('--until-idle', 'exit once no job is due or running, instead of waiting for more')
    .option('--concurrency <n>', 'jobs run at once (default INMO_WORKER_CONCURRENCY or 4)', positiveInt)
    .action(
      action(async (opts: { untilIdle?: boolean; concurrency?: number }) => {
        const { work } = await import('./worker-process.ts');
        await work(opts);
      }),
    );

  command(program, 'migrate', 'bring the database schema up to date').action(
    action(async () => {
      const { migrateSchema } = await import('./worker-process.ts');
      await migrateSchema();
    }),
  );
}
