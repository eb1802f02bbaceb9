/**
 * Rate limits (issue 6): per API key on every /v1/ext route, and per client IP on the two
 * POST endpoints that website forms call. Counted per process in memory by
 * @fastify/rate-limit over a one-minute window; headers follow the IETF draft
 * (`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`), and a refused request gets
 * 429 with `Retry-After` and a `{detail}` body. Limits are checked on arrival, before the
 * body is read, so a throttled request stores nothing.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseApiKey } from '../domain/api-key.ts';
import { InmoError } from '../errors.ts';
import { appendOnRequest, presentedKey } from './auth.ts';
import { createHash } from 'node:crypto';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Whether the per-client-IP limit applies (the POST endpoints website forms call). */
    perIpLimit?: boolean;
  }
}

/** Requests per minute; 0 turns a limit off. */
export interface RateLimits {
  /** Per API key, every route (requests without a well-formed key count per client IP). */
  perKeyPerMinute: number;
  /** Per client IP, POST /leads/inquiries and POST /leads/ingest. */
  postPerIpPerMinute: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { perKeyPerMinute: 6000, postPerIpPerMinute: 300 };

const WINDOW_MS = 60_000;

/**
 * What a request is counted against: the key it presents (the whole key, hashed: counting by
 * the public key id would let anyone who knows an id spend its owner's allowance with
 * made-up secrets), else its IP.
 */
function keyOf(request: FastifyRequest): string {
  const presented = presentedKey(request);
  return typeof presented === 'string' && parseApiKey(presented)
    ? `key:${createHash('sha256').update(presented).digest('base64url')}`
    : `ip:${request.ip}`;
}

/** Buckets kept per process (least recently used out first). */
const BUCKETS = 100_000;

/**
 * Registers the per-key limit on the routes registered after it in `api`'s scope, then the
 * per-IP limit of the routes whose `config.perIpLimit` is set, both as route `onRequest`
 * hooks. Call it before the key check (http/auth.ts), which is added the same way after
 * them: a throttled client is refused before its key is looked up, and refused keys count.
 */
export async function registerRateLimits(api: FastifyInstance, limits: RateLimits): Promise<void> {
  // Registered even when the per-key limit is off: it also provides createRateLimit.
  await api.register(rateLimit, {
    global: limits.perKeyPerMinute > 0,
    max: Math.max(1, limits.perKeyPerMinute),
    timeWindow: WINDOW_MS,
    keyGenerator: keyOf,
    cache: BUCKETS,
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) => new InmoError('RATE_LIMITED', { seconds: Math.max(1, Math.ceil(context.ttl / 1000)) }),
  });
  if (limits.postPerIpPerMinute <= 0) return;
  const perIp = api.createRateLimit({
    max: limits.postPerIpPerMinute,
    timeWindow: WINDOW_MS,
    keyGenerator: (request) => `post:${request.ip}`,
  });
  const limitPerIp = async (request: FastifyRequest) => {
    const verdict = await perIp(request);
    if (verdict.isAllowed || !verdict.isExceeded) return;
    // The refusal reports the limit that refused it.
    const retryAfter = String(verdict.ttlInSeconds);
    throw new InmoError(
      'RATE_LIMITED',
      { seconds: verdict.ttlInSeconds },
      {
        'ratelimit-limit': String(verdict.max),
        'ratelimit-remaining': '0',
        'ratelimit-reset': retryAfter,
        'retry-after': retryAfter,
      },
    );
  };
  api.addHook('onRoute', (route) => {
    if (route.config?.perIpLimit) appendOnRequest(route, limitPerIp);
  });
}
