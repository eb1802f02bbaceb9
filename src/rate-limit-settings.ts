/**
 * The rate limits' settings (issue 6), apart from http/rate-limit.ts so that reading the
 * settings (config.ts, and so every CLI command at start) loads no HTTP framework; beside
 * config.ts rather than under http/, so that config.ts imports nothing from a layer above it.
 */
/** Requests per minute; 0 turns a limit off. */
export interface RateLimits {
  /** Per API key, every route (requests without a well-formed key count per client IP). */
  perKeyPerMinute: number;
  /** Per client IP, POST /leads/inquiries and POST /leads/ingest. */
  postPerIpPerMinute: number;
  /**
   * Per client IP, the same POSTs with a publishable key, counted apart: the key sits in a public
   * page, so any program may post with it (CONTRACT §13); a person sends a form a few times at most.
   */
  publishablePostPerIpPerMinute: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { perKeyPerMinute: 6000, postPerIpPerMinute: 300, publishablePostPerIpPerMinute: 20 };
