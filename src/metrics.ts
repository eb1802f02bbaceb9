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
import type { Gauge, Metric, Registry } from 'prom-client';
import type { Db } from './db/database.ts';
import { jobStatistics } from './db/repositories/jobs.ts';
import { toRfc3339 } from './domain/time.ts';

/** Upper bounds of the latency histogram's buckets, seconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The requests of one (method, route, status): count, summed seconds, and per-bucket counts. */
export interface RequestSeries {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative; the last slot is `+Inf`). */
  buckets: number[];
}

/**
 * Requests are tallied in plain numbers and turned into prom-client's series only when
 * scraped: prom-client hashes the label set on every observation, which cost about 10 µs a
 * request (a sixth of a cached GET /properties, measured with wrk).
 */
const requestSeries = new Map<string, RequestSeries>();

/** Outcomes of one call to a messaging provider. */
export type SendOutcome = 'sent' | 'rejected' | 'retry' | 'unknown';

/** Provider calls of this process by outcome, tallied as the requests are. */
const sends: Record<SendOutcome, number> = { sent: 0, rejected: 0, retry: 0, unknown: 0 };

/** The registry and the gauges set at each scrape. */
interface Metrics {
  registry: Registry;
  jobs: Gauge<'kind' | 'state'>;
  oldestDuePending: Gauge;
}

let metrics: Promise<Metrics> | undefined;

/**
 * Starts this process's metrics: prom-client (loaded here, so that a process that serves no
 * metrics, `inmo worker`, never loads it) on a registry of our own with Node's process metrics,
 * which are gathered from this call on. `inmo serve` calls it as it starts; the first scrape
 * would otherwise.
 */
export function startMetrics(): Promise<Metrics> {
  return (metrics ??= import('prom-client').then(({ collectDefaultMetrics, Gauge, Registry }) => {
    const registry = new Registry();
    registry.setDefaultLabels({ process: `${hostname()}:${process.pid}` });
    collectDefaultMetrics({ register: registry, prefix: 'inmo_' });

    registry.registerMetric({
      name: 'inmo_http_requests_total',
      get: async () => ({
        name: 'inmo_http_requests_total',
        help: 'HTTP requests answered, by method, route template and status.',
        type: 'counter',
        aggregator: 'sum',
        values: [...requestSeries.values()].map((s) => ({ labels: s.labels, value: s.count })),
      }),
    } as unknown as Metric);

    registry.registerMetric({
      name: 'inmo_http_request_duration_seconds',
      get: async () => ({
        name: 'inmo_http_request_duration_seconds',
        help: 'Time from the arrival of a request to its response, seconds.',
        type: 'histogram',
        aggregator: 'sum',
        values: [...requestSeries.values()].flatMap((s) => {
          let cumulative = 0;
          const buckets = [...LATENCY_BUCKETS, '+Inf' as const].map((le, i) => {
            cumulative += s.buckets[i];
            return { metricName: 'inmo_http_request_duration_seconds_bucket', labels: { le, ...s.labels }, value: cumulative };
          });
          return [
            ...buckets,
            { metricName: 'inmo_http_request_duration_seconds_sum', labels: s.labels, value: s.sum },
            { metricName: 'inmo_http_request_duration_seconds_count', labels: s.labels, value: s.count },
          ];
        }),
      }),
    } as unknown as Metric);

    registry.registerMetric({
      name: 'inmo_message_sends_total',
      get: async () => ({
        name: 'inmo_message_sends_total',
        help: 'Template messages handed to the messaging provider by this process, by outcome.',
        type: 'counter',
        aggregator: 'sum',
        values: Object.entries(sends).map(([outcome, value]) => ({ labels: { outcome }, value })),
      }),
    } as unknown as Metric);

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
    return { registry, jobs, oldestDuePending };
  }));
}

/** Records one answered request; `seconds` from its arrival. */
export function observeRequest(method: string, route: string | undefined, status: number, seconds: number): void {
  observeSeries(seriesOf(method, route, status), seconds);
}

/**
 * The series of requests with these labels, made on first use: a caller answering the same kind
 * of request again and again (http/fast-path.ts) keeps it and calls {@link observeSeries}.
 */
export function seriesOf(method: string, route: string | undefined, status: number): RequestSeries {
  const key = `${method} ${status} ${route ?? ''}`;
  let series = requestSeries.get(key);
  if (!series) {
    series = {
      labels: { method, route: route ?? 'unmatched', status: String(status) },
      count: 0,
      sum: 0,
      buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0),
    };
    requestSeries.set(key, series);
  }
  return series;
}

/** Records one answered request of `series`; `seconds` from its arrival. */
export function observeSeries(series: RequestSeries, seconds: number): void {
  series.count++;
  series.sum += seconds;
  let bucket = 0;
  while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]) bucket++;
  series.buckets[bucket]++;
}

/** Records the outcome of one provider call. */
export function observeSend(outcome: SendOutcome): void {
  sends[outcome]++;
}

/**
 * The Prometheus text exposition of this process, with the job gauges read from `db` now.
 * @returns the body and its content type (`text/plain; version=0.0.4`).
 */
export async function exposition(db: Db, now = new Date()): Promise<{ body: string; contentType: string }> {
  const { registry, jobs, oldestDuePending } = await startMetrics();
  const stats = await jobStatistics(db, toRfc3339(now));
  jobs.reset();
  for (const { kind, state, count } of stats.counts) jobs.set({ kind, state }, count);
  oldestDuePending.set(stats.oldestDueRunAt ? Math.max(0, (now.getTime() - Date.parse(stats.oldestDueRunAt)) / 1000) : 0);
  return { body: await registry.metrics(), contentType: registry.contentType };
}
