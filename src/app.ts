/**
 * buildApp: the Fastify application serving /v1/ext (spec §4) with its OpenAPI document at
 * /v1/ext/openapi.json and interactive docs at /v1/ext/docs.
 *
 * Beside it, outside /v1/ext and without a key: `/healthz`, `/readyz` and `/metrics`
 * (http/operability.ts, CONTRACT §11).
 *
 * Cross-cutting behaviour lives here: request ids (`X-Request-Id` echoed when sane, else
 * generated; logged with every line), plain `{detail}` bodies for 404/405/413/500, and no
 * stack trace or SQL ever sent to a client (CONTRACT §2).
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Db } from './db/database.ts';
import { registerRateLimits, type RateLimits } from './http/rate-limit.ts';
import { GroupCommit } from './db/group-commit.ts';
import { BAD_REQUEST, BODY_TOO_LARGE, INTERNAL_ERROR, METHOD_NOT_ALLOWED, NOT_FOUND, sendDetail } from './http/errors.ts';
import { leadRoutes } from './http/routes/leads.ts';
import { meRoutes } from './http/routes/me.ts';
import { propertyRoutes } from './http/routes/properties.ts';
import { sharedSchemas } from './schemas/api.ts';
import { LIMITS } from './limits.ts';
import { createServer } from 'node:http';
import { CatalogueReader } from './services/properties.ts';
import { operabilityRoutes, type MetricsMode } from './http/operability.ts';

/** Path prefix of every API route (spec §9). */
export const API_PREFIX = '/v1/ext';
/** Largest accepted request body, bytes (CONTRACT §8). */
export const BODY_LIMIT = LIMITS.bodyBytes;

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface AppOptions {
  db: Db;
  /** Fastify logger option: false in tests, pino options when serving. */
  logger?: FastifyServerOptions['logger'];
  countCacheSize?: number;
  /** Page-body cache of GET /properties, MiB; 0 (the default here) turns it off. */
  pageCacheMb?: number;
  /**
   * Fastify's `trustProxy`: behind a load balancer, the client IP (per-IP rate limit, logs)
   * is read from `X-Forwarded-For` of the proxies trusted here. Off by default.
   */
  trustProxy?: boolean | string[];
  /** Rate limits (http/rate-limit.ts); none when omitted, as in most tests. `inmo serve` sets them from the environment. */
  rateLimits?: RateLimits;
  /** Called after a request has committed new jobs: an in-process worker wakes at once. */
  onJobsQueued?: () => void;
  /** Prometheus metrics (http/operability.ts): served at `/metrics` unless said otherwise. */
  metrics?: MetricsMode;
}

/** Routes that exist, as regular expressions with their methods: tells 405 from 404. */
type KnownRoute = { pattern: RegExp; methods: Set<string> };

function routePattern(url: string): RegExp {
  const escaped = url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+');
  return new RegExp(`^${escaped}$`);
}

/** Builds the application; the caller listens (or injects) and closes it. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT,
    trustProxy: options.trustProxy ?? false,
    // While closing, requests on open connections are still answered (the database closes
    // after them), never Fastify's own 503 body.
    return503OnClosing: false,
    // The `locations` query parameter may be up to LIMITS.locationsQueryChars long once decoded,
    // up to three times that percent-encoded: Node's 16 KiB default header limit would refuse
    // it with a bare 431 first.
    serverFactory: (handler) => createServer({ maxHeaderSize: LIMITS.locationsQueryChars * 3 + 16 * 1024 }, handler),
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    routerOptions: { ignoreDuplicateSlashes: false },
    // A URL the router cannot decode is a plain 400 like every other error body.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      return sendDetail(reply, 400, BAD_REQUEST);
    },
  });

  // Validation is ours (validation/pydantic.ts, called by http/route.ts); serialisation is
  // plain JSON.stringify so no key is ever dropped by a response schema.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  for (const schema of sharedSchemas) app.addSchema(schema);
  // Bodies are read as text whatever their type; http/route.ts parses them so that a bad body
  // is a Pydantic-shaped 422 (after authentication), never Fastify's own 400 or 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  const known: KnownRoute[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let entry = known.find((k) => k.pattern.source === routePattern(route.url).source);
    if (!entry) known.push((entry = { pattern: routePattern(route.url), methods: new Set() }));
    for (const m of methods) entry.methods.add(m);
  });

  // Set before any plugin is registered: Fastify's handlers are encapsulated, and plugins
  // registered earlier would keep the defaults (which do not answer `{detail}`).
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const route = known.find((k) => k.pattern.test(path));
    if (route) {
      reply.header('allow', [...route.methods].join(', '));
      return sendDetail(reply, 405, METHOD_NOT_ALLOWED);
    }
    return sendDetail(reply, 404, NOT_FOUND);
  });

  app.setErrorHandler((error: Error, request, reply) => {
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413) return sendDetail(reply, 413, BODY_TOO_LARGE);
    if (status !== undefined && status >= 400 && status < 500) {
      request.log.info({ err: error }, 'client error');
      return sendDetail(reply, status, error.message);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendDetail(reply, 500, INTERNAL_ERROR);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'inmo external API',
        version: '1.0.0',
        description:
          'External API of a real-estate agency workspace: the public property catalogue, leads, and key context. Every operation acts on the business that owns the API key.',
      },
      servers: [{ url: API_PREFIX }],
      components: {
        securitySchemes: {
          ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: '`AC_LIVE_<key_id>.<secret>`' },
          ApiKeyAuthorization: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`ApiKey AC_LIVE_<key_id>.<secret>`' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (json.$id as string) || `def-${i}` },
  });

  // Outside /v1/ext and its key checks and rate limits (CONTRACT §11).
  operabilityRoutes(app, options.db, options.metrics ?? 'served');

  await app.register(
    async (api) => {
      const postLimit = options.rateLimits ? await registerRateLimits(api, options.rateLimits) : null;
      const catalogue = new CatalogueReader(options.db, options.countCacheSize ?? 2000, (options.pageCacheMb ?? 0) * 1024 * 1024);
      meRoutes(api, options.db);
      propertyRoutes(api, options.db, catalogue);
      const writes = new GroupCommit(options.db);
      // Closing waits for the writes already handed in, so the database outlives them.
      api.addHook('onClose', () => writes.settled());
      leadRoutes(api, options.db, writes, options.onJobsQueued ?? (() => {}), postLimit ?? undefined);
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    },
    { prefix: API_PREFIX },
  );
  await app.register(swaggerUi, { routePrefix: `${API_PREFIX}/docs`, uiConfig: { url: `${API_PREFIX}/openapi.json` } });

  return app;
}
