/**
 * Operability endpoints (CONTRACT §11), outside `/v1/ext` and without an API key: what load
 * balancers, orchestrators and Prometheus ask a process.
 *
 * - `GET /healthz` → 200 `{"status": "ok"}` while the process runs (liveness).
 * - `GET /readyz` → 200 `{"status": "ready"}` when the database answers and its schema has
 *   every migration of this release; else 503 `{"status": "unavailable", "reason": "…"}`
 *   (readiness: send no traffic here yet).
 * - `GET /metrics` → the Prometheus text exposition of this process (src/metrics.ts), unless
 *   it is off (`INMO_METRICS=off`) or served on its own port (`INMO_METRICS_PORT`,
 *   {@link serveMetricsOn}). On the API's port it answers only a loopback client, or a request
 *   with `Authorization: Bearer <INMO_METRICS_TOKEN>`; anyone else gets the 404 of a route
 *   that does not exist. "Loopback" is the client's address as `INMO_TRUST_PROXY` reads it:
 *   behind a reverse proxy on the same host, set it, or every visitor is loopback.
 * - `GET /favicon.ico` → the icon of every page (SVG; the console's pages link the same file).
 */
import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import Fastify, { type FastifyInstance } from 'fastify';
import { pendingMigrations, ping, type Db } from '../db/database.ts';
import { InmoError } from '../errors.ts';
import { exposition, observeRequest, startMetrics } from '../metrics.ts';
import { inPackage } from '../package-root.ts';

/** The icon of every page (the console's, SVG), read once. */
const FAVICON = readFileSync(inPackage('src', 'http', 'console', 'assets', 'favicon.svg'));

/** Longest `/readyz` waits for the database before calling it down, ms. */
export const READINESS_TIMEOUT_MS = 2000;

/**
 * Where this process's metrics go: `served` counts requests and answers `GET /metrics` on the
 * API's port; `counted` counts them for another port ({@link serveMetricsOn}); `off` neither.
 */
export type MetricsMode = 'served' | 'counted' | 'off';

/** Why the database is not ready for traffic, or null when it is. */
async function notReadyReason(db: Db): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the database did not answer within ${READINESS_TIMEOUT_MS} ms`), READINESS_TIMEOUT_MS);
  });
  const check = (async () => {
    let pending: string[];
    try {
      await ping(db);
      pending = await pendingMigrations(db);
    } catch (error) {
      return `the database does not answer: ${(error as Error).message}`;
    }
    return pending.length ? `migrations behind: ${pending.join(', ')} not applied (run inmo migrate)` : null;
  })();
  try {
    return await Promise.race([check, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `ip` (the client's address as Fastify reads it, proxies trusted or not) is loopback. */
function isLoopback(ip: string): boolean {
  return ipaddr.isValid(ip) && ipaddr.process(ip).range() === 'loopback';
}

/** Whether `header` is `Bearer <token>`, compared in constant time. */
function bearerIs(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * `GET /metrics`.
 * @param access on the API's port: the token that opens it to any client (null: none), and
 *   loopback clients always; omitted on a port of its own, which answers whoever reaches it.
 */
function metricsRoute(app: FastifyInstance, db: Db, access?: { token: string | null }): void {
  // Node's process metrics are gathered from now on, not from the first scrape; a failure to load
  // prom-client shows at that scrape.
  startMetrics().catch(() => undefined);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (access && !isLoopback(request.ip) && !(access.token !== null && bearerIs(request.headers.authorization, access.token))) {
      throw new InmoError('NOT_FOUND');
    }
    const { body, contentType } = await exposition(db);
    return reply.type(contentType).send(body);
  });
}

/**
 * Registers `/healthz`, `/readyz`, and (mode `served`) `/metrics`; counts requests unless `off`.
 * @param metricsToken `INMO_METRICS_TOKEN`: opens `/metrics` to clients that are not loopback.
 */
export function operabilityRoutes(app: FastifyInstance, db: Db, metrics: MetricsMode, metricsToken: string | null = null): void {
  if (metrics !== 'off') {
    app.addHook('onResponse', (request, reply, done) => {
      observeRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  // Every page's icon, where browsers look for one without being told (issue 47): the console's.
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON),
  );
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const reason = await notReadyReason(db);
    if (reason === null) return { status: 'ready' };
    return reply.code(503).send({ status: 'unavailable', reason });
  });
  if (metrics === 'served') metricsRoute(app, db, { token: metricsToken });
}

/**
 * Serves `GET /metrics` alone on `host:port` (`INMO_METRICS_PORT`): for an API process whose
 * port is public, and for `inmo worker`, which serves nothing else.
 * @returns the listening server; close it on shutdown.
 * @throws the listen error (e.g. EADDRINUSE).
 */
export async function serveMetricsOn(db: Db, host: string, port: number): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  metricsRoute(app, db);
  await app.listen({ host, port });
  return app;
}
