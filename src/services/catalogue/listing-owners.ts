/**
 * A listing's owner (issue 58 item 1; CONTRACT §24): the `propietario` lead the agency holds the
 * listing for, one per listing, any number of listings per owner. Set on the listing's console
 * page; read back on the owner's lead page and in `GET /v1/ext/leads/{id}` (`listings`). Never
 * part of the published document, the feeds or the public pages: nothing there reads it.
 * Erasing the owner (CONTRACT §18) unlinks its listings (migration 0059).
 */
import type { Db } from '../../db/database.ts';
import { findLead } from '../../db/repositories/leads.ts';
import { findOwnerLead, listOwnedListingIds, setOwnerLead } from '../../db/repositories/listing-owners.ts';
import { transact } from '../../db/transaction.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { recordAudit, type AuditActor } from '../access/audit.ts';

/** The lead type an owner has (spec §4). */
export const OWNER_TYPE = 'propietario';

/**
 * Links the business's listing to its owner, or unlinks it (`leadId` null), and records who did
 * it in the audit trail (the listing's id as target; nothing of the owner).
 * @throws InmoError PROPERTY_NOT_FOUND (no such listing of the business), LEAD_NOT_FOUND (no
 *   such lead of the business), LISTING_OWNER_NOT_PROPIETARIO (the lead is not a `propietario`).
 */
export async function linkListingOwner(
  db: Db,
  link: { businessId: number; propertyId: number; leadId: number | null; actor: AuditActor },
  now = new Date(),
): Promise<void> {
  await transact(db, async (trx) => {
    if (link.leadId !== null) {
      const lead = await findLead(trx, link.leadId, link.businessId);
      if (!lead) throw new InmoError('LEAD_NOT_FOUND', { id: link.leadId });
      if (lead.type !== OWNER_TYPE) throw new InmoError('LISTING_OWNER_NOT_PROPIETARIO');
    }
    if (!(await setOwnerLead(trx, link.businessId, link.propertyId, link.leadId))) throw new InmoError('PROPERTY_NOT_FOUND');
    await recordAudit(trx, link.businessId, link.actor, 'property.owner', link.propertyId, toRfc3339(now));
  });
}

/** The owner of the business's listing, `{id, name, phone_number_1}`, or null. */
export async function listingOwner(db: Db, businessId: number, propertyId: number) {
  return (await findOwnerLead(db, businessId, propertyId)) ?? null;
}

/** The ids of the listings `leadId` owns among the business's, oldest first (empty for a lead that owns none). */
export async function ownedListingIds(db: Db, businessId: number, leadId: number): Promise<number[]> {
  return listOwnedListingIds(db, businessId, leadId);
}
