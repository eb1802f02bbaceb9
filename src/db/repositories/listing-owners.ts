/**
 * Listings and their owners (migration 0059, CONTRACT §24): `properties.owner_lead_id`. SQL
 * only; the rules are in services/catalogue/listing-owners.ts.
 */
import type { Executor } from '../database.ts';

/**
 * Links the business's listing to `leadId` (null: unlinks it). The published document does not
 * change, so neither the catalogue version nor `updated_at` moves.
 * @returns false when the business has no such listing.
 */
export async function setOwnerLead(db: Executor, businessId: number, propertyId: number, leadId: number | null): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('properties')
    .set({ owner_lead_id: leadId })
    .where('id', '=', propertyId)
    .where('business_id', '=', businessId)
    .executeTakeFirst();
  return Number(numUpdatedRows) === 1;
}

/** The owner lead of the business's listing: `{id, name, phone_number_1}`, or undefined when it has none (or no such listing). */
export async function findOwnerLead(db: Executor, businessId: number, propertyId: number) {
  return db
    .selectFrom('properties as p')
    .innerJoin('leads as l', 'l.id', 'p.owner_lead_id')
    .select(['l.id', 'l.name', 'l.phone_number_1'])
    .where('p.id', '=', propertyId)
    .where('p.business_id', '=', businessId)
    .executeTakeFirst();
}

/** The ids of the business's listings whose owner is `leadId`, oldest first. */
export async function listOwnedListingIds(db: Executor, businessId: number, leadId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('properties')
    .select('id')
    .where('owner_lead_id', '=', leadId)
    .where('business_id', '=', businessId)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}
