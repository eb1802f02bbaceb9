/**
 * Portal feeds published by a business (CONTRACT §15, §22): a URL `/feeds/<token>/kyero.xml` or
 * `/feeds/<token>/idealista.json` per feed, whose token (a capability token of
 * domain/capability-token.ts in base62, as CONTRACT §15 fixes: 43 characters, about 256 bits) is
 * shown once and kept only as its SHA-256; revoking one ends it for good. The document is the
 * public catalogue written as Kyero v3 (domain/catalogue/kyero-feed.ts) or as idealista's v6
 * properties format (domain/catalogue/idealista-feed.ts, each item validated against idealista's
 * schemas by feeds/idealista-schema.ts), built once per catalogue version and kept in memory while
 * that version lasts, so every portal's poll after the first costs a lookup.
 */
import { LRUCache } from 'lru-cache';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Db } from '../../../db/database.ts';
import { findBusiness } from '../../../db/repositories/businesses.ts';
import * as repo from '../../../db/repositories/feeds.ts';
import { listPublishedDocsAfter } from '../../../db/repositories/properties.ts';
import { hashToken, mintToken } from '../../../domain/capability-token.ts';
import { SUBTYPES } from '../../../domain/catalogue/terms.ts';
import { findEmailSettings } from '../../../db/repositories/email-out.ts';
import { KYERO_HEAD, KYERO_TAIL, kyeroProperties, type PublishedProperty } from '../../../domain/catalogue/kyero-feed.ts';
import {
  IDEALISTA_TAIL,
  idealistaContact,
  idealistaCustomer,
  idealistaHead,
  idealistaLeftOutReason,
  idealistaProperty,
  type IdealistaLeftOut,
} from '../../../domain/catalogue/idealista-feed.ts';
import { propertyJson } from '../../../domain/catalogue/property-doc.ts';
import { nowRfc3339 } from '../../../domain/time.ts';
import { InmoError } from '../../../errors.ts';
import { idealistaSchemas } from '../../../feeds/idealista-schema.ts';
import { FEED_FILES, FEED_FORMATS, type FeedFormat } from '../../../domain/catalogue/feed-formats.ts';

export { FEED_FORMATS, type FeedFormat };

/** A feed URL's token: 43 base62 characters. */
const TOKEN = /^[A-Za-z0-9]{43}$/;

/** The Spanish subtype labels the API publishes → their keys. */
const SUBTYPE_KEYS: ReadonlyMap<string, string> = new Map(Object.entries(SUBTYPES).map(([key, { label }]) => [label, key]));

/** The path of a feed's document. */
export const feedPath = (token: string, format: FeedFormat) => `/feeds/${token}/${FEED_FILES[format].file}`;

/**
 * Publishes a feed of the business's public catalogue.
 * @param options.customerCode an idealista feed's customer code (`ilc` and 40 lower-case letters or digits), required for that format alone.
 * @returns `{id, format, url}`, the URL (a path on this server) shown once: only its token's hash is kept.
 * @throws InmoError UNKNOWN_BUSINESS, FEED_CUSTOMER_CODE (idealista without a valid code), FEED_CUSTOMER_CODE_UNUSED (a code for another format).
 */
export async function publishFeed(
  db: Db,
  businessId: number,
  format: FeedFormat = 'kyero',
  options: { customerCode?: string | null } = {},
) {
  const customerCode = options.customerCode?.trim() || null;
  if (format !== 'idealista' && customerCode !== null) throw new InmoError('FEED_CUSTOMER_CODE_UNUSED');
  if (format === 'idealista' && (customerCode === null || idealistaSchemas().customer({ customerCountry: 'Spain', customerCode })))
    throw new InmoError('FEED_CUSTOMER_CODE');
  if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  const { token, hash } = mintToken('base62');
  const id = await repo.insertPublishedFeed(db, {
    business_id: businessId,
    format,
    token_hash: hash,
    created_at: nowRfc3339(),
    customer_code: customerCode,
  });
  return { id, format, url: feedPath(token, format) };
}

/** The business's feeds, newest first: `{id, format, customer_code, created_at, revoked_at}` (never a URL: only its hash is kept; `customer_code` null but for idealista). */
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
  versions.clear();
}

/** What a feed left out of its document, and how many listings it holds (idealista's; Kyero's documents keep no report). */
export interface FeedReport {
  /** Listings the document holds. */
  published: number;
  /** Listings left out because idealista's schema refuses them, by id, with the reason. */
  leftOut: IdealistaLeftOut[];
}

/** A document built, and its gzip form (made once, off the event loop, as soon as it is built). */
interface Built {
  document: Buffer;
  gzipped: Promise<Buffer>;
  report?: FeedReport;
}

/**
 * Documents built, by database, then by business and catalogue version (a few MB each for 20,000
 * listings). By database: two databases in one process (tests, tools) have the same business ids
 * and versions for other catalogues.
 */
const built = new WeakMap<Db, LRUCache<string, Built>>();

/** The documents built from `db`'s catalogues. */
function documentsOf(db: Db): LRUCache<string, Built> {
  let documents = built.get(db);
  if (documents === undefined)
    built.set(db, (documents = new LRUCache<string, Built>({ maxSize: 256 * 1024 * 1024, sizeCalculation: (b) => b.document.length })));
  return documents;
}

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
  /** An idealista feed's customer code; null for other formats. */
  customerCode: string | null;
}

/** Live feeds by their token's hash, for a second: a revoked URL is refused by every process within 1 s. */
const liveFeeds = new LRUCache<string, LiveFeed | false>({ max: 10_000, ttl: 1000 });

/**
 * Each token's live feed and version by the change stamp they were read at (db/change-watch.ts),
 * for a second at most: a portal polling with `If-None-Match` is answered from memory, as a
 * cached page is, while a catalogue or settings change, or a revocation, is seen as before.
 */
const versions = new LRUCache<string, { stamp: number; live: { feed: LiveFeed; version: string } | null }>({ max: 10_000, ttl: 1000 });

/**
 * The version of a feed's document: the business's catalogue version, and for idealista also its
 * `config_version`, which its e-mail settings (the document's contact) bump.
 */
const versionOf = (feed: LiveFeed, business: { catalogue_version: number; config_version: number }) =>
  feed.format === 'idealista'
    ? `${feed.businessId}-${business.catalogue_version}-${business.config_version}`
    : `${feed.businessId}-${business.catalogue_version}`;

/** Where a built document is kept: its version, format and (idealista) customer code. */
const documentKey = (feed: LiveFeed, version: string) => `${version}:${feed.format}:${feed.customerCode ?? ''}`;

/**
 * The live feed a URL's token names, and the catalogue version it would be read at now: enough
 * to answer `If-None-Match` before anything is read or built.
 * @param stamp the change stamp now (db/change-watch.ts): the answer read at the same stamp less
 *   than a second ago is given again without a read; without it, the database is read.
 * @returns null for a token that names no live feed.
 */
export async function feedVersion(db: Db, token: string, stamp?: number): Promise<{ feed: LiveFeed; version: string } | null> {
  if (!TOKEN.test(token)) return null;
  if (stamp !== undefined) {
    const known = versions.get(token);
    if (known !== undefined && known.stamp === stamp) return known.live;
    const live = await feedVersion(db, token);
    versions.set(token, { stamp, live });
    return live;
  }
  const hash = hashToken(token);
  let feed = liveFeeds.get(hash);
  if (feed === undefined) {
    const row = await repo.findLiveFeed(db, hash);
    feed = row ? { id: row.id, businessId: row.business_id, format: row.format as FeedFormat, customerCode: row.customer_code } : false;
    liveFeeds.set(hash, feed);
  }
  if (!feed) return null;
  const business = await findBusiness(db, feed.businessId);
  return business ? { feed, version: versionOf(feed, business) } : null;
}

/** Thrown while a document is sent when the catalogue changed under it: the response is cut short. */
export class CatalogueChangedError extends Error {
  override name = 'CatalogueChangedError';
}

/** A page of published listings as a feed reads them. */
type FeedRow = { id: number; api_doc: string; external_ref: string; lang_texts: string | null };

/** How a format writes its document: the opening, each step's listings, the end, and what it left out. */
interface FeedWriter {
  head: string;
  listings(rows: FeedRow[]): string;
  tail: string;
  report(): FeedReport | undefined;
}

/** The Kyero v3 writer (CONTRACT §15). */
function kyeroWriter(): FeedWriter {
  return {
    head: KYERO_HEAD,
    listings: (rows) =>
      rows
        .map((row) => kyeroProperties(JSON.parse(propertyJson(row.id, row.api_doc)) as PublishedProperty, SUBTYPE_KEYS, row.lang_texts))
        .join(''),
    tail: KYERO_TAIL,
    report: () => undefined,
  };
}

/**
 * The idealista writer (CONTRACT §22): the customer (its code, and its contact from the business's
 * name and the address its e-mail settings answer at, without the fields idealista's schema
 * refuses), then each listing mapped (its descriptions in every language it holds) and validated
 * against `property.json`; one that fails is left out, with the reason.
 */
async function idealistaWriter(db: Db, feed: LiveFeed, business: { name: string }): Promise<FeedWriter> {
  const schemas = idealistaSchemas();
  const email = await findEmailSettings(db, feed.businessId);
  const contact = idealistaContact({ name: business.name, email: email ? (email.reply_to ?? email.from_address) : null });
  const customer = idealistaCustomer(feed.customerCode ?? '', contact);
  for (let fault = schemas.customer(customer); fault; fault = schemas.customer(customer)) {
    const [part, field] = fault.path.split('/');
    // Only a contact field can fail (the code was checked when the feed was published): it is not sent.
    if (part !== 'customerContact' || !field || !(field in contact)) throw new Error(`idealista refuses the customer: ${fault.path}`);
    delete contact[field];
  }
  const leftOut: IdealistaLeftOut[] = [];
  let published = 0;
  return {
    head: idealistaHead(customer),
    listings(rows) {
      const items: string[] = [];
      for (const row of rows) {
        const p = JSON.parse(propertyJson(row.id, row.api_doc)) as PublishedProperty;
        const mapped = idealistaProperty(p, row.external_ref, SUBTYPE_KEYS, row.lang_texts);
        if ('reason' in mapped) {
          leftOut.push({ id: row.id, ref: row.external_ref, reason: mapped.reason });
          continue;
        }
        let fault = schemas.property(mapped.item);
        // property.json's `oneOf` of kinds says little: the item's own kind's schema names the field.
        if (fault?.path.startsWith('propertyFeatures')) fault = schemas.features(mapped.kind, mapped.item.propertyFeatures) ?? fault;
        if (fault) {
          leftOut.push({
            id: row.id,
            ref: row.external_ref,
            ...idealistaLeftOutReason(fault, (p.specs as { address_privacy?: unknown } | null)?.address_privacy),
          });
          continue;
        }
        items.push((published === 0 ? '' : ',\n') + JSON.stringify(mapped.item));
        published++;
      }
      return items.join('');
    },
    tail: IDEALISTA_TAIL,
    report: () => ({ published, leftOut }),
  };
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
  const version = versionOf(feed, business);
  const cached = documentsOf(db).get(documentKey(feed, version));
  if (cached) return { version, ...cached };
  return {
    version,
    chunks: async function* () {
      const writer = feed.format === 'idealista' ? await idealistaWriter(db, feed, business) : kyeroWriter();
      // Kept as bytes step by step: the heap holds one step's text at a time, not the whole document's.
      const parts = [Buffer.from(writer.head)];
      yield writer.head;
      let after = 0;
      for (;;) {
        const step = await db.transaction().execute(async (trx) => {
          const now = await findBusiness(trx, feed.businessId);
          if (!now || versionOf(feed, now) !== version) return null;
          return listPublishedDocsAfter(trx, feed.businessId, after, BUILD_STEP);
        });
        if (step === null) throw new CatalogueChangedError(`the catalogue of business ${feed.businessId} changed while its feed was sent`);
        if (step.length === 0) break;
        after = step[step.length - 1].id;
        const text = writer.listings(step);
        parts.push(Buffer.from(text));
        yield text;
      }
      parts.push(Buffer.from(writer.tail));
      yield writer.tail;
      const document = Buffer.concat(parts);
      const gzipped = promisify(gzip)(document);
      // Not awaited: a failure to compress is seen by the request that asks for it.
      gzipped.catch(() => {});
      documentsOf(db).set(documentKey(feed, version), { document, gzipped, report: writer.report() });
    },
  };
}

/** Tries of {@link idealistaReport} while the catalogue keeps changing under the document it builds. */
const REPORT_TRIES = 3;

/**
 * What the business's newest live idealista feed holds and leaves out at the catalogue's current
 * version (the console's catalogue page): the document kept for that version, or built now (and
 * kept for the portal's next request).
 * @returns `{feedId, published, leftOut}`, or null when the business has no live idealista feed
 *   (or the catalogue changed under every try).
 */
export async function idealistaReport(db: Db, businessId: number): Promise<({ feedId: number } & FeedReport) | null> {
  const row = (await repo.listPublishedFeeds(db, businessId)).find((f) => f.format === 'idealista' && f.revoked_at === null);
  if (!row) return null;
  const feed: LiveFeed = { id: row.id, businessId, format: 'idealista', customerCode: row.customer_code };
  for (let attempt = 0; attempt < REPORT_TRIES; attempt++) {
    const document = await feedDocument(db, feed);
    if (!document) return null;
    if ('document' in document) return document.report ? { feedId: feed.id, ...document.report } : null;
    try {
      for await (const _chunk of document.chunks());
    } catch (error) {
      if (!(error instanceof CatalogueChangedError)) throw error;
    }
  }
  return null;
}
