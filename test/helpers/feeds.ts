/**
 * What every published portal feed answers alike (CONTRACT §15, §22): a strong ETag naming the
 * version, the same bytes while it lasts, 304 to `If-None-Match` (any coding's tag of the
 * version), and the same document gzip-compressed under a `-gzip` tag when accepted.
 */
import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import type { Response as InjectResponse } from 'light-my-request';

/** A GET of a feed's path with headers, as the tests inject it. */
export type FetchFeed = (path: string, headers?: Record<string, string>) => Promise<InjectResponse>;

/**
 * Checks the conditional and compressed answers of the feed at `url`, whose tag must match `etagShape`.
 * @returns the first answer and its ETag.
 */
export async function expectConditionalFeed(fetchFeed: FetchFeed, url: string, etagShape: RegExp) {
  // The first request builds the document as it sends it; the next one sends it from memory.
  const first = await fetchFeed(url);
  const etag = first.headers.etag as string;
  expect(etag).toMatch(etagShape);
  const kept = await fetchFeed(url);
  expect([kept.headers.etag, kept.body]).toEqual([etag, first.body]);
  const again = await fetchFeed(url, { 'if-none-match': etag });
  expect([again.statusCode, again.body]).toEqual([304, '']);
  const gzipped = await fetchFeed(url, { 'accept-encoding': 'gzip' });
  expect(gzipped.headers['content-encoding']).toBe('gzip');
  expect(gzipped.headers.etag).toBe(etag.replace(/"$/, '-gzip"'));
  expect(gunzipSync(gzipped.rawPayload).toString()).toBe(first.body);
  // Any coding's tag of this version is this version.
  expect((await fetchFeed(url, { 'if-none-match': gzipped.headers.etag as string })).statusCode).toBe(304);
  return { first, etag };
}
