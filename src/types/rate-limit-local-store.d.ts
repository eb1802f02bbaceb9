/**
 * @fastify/rate-limit's in-memory store (`store/LocalStore.js`), which the package ships without
 * types: fixed windows per key in an LRU of `cache` keys. Its `incr` calls back at once.
 */
declare module '@fastify/rate-limit/store/LocalStore.js' {
  import type { FastifyRateLimitStore } from '@fastify/rate-limit';

  export default class LocalStore implements FastifyRateLimitStore {
    constructor(continueExceeding: boolean, exponentialBackoff: boolean, cache?: number);
    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow?: number,
      max?: number,
    ): void;
    child(routeOptions: object): FastifyRateLimitStore;
  }
}
