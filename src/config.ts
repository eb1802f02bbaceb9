/**
 * Configuration: environment variables → typed, validated settings.
 *
 * Read once at start; a bad value throws at once with the variable's name rather than
 * failing later inside a request.
 */

import { DEFAULT_POOL_SETTINGS, type PoolSettings } from './db/database.ts';
import { DEFAULT_RATE_LIMITS, type RateLimits } from './http/rate-limit.ts';
import { loadLimits, type Limits } from './limits.ts';
import { DEFAULT_WORKER_SETTINGS, type WorkerSettings } from './jobs/worker.ts';

/** Settings every command shares. */
export interface Config {
  /** `sqlite:<path>` (default `sqlite:./data/inmo.db`) or `postgres://…` (CONTRACT §9). */
  databaseUrl: string;
  /** pino level for the HTTP server's JSON logs. */
  logLevel: string;
  /** Entries kept in the per-process cache of `total` counts of GET /properties. */
  countCacheSize: number;
  /** Size of the per-process cache of GET /properties page bodies, MiB (0 = off). */
  pageCacheMb: number;
  /** Requests per minute per API key, and per client IP on the POST endpoints (`INMO_RATE_LIMIT_PER_KEY`, `INMO_RATE_LIMIT_POST_PER_IP`; 0 = off). */
  rateLimits: RateLimits;
  /** `INMO_TRUST_PROXY`: `true` (any proxy) or the addresses/CIDRs (comma-separated) whose `X-Forwarded-For` is believed. */
  trustProxy: boolean | string[];
  /** PostgreSQL pool: `INMO_PG_POOL_SIZE` connections per process, `INMO_PG_STATEMENT_TIMEOUT_MS`. */
  pool: PoolSettings;
  /** The background worker's tunables (`INMO_WORKER_*`, `INMO_JOB_*`, `INMO_MATCH_LIMIT`, `INMO_SEND_TIMEOUT_MS`). */
  worker: WorkerSettings;
  /**
   * Prometheus metrics (CONTRACT §11): `INMO_METRICS=off` turns them off; `INMO_METRICS_PORT`
   * serves `GET /metrics` on its own port (on `INMO_METRICS_HOST`, default 127.0.0.1) instead
   * of the API's, and lets `inmo worker` serve its own.
   */
  metrics: { enabled: boolean; port: number | null; host: string };
  /** Request limits of CONTRACT §8 (`INMO_MAX_*`, src/limits.ts). */
  limits: Limits;
}

/** Default database location, relative to the working directory. */
export const DEFAULT_DATABASE_URL = 'sqlite:./data/inmo.db';

function intFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function trustProxyFromEnv(raw: string | undefined): boolean | string[] {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

/**
 * Builds the configuration from the environment.
 * @throws Error naming the variable when a value is invalid.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  if (!databaseUrl.startsWith('sqlite:') && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error(`DATABASE_URL must start with sqlite: or postgres://, got ${JSON.stringify(databaseUrl)}`);
  }
  const worker = {
    concurrency: intFromEnv(env, 'INMO_WORKER_CONCURRENCY', DEFAULT_WORKER_SETTINGS.concurrency, 1),
    pollMs: intFromEnv(env, 'INMO_WORKER_POLL_MS', DEFAULT_WORKER_SETTINGS.pollMs, 10),
    leaseMs: intFromEnv(env, 'INMO_JOB_LEASE_MS', DEFAULT_WORKER_SETTINGS.leaseMs, 100),
    maxAttempts: intFromEnv(env, 'INMO_JOB_MAX_ATTEMPTS', DEFAULT_WORKER_SETTINGS.maxAttempts, 1),
    backoffMs: intFromEnv(env, 'INMO_JOB_BACKOFF_MS', DEFAULT_WORKER_SETTINGS.backoffMs, 0),
    maxBackoffMs: intFromEnv(env, 'INMO_JOB_MAX_BACKOFF_MS', DEFAULT_WORKER_SETTINGS.maxBackoffMs, 0),
    matchLimit: intFromEnv(env, 'INMO_MATCH_LIMIT', DEFAULT_WORKER_SETTINGS.matchLimit, 0),
    sendTimeoutMs: intFromEnv(env, 'INMO_SEND_TIMEOUT_MS', DEFAULT_WORKER_SETTINGS.sendTimeoutMs, 100),
  };
  // A lease that ran out while the provider was still answering would let another worker
  // take the job back mid-send (it would then find the message `sending`, never send again).
  if (worker.leaseMs <= worker.sendTimeoutMs) {
    throw new Error(`INMO_JOB_LEASE_MS (${worker.leaseMs}) must be longer than INMO_SEND_TIMEOUT_MS (${worker.sendTimeoutMs})`);
  }
  return {
    databaseUrl,
    logLevel: env.LOG_LEVEL || 'info',
    countCacheSize: intFromEnv(env, 'INMO_COUNT_CACHE_SIZE', 2000, 0),
    pageCacheMb: intFromEnv(env, 'INMO_PAGE_CACHE_MB', 32, 0),
    trustProxy: trustProxyFromEnv(env.INMO_TRUST_PROXY),
    rateLimits: {
      perKeyPerMinute: intFromEnv(env, 'INMO_RATE_LIMIT_PER_KEY', DEFAULT_RATE_LIMITS.perKeyPerMinute, 0),
      postPerIpPerMinute: intFromEnv(env, 'INMO_RATE_LIMIT_POST_PER_IP', DEFAULT_RATE_LIMITS.postPerIpPerMinute, 0),
    },
    pool: {
      poolSize: intFromEnv(env, 'INMO_PG_POOL_SIZE', DEFAULT_POOL_SETTINGS.poolSize, 1),
      statementTimeoutMs: intFromEnv(env, 'INMO_PG_STATEMENT_TIMEOUT_MS', DEFAULT_POOL_SETTINGS.statementTimeoutMs, 0),
    },
    worker,
    metrics: metricsFromEnv(env),
    limits: loadLimits(env),
  };
}

function metricsFromEnv(env: NodeJS.ProcessEnv): Config['metrics'] {
  const onOff = env.INMO_METRICS || 'on';
  if (onOff !== 'on' && onOff !== 'off') throw new Error(`INMO_METRICS must be on or off, got ${JSON.stringify(onOff)}`);
  const port = env.INMO_METRICS_PORT ? intFromEnv(env, 'INMO_METRICS_PORT', 0, 0) : null;
  if (port !== null && port > 65535)
    throw new Error(`INMO_METRICS_PORT must be a port number, got ${JSON.stringify(env.INMO_METRICS_PORT)}`);
  return { enabled: onOff === 'on', port, host: env.INMO_METRICS_HOST || '127.0.0.1' };
}
