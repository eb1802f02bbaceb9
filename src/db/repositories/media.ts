/** Stored media and who owns them (migration 0021, CONTRACT §14). SQL only; the rules are in services/catalogue/photos.ts. */
import { sql } from 'kysely';
import type { Executor } from '../database.ts';
import { likeLiteral } from '../like.ts';
import type { MediaObjectTable } from '../types.ts';

/** Records objects just stored for a listing of a business. */
export async function recordMediaObjects(db: Executor, rows: MediaObjectTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('media_objects')
      .values(rows.slice(i, i + 500))
      .execute();
}

/**
 * The keys of the objects stored for listing `propertyId` of business `businessId` under exactly
 * `url` (every width of that photo); none for a URL the console never stored for that listing.
 */
export async function ownedMediaKeys(db: Executor, businessId: number, propertyId: number, url: string): Promise<string[]> {
  const rows = await db
    .selectFrom('media_objects')
    .select('key')
    .where('property_id', '=', propertyId)
    .where('url', '=', url)
    .where('business_id', '=', businessId)
    .orderBy('key')
    .execute();
  return rows.map((r) => r.key);
}

/** Forgets objects (about to be deleted from the store). */
export async function forgetMediaObjects(db: Executor, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 500)
    await db
      .deleteFrom('media_objects')
      .where('key', 'in', keys.slice(i, i + 500))
      .execute();
}

/**
 * Photos whose link names a stored object (`…/p/…`) on another base than `base` (the media base
 * moved, services/catalogue/media-base.ts): `{id, property_id, url, business_id}` rows.
 * @param base the current media base without its trailing `/`.
 */
export async function listPhotosOffBase(db: Executor, base: string) {
  return db
    .selectFrom('property_images as i')
    .innerJoin('properties as p', 'p.id', 'i.property_id')
    .select(['i.id', 'i.property_id', 'i.url', 'p.business_id'])
    .where('i.url', 'like', '%/p/%')
    .where(sql<boolean>`i.url not like ${`${likeLiteral(base)}/%`} escape '\\'`)
    .execute();
}

/**
 * Moves links of a business's listings `ids` onto new URLs in one catalogue version: each photo
 * row (`photos`: image id → URL), the stored objects' `url` (`objects`: old URL → new), the
 * listings' `updated_at`, the public ones' `change_seq` (the changes feed shows them again), and
 * the published documents through `rewriteDoc` (the stored JSON text in, the new text out).
 * @returns the ids of the listings that are public, whose documents changed.
 */
export async function moveListingPhotoLinks(
  trx: Executor,
  move: {
    businessId: number;
    ids: readonly number[];
    photos: ReadonlyMap<number, string>;
    objects: ReadonlyMap<string, string>;
    version: number;
    now: string;
    rewriteDoc: (apiDoc: string) => string;
  },
): Promise<number[]> {
  for (const [id, url] of move.photos) await trx.updateTable('property_images').set({ url }).where('id', '=', id).execute();
  for (const [from, url] of move.objects) {
    await trx.updateTable('media_objects').set({ url }).where('url', '=', from).where('business_id', '=', move.businessId).execute();
  }
  await trx.updateTable('properties').set({ updated_at: move.now }).where('id', 'in', move.ids).execute();
  await trx.updateTable('properties').set({ change_seq: move.version }).where('id', 'in', move.ids).where('listed', '=', 1).execute();
  const docs = await trx
    .selectFrom('property_docs as d')
    .innerJoin('properties as p', 'p.id', 'd.property_id')
    .select(['d.property_id', 'd.api_doc', 'p.listed'])
    .where('d.property_id', 'in', move.ids)
    .execute();
  const listed: number[] = [];
  for (const row of docs) {
    await trx
      .updateTable('property_docs')
      .set({ api_doc: move.rewriteDoc(row.api_doc) })
      .where('property_id', '=', row.property_id)
      .execute();
    if (row.listed === 1) listed.push(row.property_id);
  }
  return listed;
}
