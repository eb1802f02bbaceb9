/**
 * The pages of alert digests sent by WhatsApp (CONTRACT §21, migration 0043): a digest by its
 * page token's hash, and its listings as the page shows them. SQL only.
 */
import type { Executor } from '../database.ts';
import { DIGEST_ITEM_COLUMNS } from './alerts.ts';

/** Sets the hash of a digest's page token (a claim again replaces it: the old link stops working). */
export async function setDigestPageToken(db: Executor, digestId: number, tokenHash: string): Promise<void> {
  await db.updateTable('alert_digests').set({ page_token_hash: tokenHash }).where('id', '=', digestId).execute();
}

/** The digest of a page token's hash, with its business's name and its lead's `preferred_language`. */
export async function findDigestByPageToken(db: Executor, tokenHash: string) {
  return db
    .selectFrom('alert_digests as d')
    .innerJoin('businesses as b', 'b.id', 'd.business_id')
    .innerJoin('leads as l', 'l.id', 'd.lead_id')
    .select(['d.id', 'd.business_id', 'd.lead_id', 'd.message_id', 'b.name as business_name', 'l.preferred_language'])
    .where('d.page_token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/**
 * A digest's listings in its order, as they are now: title, facts, whether still in the public
 * catalogue (`listed` 1), the prices, the price the item was sent at (`price`, from
 * `price_field`), and whether the lead dismissed it since. Listings deleted since are left out.
 */
export async function listDigestPageItems(db: Executor, digestId: number) {
  return db
    .selectFrom('alert_items as i')
    .innerJoin('properties as p', 'p.id', 'i.property_id')
    .leftJoin('lead_dismissals as x', (join) => join.onRef('x.lead_id', '=', 'i.lead_id').onRef('x.property_id', '=', 'i.property_id'))
    .select([...DIGEST_ITEM_COLUMNS, 'p.listed', 'x.created_at as dismissed_at'])
    .where('i.digest_id', '=', digestId)
    .orderBy('i.id')
    .execute();
}
