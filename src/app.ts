/**
 * buildApp: the Fastify application serving /v1/ext (spec §4) with its OpenAPI document at
 * /v1/ext/openapi.json and interactive docs at /v1/ext/docs.
 *
 * Beside it, outside /v1/ext and without a key: `/healthz`, `/readyz` and `/metrics`
 * (http/operability.ts, CONTRACT §11), WhatsApp's webhook `/webhooks/whatsapp`
 * (http/routes/webhooks.ts, CONTRACT §10), portal e-mails forwarded to `/webhooks/email/<token>`
 * (http/routes/email-webhook.ts, CONTRACT §19), listings' public pages `/l/<token>` and their
 * sheets (http/routes/listing-page.ts, CONTRACT §21), and the workspace console under `/console`, with
 * sessions of its own (http/console/plugin.ts, CONTRACT §12).
 *
 * Cross-cutting behaviour lives here: request ids (`X-Request-Id` echoed when sane, else
 * generated; logged with every line), one log line per request (method, route, status, ms,
 * request id, key id), plain `{detail}` bodies for 404/405/413/500, and no
 * stack trace or SQL ever sent to a client (CONTRACT §2).
 */
import { outboundPolicy, type InboundSmtpSettings, type OutboundPolicy } from './config.ts';
import { mediaRoutes, type MediaOptions } from './http/media.ts';
import { FolderMediaStore } from './media/store.ts';
import { DEFAULT_WORKER_SETTINGS } from './worker-settings.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import type { Db } from './db/database.ts';
import { registerRateLimits } from './http/rate-limit.ts';
import { DEFAULT_RATE_LIMITS, type RateLimits } from './rate-limit-settings.ts';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import { COMPRESSION_OPTIONS } from './http/conditional.ts';
import { GroupCommit } from './db/group-commit.ts';
import { apiKeyAuth } from './http/auth.ts';
import { fastapiCompatibility, frameworkErrors } from './http/request-pipeline.ts';
import { leadRoutes } from './http/routes/leads.ts';
import { meRoutes } from './http/routes/me.ts';
import { propertyRoutes } from './http/routes/properties.ts';
import { eventRoutes } from './http/routes/events.ts';
import { viewingRoutes } from './http/routes/viewings.ts';
import { commonErrors } from './schemas/api.ts';
import { DEFAULT_LIMITS, type Limits } from './limits.ts';
import { buildSchemas } from './schemas/index.ts';
import { createServer } from 'node:http';
import { CatalogueReader } from './services/catalogue/published.ts';
import { operabilityRoutes, type MetricsMode } from './http/operability.ts';
import { webhookRoutes } from './http/routes/webhooks.ts';
import { emailWebhookRoutes } from './http/routes/email-webhook.ts';
import { WebhookChannels } from './services/messaging/whatsapp-inbound.ts';
import { ChangeWatch } from './db/change-watch.ts';
import { KeyVerifier } from './services/access/api-keys.ts';
import { LeadPages } from './services/leads/leads.ts';
import { FastPath, SANE_REQUEST_ID } from './http/fast-path.ts';
import { ListingViews } from './services/catalogue/listing-views.ts';
import { valuationRoutes } from './http/routes/valuations.ts';
import { boundConnections, CONNECTIONS_CHECKING_INTERVAL_MS, discardRefusedBodies, watchBody } from './http/connections.ts';
import lightMyRequest, { type InjectOptions } from 'light-my-request';
import type { IncomingMessage, ServerResponse } from 'node:http';

declare module 'fastify' {
  interface FastifyInstance {
    /** The fast path of cached reads (http/fast-path.ts), once the app is built; null with the page cache off. */
    readonly fastPath: FastPath | null;
    /** The views of listings this process counted and has not written yet (services/catalogue/listing-views.ts). */
    readonly listingViews: ListingViews;
  }
}

/** Path prefix of every API route (spec §9). */
export const API_PREFIX = '/v1/ext';

/** The answer to a listed origin's preflight (CONTRACT §13): what a form's `fetch` needs. */
const PREFLIGHT = {
  origin: true,
  methods: ['GET', 'POST'],
  allowedHeaders: ['X-Api-Key', 'Authorization', 'Content-Type', 'Idempotency-Key', 'If-None-Match'],
  maxAge: 600,
};

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
  /**
   * The key that binds the console's CSRF tokens to sessions; the same in every process of an
   * installation (`inmo serve` derives it from the key that seals secrets, secrets.ts). When
   * omitted (tests, scripts), a random one of this app: building an app reads no key file.
   */
  consoleCsrfKey?: Buffer;
  /** `INMO_PUBLIC_URL`: this server's public base URL; `https:` gives the console's cookies the `__Host-` prefix. */
  publicUrl?: string | null;
  /** `INMO_METRICS_TOKEN`: a bearer token that opens `/metrics` on this port to clients that are not loopback. */
  metricsToken?: string | null;
  /** Request limits (CONTRACT §8); the defaults when omitted. `inmo serve` reads them from the environment. */
  limits?: Limits;
  /** Where the console's outgoing requests (a test message) may go; by default this process's policy (config.ts). */
  outbound?: OutboundPolicy;
  /** `NODE_ENV=development`: the console and the public pages read their templates again on every page. Off by default. */
  development?: boolean;
  /** `INMO_FEED_MAX_BYTES`: the largest feed document the console's "pull now" reads. */
  feedMaxBytes?: number;
  /** `INMO_PULL_WITHDRAW_MAX_SHARE`: the share of a source's listings the console's "pull now" may withdraw before the pull is held. */
  pullWithdrawMaxShare?: number;
  /** `INMO_SMTP_INBOUND_PORT` and `INMO_INBOUND_DOMAIN` (CONTRACT §25): the console's e-mail page shows the business's address when set. */
  inboundSmtp?: InboundSmtpSettings | null;
  /** Where listings' photos are kept and linked (`INMO_MEDIA_*`); by default the folder `./data/media`, served at `/media/`. */
  media?: MediaOptions;
  /**
   * What the app serves beside the API (always served, with operability, photos and the
   * webhooks): every surface by default, as `inmo serve` builds it. A surface left out is not
   * even imported: a test of the API's contracts builds `['api']` and loads none of the
   * console's, the public pages' or the docs' modules (issue 56 item 6).
   */
  surfaces?: readonly Surface[];
}

/**
 * The parts of the app: `api` (/v1/ext, its OpenAPI document, operability, photos, the WhatsApp
 * and e-mail webhooks), `pages` (the token-credential pages: feeds, calendars, the website
 * kit's script, unsubscribe and alert links, viewing links, listings' public pages), `console`
 * (/console, CONTRACT §12) and `docs` (/v1/ext/docs).
 */
export type Surface = 'api' | 'pages' | 'console' | 'docs';

/** Every surface: what `inmo serve` mounts. */
export const ALL_SURFACES: readonly Surface[] = ['api', 'pages', 'console', 'docs'];

/** Builds the application; the caller listens (or injects) and closes it. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const surfaces = new Set(options.surfaces ?? ALL_SURFACES);
  const schemas = buildSchemas(limits);
  const pageCacheBytes = (options.pageCacheMb ?? 0) * 1024 * 1024;
  // Exact repeats of cached reads are answered before Fastify's lifecycle (http/fast-path.ts);
  // made below, once the key verifier and the rate limit exist. Off with the page cache.
  let fastPath: FastPath | null = null;
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: limits.bodyBytes,
    trustProxy: options.trustProxy ?? false,
    // While closing, requests on open connections are still answered (the database closes
    // after them), never Fastify's own 503 body.
    return503OnClosing: false,
    // The `locations` query parameter may be up to limits.locationsQueryChars long once decoded,
    // up to three times that percent-encoded: Node's 16 KiB default header limit would refuse
    // it with a bare 431 first.
    // Headers, bodies and idle connections are bounded in time (http/connections.ts).
    serverFactory: (handler) => {
      const server = createServer(
        { maxHeaderSize: limits.locationsQueryChars * 3 + 16 * 1024, connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS },
        (req, res) => {
          watchBody(req, res, limits);
          if (fastPath === null || !fastPath.serve(req, res)) handler(req, res);
        },
      );
      boundConnections(server, limits);
      return server;
    },
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    routerOptions: { ignoreDuplicateSlashes: false },
    frameworkErrors,
    // One line per request (below), not Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
  });

  // What the request path caches (keys, catalogue versions, channels) is trusted while this stamp holds.
  const changes = new ChangeWatch(options.db);
  app.addHook('onClose', () => changes.close());
  // Views of listings' pages and the kit's detail, for their owners' reports (CONTRACT §24).
  const listingViews = new ListingViews(options.db);
  app.addHook('onClose', () => listingViews.flush());

  fastapiCompatibility(app, limits);
  discardRefusedBodies(app, limits);
  // br/gzip for every response over 1 KB whose client accepts it (CONTRACT §13); the conditional
  // GETs do their own, cached with the page (http/conditional.ts).
  await app.register(compress, COMPRESSION_OPTIONS);
  for (const schema of schemas.shared) app.addSchema(schema);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  if (options.logger) {
    // The request's one log line, once its response has gone: the request id comes with the
    // request's logger (`reqId`); the route is the pattern, so no id or query is logged.
    app.addHook('onResponse', (request, reply, done) => {
      request.log.info(
        {
          method: request.method,
          route: request.routeOptions.url ?? null,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 100) / 100,
          key_id: request.apiKey?.keyId ?? null,
          ...(request.errorCode === null ? {} : { error: request.errorCode }),
        },
        'request',
      );
      done();
    });
  }

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'inmo external API',
        version: '1.0.0',
        description:
          'External API of a real-estate agency workspace: the public property catalogue, leads, and key context. Every operation acts on the business that owns the API key.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      tags: [
        { name: 'properties', description: 'The business’s public property catalogue (read only).' },
        { name: 'leads', description: 'Leads: listing them, and creating them from website forms.' },
        { name: 'keys', description: 'The API key itself: which business and scopes it speaks for.' },
        { name: 'events', description: 'The event log of the business’s leads (also delivered as webhooks).' },
        { name: 'viewings', description: 'Viewings of listings: free slots, booking, and the agenda (CONTRACT §20).' },
      ],
      servers: [{ url: API_PREFIX }],
      components: {
        securitySchemes: {
          ApiKeyHeader: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Api-Key',
            description:
              '`AC_LIVE_<key_id>.<secret>` (secret: servers only), or `AC_PUB_<key_id>.<secret>` (publishable: web pages of its origins, `properties:read`, `leads:ingest` and `viewings:write` only).',
          },
          ApiKeyAuthorization: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`ApiKey AC_LIVE_<key_id>.<secret>`' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (json.$id as string) || `def-${i}` },
  });

  // Outside /v1/ext and its key checks and rate limits (CONTRACT §11).
  operabilityRoutes(app, options.db, options.metrics ?? 'served', options.metricsToken ?? null);
  // Listings' photos (CONTRACT §14): outside /v1/ext, without a key, like the pages that show them.
  const media = options.media ?? { store: new FolderMediaStore('./data/media'), publicUrl: null };
  mediaRoutes(app, media);
  // WhatsApp's webhook: no key; the verify token and the signature prove the caller (CONTRACT §10).
  await app.register(webhookRoutes, {
    db: options.db,
    channels: new WebhookChannels(options.db, changes),
    onJobsQueued: options.onJobsQueued ?? (() => {}),
  });
  // Portal e-mails forwarded to a business's address: its token is the credential (CONTRACT §19).
  // Messages arriving together share a commit on SQLite; closing waits for the ones handed in.
  const inboundWrites = new GroupCommit(options.db);
  app.addHook('onClose', () => inboundWrites.settled());
  await app.register(emailWebhookRoutes, { db: options.db, writes: inboundWrites, onJobsQueued: options.onJobsQueued ?? (() => {}) });
  if (surfaces.has('pages')) {
    const pages = await import('./http/public-pages.ts');
    await pages.publicPages(app, {
      db: options.db,
      changes,
      media,
      listingViews,
      publicUrl: options.publicUrl ?? null,
      onJobsQueued: options.onJobsQueued ?? (() => {}),
      postsPerIpPerMinute: (options.rateLimits ?? DEFAULT_RATE_LIMITS).publishablePostPerIpPerMinute,
      development: options.development ?? false,
    });
  }
  await app.register(
    async (api) => {
      // In this order: a throttled client is refused before its key is looked up (http/rate-limit.ts).
      const perKeyLimit = options.rateLimits ? await registerRateLimits(api, options.rateLimits) : null;
      const keys = new KeyVerifier(options.db, changes);
      if (pageCacheBytes > 0) {
        fastPath = new FastPath({
          keys,
          maxBytes: pageCacheBytes,
          log: options.logger ? app.log : null,
          leadVersion: (businessId) => changes.leadVersion(businessId),
          metrics: (options.metrics ?? 'served') !== 'off',
          rateLimit: perKeyLimit,
          listingViews,
        });
      }
      // CORS preflights of browser forms (CONTRACT §13): a preflight carries no key, so an origin
      // on any publishable key's list is answered; the request itself is checked against its own
      // key (http/auth.ts), and only a publishable key's answers get CORS headers.
      await api.register(cors, {
        hideOptionsRoute: true,
        delegator: async (request: FastifyRequest) => {
          const origin = request.headers.origin;
          const listed = request.method === 'OPTIONS' && typeof origin === 'string' && (await keys.allowedOrigins()).has(origin);
          return listed ? PREFLIGHT : { origin: false };
        },
      });
      apiKeyAuth(api, keys);
      api.decorateRequest('readVersion', null);
      // Every key-checked route documents its security and the errors every route shares.
      api.addHook('onRoute', (route) => {
        if (route.config?.scope === undefined) return;
        route.schema = {
          ...route.schema,
          security: [{ ApiKeyHeader: [] }, { ApiKeyAuthorization: [] }],
          response: { ...commonErrors, ...(route.schema?.response as object) },
        };
      });
      const writes = new GroupCommit(options.db);
      // Closing waits for the writes already handed in, so the database outlives them.
      api.addHook('onClose', () => writes.settled());
      await api.register(meRoutes);
      await api.register(propertyRoutes, {
        db: options.db,
        catalogue: new CatalogueReader(options.db, options.countCacheSize ?? 2000, pageCacheBytes),
        schemas,
        fastPath,
        listingViews,
      });
      await api.register(eventRoutes, { db: options.db });
      await api.register(leadRoutes, {
        db: options.db,
        writes,
        onJobsQueued: options.onJobsQueued ?? (() => {}),
        schemas,
        pages: new LeadPages(options.db, changes, pageCacheBytes),
        fastPath,
      });
      await api.register(viewingRoutes, { db: options.db, writes, onJobsQueued: options.onJobsQueued ?? (() => {}), schemas });
      await api.register(valuationRoutes, { db: options.db, writes, onJobsQueued: options.onJobsQueued ?? (() => {}), schemas });
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    },
    { prefix: API_PREFIX },
  );
  // The workspace console: HTML for owners and agents, with sessions instead of keys (CONTRACT §12).
  if (surfaces.has('console')) {
    const { consolePlugin } = await import('./http/console/plugin.ts');
    await app.register(consolePlugin, {
      prefix: '/console',
      db: options.db,
      onJobsQueued: options.onJobsQueued ?? (() => {}),
      https: options.publicUrl?.startsWith('https:') ?? false,
      // A key of this app alone unless the caller gives the installation's (every process must agree).
      csrfKey: options.consoleCsrfKey ?? randomBytes(32),
      outbound: options.outbound ?? outboundPolicy(),
      development: options.development ?? false,
      media,
      publicUrl: options.publicUrl ?? null,
      feedMaxBytes: options.feedMaxBytes ?? DEFAULT_WORKER_SETTINGS.feedMaxBytes,
      pullWithdrawMaxShare: options.pullWithdrawMaxShare ?? DEFAULT_WORKER_SETTINGS.pullWithdrawMaxShare,
      inboundSmtp: options.inboundSmtp ?? null,
      limits,
    });
  }
  // The interactive docs share the console's origin: the console's headers (no framing, no
  // sniffing, no referrer) and a policy that allows only their own files and inline hashes.
  if (surfaces.has('docs')) {
    const { default: swaggerUi } = await import('@fastify/swagger-ui');
    await app.register(async (docs) => {
      docs.addHook('onSend', (_request, reply, payload, done) => {
        reply.headers(DOCS_HEADERS);
        done(null, payload);
      });
      await docs.register(swaggerUi, {
        routePrefix: `${API_PREFIX}/docs`,
        uiConfig: { url: `${API_PREFIX}/openapi.json`, validatorUrl: null },
        staticCSP: true,
        transformStaticCSP: docsPolicy,
      });
    });
  }

  app.decorate('fastPath', { getter: () => fastPath });
  app.decorate('listingViews', listingViews);
  // Closing, every request takes the full path, which tells keep-alive clients to go.
  app.addHook('preClose', (done) => {
    fastPath?.close();
    done();
  });
  if (fastPath !== null) injectAsServed(app, fastPath);
  return app;
}

/** Headers of the interactive docs' page and files, as the console's (http/console/page.ts). */
const DOCS_HEADERS = { 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

/** The hash of the one inline style attribute swagger-ui writes (checked in Chromium by test/browser/docs.browser.test.ts). */
const DOCS_STYLE_HASH = 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w=';

/**
 * The docs' Content-Security-Policy: swagger-ui's own (its inline scripts and styles by hash),
 * without framing, without other sites' fonts, styles or images, and without
 * `upgrade-insecure-requests`, which would break the docs of a server on plain http.
 */
export function docsPolicy(policy: string): string {
  return (
    policy
      .replace("frame-ancestors 'self'", "frame-ancestors 'none'")
      .replace("font-src 'self' https: data:", "font-src 'self' data:")
      .replace("img-src 'self' data: validator.swagger.io", "img-src 'self' data:")
      // swagger-ui's one inline style attribute (its icons' hidden SVG sprite), by its hash.
      .replace("style-src 'self' https: ", `style-src 'self' 'unsafe-hashes' '${DOCS_STYLE_HASH}' `)
      .replace(/\s*upgrade-insecure-requests;/, '')
      .concat(" form-action 'self';")
  );
}

/**
 * Makes `app.inject` dispatch a request as the server does: to the fast path first, then to
 * Fastify (`app.routing`), so that every test of the API sees both paths (Fastify's own
 * `inject` goes straight to its router). It waits for the app to be ready, as Fastify's does.
 */
function injectAsServed(app: FastifyInstance, fastPath: FastPath): void {
  const dispatch = (req: IncomingMessage, res: ServerResponse) => {
    if (!fastPath.serve(req, res)) app.routing(req, res);
  };
  const inject = (options: InjectOptions | string) => app.ready().then(() => lightMyRequest(dispatch, options));
  (app as { inject: unknown }).inject = inject;
}
