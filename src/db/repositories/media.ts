/** Stored media and who owns them (migration 0021, CONTRACT §14). SQL only; the rules are in services/catalogue/photos.ts. */
import type { Executor } from '../database.ts';
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
