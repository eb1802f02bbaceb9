/**
 * Prometheus metrics of this process (CONTRACT §11), built with prom-client on a registry of
 * our own rather than the library's global one:
 *
 * - `inmo_http_requests_total{method, route, status}` and the latency histogram
 *   `inmo_http_request_duration_seconds{method, route, status}`; `route` is the route's
 *   template (`/v1/ext/properties/:property_id`), never the raw URL, so ids and query strings
 *   cannot blow up the number of series; requests no route answers are `route="unmatched"`;
 * - `inmo_jobs{kind, state}` and `inmo_jobs_oldest_due_pending_age_seconds`, read from the
 *   jobs table at each scrape (the table is shared by every process, so any one tells);
 * - `inmo_message_sends_total{outcome}`: provider calls of this process's worker by outcome
 *   (`sent`, `rejected`, `retry`, `unknown`; channels/whatsapp-cloud.ts);
 * - Node's process metrics (CPU, memory, event loop lag, GC) from prom-client's defaults.
 *
 * Every series carries `process="<host>:<pid>"`, so the processes of one installation
 * (several `inmo serve` and `inmo worker`) can be told apart and summed.
 */
import { hostname } from 'node:os';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from './db/database.ts';
import { jobStatistics } from './db/repositories/jobs.ts';
import { toRfc3339 } from './domain/time.ts';

/** The registry every metric of this process is on. */
export const registry = new Registry();
registry.setDefaultLabels({ process: `${hostname()}:${process.pid}` });
collectDefaultMetrics({ register: registry, prefix: 'inmo_' });

const httpRequests = new Counter({
  name: 'inmo_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

const httpDuration = new Histogram({
  name: 'inmo_http_request_duration_seconds',
  help: 'Time from the arrival of a request to its response, seconds.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

const jobs = new Gauge({
  name: 'inmo_jobs',
  help: 'Background jobs in the database, by kind and state (pending, running, done, failed).',
  labelNames: ['kind', 'state'] as const,
  registers: [registry],
});

const oldestDuePending = new Gauge({
  name: 'inmo_jobs_oldest_due_pending_age_seconds',
  help: 'How long the oldest due pending job has waited past its run_at, seconds (0 when none waits).',
  registers: [registry],
});

/** Outcomes of one call to a messaging provider. */
export type SendOutcome = 'sent' | 'rejected' | 'retry' | 'unknown';

const messageSends = new Counter({
  name: 'inmo_message_sends_total',
  help: 'Template messages handed to the messaging provider by this process, by outcome.',
  labelNames: ['outcome'] as const,
  registers: [registry],
});
for (const outcome of ['sent', 'rejected', 'retry', 'unknown'] as const) messageSends.inc({ outcome }, 0);

/**
 * The series of one (method, route, status), bound once: prom-client hashes a label object on
 * every call, which cost about 9 µs a request; a bound child costs a Map lookup.
 */
const requestSeries = new Map<string, { count: { inc(): void }; duration: { observe(value: number): void } }>();

/** Records one answered request; `seconds` from its arrival. */
export function observeRequest(method: string, route: string | undefined, status: number, seconds: number): void {
  const key = `${method} ${status} ${route ?? ''}`;
  let series = requestSeries.get(key);
  if (!series) {
    const labels = { method, route: route ?? 'unmatched', status: String(status) };
    series = { count: httpRequests.labels(labels), duration: httpDuration.labels(labels) };
    requestSeries.set(key, series);
  }
  series.count.inc();
  series.duration.observe(seconds);
}

/** Records the outcome of one provider call. */
export function observeSend(outcome: SendOutcome): void {
  messageSends.inc({ outcome });
}

/**
 * The Prometheus text exposition of this process, with the job gauges read from `db` now.
 * @returns the body and its content type (`text/plain; version=0.0.4`).
 */
export async function exposition(db: Db, now = new Date()): Promise<{ body: string; contentType: string }> {
  const stats = await jobStatistics(db, toRfc3339(now));
  jobs.reset();
  for (const { kind, state, count } of stats.counts) jobs.set({ kind, state }, count);
  oldestDuePending.set(stats.oldestDueRunAt ? Math.max(0, (now.getTime() - Date.parse(stats.oldestDueRunAt)) / 1000) : 0);
  return { body: await registry.metrics(), contentType: registry.contentType };
}
