/**
 * The download of a pulled feed's document (services/catalogue/feeds/pulls.ts, CONTRACT §15): a conditional
 * GET through the outgoing-request policy (channels/outbound.ts), gzip accepted, written to a
 * file and refused past a size limit once decoded. It runs on the import thread for a database
 * another connection can open (services/catalogue/import/import-thread.ts), where a 200 MB download's buffers do
 * not grow the server's main heap, and on the calling thread otherwise.
 */
import { createWriteStream } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { outboundGet } from '../../../channels/outbound.ts';
import type { OutboundPolicy } from '../../../config.ts';

/** How long a whole pull's download may take, ms. */
const DOWNLOAD_TIMEOUT_MS = 5 * 60_000;

/** What a document's GET came to: nothing new (a 304), a failure in words, or the document in the file. */
export type FetchOutcome =
  { status: 'unchanged' } | { status: 'failed'; error: string } | { status: 'fetched'; etag: string | null; lastModified: string | null };

/** What a pull asks for: the source's URL, its validators from the last pull, and its limits. */
export interface FeedRequest {
  url: string;
  etag: string | null;
  lastModified: string | null;
  outbound: OutboundPolicy;
  /** Bytes of the document, once decoded, past which it is refused (`INMO_FEED_MAX_BYTES`). */
  maxBytes: number;
}

/** Why a pull over plain http is refused without `INMO_ALLOW_PRIVATE_NETWORK=1`. */
export const NOT_HTTPS = 'the feed URL is not https: a pull goes over https only (INMO_ALLOW_PRIVATE_NETWORK=1 also allows http)';

/**
 * GETs a source's document into `path`: `If-None-Match` and `If-Modified-Since` from the last
 * pull, gzip accepted, no redirect followed (a 3xx is a failure), five minutes at most; over
 * https only unless the policy allows private networks (then http too), as webhooks.
 * @returns the outcome; never throws (a failure is told in words: {@link NOT_HTTPS} for http).
 */
export async function fetchFeedDocument(request: FeedRequest, path: string): Promise<FetchOutcome> {
  if (!request.outbound.allowPrivateNetwork && !request.url.toLowerCase().startsWith('https:'))
    return { status: 'failed', error: NOT_HTTPS };
  const headers: Record<string, string> = { accept: 'application/xml, application/x-ndjson, text/plain, */*', 'accept-encoding': 'gzip' };
  if (request.etag) headers['if-none-match'] = request.etag;
  if (request.lastModified) headers['if-modified-since'] = request.lastModified;
  try {
    const response = await outboundGet(request.url, { headers, signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) }, request.outbound);
    if (response.statusCode === 304) {
      await response.body.dump();
      return { status: 'unchanged' };
    }
    if (response.statusCode < 200 || response.statusCode > 299) {
      await response.body.dump();
      return { status: 'failed', error: `the server answered HTTP ${response.statusCode}` };
    }
    const encoding = header(response.headers['content-encoding']);
    let decode: Transform | null;
    try {
      decode = decoder(encoding);
    } catch (error) {
      await response.body.dump();
      return { status: 'failed', error: (error as Error).message };
    }
    await download(response.body, decode, path, request.maxBytes);
    return { status: 'fetched', etag: header(response.headers.etag), lastModified: header(response.headers['last-modified']) };
  } catch (error) {
    return { status: 'failed', error: failure(error) };
  }
}

/** A document larger than the limit. */
class TooLargeError extends Error {}

/** A response header's value (the first, when repeated), or null. */
function header(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

/** The decoder of a `Content-Encoding` the pull accepts; none for the identity. */
function decoder(encoding: string | null): Transform | null {
  switch (encoding?.trim().toLowerCase()) {
    case undefined:
    case '':
    case 'identity':
      return null;
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      throw new Error(`the document came in an encoding inmo does not read (Content-Encoding: ${encoding})`);
  }
}

/** Writes `body`, through `decode` when the document is encoded, to `path`, refusing it past `maxBytes` once decoded. */
async function download(body: Readable, decode: Transform | null, path: string, maxBytes: number): Promise<void> {
  let bytes = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > maxBytes)
        return done(new TooLargeError(`the document is larger than ${maxBytes.toLocaleString('en')} bytes (INMO_FEED_MAX_BYTES)`));
      done(null, chunk);
    },
  });
  await (decode ? pipeline(body, decode, limit, createWriteStream(path)) : pipeline(body, limit, createWriteStream(path)));
}

/** Why a pull failed, in words for the operator (never a stack). */
export function failure(error: unknown): string {
  if (error instanceof TooLargeError) return error.message;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'EPRIVATEADDRESS' && cause.message) return cause.message;
  if ((error as Error).name === 'TimeoutError') return `no answer within ${DOWNLOAD_TIMEOUT_MS / 60_000} minutes`;
  return (error as Error).message;
}
