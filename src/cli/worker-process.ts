/**
 * What `inmo worker` and `inmo migrate` do (CONTRACT §7, §9, §11), apart from `inmo serve`
 * (cli/processes.ts): a worker loads the jobs' code only, not the HTTP server's, the console's
 * or the demo's, so that it starts in about half the time (a worker started and killed per
 * round is what the crash tests and supervisors do).
 */
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { loadConfig } from '../config.ts';
import { createDb, migrate } from '../db/database.ts';
import { Worker } from '../jobs/worker.ts';
import { cli, CliError, openDb, plural, print } from './common.ts';

/** Calls `stop` once on the first SIGINT or SIGTERM; a second signal while stopping is ignored. */
export function onShutdownSignal(stop: () => Promise<void>): void {
  let stopping = false;
  const once = () => {
    if (stopping) return;
    stopping = true;
    void stop();
  };
  process.on('SIGINT', once);
  process.on('SIGTERM', once);
}

/** The metrics URL of a metrics server listening on its own port, or undefined. */
export function metricsAddress(server: FastifyInstance | null): string | undefined {
  const address = server?.server.address();
  return address && typeof address === 'object' ? `http://${address.address}:${address.port}/metrics` : undefined;
}

/** `inmo worker`: runs the background jobs until stopped, or until none is due with `--untilIdle`. */
export async function work(opts: { untilIdle?: boolean; concurrency?: number }): Promise<void> {
  const config = loadConfig(cli.env);
  const db = await openDb(config);
  const logger = pino({ level: config.logLevel }, cli.stdout);
  const settings = { ...config.worker, ...(opts.concurrency ? { concurrency: opts.concurrency } : {}) };
  const worker = new Worker({ db, settings, outbound: config.outbound, logger });
  if (opts.untilIdle) {
    const ran = await worker.drain();
    await db.destroy();
    print({ jobs_run: ran }, `ran ${plural(ran, 'job')}; none is due`);
    return;
  }
  let metrics: FastifyInstance | null = null;
  if (config.metrics.enabled && config.metrics.port !== null) {
    const { serveMetricsOn } = await import('../http/operability.ts');
    metrics = await serveMetricsOn(db, config.metrics.host, config.metrics.port).catch(async (error: Error) => {
      await db.destroy();
      throw new CliError(`cannot listen on ${config.metrics.host}:${config.metrics.port}: ${error.message}`);
    });
  }
  logger.info({ worker: worker.id, concurrency: settings.concurrency, metrics: metricsAddress(metrics) }, 'worker started');
  worker.start();
  await new Promise<void>((resolve) => onShutdownSignal(async () => resolve()));
  logger.info({ worker: worker.id }, 'worker stopping: letting running jobs finish');
  await Promise.allSettled([worker.stop(), metrics?.close()]);
  await db.destroy();
}

/** `inmo migrate`: brings the schema up to date and prints what was applied. */
export async function migrateSchema(): Promise<void> {
  const config = loadConfig(cli.env);
  const db = createDb(config.databaseUrl, config.pool);
  try {
    const applied = await migrate(db);
    print({ applied }, applied.length ? `applied: ${applied.join(', ')}` : 'the schema is up to date');
  } finally {
    await db.destroy();
  }
}
