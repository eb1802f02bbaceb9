/**
 * The fast path of cached reads (issue 32): exact repeats of a GET the full request path has
 * already answered with a 200 from a page cache (GET /properties, GET /properties/{id}, and
 * GET /leads where the lead version is known) and GET /me, answered in one synchronous step
 * before Fastify's lifecycle.
 *
 * What it duplicates: the full path's handling of those requests (app.ts and the modules it
 * wires), rule for rule: the key check (http/auth.ts, services/access/api-keys.ts), the route's
 * scope, the key's origin rule and a publishable key's CORS headers (http/auth.ts `checkOrigin`,
 * app.ts's @fastify/cors), the per-key rate limit and its headers (http/rate-limit.ts, one
 * counter shared with the full path), the conditional answer (ETag, 304, the compressed codings:
 * http/conditional.ts), a property read's `Content-Language` (CONTRACT §22), the request id,
 * GET /me's body (http/routes/me.ts), and the request's log line and metrics (app.ts, metrics.ts).
 *
 * Which tests prove the two paths agree: test/db/platform/fast-path.test.ts sends each request both ways
 * and compares the responses header for header, and checks each rule above on the fast path (a
 * revoked or expired key, a missing scope, a foreign origin, the rate limit's window, a catalogue
 * or lead change); the `fast-path` and `fast-path-postgres` test tiers (vitest.config.ts) run the
 * security, fuzz, publishable-key and conditional suites again with every GET sent twice
 * (test/helpers/http.ts), so that each of their answers is also given by this path.
 *
 * One set of rules, two speeds. The full path fills this cache with what it sent: the body, its
 * strong tag and its compressed codings once made (http/conditional.ts). A request is answered
 * here only when everything that path would check is known to come out the same:
 *
 * - a GET of a URL under `/v1/ext/` with no body;
 * - a key this process has verified under the current change stamp (services/access/api-keys.ts
 *   `cachedContext`: not revoked, not expired, seen by every process within the change watch's
 *   delay, db/change-watch.ts), whose use needs no recording now;
 * - the very same raw URL (path and query, byte for byte) already answered 200 for the key's
 *   business at the business's current catalogue version (or lead version, for GET /leads),
 *   and a key with the route's scope: the same URL validates and reads the same way again;
 * - the key's origin rule (CONTRACT §13) passing without a refusal: a secret key not sent from
 *   another site; a publishable key with a listed `Origin` (its CORS headers are added here);
 * - the per-key rate limit counted in the same counter as the full path's, and not exceeded;
 * - for a compressed answer, the coding already made.
 *
 * Anything else (a miss, a refusal, a 304 the entry cannot decide, a HEAD, any request once
 * the app is closing, a read that throws) returns false and the request takes the full path,
 * which answers it (and fills the cache, or tells a keep-alive client to go, or answers 500).
 * Its log line and metrics are written the same way as the full path's (the log line by pino's
 * asynchronous destination under `inmo serve`).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import pino from 'pino';
import type { Scope } from '../domain/access/api-key.ts';
import { observeSeries, seriesOf, type RequestSeries } from '../metrics.ts';
import type { KeyContext, KeyVerifier } from '../services/access/api-keys.ts';
import { CACHE_CONTROL, codingFor, etagOf, noneMatch, type RepresentationSink, type Representations } from './conditional.ts';
import { EXPOSED_HEADERS, presentedKey } from './auth.ts';
import type { KeyRateLimit } from './rate-limit.ts';
import { isPersonView, type ListingViews } from '../services/catalogue/listing-views.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * What a cacheable read was read at, set by its handler: the business's catalogue version
     * (GET /properties, /properties/{id}) or lead version (GET /leads, migration 0020). A 200
     * without it is never answered again by the fast path.
     */
    readVersion: ReadVersion | null;
  }
}

/** The version a page was read at: it is the page while the business's version is the same. */
export interface ReadVersion {
  of: 'catalogue' | 'leads';
  version: number;
}

/** Path prefix of the routes served here (spec §9). */
const PREFIX = '/v1/ext/';
const ME = '/v1/ext/me';
const JSON_TYPE = 'application/json; charset=utf-8';
/** The request ids echoed as they come (app.ts); others are replaced by a UUID. */
export const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Bodies up to this size are sent without compression by @fastify/compress (app.ts). */
const PLAIN_MAX = 1023;

/** One remembered 200. */
interface Entry {
  /** What the body was read at. */
  read: ReadVersion;
  /** The route's pattern, for the log line and metrics. */
  route: string;
  scope: Scope;
  body: Buffer;
  known: Representations;
  /** The `Content-Language` the full path sent with it, or null. */
  language: string | null;
  /** Its metrics series by status (200, 304), once counted. */
  series: Map<number, RequestSeries>;
}

/** A response decided by the fast path, and what its log line tells. */
interface Answer {
  status: number;
  headers: Record<string, string | number>;
  /** null: none (304). */
  body: Buffer | null;
  route: string;
  /** Where its metrics series are kept: the cache entry's, or GET /me's. */
  series: Map<number, RequestSeries>;
  requestId: string;
  keyId: string;
  /** `performance.now()` when the request was taken. */
  started: number;
}

/** What the fast path needs of its app. */
export interface FastPathOptions {
  keys: KeyVerifier;
  /** Bytes of bodies kept (the page cache's size): a body is shared with the page cache while both hold it. */
  maxBytes: number;
  /** The app's logger when request logs are on; null when the app logs nothing. */
  log: FastifyBaseLogger | null;
  /** The business's lead version now (db/change-watch.ts); null when unknown. */
  leadVersion: (businessId: number) => number | null;
  /** Whether requests are counted for `/metrics`. */
  metrics: boolean;
  /** The per-key limit shared with the full path; null when it is off. */
  rateLimit: KeyRateLimit | null;
  /** Where a publishable key's read of one listing is counted as a view of the kit's detail (CONTRACT §24); none: not counted. */
  listingViews?: ListingViews;
}

/** A listing's read, `/v1/ext/properties/{id}` and any query: its id. */
const PROPERTY_READ = /^\/v1\/ext\/properties\/(\d{1,15})(?:\?|$)/;

/** Answers exact repeats of cached reads before Fastify (see the module's comment). */
export class FastPath implements RepresentationSink {
  private readonly entries: LRUCache<string, Entry>;
  private readonly me = new WeakMap<object, Buffer>();
  /** GET /me's metrics series by status. */
  private readonly meSeries = new Map<number, RequestSeries>();
  /** Requests answered here, for tests and benchmarks. */
  hits = 0;
  private closing = false;

  private readonly log: BatchedLog | null;

  constructor(private readonly options: FastPathOptions) {
    this.entries = new LRUCache({ maxSize: Math.max(1, options.maxBytes), sizeCalculation: (entry) => Math.max(1, entry.body.length) });
    this.log = options.log === null ? null : new BatchedLog(options.log);
  }

  /**
   * Keeps a 200 the full path sent (http/conditional.ts calls it for page-cache bodies): only a
   * GET without a body, with a key, on a route that needs a scope.
   */
  remember(request: FastifyRequest, body: Buffer, known: Representations, language: string | null = null): void {
    const key = request.apiKey;
    const scope = request.routeOptions.config.scope;
    const url = request.raw.url;
    const read = request.readVersion;
    if (request.method !== 'GET' || !key || !scope || !read || !url?.startsWith(PREFIX) || hasBody(request.raw)) return;
    this.entries.set(`${key.businessId}\u0000${url}`, {
      read,
      route: request.routeOptions.url ?? url,
      scope,
      body,
      known,
      language,
      series: new Map(),
    });
  }

  /**
   * Answers `req` here when it is an exact repeat (see the module's comment).
   * @returns true when it was answered; false: hand it to the full path, untouched.
   */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    // Closing, the full path answers: it tells keep-alive clients `Connection: close`.
    if (this.closing) return false;
    let answer: Answer | null;
    try {
      answer = this.answer(req);
    } catch {
      // A failing read (SQLite busy, I/O) is the full path's to meet and answer, as a 500 of
      // this request: never an exception in the server's handler, which would end the process.
      return false;
    }
    if (answer === null) return false;
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body ?? undefined);
    this.hits++;
    const ms = performance.now() - answer.started;
    if (this.options.metrics) {
      let series = answer.series.get(answer.status);
      if (series === undefined) answer.series.set(answer.status, (series = seriesOf('GET', answer.route, answer.status)));
      observeSeries(series, ms / 1000);
    }
    this.log?.request(answer.requestId, answer.route, answer.status, Math.round(ms * 100) / 100, answer.keyId);
    return true;
  }

  /** From now on every request takes the full path, and pending log lines are written (the app is closing). */
  close(): void {
    this.closing = true;
    this.log?.flush();
  }

  /** The answer to `req` when it is an exact repeat this path may answer; null otherwise. */
  private answer(req: IncomingMessage): Answer | null {
    if (req.method !== 'GET') return null;
    const url = req.url;
    if (url === undefined || !url.startsWith(PREFIX) || hasBody(req)) return null;
    const headers = req.headers;
    const apiKey = presentedKey(headers);
    // None, or another scheme: the full path's refusal.
    if (typeof apiKey !== 'string') return null;
    const started = performance.now();
    const now = Date.now();
    const key = this.options.keys.cachedContext(apiKey, now);
    if (key === null) return null;

    let route: string;
    let series: Map<number, RequestSeries>;
    let body: Buffer;
    let known: Representations | null = null;
    let language: string | null = null;
    if (url === ME) {
      route = ME;
      series = this.meSeries;
      body = this.meBody(key);
      if (body.length > PLAIN_MAX) return null;
    } else {
      const entry = this.entries.get(`${key.businessId}\u0000${url}`);
      if (entry === undefined || !key.scopes.includes(entry.scope)) return null;
      const current = entry.read.of === 'catalogue' ? key.catalogueVersion : this.options.leadVersion(key.businessId);
      if (entry.read.version !== current) return null;
      ({ route, body, known, language, series } = entry);
    }

    // @fastify/cors varies every answer of the API on Origin (its origin is decided per request).
    const out: Record<string, string | number> = { vary: 'Origin' };
    if (!originAllows(key, headers, out)) return null;
    if (language !== null) out['content-language'] = language;
    let status = 200;
    let sent: Buffer | null = body;
    if (known !== null) {
      const coding = codingFor(headers['accept-encoding'], body.length);
      const ifNoneMatch = headers['if-none-match'];
      out['cache-control'] = CACHE_CONTROL;
      out.vary = 'Origin, Accept-Encoding';
      out.etag = etagOf(known, coding);
      if (typeof ifNoneMatch === 'string' && noneMatch(ifNoneMatch, known.hash)) {
        status = 304;
        sent = null;
      } else if (coding !== null) {
        const made = known.made[coding];
        if (made === undefined) return null;
        sent = made;
        out['content-encoding'] = coding;
      }
    }
    // Counted last, once nothing can send the request to the full path but the limit itself
    // (an exceeded limit is counted there again, and refused there).
    const limit = this.options.rateLimit;
    if (limit !== null) {
      const count = limit.count(apiKey);
      if (count.exceeded) return null;
      out['ratelimit-limit'] = count.max;
      out['ratelimit-remaining'] = count.remaining;
      out['ratelimit-reset'] = count.resetSeconds;
    }
    const incoming = headers['x-request-id'];
    const requestId = typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    out['x-request-id'] = requestId;
    if (sent !== null) {
      out['content-type'] = JSON_TYPE;
      out['content-length'] = sent.length;
    }
    if (key.origins !== null && this.options.listingViews !== undefined && isPersonView('GET', headers)) {
      const read = PROPERTY_READ.exec(url);
      if (read !== null) this.options.listingViews.count(Number(read[1]), 'kit', now);
    }
    return { status, headers: out, body: sent, route, series, requestId, keyId: key.keyId, started };
  }

  /** GET /me's body for a key (spec §4.6), as routes/me.ts sends it; made once per verification. */
  private meBody(key: Omit<KeyContext, 'useDue'>): Buffer {
    let body = this.me.get(key);
    if (body === undefined) {
      body = Buffer.from(
        JSON.stringify({ status: 'ok', user: { company_name: key.businessName, scopes: key.scopes, auth_method: 'api_key' } }),
      );
      this.me.set(key, body);
    }
    return body;
  }
}

/** Whether a request comes with a body (any length but 0, or chunked). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * The key's origin rule (http/auth.ts `checkOrigin`, CONTRACT §13) where it passes plainly,
 * adding a publishable key's CORS headers to `out`; false where the full path must decide
 * (a refusal, or a same-origin request without `Origin`).
 */
function originAllows(key: Omit<KeyContext, 'useDue'>, headers: IncomingMessage['headers'], out: Record<string, string | number>): boolean {
  if (key.origins === null) {
    const site = headers['sec-fetch-site'];
    return site !== 'cross-site' && site !== 'same-site';
  }
  const origin = headers.origin;
  if (typeof origin !== 'string' || !key.origins.includes(origin)) return false;
  out['access-control-allow-origin'] = origin;
  out['access-control-expose-headers'] = EXPOSED_HEADERS;
  return true;
}

/**
 * Request log lines made by pino (its format, redaction and level) and handed to its destination
 * together, once per turn of the event loop: one write for the turn's requests instead of one
 * each (the destination's per-line bookkeeping cost as much as the rest of a cached read).
 * Where pino's destination needs each line's metadata (a multistream), lines go one by one.
 */
export class BatchedLog {
  private pending: string[] = [];
  private readonly level: number;
  /** Writes the lines gathered so far. */
  readonly flush = () => {
    if (this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = [];
    this.stream.write(lines.join(''));
  };
  private readonly stream: { write(line: string): unknown };
  private readonly batched: boolean;

  private readonly log: pino.Logger;

  /** @param log the app's logger: pino, as Fastify makes it. */
  constructor(appLog: FastifyBaseLogger) {
    const log = (this.log = appLog as unknown as pino.Logger);
    const internals = log as unknown as Record<symbol, unknown>;
    this.stream = internals[pino.symbols.streamSym] as { write(line: string): unknown };
    this.level = log.levels.values.info;
    this.batched =
      typeof internals[pino.symbols.asJsonSym] === 'function' &&
      typeof internals[pino.symbols.timeSym] === 'function' &&
      typeof this.stream?.write === 'function' &&
      (this.stream as unknown as Record<symbol, unknown>)[pino.symbols.needsMetadataGsym] !== true;
    this.head = String((internals[pino.symbols.lsCacheSym] as Record<number, string> | undefined)?.[this.level] ?? '');
    this.bindings = String(internals[pino.symbols.chindingsSym] ?? '');
    this.end = String(internals[pino.symbols.endSym] ?? '');
    // A sample with characters JSON escapes: both ways must give the same bytes, or pino makes every line.
    const sample = ['id-"1"\\', '/v1/ext/ü', 304, 0.25, 'k\n'] as const;
    this.plain = this.batched && this.head !== '' && this.plainLine(',"time":1', ...sample) === this.pinoLine(',"time":1', ...sample);
  }

  /**
   * Logs a request's line at level info, as `log.info({reqId, method: 'GET', route, status, ms,
   * key_id}, 'request')` would. Where pino writes that line as plain JSON (no formatter, serializer
   * or stringifier of these fields: {@link plainLine}), it is put together here from pino's own
   * level, time and bindings (a third of pino's cost per line, measured under wrk); else pino makes it.
   * @param ms the request's duration, ms (two decimals).
   */
  request(reqId: string, route: string, status: number, ms: number, keyId: string): void {
    if (!this.log.isLevelEnabled('info')) return;
    if (!this.batched) return this.log.info({ reqId, method: 'GET', route, status, ms, key_id: keyId }, 'request');
    const internals = this.log as unknown as Record<symbol, () => string>;
    const time = internals[pino.symbols.timeSym]();
    this.pending.push(
      this.plain ? this.plainLine(time, reqId, route, status, ms, keyId) : this.pinoLine(time, reqId, route, status, ms, keyId),
    );
    if (this.pending.length === 1) setImmediate(this.flush);
  }

  /** The line as pino's `asJson` makes it. */
  private pinoLine(time: string, reqId: string, route: string, status: number, ms: number, keyId: string): string {
    const asJson = (this.log as unknown as Record<symbol, (...args: unknown[]) => string>)[pino.symbols.asJsonSym];
    return asJson.call(this.log, { reqId, method: 'GET', route, status, ms, key_id: keyId }, 'request', this.level, time);
  }

  /** The same line put together from pino's level prefix, the time, the logger's bindings and the fields as JSON. */
  private plainLine(time: string, reqId: string, route: string, status: number, ms: number, keyId: string): string {
    return `${this.head}${time}${this.bindings},"reqId":${JSON.stringify(reqId)},"method":"GET","route":${JSON.stringify(route)},"status":${status},"ms":${ms},"key_id":${JSON.stringify(keyId)},"msg":"request"${this.end}`;
  }

  /** pino's `{"level":30` for info. */
  private readonly head: string;
  /** The logger's bindings (`,"pid":…,"hostname":…`). */
  private readonly bindings: string;
  /** pino's line end (`}` and the newline). */
  private readonly end: string;
  /** Whether lines are put together here ({@link plainLine} gives pino's bytes): checked once, on a sample line, when the log is made. */
  readonly plain: boolean;
}
