/** The property catalogue: SQL only (rules live in domain/ and services/). */
import { likeLiteral } from '../like.ts';
import { type Expression, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Database } from '../types.ts';
import { priceColumnFor, type PropertyQuery } from '../../domain/catalogue/property-query.ts';
import type { ImageInput, PropertyFields, VideoInput } from '../../domain/catalogue/property-record.ts';
import type { PublishedDocs, StoredImage, StoredVideo } from '../../domain/catalogue/property-doc.ts';
import type { Db, Executor } from '../database.ts';
import { listingSearchText, searchWords } from '../../domain/search-text.ts';
import { insertPageTokens } from './listing-pages.ts';
import { boxesCondition, filterConditions, orderBy, pageOrder, type ScanPlan } from './property-filters.ts';

export type { ScanPlan };

/** Whether any business has a property at all. */
export async function anyProperty(db: Executor): Promise<boolean> {
  return (await db.selectFrom('properties').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** Ids of the business's properties with these external refs. */
export async function findIdsByRef(db: Executor, businessId: number, refs: string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  if (refs.length === 0) return found;
  const rows = await db
    .selectFrom('properties')
    .select(['id', 'external_ref'])
    .where('business_id', '=', businessId)
    .where('external_ref', 'in', refs)
    .execute();
  for (const row of rows) found.set(row.external_ref, row.id);
  return found;
}

/**
 * Records the refs a batch of import run `run` accepted (at most 500, without repeats).
 * @returns how many of them an earlier batch of the run had accepted already.
 */
export async function addImportRefs(db: Executor, run: string, refs: readonly string[]): Promise<number> {
  if (refs.length === 0) return 0;
  const added = await db
    .insertInto('import_refs')
    .values(refs.map((external_ref) => ({ run, external_ref })))
    .onConflict((oc) => oc.columns(['run', 'external_ref']).doNothing())
    .returning('external_ref')
    .execute();
  return refs.length - added.length;
}

/** Forgets import run `run`'s refs. */
export async function dropImportRefs(db: Executor, run: string): Promise<void> {
  await db.deleteFrom('import_refs').where('run', '=', run).execute();
}

/**
 * `fields` with the listing's `search_text` (migration 0033): every write of a listing's columns
 * goes through this, so the text a console search reads is always the listing's own.
 */
export function withSearchText<T extends PropertyFields>(fields: T): T & { search_text: string | null } {
  return { ...fields, search_text: listingSearchText(fields) };
}

/** Rows per multi-row INSERT: ~40 columns each stays far below SQLite's and PostgreSQL's bind limits. */
const INSERT_CHUNK = 250;

/**
 * Inserts new properties with multi-row statements, ids assigned in the given order, and the
 * published documents that are already complete (`docs` null: set later with setApiDoc).
 * @returns id by external ref.
 */
export async function insertProperties(
  db: Executor,
  businessId: number,
  rows: Array<{ fields: PropertyFields & { change_seq: number }; docs: PublishedDocs | null }>,
  importedAt: string,
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const chunk = rows.slice(i, i + INSERT_CHUNK);
    const values = chunk.map(({ fields }) => ({ ...withSearchText(fields), business_id: businessId, imported_at: importedAt }));
    const inserted = await db.insertInto('properties').values(values).returning(['id', 'external_ref']).execute();
    for (const row of inserted) ids.set(row.external_ref, row.id);
    // Each new listing's public page (migration 0037, CONTRACT §21).
    await insertPageTokens(
      db,
      inserted.map((row) => row.id),
      importedAt,
    );
    const docs = chunk.filter((r) => r.docs !== null).map((r) => ({ property_id: ids.get(r.fields.external_ref)!, ...r.docs! }));
    if (docs.length) await db.insertInto('property_docs').values(docs).execute();
  }
  return ids;
}

/**
 * Writes a stored listing's columns. A sale or rental recorded by the console (`closed_price`,
 * `closed_on`, migration 0038) stays while the status does and is cleared when it changes: it
 * belongs to the status it was recorded with.
 */
export async function updateProperty(
  db: Executor,
  id: number,
  fields: PropertyFields & { change_seq: number },
  importedAt: string,
): Promise<void> {
  await db
    .updateTable('properties')
    .set({
      ...withSearchText(fields),
      imported_at: importedAt,
      // The right-hand sides read the row as it was (SQL's UPDATE), on both engines.
      closed_price: sql<number | null>`case when status = ${fields.status} then closed_price end`,
      closed_on: sql<string | null>`case when status = ${fields.status} then closed_on end`,
    })
    .where('id', '=', id)
    .execute();
}

/**
 * Records the price (€; the rent a month for a rental) and the day (`YYYY-MM-DD`, the
 * business's) of a listing's sale or rental (migration 0038), or clears them (null).
 */
export async function setClosing(db: Executor, id: number, closing: { price: number; on: string } | null): Promise<void> {
  await db
    .updateTable('properties')
    .set({ closed_price: closing?.price ?? null, closed_on: closing?.on ?? null })
    .where('id', '=', id)
    .execute();
}

/**
 * The photo each listing shows first: its primary one, else the first in order, by listing id
 * (listings without photos absent). Reads the images of at most a page of listings.
 */
export async function firstPhotoUrls(db: Executor, ids: readonly number[]): Promise<Map<number, string>> {
  const urls = new Map<number, string>();
  if (ids.length === 0) return urls;
  const rows = await db
    .selectFrom('property_images')
    .select(['property_id', 'url'])
    .where('property_id', 'in', ids)
    .orderBy('property_id')
    .orderBy('is_primary', 'desc')
    .orderBy('sort_order')
    .orderBy('id')
    .execute();
  for (const row of rows) if (!urls.has(row.property_id)) urls.set(row.property_id, row.url);
  return urls;
}

/** Stores (or replaces) a property's published documents. */
export async function setApiDoc(db: Executor, id: number, docs: PublishedDocs): Promise<void> {
  await db
    .insertInto('property_docs')
    .values({ property_id: id, ...docs })
    .onConflict((oc) => oc.column('property_id').doUpdateSet(docs))
    .execute();
}

export async function loadImages(db: Executor, propertyId: number): Promise<StoredImage[]> {
  return db
    .selectFrom('property_images')
    .select(['id', 'url', 'sort_order', 'is_primary', 'title', 'public'])
    .where('property_id', '=', propertyId)
    .orderBy('id')
    .execute();
}

export async function loadVideos(db: Executor, propertyId: number): Promise<StoredVideo[]> {
  return db
    .selectFrom('property_videos')
    .select(['id', 'title', 'sort_order', 'url', 'hls_url', 'thumbnail_url', 'embed_url', 'processed'])
    .where('property_id', '=', propertyId)
    .orderBy('id')
    .execute();
}

/** Multi-row insert of media of many properties. @returns the stored rows with ids, by property id. */
export async function insertMediaOf(
  db: Executor,
  items: Array<{ propertyId: number; images: ImageInput[]; videos: VideoInput[] }>,
): Promise<Map<number, { images: StoredImage[]; videos: StoredVideo[] }>> {
  const byProperty = new Map<number, { images: StoredImage[]; videos: StoredVideo[] }>();
  for (const item of items) byProperty.set(item.propertyId, { images: [], videos: [] });
  const images = items.flatMap((item) => item.images.map((image) => ({ ...image, property_id: item.propertyId })));
  const videos = items.flatMap((item) => item.videos.map((video) => ({ ...video, property_id: item.propertyId })));
  for (let i = 0; i < images.length; i += 1000) {
    const rows = await db
      .insertInto('property_images')
      .values(images.slice(i, i + 1000))
      .returning(['id', 'property_id', 'url', 'sort_order', 'is_primary', 'title', 'public'])
      .execute();
    for (const { property_id, ...image } of rows) byProperty.get(property_id)!.images.push(image);
  }
  for (let i = 0; i < videos.length; i += 500) {
    const rows = await db
      .insertInto('property_videos')
      .values(videos.slice(i, i + 500))
      .returning(['id', 'property_id', 'title', 'sort_order', 'url', 'hls_url', 'thumbnail_url', 'embed_url', 'processed'])
      .execute();
    for (const { property_id, ...video } of rows) byProperty.get(property_id)!.videos.push(video);
  }
  return byProperty;
}

/** Multi-row insert of published documents of new properties. */
export async function insertApiDocs(db: Executor, docs: Array<{ property_id: number } & PublishedDocs>): Promise<void> {
  for (let i = 0; i < docs.length; i += 1000)
    await db
      .insertInto('property_docs')
      .values(docs.slice(i, i + 1000))
      .execute();
}

export async function insertImages(db: Executor, propertyId: number, images: ImageInput[]): Promise<StoredImage[]> {
  if (images.length === 0) return [];
  return db
    .insertInto('property_images')
    .values(images.map((i) => ({ ...i, property_id: propertyId })))
    .returning(['id', 'url', 'sort_order', 'is_primary', 'title', 'public'])
    .execute();
}

export async function insertVideos(db: Executor, propertyId: number, videos: VideoInput[]): Promise<StoredVideo[]> {
  if (videos.length === 0) return [];
  return db
    .insertInto('property_videos')
    .values(videos.map((v) => ({ ...v, property_id: propertyId })))
    .returning(['id', 'title', 'sort_order', 'url', 'hls_url', 'thumbnail_url', 'embed_url', 'processed'])
    .execute();
}

/** Sets the columns of stored image `id` (its URL stays). */
export async function updateImage(db: Executor, id: number, image: Omit<ImageInput, 'url'>): Promise<void> {
  await db.updateTable('property_images').set(image).where('id', '=', id).execute();
}

/** Deletes these images of a property. */
export async function deleteImagesById(db: Executor, propertyId: number, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('property_images').where('property_id', '=', propertyId).where('id', 'in', ids).execute();
}

export async function deleteImages(db: Executor, propertyId: number): Promise<void> {
  await db.deleteFrom('property_images').where('property_id', '=', propertyId).execute();
}

export async function deleteVideos(db: Executor, propertyId: number): Promise<void> {
  await db.deleteFrom('property_videos').where('property_id', '=', propertyId).execute();
}

function listedOf(db: Executor, businessId: number, q: PropertyQuery, plan: ScanPlan = 'planner') {
  let query = db
    .selectFrom('properties')
    .where('business_id', '=', businessId)
    .where(sql<SqlBool>`listed = 1`);
  for (const condition of filterConditions(q, plan)) query = query.where(condition);
  return query;
}

/**
 * One page of the published catalogue: ids and published documents, in the query's order.
 * The page's ids are found first, from the listing indexes alone, and only those rows'
 * documents are read (a late join): PostgreSQL otherwise joined the documents of every match
 * before its top-N sort, 2,185 of them for a 20-row page of the 2 km circle (100 ms).
 * @param plan `order-index` walks the index of the requested order and stops after the page
 *   (right when many rows match); `planner` lets the engine pick a filter's index (few rows).
 */
export async function listPublished(
  db: Db,
  businessId: number,
  q: PropertyQuery,
  plan: ScanPlan,
): Promise<Array<{ id: number; api_doc: string; lang_texts: string | null }>> {
  const price = sql.ref(priceColumnFor(q.operation));
  const run = (executor: Executor) => {
    const page = listedOf(executor, businessId, q, plan)
      .select(['id', 'updated_at', sql<number>`(${price} is null)`.as('price_missing'), sql<number | null>`${price}`.as('sort_price')])
      .orderBy(orderBy(q))
      .limit(q.limit)
      .offset(q.offset)
      .as('page');
    return executor
      .selectFrom(page)
      .innerJoin('property_docs', 'property_docs.property_id', 'page.id')
      .select(['page.id', 'property_docs.api_doc', 'property_docs.lang_texts'])
      .orderBy(pageOrder(q))
      .execute();
  };
  if (plan === 'order-index' && db.engine === 'postgres') {
    // PostgreSQL cannot tell how many rows a map area keeps and assumes almost none, so it
    // sorts every match rather than walk the order's index and stop at the page (100 times
    // slower on the 2 km circle), or splits the walk over parallel workers that take longer
    // to start than the walk itself. For this one statement: no sort, no workers.
    return db.transaction().execute(async (trx) => {
      // Both settings in one round trip, for this transaction only (`set_config(…, true)` is `set local`).
      await sql`select set_config('enable_sort', 'off', true), set_config('max_parallel_workers_per_gather', '0', true)`.execute(trx);
      return run(trx);
    });
  }
  return run(db);
}

/**
 * The published properties that match every filter but the map areas, and lie in the bounding
 * box of one of them: ids and published positions, in the query's order. The caller keeps
 * those inside an area (services/catalogue/published.ts), rather than SQL testing each row against
 * every edge of every polygon.
 */
export async function listAreaCandidates(
  db: Executor,
  businessId: number,
  q: PropertyQuery,
): Promise<Array<{ id: number; pub_lat: number | null; pub_lon: number | null }>> {
  return listedOf(db, businessId, { ...q, areas: [] })
    .where(boxesCondition(q.areas))
    .select(['id', 'pub_lat', 'pub_lon'])
    .orderBy(orderBy(q))
    .execute();
}

/** The published documents of `ids`, by id (ids not published are absent). */
export async function publishedDocsById(
  db: Executor,
  businessId: number,
  ids: readonly number[],
): Promise<Map<number, { api_doc: string; lang_texts: string | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await publishedDocs(db, businessId).where('properties.id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, { api_doc: r.api_doc, lang_texts: r.lang_texts }]));
}

/** How many published properties match the filters, ignoring paging. */
export async function countPublished(db: Executor, businessId: number, q: PropertyQuery): Promise<number> {
  const row = await listedOf(db, businessId, q)
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The business's published listings joined to their stored docs: `{id, api_doc, lang_texts}` rows. */
function publishedDocs(db: Executor, businessId: number) {
  return db
    .selectFrom('properties')
    .innerJoin('property_docs', 'property_docs.property_id', 'properties.id')
    .select(['properties.id', 'property_docs.api_doc', 'property_docs.lang_texts'])
    .where('business_id', '=', businessId)
    .where(sql<SqlBool>`listed = 1`);
}

/**
 * Published listings of the business with their stored docs, published texts per language and
 * references, by id, after `afterId`: a page of what a portal feed holds.
 */
export async function listPublishedDocsAfter(
  db: Executor,
  businessId: number,
  afterId: number,
  limit: number,
): Promise<Array<{ id: number; api_doc: string; external_ref: string; lang_texts: string | null }>> {
  return publishedDocs(db, businessId)
    .select('properties.external_ref')
    .where('properties.id', '>', afterId)
    .orderBy('properties.id')
    .limit(limit)
    .execute();
}

/** One published property's stored docs, or undefined when it does not exist for the API. */
export async function findPublished(
  db: Executor,
  businessId: number,
  id: number,
): Promise<{ id: number; api_doc: string; lang_texts: string | null } | undefined> {
  return publishedDocs(db, businessId).where('properties.id', '=', id).executeTakeFirst();
}

/**
 * The stored docs of those of `ids` that are published, in catalogue order (`updated_at`
 * desc, then `id` desc): what matching ranks first. Ids not published are left out.
 */
export async function listPublishedDocs(
  db: Executor,
  businessId: number,
  ids: readonly number[],
): Promise<Array<{ id: number; api_doc: string; lang_texts: string | null }>> {
  if (ids.length === 0) return [];
  return publishedDocs(db, businessId)
    .where('properties.id', 'in', ids)
    .orderBy('properties.updated_at', 'desc')
    .orderBy('properties.id', 'desc')
    .execute();
}

/**
 * A page of the changes feed: the business's listings written after `(seq, id)`, in
 * (change_seq, id) order, with their published document when they are public now.
 */
export async function listChanges(db: Executor, businessId: number, after: { seq: number; id: number }, limit: number) {
  return db
    .selectFrom('properties')
    .leftJoin('property_docs', 'property_docs.property_id', 'properties.id')
    .select(['properties.id', 'properties.change_seq', 'properties.listed', 'properties.imported_at', 'property_docs.api_doc'])
    .where('business_id', '=', businessId)
    .where(sql<SqlBool>`(change_seq, properties.id) > (${after.seq}, ${after.id})`)
    .orderBy('change_seq')
    .orderBy('properties.id')
    .limit(limit)
    .execute();
}

/** Whether each listing is public now, and its published documents: id → `{listed, api_doc, lang_texts}`. */
export async function listPublication(
  db: Executor,
  ids: readonly number[],
): Promise<Map<number, { listed: number; api_doc: string | null; lang_texts: string | null }>> {
  const found = new Map<number, { listed: number; api_doc: string | null; lang_texts: string | null }>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db
      .selectFrom('properties')
      .leftJoin('property_docs', 'property_docs.property_id', 'properties.id')
      .select(['properties.id', 'properties.listed', 'property_docs.api_doc', 'property_docs.lang_texts'])
      .where('properties.id', 'in', ids.slice(i, i + 1000))
      .execute();
    for (const { id, ...rest } of rows) found.set(id, rest);
  }
  return found;
}

/** The business's listings not yet withdrawn-and-unlisted: `{id, external_ref}`. */
export async function listWithdrawable(db: Executor, businessId: number): Promise<Array<{ id: number; external_ref: string }>> {
  return db
    .selectFrom('properties')
    .select(['id', 'external_ref'])
    .where('business_id', '=', businessId)
    .where((eb) => eb.or([eb('status', '!=', 'retirada'), eb('listed', '=', 1)]))
    .execute();
}

/** Marks listings withdrawn (`retirada`, out of the public catalogue) as written by catalogue version `version`. */
export async function withdrawProperties(db: Executor, ids: readonly number[], version: number, at: string): Promise<void> {
  for (let i = 0; i < ids.length; i += INSERT_CHUNK * 10) {
    await db
      .updateTable('properties')
      .set({ status: 'retirada', listed: 0, change_seq: version, imported_at: at, updated_at: at, closed_price: null, closed_on: null })
      .where('id', 'in', ids.slice(i, i + INSERT_CHUNK * 10))
      .execute();
  }
}

/** What a listing's card or row shows of it: reference, title, operations, prices (€), city, size (m²), bedrooms. */
export const SUMMARY_COLUMNS = [
  'id',
  'external_ref',
  'title',
  'titles',
  'op_venta',
  'op_alquiler',
  'op_traspaso',
  'price',
  'price_rent',
  'price_transfer',
  'city',
  'size_total',
  'bedrooms',
] as const;

/** What the console's listings page narrows by (CONTRACT §14). */
export interface ListingSearch {
  /**
   * Words each found in the reference, title (in any language held), address, approximate
   * address, city or postal code, in any order, without regard to case or accents (CONTRACT §23,
   * §25); `%` and `_` are themselves. Its first 200 characters are read, without U+0000, and
   * their first 8 words (domain/search-text.ts `searchWords`).
   */
  text?: string;
  status?: string;
  operation?: 'venta' | 'alquiler' | 'traspaso';
  type?: string;
  /** The order of the page; newest written first (`date`, `desc`) when not given. */
  sort?: ListingSort;
}

/** What the console's listings can be sorted by: the last write (`imported_at`), the price, the reference. */
export const LISTING_SORT_KEYS = ['date', 'price', 'ref'] as const;
export type ListingSortKey = (typeof LISTING_SORT_KEYS)[number];

/**
 * An order of the console's listings (CONTRACT §23). `price` is the operation's price when the
 * search names one (the rent a month for `alquiler`), else the first price stated (`price_any`);
 * listings without one come last either way. `ref` compares the references' characters (code
 * points on both engines). Ties go by id, in the same direction.
 */
export interface ListingSort {
  key: ListingSortKey;
  dir: 'asc' | 'desc';
}

/**
 * Typed text a trigram index can find: 3 characters at least (SQLite's FTS5 `trigram` tokenizer
 * matches nothing shorter). Shorter text is looked for in `search_text` row by row.
 */
const TRIGRAM = 3;

/**
 * Most listings (of every business) SQLite's trigram index may name for a search to go through
 * it: past this, reading each row it names costs more than reading the business's rows in order
 * (at 203,090 listings, "madrid" naming 191,930 took 1.1 s through the index, 0.6 s row by row;
 * "vallecas" naming 13,830, 0.12 s against 0.38 s: docs/performance.md, issue 47).
 */
const INDEX_MATCHES_MAX = 20_000;

/** `search_text LIKE '%word%'` for each word, joined by AND: matched row by row (or through PostgreSQL's pg_trgm index). */
function eachWordLike(words: readonly string[]): Expression<SqlBool> {
  return sql<SqlBool>`(${sql.join(
    words.map((word) => sql`search_text like ${`%${likeLiteral(word)}%`} escape '\\'`),
    sql` and `,
  )})`;
}

/**
 * The condition that a listing's `search_text` holds every one of `words` (domain/search-text.ts
 * `searchWords`: folded as it was when written), anywhere, in any order (issue 57). On SQLite,
 * the words of 3 characters or more are asked of the trigram index `properties_fts` (migration
 * 0033) as FTS5 phrases joined by AND, each of which matches where it is a substring (quotes
 * doubled; nothing else is special inside one), unless the index names more than
 * {@link INDEX_MATCHES_MAX} rows (counted up to there: a few ms); the shorter words are then
 * matched by `LIKE` in the rows it names. Otherwise, and on PostgreSQL, one
 * `search_text LIKE '%…%'` per word, AND-ed, which PostgreSQL answers from its pg_trgm GIN index
 * (one scan of it for all the words) when its planner finds it cheaper.
 */
async function searchTextHolds(db: Db, words: readonly string[]): Promise<Expression<SqlBool>> {
  const indexed = words.filter((word) => [...word].length >= TRIGRAM);
  if (db.engine === 'sqlite' && indexed.length > 0) {
    const query = indexed.map((word) => `"${word.replace(/"/g, '""')}"`).join(' AND ');
    const { rows } = await sql<{ n: number }>`select count(*) as n from (select 1 from properties_fts
      where properties_fts match ${query} limit ${INDEX_MATCHES_MAX + 1})`.execute(db);
    if (rows[0].n <= INDEX_MATCHES_MAX) {
      const named = sql<SqlBool>`properties.id in (select rowid from properties_fts where properties_fts match ${query})`;
      const short = words.filter((word) => [...word].length < TRIGRAM);
      return short.length === 0 ? named : sql<SqlBool>`(${named} and ${eachWordLike(short)})`;
    }
  }
  return eachWordLike(words);
}

/** The business's listings narrowed by `search` (its text already a condition, or null), any status, public or not. */
function listingsOf(db: Db, businessId: number, search: ListingSearch, text: Expression<SqlBool> | null) {
  let query = db.selectFrom('properties').where('business_id', '=', businessId);
  if (search.status) query = query.where('status', '=', search.status);
  if (search.type) query = query.where('type', '=', search.type);
  if (search.operation === 'venta') query = query.where('op_venta', '=', 1);
  if (search.operation === 'alquiler') query = query.where('op_alquiler', '=', 1);
  if (search.operation === 'traspaso') query = query.where('op_traspaso', '=', 1);
  if (text !== null) query = query.where(text);
  return query;
}

/** The statements of {@link searchListings}: the count and the page. */
async function statementsOf(db: Db, businessId: number, search: ListingSearch, limit: number, offset: number) {
  const words = searchWords(search.text ?? '');
  const text = words.length > 0 ? await searchTextHolds(db, words) : null;
  return {
    count: listingsOf(db, businessId, search, text).select(sql<number>`count(*)`.as('n')),
    page: listingsOf(db, businessId, search, text)
      .select([
        ...SUMMARY_COLUMNS,
        'status',
        'public',
        'is_featured',
        'listed',
        'operation',
        'type',
        'subtype',
        'imported_at',
        'closed_price',
        'closed_on',
      ])
      .$call((q) => ordered(db, q, search))
      .limit(limit)
      .offset(offset),
  };
}

/** The price column a sort by price reads for a search (see {@link ListingSort}). */
const SORT_PRICE = { venta: 'price', alquiler: 'price_rent', traspaso: 'price_transfer' } as const;

/** `query` in the order of `search.sort` (see {@link ListingSort}). */
function ordered<Q extends SelectQueryBuilder<Database, 'properties', object>>(db: Db, query: Q, search: ListingSearch): Q {
  const { key, dir } = search.sort ?? { key: 'date', dir: 'desc' };
  switch (key) {
    case 'price': {
      const column = search.operation ? SORT_PRICE[search.operation] : 'price_any';
      return query
        .orderBy(sql`${sql.ref(column)} is null`)
        .orderBy(column, dir)
        .orderBy('id', dir) as Q;
    }
    case 'ref':
      // PostgreSQL's default collation would order by its locale's rules; "C" orders as SQLite does.
      return query.orderBy(db.engine === 'postgres' ? sql`external_ref collate "C"` : sql`external_ref`, dir).orderBy('id', dir) as Q;
    default:
      return query.orderBy('imported_at', dir).orderBy('id', dir) as Q;
  }
}

/**
 * A page of the business's listings narrowed by `search`, in its order (most recently written
 * first by default: `imported_at` desc, then `id` desc), and how many match in all.
 * @returns `{rows, total}`; prices in €, sizes in m².
 */
export async function searchListings(db: Db, businessId: number, search: ListingSearch, limit: number, offset: number) {
  const { count, page } = await statementsOf(db, businessId, search, limit, offset);
  const { n } = await count.executeTakeFirstOrThrow();
  const rows = offset < Number(n) ? await page.execute() : [];
  return { rows, total: Number(n) };
}

/**
 * The statements {@link searchListings} runs, compiled (SQL text and parameters), to be shown
 * the engine's plan of (bench/listing-search.ts).
 */
export async function compiledListingSearch(db: Db, businessId: number, search: ListingSearch, limit: number, offset: number) {
  const { count, page } = await statementsOf(db, businessId, search, limit, offset);
  return { count: count.compile(), page: page.compile() };
}

/** How many of the business's listings have each status: status → count (statuses with none absent). */
export async function countListingsByStatus(db: Executor, businessId: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('properties')
    .select(['status', sql<number>`count(*)`.as('n')])
    .where('business_id', '=', businessId)
    .groupBy('status')
    .execute();
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

/**
 * A listing of the business with every column (but `search_text`, the search's copy of some of
 * them) and its published document, or undefined (another business's too).
 */
export async function findListing(db: Executor, businessId: number, id: number) {
  const row = await db
    .selectFrom('properties')
    .leftJoin('property_docs', 'property_docs.property_id', 'properties.id')
    .selectAll('properties')
    .select('property_docs.api_doc')
    .where('properties.business_id', '=', businessId)
    .where('properties.id', '=', id)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const { search_text: _searchText, ...listing } = row;
  return listing;
}

/** Gives a listing created without a reference its own, `inmo-<id>` (CONTRACT §14), and its search text with it. */
export async function setExternalRef(db: Executor, id: number, ref: string): Promise<void> {
  const listing = await db
    .selectFrom('properties')
    .select(['title', 'titles', 'address', 'address_approximate', 'city', 'postal_code'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  await db
    .updateTable('properties')
    .set({ external_ref: ref, search_text: listingSearchText({ ...listing, external_ref: ref }) })
    .where('id', '=', id)
    .execute();
}
