/** The property catalogue: SQL only (rules live in domain/ and services/). */
import { type Kysely, type Transaction, sql } from 'kysely';
import type { PropertyQuery } from '../../domain/property-query.ts';
import type { ImageInput, PropertyFields, VideoInput } from '../../domain/property-record.ts';
import type { StoredImage, StoredVideo } from '../../domain/property-doc.ts';
import type { Database } from '../types.ts';
import { filterConditions, orderBy } from './property-filters.ts';

type Executor = Kysely<Database> | Transaction<Database>;

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

/** Rows per multi-row INSERT: ~40 columns each stays far below SQLite's and PostgreSQL's bind limits. */
const INSERT_CHUNK = 250;

/**
 * Inserts new properties with multi-row statements, ids assigned in the given order.
 * @returns id by external ref.
 */
export async function insertProperties(
  db: Executor,
  businessId: number,
  rows: Array<{ fields: PropertyFields; apiDoc: string }>,
  importedAt: string,
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const values = rows
      .slice(i, i + INSERT_CHUNK)
      .map(({ fields, apiDoc }) => ({ ...fields, business_id: businessId, api_doc: apiDoc, imported_at: importedAt }));
    const inserted = await db.insertInto('properties').values(values).returning(['id', 'external_ref']).execute();
    for (const row of inserted) ids.set(row.external_ref, row.id);
  }
  return ids;
}

export async function updateProperty(db: Executor, id: number, fields: PropertyFields, importedAt: string): Promise<void> {
  await db
    .updateTable('properties')
    .set({ ...fields, imported_at: importedAt })
    .where('id', '=', id)
    .execute();
}

export async function setApiDoc(db: Executor, id: number, apiDoc: string): Promise<void> {
  await db.updateTable('properties').set({ api_doc: apiDoc }).where('id', '=', id).execute();
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

export async function deleteImages(db: Executor, propertyId: number): Promise<void> {
  await db.deleteFrom('property_images').where('property_id', '=', propertyId).execute();
}

export async function deleteVideos(db: Executor, propertyId: number): Promise<void> {
  await db.deleteFrom('property_videos').where('property_id', '=', propertyId).execute();
}

function listedOf(db: Executor, businessId: number, q: PropertyQuery) {
  let query = db.selectFrom('properties').where('business_id', '=', businessId).where('listed', '=', 1);
  for (const condition of filterConditions(q)) query = query.where(condition);
  return query;
}

/** One page of the published catalogue: ids and stored docs, in the query's order. */
export async function listPublished(db: Executor, businessId: number, q: PropertyQuery): Promise<Array<{ id: number; api_doc: string }>> {
  return listedOf(db, businessId, q).select(['id', 'api_doc']).orderBy(orderBy(q)).limit(q.limit).offset(q.offset).execute();
}

/** How many published properties match the filters, ignoring paging. */
export async function countPublished(db: Executor, businessId: number, q: PropertyQuery): Promise<number> {
  const row = await listedOf(db, businessId, q)
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One published property's stored doc, or undefined when it does not exist for the API. */
export async function findPublished(db: Executor, businessId: number, id: number): Promise<{ id: number; api_doc: string } | undefined> {
  return db
    .selectFrom('properties')
    .select(['id', 'api_doc'])
    .where('id', '=', id)
    .where('business_id', '=', businessId)
    .where('listed', '=', 1)
    .executeTakeFirst();
}
