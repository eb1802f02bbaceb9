/**
 * The workspace console under `/console` (issue 15, CONTRACT §12): server-rendered HTML for
 * the agency's owners and agents, served by `inmo serve` beside the API.
 *
 * - **Sessions**: the `inmo_session` cookie (HttpOnly, SameSite=Lax, Secure over HTTPS or behind
 *   a trusted proxy that says so, Path=/console) names a server-side session
 *   (services/access/console-users.ts). A page without one answers 303 to `/console/login`.
 * - **Roles**: a route's `config.consoleRole` (`owner`) refuses other users with 403.
 * - **Tenancy**: every query is narrowed to the session's business; another business's id is a
 *   404, exactly like a missing one.
 * - **Forms**: every POST checks a CSRF token (`@fastify/csrf-protection`, double submit with a
 *   secret cookie) before its handler: without it, 403 and nothing changes.
 * - **Login**: at most LOGIN_PER_IP attempts a minute per client IP, and LOGIN_PER_ACCOUNT failed
 *   ones per 15 minutes per email (`@fastify/rate-limit`; page.ts).
 * - **Pages** are Eta templates (`views/`, escaped by default) in Spanish, or English by
 *   `Accept-Language` (i18n.ts); the one stylesheet and the scripts are served from `assets/`, never a
 *   CDN. Everything works without JavaScript; the scripts add conveniences (console.js) and the visit
 *   sheet's signature box (signature.js), whose page offers a sheet to sign on paper without it.
 *
 * Route handlers call the same services and repositories as the API; templates hold no SQL.
 */
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import { rm } from 'node:fs/promises';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleDeps } from './forms.ts';
import { InmoError } from '../../errors.ts';
import { sessionOf, type ConsoleSession, type Role } from '../../services/access/console-users.ts';
import { clearSessionCookie, consoleCookies, errorPage, sessionBinding, sessionCookieOf } from './page.ts';
import { pickLanguage, translator, type Language, type Translate } from './i18n.ts';
import { consoleRoutes } from './routes.ts';
import { inPackage } from '../../package-root.ts';
import { sweepStaleUploads, type ConsoleUpload } from './uploads.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Console routes: `public` needs no session; `owner` only owners; absent: any user. */
    consoleAccess?: 'public' | Role;
  }
  interface FastifyRequest {
    /** The console session, once the console's `onRequest` accepted it. */
    consoleSession: ConsoleSession | null;
    /** A file uploaded with the request (catalogue upload), saved to a temp folder; deleted after the response unless `claimed`. */
    consoleUpload: ConsoleUpload | null;
    /** The console's language and translator for this request. */
    consoleLanguage: Language;
    t: Translate;
  }
}

/**
 * The console, as a plugin registered with prefix `/console` on the root instance.
 * @param db the database the API uses; sessions are read from it on every console request.
 * @param onJobsQueued called after a form queued jobs (an agent's reply): the in-process worker wakes.
 * @param https whether the console is served over HTTPS (`INMO_PUBLIC_URL` is `https:`): its
 *   cookies then carry the `__Host-` prefix (page.ts).
 * @param csrfKey the key binding CSRF tokens to sessions (app.ts `consoleCsrfKey`).
 * @param outbound where the console's outgoing requests (a channel's test message) may go.
 * @param development whether templates are read again on every page (`NODE_ENV=development`).
 */
export async function consolePlugin(
  app: FastifyInstance,
  options: ConsoleDeps & { https: boolean; csrfKey: Buffer; development: boolean },
): Promise<void> {
  const { db, https, csrfKey, development } = options;
  const cookies = consoleCookies(https);
  app.decorate('consoleCookies', cookies);
  // Pages, not API operations: none of them belongs in the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(cookie);
  await app.register(formbody);
  // Multipart bodies are never read here: only the route that takes a file reads it, once its
  // session and CSRF checks have passed (uploads.ts). Its CSRF token comes in the query.
  await app.register(multipart);
  void sweepStaleUploads();
  app.addHook('onResponse', async (request) => {
    const upload = request.consoleUpload;
    if (upload && !upload.claimed) await rm(upload.dir, { recursive: true, force: true });
  });
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: cookies.csrf,
    cookieOpts: cookies.options,
    getToken: (request) =>
      (request.body as Record<string, string> | undefined)?._csrf ?? (request.query as Record<string, string> | undefined)?._csrf,
    // A token is good only with the session it was made for (none, on the login page): another
    // user's token, or one taken before logging in, is refused. Login and logout also drop
    // the secret (sections/auth.ts), so every session starts with a new one.
    getUserInfo: (request) => sessionBinding(sessionCookieOf(request)),
    // The key of that binding (app.ts: the same in every process of an installation).
    csrfOpts: { hmacKey: csrfKey },
  });
  await app.register(rateLimit, { global: false });
  await app.register(view, {
    engine: { eta: new Eta() },
    root: inPackage('src', 'http', 'console', 'views'),
    layout: 'layout.eta',
    production: !development,
  });
  await app.register(fastifyStatic, {
    root: inPackage('src', 'http', 'console', 'assets'),
    prefix: '/assets/',
    decorateReply: false,
    index: false,
    maxAge: '1h',
  });

  app.decorateRequest('consoleSession', null);
  app.decorateRequest('consoleUpload', null);
  app.decorateRequest('consoleLanguage', 'es');
  app.decorateRequest('t', null as unknown as Translate);

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    request.consoleLanguage = pickLanguage(request.headers['accept-language']);
    request.t = translator(request.consoleLanguage);
    reply.header('vary', 'Accept-Language');
    const access = request.routeOptions.config.consoleAccess;
    if (access === 'public' || request.url.startsWith('/console/assets/')) return;
    const token = sessionCookieOf(request);
    const session = token ? await sessionOf(db, token) : null;
    if (!session) {
      if (token) clearSessionCookie(reply);
      const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
      return reply
        .code(303)
        .header('location', `/console/login${token ? (next ? `${next}&` : '?') + 'ended=1' : next}`)
        .send();
    }
    request.consoleSession = session;
    if (access === 'owner' && session.role !== 'owner') return errorPage(reply, 403, 'forbidden');
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    request.t ??= translator('es');
    if (error.code === 'FST_CSRF_MISSING_SECRET' || error.code === 'FST_CSRF_INVALID_TOKEN') {
      request.errorCode = 'CSRF';
      return errorPage(reply, 403, 'csrf');
    }
    if (error instanceof InmoError && error.status === 404) return errorPage(reply, 404, 'not_found');
    // A body Fastify could not read (malformed, too large, of another type): the form's fault.
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
      return errorPage(reply, error.statusCode, 'error');
    request.log.error({ err: error }, 'console error');
    return errorPage(reply, 500, 'error');
  });
  app.setNotFoundHandler((request, reply) => {
    request.t ??= translator(pickLanguage(request.headers['accept-language']));
    return errorPage(reply, 404, 'not_found');
  });

  await app.register(consoleRoutes, {
    db: options.db,
    onJobsQueued: options.onJobsQueued,
    outbound: options.outbound,
    media: options.media,
    publicUrl: options.publicUrl,
    feedMaxBytes: options.feedMaxBytes,
    pullWithdrawMaxShare: options.pullWithdrawMaxShare,
    inboundSmtp: options.inboundSmtp,
    limits: options.limits,
  });
}
