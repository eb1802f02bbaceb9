/** Published portal feeds: SQL only (see services/catalogue/feeds/published-feeds.ts). */
import { sql } from 'kysely';
import type { Executor } from '../database.ts';
import { insertReturningId } from '../compiled-once.ts';

export async function insertPublishedFeed(
  db: Executor,
  row: { business_id: number; format: string; token_hash: string; created_at: string; customer_code: string | null },
): Promise<number> {
  return insertReturningId(db, 'published_feeds', { ...row, revoked_at: null });
}

/** The feeds of a business, newest first (revoked ones too). */
export async function listPublishedFeeds(db: Executor, businessId: number) {
  return db
    .selectFrom('published_feeds')
    .select(['id', 'business_id', 'format', 'customer_code', 'created_at', 'revoked_at'])
    .where('business_id', '=', businessId)
    .orderBy('id', 'desc')
    .execute();
}

/** The feed a token's hash names, while it is not revoked. */
export async function findLiveFeed(db: Executor, tokenHash: string) {
  return db
    .selectFrom('published_feeds')
    .select(['id', 'business_id', 'format', 'customer_code'])
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
    held_run: string | null;
    held_at: string | null;
    held_withdrawals: number | null;
    held_of: number | null;
  }>,
): Promise<void> {
  await db.updateTable('feed_sources').set(values).where('id', '=', id).execute();
}

/**
 * Ids of the business's listings still to withdraw (not `retirada` or still listed) that source
 * `sourceId`'s documents named before and import run `run` did not name.
 */
export async function listUnnamedSourceListings(db: Executor, businessId: number, sourceId: number, run: string): Promise<number[]> {
  const rows = await db
    .selectFrom('properties')
    .innerJoin('feed_source_refs', (join) =>
      join.onRef('feed_source_refs.external_ref', '=', 'properties.external_ref').on('feed_source_refs.source_id', '=', sourceId),
    )
    .select('properties.id')
    .where('properties.business_id', '=', businessId)
    .where((eb) => eb.or([eb('properties.status', '!=', 'retirada'), eb('properties.listed', '=', 1)]))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('import_refs')
            .select('import_refs.run')
            .where('import_refs.run', '=', run)
            .whereRef('import_refs.external_ref', '=', 'properties.external_ref'),
        ),
      ),
    )
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Makes the refs import run `run` accepted the refs source `sourceId` names; with `keepPrevious`,
 * beside the ones it named before (a document with rejected properties withdraws nothing).
 */
export async function replaceSourceRefs(db: Executor, sourceId: number, run: string, keepPrevious: boolean): Promise<void> {
  if (!keepPrevious) await db.deleteFrom('feed_source_refs').where('source_id', '=', sourceId).execute();
  await db
    .insertInto('feed_source_refs')
    .columns(['source_id', 'external_ref'])
    .expression((eb) =>
      eb
        .selectFrom('import_refs')
        .select([sql.lit(sourceId).as('source_id'), 'import_refs.external_ref'])
        .where('import_refs.run', '=', run),
    )
    .onConflict((oc) => oc.columns(['source_id', 'external_ref']).doNothing())
    .execute();
}

/** How many of the business's listings source `sourceId`'s documents named are still to withdraw (not `retirada` or still listed). */
export async function countSourceListings(db: Executor, businessId: number, sourceId: number): Promise<number> {
  const row = await db
    .selectFrom('properties')
    .innerJoin('feed_source_refs', (join) =>
      join.onRef('feed_source_refs.external_ref', '=', 'properties.external_ref').on('feed_source_refs.source_id', '=', sourceId),
    )
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('properties.business_id', '=', businessId)
    .where((eb) => eb.or([eb('properties.status', '!=', 'retirada'), eb('properties.listed', '=', 1)]))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Clears source `sourceId`'s hold if it is still run `run`'s. @returns whether it was. */
export async function takeHold(db: Executor, sourceId: number, run: string): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('feed_sources')
    .set({ held_run: null, held_at: null, held_withdrawals: null, held_of: null })
    .where('id', '=', sourceId)
    .where('held_run', '=', run)
    .executeTakeFirst();
  return numUpdatedRows > 0n;
}
