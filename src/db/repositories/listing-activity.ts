/**
 * What an owner's report reads about a listing's activity, and what records it (migration 0063,
 * CONTRACT §24): views counted per UTC hour, requests about a listing that reached a lead, and
 * price changes (written by the database's trigger). SQL only.
 */
import { sql } from 'kysely';
import type { Executor } from '../database.ts';

/** Rows per statement: four parameters each stays far below both engines' bind limits. */
const BATCH = 500;

/** One counter of views: a listing, where it was seen, the UTC hour (`YYYY-MM-DDTHH`) and how many times. */
export interface ViewCount {
  property_id: number;
  source: 'page' | 'kit';
  hour: string;
  views: number;
}

/**
 * Adds counted views to the stored ones (a row per listing, source and hour; an existing row's
 * count is raised). Views of listings deleted since are dropped.
 */
export async function addListingViews(db: Executor, counts: readonly ViewCount[]): Promise<void> {
  if (counts.length === 0) return;
  const ids = [...new Set(counts.map((c) => c.property_id))];
  const existing = new Set<number>();
  for (let i = 0; i < ids.length; i += BATCH) {
    const rows = await db
      .selectFrom('properties')
      .select('id')
      .where('id', 'in', ids.slice(i, i + BATCH))
      .execute();
    for (const row of rows) existing.add(row.id);
  }
  const kept = counts.filter((c) => existing.has(c.property_id));
  for (let i = 0; i < kept.length; i += BATCH) {
    await db
      .insertInto('listing_views')
      .values(kept.slice(i, i + BATCH))
      .onConflict((oc) =>
        oc.columns(['property_id', 'source', 'hour']).doUpdateSet({ views: sql<number>`listing_views.views + excluded.views` }),
      )
      .execute();
  }
}

/** Records that a request about listing `propertyId` reached lead `leadId` (a new lead or a known one). */
export async function insertListingInquiry(
  db: Executor,
  row: { business_id: number; property_id: number; lead_id: number; source: string | null; created_at: string },
): Promise<void> {
  await db.insertInto('listing_inquiries').values(row).execute();
}
