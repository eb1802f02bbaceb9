/** Published portal feeds: SQL only (see services/feeds.ts). */
import type { Executor } from '../database.ts';
import { insertReturningId } from '../compiled-once.ts';

export async function insertPublishedFeed(
  db: Executor,
  row: { business_id: number; format: string; token_hash: string; created_at: string },
): Promise<number> {
  return insertReturningId(db, 'published_feeds', { ...row, revoked_at: null });
}

/** The feeds of a business, newest first (revoked ones too). */
export async function listPublishedFeeds(db: Executor, businessId: number) {
  return db
    .selectFrom('published_feeds')
    .select(['id', 'business_id', 'format', 'created_at', 'revoked_at'])
    .where('business_id', '=', businessId)
    .orderBy('id', 'desc')
    .execute();
}

/** The feed a token's hash names, while it is not revoked. */
export async function findLiveFeed(db: Executor, tokenHash: string) {
  return db
    .selectFrom('published_feeds')
    .select(['id', 'business_id', 'format'])
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Revokes a feed once, of `businessId` only unless it is null. @returns whether such a feed exists. */
export async function revokePublishedFeed(db: Executor, id: number, businessId: number | null, at: string): Promise<boolean> {
  let find = db.selectFrom('published_feeds').select('id').where('id', '=', id);
  if (businessId !== null) find = find.where('business_id', '=', businessId);
  if (!(await find.executeTakeFirst())) return false;
  await db.updateTable('published_feeds').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  return true;
}
