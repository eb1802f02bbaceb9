/**
 * The owners import lines name (CONTRACT §24, issue 58 item 1; domain/catalogue/import-owner.ts),
 * settled in the transaction that writes the lines' batch:
 *
 * - `{"lead_id"}` must be a `propietario` lead of the business;
 * - `{"phone"}` is the business's lead with that primary phone, which must be a `propietario`; when
 *   the business has none, an unnamed `propietario` lead is made with it (captured by `Import`, its
 *   `lead.created` event recorded; no message is sent to it and no job queued: an owner is not
 *   greeted as a searching lead is);
 * - `null` unlinks the listing's owner.
 *
 * A line whose owner cannot be its owner is rejected whole, its listing left as it was
 * ({@link settleOwners}, before the batch is written; before anything is written, for a `--full`
 * import, whose file is refused for it); the others are linked once written
 * ({@link linkOwners}), in line order, so that a ref repeated in the batch takes its last owner.
 */
import type { Transaction } from 'kysely';
import type { Executor } from '../../../db/database.ts';
import { isUniqueViolation } from '../../../db/errors.ts';
import { inSavepoint } from '../../../db/transaction.ts';
import type { Database } from '../../../db/types.ts';
import { insertLeadId } from '../../../db/repositories/leads.ts';
import { setOwnerLead } from '../../../db/repositories/listing-owners.ts';
import { findLeadsByPhones, findLeadTypes } from '../../../db/repositories/owners.ts';
import { findIdsByRef } from '../../../db/repositories/properties.ts';
import { importFault, type ImportFault } from '../../../domain/catalogue/import-faults.ts';
import type { ImportOwner, NormalizedProperty } from '../../../domain/catalogue/property-record.ts';
import { recordLeadEvent } from '../../integrations/events.ts';
import { OWNER_TYPE } from '../listing-owners.ts';

/** A line refused for its owner: the English reason and its fault. */
export interface OwnerRefusal {
  reason: string;
  fault: ImportFault;
}

/** What a batch's owners came to: the lines refused, and the owner lead of each other line naming one (null: unlink), or the phone of one to make. */
export interface SettledOwners<T extends Owned = NormalizedProperty> {
  refused: Map<T, OwnerRefusal>;
  owners: Array<{ property: T; owner: number | null | { make: string } }>;
}

/** A line as far as its owner goes. */
type Owned = { owner?: ImportOwner | null };

/**
 * Reads who the owners of `lines` (those naming one) are, writing nothing.
 * @returns the lines refused (an unknown lead id, a lead that is not a `propietario`) and the owner of the others.
 */
export async function settleOwners<T extends Owned>(trx: Executor, businessId: number, lines: T[]): Promise<SettledOwners<T>> {
  const settled: SettledOwners<T> = { refused: new Map(), owners: [] };
  const named = lines.filter((p) => p.owner !== undefined);
  if (named.length === 0) return settled;
  const ids = [...new Set(named.flatMap((p) => (p.owner && 'leadId' in p.owner ? [p.owner.leadId] : [])))];
  const phones = [...new Set(named.flatMap((p) => (p.owner && 'phone' in p.owner ? [p.owner.phone] : [])))];
  const typeOf = new Map((await findLeadTypes(trx, businessId, ids)).map((l) => [l.id, l.type]));
  const byPhone = new Map((await findLeadsByPhones(trx, businessId, phones)).map((l) => [l.phone_number_1, l]));
  const notOwner: OwnerRefusal = {
    reason: 'owner: the lead is not a propietario',
    fault: importFault('owner', 'owner_not_propietario'),
  };
  for (const property of named) {
    const owner = property.owner!;
    if (owner === null) {
      settled.owners.push({ property, owner: null });
    } else if ('leadId' in owner) {
      const type = typeOf.get(owner.leadId);
      if (type === undefined)
        settled.refused.set(property, {
          reason: 'owner.lead_id: no lead of the business has this id',
          fault: importFault('owner.lead_id', 'owner_unknown'),
        });
      else if (type !== OWNER_TYPE) settled.refused.set(property, notOwner);
      else settled.owners.push({ property, owner: owner.leadId });
    } else {
      const lead = byPhone.get(owner.phone);
      if (lead === undefined) settled.owners.push({ property, owner: { make: owner.phone } });
      else if (lead.type !== OWNER_TYPE) settled.refused.set(property, notOwner);
      else settled.owners.push({ property, owner: lead.id });
    }
  }
  return settled;
}

/**
 * Links the listings just written to their owners, making the owner leads named by a phone no
 * lead had when the batch was read (once per phone), in the batch's transaction.
 * @param at the import's instant, RFC 3339.
 */
export async function linkOwners(trx: Executor, businessId: number, owners: SettledOwners['owners'], at: string): Promise<void> {
  if (owners.length === 0) return;
  const ids = await findIdsByRef(trx, businessId, [...new Set(owners.map((o) => o.property.fields.external_ref))]);
  const made = new Map<string, number>();
  for (const { property, owner } of owners) {
    let leadId: number | null;
    if (owner === null || typeof owner === 'number') leadId = owner;
    else {
      const known = made.get(owner.make) ?? (await makeOwner(trx, businessId, owner.make, at));
      if (known === undefined) continue;
      made.set(owner.make, known);
      leadId = known;
    }
    const propertyId = ids.get(property.fields.external_ref);
    if (propertyId !== undefined) await setOwnerLead(trx, businessId, propertyId, leadId);
  }
}

/**
 * Makes the unnamed `propietario` lead of `phone`, with its `lead.created` event, in a savepoint:
 * when another writer gave a lead that phone since the batch read it (a unique violation), that
 * lead is the owner if it is a `propietario`.
 * @returns its id; undefined when the phone's lead is now of another type (the listing's owner is left as it was).
 */
async function makeOwner(trx: Executor, businessId: number, phone: string, at: string): Promise<number | undefined> {
  try {
    return await inSavepoint(trx as Transaction<Database>, async (savepoint) => {
      const leadId = await insertLeadId(savepoint, {
        business_id: businessId,
        name: null,
        type: OWNER_TYPE,
        status: 'new',
        active: 1,
        rating: 3,
        captured_by: 'Import',
        source: 'import',
        phone_number_1: phone,
        created_at: at,
        updated_at: at,
      });
      await recordLeadEvent(savepoint, businessId, leadId, 'lead.created', at);
      return leadId;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const [lead] = await findLeadsByPhones(trx, businessId, [phone]);
    return lead?.type === OWNER_TYPE ? lead.id : undefined;
  }
}
