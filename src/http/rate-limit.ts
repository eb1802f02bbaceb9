/**
 * Rate limits (issue 6): per API key on every /v1/ext route, and per client IP on the two
 * POST endpoints that website forms call. Counted per process in memory by
 * @fastify/rate-limit over a one-minute window; headers follow the IETF draft
 * (`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`), and a refused request gets
 * 429 with `Retry-After` and a `{detail}` body. Limits are checked on arrival, before the
 * body is read, so a throttled request stores nothing.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseApiKey } from '../domain/api-key.ts';
import { presentedKey } from './route.ts';
import { createHash } from 'node:crypto';
import { sendDetail } from './errors.ts';

/** Requests per minute; 0 turns a limit off. */
export interface RateLimits {
  /** Per API key, every route (requests without a well-formed key count per client IP). */
  perKeyPerMinute: number;
  /** Per client IP, POST /leads/inquiries and POST /leads/ingest. */
  postPerIpPerMinute: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { perKeyPerMinute: 6000, postPerIpPerMinute: 300 };

const WINDOW_MS = 60_000;

/** The 429 sentence. */
export function tooManyRequests(seconds: number): string {
  return `Too many requests: retry in ${seconds} s`;
}

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
 * Registers the per-key limit on the routes registered after it in `api`'s scope.
 * @returns a hook for the POST routes' per-IP limit (null when that limit is off).
 */
export async function registerRateLimits(
  api: FastifyInstance,
  limits: RateLimits,
): Promise<((request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>) | null> {
  // Registered even when the per-key limit is off: it also provides createRateLimit.
  {
    await api.register(rateLimit, {
      global: limits.perKeyPerMinute > 0,
      max: Math.max(1, limits.perKeyPerMinute),
      timeWindow: WINDOW_MS,
      keyGenerator: keyOf,
      cache: BUCKETS,
      enableDraftSpec: true,
      errorResponseBuilder: (_request, context) => ({
        statusCode: 429,
        message: tooManyRequests(Math.max(1, Math.ceil(context.ttl / 1000))),
      }),
    });
  }
  if (limits.postPerIpPerMinute <= 0) return null;
  const perIp = api.createRateLimit({
    max: limits.postPerIpPerMinute,
    timeWindow: WINDOW_MS,
    keyGenerator: (request) => `post:${request.ip}`,
  });
  return async (request, reply) => {
    const verdict = await perIp(request);
    if (verdict.isAllowed || !verdict.isExceeded) return undefined;
    // The refusal reports the limit that refused it.
    reply.header('ratelimit-limit', String(verdict.max));
    reply.header('ratelimit-remaining', '0');
    reply.header('ratelimit-reset', String(verdict.ttlInSeconds));
    reply.header('retry-after', String(verdict.ttlInSeconds));
    return sendDetail(reply, 429, tooManyRequests(verdict.ttlInSeconds));
  };
}
