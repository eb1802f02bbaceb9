/**
 * Portal feeds published by a business (CONTRACT §15): a URL `/feeds/<token>/kyero.xml` per feed,
 * whose token (43 base62 characters, about 256 bits) is shown once and kept only as its SHA-256;
 * revoking one ends it for good. The document is the public catalogue written as Kyero v3
 * (domain/catalogue/kyero-feed.ts), built once per catalogue version and kept in memory while that
 * version lasts, so every portal's poll after the first costs a lookup.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Db } from '../../../db/database.ts';
import { findBusiness } from '../../../db/repositories/businesses.ts';
import * as repo from '../../../db/repositories/feeds.ts';
import { listPublishedDocsAfter } from '../../../db/repositories/properties.ts';
import { randomBase62 } from '../../../domain/access/api-key.ts';
import { SUBTYPES } from '../../../domain/catalogue/terms.ts';
import { KYERO_HEAD, KYERO_TAIL, kyeroProperties, type PublishedProperty } from '../../../domain/catalogue/kyero-feed.ts';
import { propertyJson } from '../../../domain/catalogue/property-doc.ts';
import { nowRfc3339 } from '../../../domain/time.ts';
import { InmoError } from '../../../errors.ts';
import { FEED_FORMATS, type FeedFormat } from '../../../domain/catalogue/feed-formats.ts';

export { FEED_FORMATS, type FeedFormat };

/** A feed URL's token: 43 base62 characters. */
const TOKEN = /^[A-Za-z0-9]{43}$/;
const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** The Spanish subtype labels the API publishes → their keys. */
const SUBTYPE_KEYS: ReadonlyMap<string, string> = new Map(Object.entries(SUBTYPES).map(([key, { label }]) => [label, key]));

/** The path of a feed's document. */
export const feedPath = (token: string, format: FeedFormat) => `/feeds/${token}/${format}.xml`;

/**
 * Publishes a feed of the business's public catalogue.
 * @returns `{id, format, url}`, the URL (a path on this server) shown once: only its token's hash is kept.
 * @throws InmoError UNKNOWN_BUSINESS.
 */
export async function publishFeed(db: Db, businessId: number, format: FeedFormat = 'kyero') {
  if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  const token = randomBase62(43);
  const id = await repo.insertPublishedFeed(db, { business_id: businessId, format, token_hash: hashOf(token), created_at: nowRfc3339() });
  return { id, format, url: feedPath(token, format) };
}

/** The business's feeds, newest first: `{id, format, created_at, revoked_at}` (never a URL: only its hash is kept). */
export async function listFeeds(db: Db, businessId: number) {
  if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  return (await repo.listPublishedFeeds(db, businessId)).map(({ business_id: _business, ...feed }) => feed);
}

/**
 * Revokes a feed (idempotent): its URL answers 404 from then on, in this process at once and in
 * every other within a second.
 * @param businessId the business whose feed alone may be revoked (the console), or null for any (the operator's CLI).
 * @throws InmoError FEED_NOT_FOUND.
 */
export async function revokeFeed(db: Db, id: number, businessId: number | null): Promise<void> {
  if (!(await repo.revokePublishedFeed(db, id, businessId, nowRfc3339()))) throw new InmoError('FEED_NOT_FOUND', { id });
  liveFeeds.clear();
}

/** A document built, and its gzip form (made once, off the event loop, as soon as it is built). */
interface Built {
  document: Buffer;
  gzipped: Promise<Buffer>;
}

/** Documents built, by business and catalogue version (a few MB each for 20,000 listings). */
const documents = new LRUCache<string, Built>({ maxSize: 256 * 1024 * 1024, sizeCalculation: (b) => b.document.length });

/** Listings written per step of a document being built: the event loop is free between steps. */
const BUILD_STEP = 500;

/**
 * A feed's document at the catalogue version it is read at. `version` names its bytes (the same
 * version always gives the same document): the route makes its strong ETag of it. `document` is
 * the whole document when it is already built; otherwise `chunks` builds it as it is sent (the
 * first bytes leave at once) and keeps it for the next request of that version.
 */
export type FeedDocument = ({ version: string } & Built) | { version: string; chunks: () => AsyncIterable<string> };

/** A live feed a token names. */
export interface LiveFeed {
  id: number;
  businessId: number;
  format: FeedFormat;
}

/** Live feeds by their token's hash, for a second: a revoked URL is refused by every process within 1 s. */
const liveFeeds = new LRUCache<string, LiveFeed | false>({ max: 10_000, ttl: 1000 });

/**
 * The live feed a URL's token names, and the catalogue version it would be read at now: enough
 * to answer `If-None-Match` before anything is read or built.
 * @returns null for a token that names no live feed.
 */
export async function feedVersion(db: Db, token: string): Promise<{ feed: LiveFeed; version: string } | null> {
  if (!TOKEN.test(token)) return null;
  const hash = hashOf(token);
  let feed = liveFeeds.get(hash);
  if (feed === undefined) {
    const row = await repo.findLiveFeed(db, hash);
    feed = row ? { id: row.id, businessId: row.business_id, format: row.format as FeedFormat } : false;
    liveFeeds.set(hash, feed);
  }
  if (!feed) return null;
  const business = await findBusiness(db, feed.businessId);
  return business ? { feed, version: `${feed.businessId}-${business.catalogue_version}` } : null;
}

/** Thrown while a document is sent when the catalogue changed under it: the response is cut short. */
export class CatalogueChangedError extends Error {
  override name = 'CatalogueChangedError';
}

/**
 * The document of a live feed (see {@link FeedDocument}); null when its business is gone.
 *
 * A document not built yet is read and written {@link BUILD_STEP} listings at a time, each step
 * a short read of its own, so its first bytes leave at once and no step holds the database or
 * the event loop for long. Each step also reads the catalogue version: when a change came in
 * meanwhile, the bytes would no longer be the ETag's version's, so the iteration throws
 * {@link CatalogueChangedError} (the response is cut short, which a client sees as a failed
 * transfer and asks again) and nothing is kept.
 */
export async function feedDocument(db: Db, feed: LiveFeed): Promise<FeedDocument | null> {
  const business = await findBusiness(db, feed.businessId);
  if (!business) return null;
  const version = `${feed.businessId}-${business.catalogue_version}`;
  const cached = documents.get(`${version}:${feed.format}`);
  if (cached) return { version, ...cached };
  return {
    version,
    chunks: async function* () {
      const parts = [KYERO_HEAD];
      yield KYERO_HEAD;
      let after = 0;
      for (;;) {
        const step = await db.transaction().execute(async (trx) => {
          const now = await findBusiness(trx, feed.businessId);
          if (now?.catalogue_version !== business.catalogue_version) return null;
          return listPublishedDocsAfter(trx, feed.businessId, after, BUILD_STEP);
        });
        if (step === null) throw new CatalogueChangedError(`the catalogue of business ${feed.businessId} changed while its feed was sent`);
        if (step.length === 0) break;
        after = step[step.length - 1].id;
        const text = step
          .map((row) => kyeroProperties(JSON.parse(propertyJson(row.id, row.api_doc)) as PublishedProperty, SUBTYPE_KEYS, row.lang_texts))
          .join('');
        parts.push(text);
        yield text;
      }
      parts.push(KYERO_TAIL);
      yield KYERO_TAIL;
      const document = Buffer.from(parts.join(''));
      const gzipped = promisify(gzip)(document);
      // Not awaited: a failure to compress is seen by the request that asks for it.
      gzipped.catch(() => {});
      documents.set(`${version}:${feed.format}`, { document, gzipped });
    },
  };
}
