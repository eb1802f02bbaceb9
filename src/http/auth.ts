/**
 * API-key authentication of /v1/ext (spec §5, CONTRACT §3) as Fastify hooks.
 *
 * A route says what it needs in `config.scope`: a scope, `null` for any active key (GET /me),
 * or nothing at all for a route without a key (the OpenAPI document, docs, health). Its
 * `onRequest` hook checks the key before the body is read, so a refused request costs no
 * parsing; the key's context is `request.apiKey`. A request that succeeds records the key's
 * use in `onSend` (before the response leaves); a refused or failed one changes nothing.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, onSendHookHandler, RouteOptions } from 'fastify';
import type { Scope } from '../domain/access/api-key.ts';
import { InmoError, type ErrorCode } from '../errors.ts';
import type { AuthFailure, KeyContext, KeyVerifier } from '../services/access/api-keys.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope the route requires; `null`: any active key; absent: no key needed. */
    scope?: Scope | null;
  }
  interface FastifyRequest {
    /** Who the key speaks for, once `onRequest` accepted it; null on routes without a key. */
    apiKey: KeyContext | null;
  }
}

const REFUSALS: Record<AuthFailure, ErrorCode> = {
  missing: 'KEY_MISSING',
  malformed: 'KEY_MALFORMED',
  scheme: 'KEY_SCHEME',
  invalid: 'KEY_INVALID',
  revoked: 'KEY_REVOKED',
  expired: 'KEY_EXPIRED',
};

/** `Authorization: ApiKey <key>`, the scheme in any case (CONTRACT §3). */
const API_KEY_SCHEME = /^\s*apikey\s+(\S+)\s*$/i;

/**
 * The key from `X-Api-Key`, else from `Authorization: ApiKey <key>` (scheme case-insensitive).
 * @returns the key, undefined when none is sent, or `{ scheme }` when `Authorization` uses
 *   another scheme (`Bearer …`, `Basic …`): the client is told the two forms that work.
 */
export function presentedKey(headers: IncomingHttpHeaders): string | undefined | { scheme: string } {
  const header = headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header.trim();
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = API_KEY_SCHEME.exec(authorization);
    if (match) return match[1];
    return authorization.trim() === '' ? undefined : { scheme: authorization.trim().split(/\s+/)[0] };
  }
  return undefined;
}

/** Response headers a page's script may read from a cross-origin answer (CONTRACT §13). */
export const EXPOSED_HEADERS = 'ETag, Idempotent-Replayed, Inmo-Lead-Outcome, Retry-After, X-Request-Id';

/** The origin of a URL as browsers write it (no default port), or '' when it is not one. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/** Whether the request came with a publishable key (one bound to origins): its lead posts tell nothing of who is already a client (CONTRACT §13). */
export function isPublishable(request: FastifyRequest): boolean {
  return (request.apiKey?.origins ?? null) !== null;
}

/**
 * Where a key may be used from (CONTRACT §13). A publishable key needs an `Origin` on its list,
 * and its answers carry that origin's CORS headers; a browser's same-origin GET, which carries no
 * `Origin`, counts as coming from this server's own origin. A secret key never gets CORS headers, and
 * a request that a browser marks as coming from another site (`Sec-Fetch-Site`, which a page's
 * script cannot set) is refused with it, so a leaked secret key in a page creates nothing.
 * @throws InmoError KEY_ORIGIN_REFUSED, KEY_SECRET_IN_BROWSER (403).
 */
function checkOrigin(request: FastifyRequest, reply: FastifyReply, key: KeyContext): void {
  if (key.origins === null) {
    const site = request.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') throw new InmoError('KEY_SECRET_IN_BROWSER');
    return;
  }
  const origin = request.headers.origin;
  if (origin === undefined && request.headers['sec-fetch-site'] === 'same-origin') {
    // A browser sends no Origin with a GET of its page's own origin (inmo's /embed/demo): the
    // origin is then this server's, which the key must list. Neither header can be set by a
    // page's script, as with Origin itself.
    if (!key.origins.includes(originOf(`${request.protocol}://${request.host}`))) throw new InmoError('KEY_ORIGIN_REFUSED');
    return;
  }
  if (typeof origin !== 'string' || !key.origins.includes(origin)) throw new InmoError('KEY_ORIGIN_REFUSED');
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-expose-headers', EXPOSED_HEADERS);
  reply.header('vary', 'Origin');
}

/**
 * Appends `hook` to a route's own `onRequest` hooks, after those added before it (the rate
 * limits): route hooks run in the order they were added, after the instance's.
 */
export function appendOnRequest(route: RouteOptions, hook: onRequestHookHandler): void {
  const existing = route.onRequest;
  route.onRequest = [...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]), hook];
}

/**
 * Adds the key check to the routes registered after it in `app`'s scope that have a
 * `config.scope`, as a route `onRequest` hook: it runs after the rate limits registered before
 * it, so refused requests still count against them.
 * @throws (from the hook) InmoError KEY_* with 401 and `WWW-Authenticate: ApiKey`.
 */
export function apiKeyAuth(app: FastifyInstance, keys: KeyVerifier): void {
  app.decorateRequest('apiKey', null);
  const checkKey: onRequestHookHandler = async (request, reply) => {
    const scope = request.routeOptions.config.scope;
    const presented = presentedKey(request.headers);
    const key = typeof presented === 'object' ? 'scheme' : await keys.authenticate(presented);
    if (typeof key === 'string') throw new InmoError(REFUSALS[key] as 'KEY_MISSING');
    if (scope !== null && scope !== undefined && !key.scopes.includes(scope)) throw new InmoError('KEY_LACKS_SCOPE', { scope });
    checkOrigin(request, reply, key);
    request.apiKey = key;
  };
  // Only a request that succeeded records the key's use (at most once a minute): a 4xx changes nothing.
  const recordUse: onSendHookHandler = (request, reply, payload, done) => {
    const key = request.apiKey;
    if (!key?.useDue || reply.statusCode >= 400) return done(null, payload);
    keys.recordUse(key).then(
      () => done(null, payload),
      (error: Error) => done(error),
    );
  };
  app.addHook('onRoute', (route) => {
    if (route.config?.scope === undefined) return;
    appendOnRequest(route, checkKey);
    route.onSend = [...(route.onSend === undefined ? [] : [route.onSend].flat()), recordUse];
  });
}
