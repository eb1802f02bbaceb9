/**
 * Rate limits (issue 6): per API key on every /v1/ext route, and per client IP on the two
 * POST endpoints that website forms call, tighter and counted apart for a publishable key
 * (issue 41). Counted per process in memory by
 * @fastify/rate-limit over a one-minute window; headers follow the IETF draft
 * (`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`), and a refused request gets
 * 429 with `Retry-After` and a `{detail}` body. Limits are checked on arrival, before the
 * body is read, so a throttled request stores nothing.
 */
import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseApiKey } from '../domain/access/api-key.ts';
import { InmoError } from '../errors.ts';
import type { RateLimits } from '../rate-limit-settings.ts';
import { appendOnRequest, presentedKey } from './auth.ts';
import { createHash } from 'node:crypto';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Whether the per-client-IP limit applies (the POST endpoints website forms call). */
    perIpLimit?: boolean;
  }
}

const WINDOW_MS = 60_000;

/**
 * What a request is counted against: the key it presents (the whole key, hashed: counting by
 * the public key id would let anyone who knows an id spend its owner's allowance with
 * made-up secrets), else its IP.
 */
function keyOf(request: FastifyRequest): string {
  const presented = presentedKey(request.headers);
  return typeof presented === 'string' && parseApiKey(presented) ? keyOfPresented(presented) : `ip:${request.ip}`;
}

/** The bucket of a well-formed presented key. */
function keyOfPresented(presented: string): string {
  return `key:${createHash('sha256').update(presented).digest('base64url')}`;
}

/** Buckets kept per process (least recently used out first). */
const BUCKETS = 100_000;

/** The per-key limit as the fast path counts it (http/fast-path.ts). */
export interface KeyRateLimit {
  /**
   * Counts one request made with `presented` (the key as sent) against the per-key limit.
   * @returns whether it exceeded it, and the `RateLimit-*` header values the full path sends.
   */
  count(presented: string): { exceeded: boolean; max: number; remaining: number; resetSeconds: number };
}

/**
 * Registers the per-key limit on the routes registered after it in `api`'s scope, then the
 * per-IP limit of the routes whose `config.perIpLimit` is set, both as route `onRequest`
 * hooks. Call it before the key check (http/auth.ts), which is added the same way after
 * them: a throttled client is refused before its key is looked up, and refused keys count.
 */
export async function registerRateLimits(api: FastifyInstance, limits: RateLimits): Promise<KeyRateLimit | null> {
  // The plugin's own in-memory store, made here so that the fast path of cached reads
  // (http/fast-path.ts) counts its requests in the same windows; its `incr` calls back at once.
  const counts = new LocalStore(false, false, BUCKETS);
  const max = Math.max(1, limits.perKeyPerMinute);
  // Registered even when the per-key limit is off: it also provides createRateLimit.
  await api.register(rateLimit, {
    // The plugin makes its store with `new`: a constructor returning an object gives that object.
    store: function Shared() {
      return counts;
    } as unknown as FastifyRateLimitStoreCtor,
    global: limits.perKeyPerMinute > 0,
    max,
    timeWindow: WINDOW_MS,
    keyGenerator: keyOf,
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) => new InmoError('RATE_LIMITED', { seconds: Math.max(1, Math.ceil(context.ttl / 1000)) }),
  });
  const perKey: KeyRateLimit | null =
    limits.perKeyPerMinute > 0
      ? {
          count(presented) {
            let counted: { current: number; ttl: number } | undefined;
            counts.incr(keyOfPresented(presented), (_error, result) => (counted = result), WINDOW_MS, max);
            // A store that answered later would leave the decision to the full path.
            if (counted === undefined) return { exceeded: true, max, remaining: 0, resetSeconds: 0 };
            const { current, ttl } = counted;
            return { exceeded: current > max, max, remaining: Math.max(0, max - current), resetSeconds: Math.ceil(ttl / 1000) };
          },
        }
      : null;
  const perIpOf = (max: number, bucket: string) =>
    max > 0 ? api.createRateLimit({ max, timeWindow: WINDOW_MS, keyGenerator: (request) => `${bucket}:${request.ip}` }) : null;
  const perIp = perIpOf(limits.postPerIpPerMinute, 'post');
  const perIpPublishable = perIpOf(limits.publishablePostPerIpPerMinute, 'post-pub');
  if (perIp === null && perIpPublishable === null) return perKey;
  const limitPerIp = async (request: FastifyRequest) => {
    const presented = presentedKey(request.headers);
    const publishable = typeof presented === 'string' && parseApiKey(presented)?.publishable === true;
    const limiter = publishable ? perIpPublishable : perIp;
    if (limiter === null) return;
    const verdict = await limiter(request);
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
  return perKey;
}
