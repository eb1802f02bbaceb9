/**
 * Conditional and compressed reads (CONTRACT §13) of the four GETs that return data:
 * GET /properties, GET /properties/{id}, GET /leads, GET /leads/{id}.
 *
 * Their 200s carry a strong `ETag` (a SHA-256 of the body's bytes) and
 * `Cache-Control: private, no-cache`, so a client revalidates every time and gets
 * 304 with no body when nothing changed. The key is checked before, as for any request.
 * Bodies over 1 KB are sent as `br` or `gzip` when `Accept-Encoding` allows it; each coding
 * is its own representation with its own strong ETag (`"<hash>-br"`, `"<hash>-gzip"`), and
 * `If-None-Match` names the content, so any coding's tag of the current body matches.
 *
 * The catalogue's page cache hands out the same Buffer for every hit (services/catalogue/published.ts),
 * so what is worked out for a body (its hash, its compressed codings) is kept beside it in a
 * WeakMap: a cached page costs one hash and one compression, then nothing per request, and the
 * memo goes when the cache drops the page. Every other response of the API goes through
 * @fastify/compress (app.ts); these routes opt out of it (`compress: false`).
 */
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyRequest, onSendHookHandler } from 'fastify';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/** Bodies smaller than this are sent as they are (compression would barely pay for its headers). */
export const COMPRESS_MIN_BYTES = 1024;
/** The codings offered, in the server's order of preference. */
const CODINGS = ['br', 'gzip'] as const;
export type Coding = (typeof CODINGS)[number];

/** Brotli quality 4: a dynamic body's usual choice (11, zlib's default, costs ten times as much). */
const COMPRESS: Record<Coding, (body: Buffer) => Promise<Buffer>> = {
  br: (body) =>
    promisify(brotliCompress)(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
  gzip: (body) => promisify(gzip)(body),
};

export const COMPRESSION_OPTIONS = {
  encodings: [...CODINGS],
  threshold: COMPRESS_MIN_BYTES,
  brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
  // Request bodies are read as sent: a signed webhook is checked on its exact bytes.
  globalDecompression: false,
};

/** What is worked out once per body. */
export interface Representations {
  /** The body's strong tag (without quotes or coding). */
  hash: string;
  br?: Promise<Buffer>;
  gzip?: Promise<Buffer>;
  /** The codings made so far, for a reader that cannot wait (http/fast-path.ts). */
  made: Partial<Record<Coding, Buffer>>;
}

const memo = new WeakMap<Buffer, Representations>();

function representationsOf(body: Buffer, keep: boolean): Representations {
  let known = memo.get(body);
  if (known === undefined) {
    known = { hash: createHash('sha256').update(body).digest('base64url').slice(0, 32), made: {} };
    if (keep) memo.set(body, known);
  }
  return known;
}

/** The coding a body of `length` bytes is sent in for this `Accept-Encoding`, or null: as it is. */
export function codingFor(accepted: string | undefined, length: number): Coding | null {
  return length >= COMPRESS_MIN_BYTES && typeof accepted === 'string' ? (negotiate(accepted, [...CODINGS]) as Coding | null) : null;
}

/** The `ETag` of a body's representation in `coding` (CONTRACT §13). */
export function etagOf(known: Representations, coding: Coding | null): string {
  return coding ? `"${known.hash}-${coding}"` : `"${known.hash}"`;
}

/** The cache headers of every conditional 200 and 304. */
export const CACHE_CONTROL = 'private, no-cache';

/**
 * A body's representation in `coding`, made once (brotli or gzip on libuv's threads) and kept
 * with the body's other representations.
 */
function compressed(known: Representations, body: Buffer, coding: Coding): Promise<Buffer> {
  return (known[coding] ??= COMPRESS[coding](body).then((bytes) => (known.made[coding] = bytes)));
}

/**
 * Where a conditional route's 200 bodies go once sent, to answer the same request again
 * without the full request path (http/fast-path.ts); called only for bodies the page cache holds.
 */
export interface RepresentationSink {
  /** @param language the 200's `Content-Language` (a property read asked for a language, CONTRACT §22), or null. */
  remember(request: FastifyRequest, body: Buffer, known: Representations, language: string | null): void;
}

/**
 * Whether an `If-None-Match` value names the current content `hash` (weak comparison, as
 * RFC 9110 §13.1.2 says): `*`, or a tag `"hash"`, `"hash-br"` or `"hash-gzip"`, weak or not.
 */
export function noneMatch(header: string, hash: string): boolean {
  if (header.trim() === '*') return true;
  for (const raw of header.split(',')) {
    let tag = raw.trim();
    if (tag.startsWith('W/')) tag = tag.slice(2);
    if (!tag.startsWith('"') || !tag.endsWith('"') || tag.length < 2) continue;
    const opaque = tag.slice(1, -1);
    if (opaque === hash || CODINGS.some((coding) => opaque === `${hash}-${coding}`)) return true;
  }
  return false;
}

/**
 * The route options that make a GET conditional and compressed: its `onSend` hook, and
 * `compress: false` so that @fastify/compress leaves it to this one.
 */
export function conditionalRoute(sink: RepresentationSink | null = null) {
  const onSend: onSendHookHandler = (request, reply, payload, done) => {
    if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return done(null, payload);
    const cached = Buffer.isBuffer(payload);
    const body = cached ? (payload as Buffer) : Buffer.from(payload as string);
    const known = representationsOf(body, cached);
    if (cached && sink) {
      const language = reply.getHeader('content-language');
      sink.remember(request, body, known, typeof language === 'string' ? language : null);
    }
    const coding = codingFor(request.headers['accept-encoding'], body.length);
    reply.header('cache-control', CACHE_CONTROL);
    const vary = reply.getHeader('vary');
    reply.header('vary', vary ? `${String(vary)}, Accept-Encoding` : 'Accept-Encoding');
    reply.header('etag', etagOf(known, coding));
    const ifNoneMatch = request.headers['if-none-match'];
    if (typeof ifNoneMatch === 'string' && noneMatch(ifNoneMatch, known.hash)) {
      reply.code(304);
      reply.removeHeader('content-type');
      return done(null, '');
    }
    if (!coding) return done(null, body);
    compressed(known, body, coding).then(
      (bytes) => {
        reply.header('content-encoding', coding);
        done(null, bytes);
      },
      (error: Error) => done(error),
    );
  };
  return { onSend, compress: false as const };
}
