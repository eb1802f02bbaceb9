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

/** A feed source's row. */
export type FeedSourceRow = Awaited<ReturnType<typeof findFeedSource>> & object;

export async function insertFeedSource(
  db: Executor,
  row: { business_id: number; url: string; format: string | null; every_minutes: number; created_at: string },
): Promise<number> {
  return insertReturningId(db, 'feed_sources', row);
}

/** A source by id, of `businessId` only unless it is null. */
export async function findFeedSource(db: Executor, id: number, businessId: number | null = null) {
  let query = db.selectFrom('feed_sources').selectAll().where('id', '=', id);
  if (businessId !== null) query = query.where('business_id', '=', businessId);
  return query.executeTakeFirst();
}

/** The business's sources that are not removed, oldest first. */
export async function listFeedSources(db: Executor, businessId: number) {
  return db
    .selectFrom('feed_sources')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('removed_at', 'is', null)
    .orderBy('id')
    .execute();
}

export async function updateFeedSource(
  db: Executor,
  id: number,
  values: Partial<{
    etag: string | null;
    last_modified: string | null;
    removed_at: string;
    last_pull_at: string;
    last_status: string;
    last_result: string | null;
    last_error: string | null;
  }>,
): Promise<void> {
  await db.updateTable('feed_sources').set(values).where('id', '=', id).execute();
}

/** The external refs a source's documents named. */
export async function listSourceRefs(db: Executor, sourceId: number): Promise<Set<string>> {
  const rows = await db.selectFrom('feed_source_refs').select('external_ref').where('source_id', '=', sourceId).execute();
  return new Set(rows.map((r) => r.external_ref));
}

/** Replaces the refs a source names. */
export async function replaceSourceRefs(db: Executor, sourceId: number, refs: Iterable<string>): Promise<void> {
  await db.deleteFrom('feed_source_refs').where('source_id', '=', sourceId).execute();
  const rows = [...refs].map((external_ref) => ({ source_id: sourceId, external_ref }));
  for (let i = 0; i < rows.length; i += 1000)
    await db
      .insertInto('feed_source_refs')
      .values(rows.slice(i, i + 1000))
      .execute();
}
