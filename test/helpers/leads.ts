/** Leads as tests make them. */
import type { Db } from '../../src/db/database.ts';
import { createLeadByHand } from '../../src/services/leads/leads.ts';

/** A lead made by hand (services/leads/leads.ts `createLeadByHand`) then given `type`: a `propietario`, a `demandante`. @returns its id. */
export async function leadOfType(db: Db, businessId: number, type: string, phone: string, name: string): Promise<number> {
  const lead = await createLeadByHand(db, { businessId, phone, name });
  await db.updateTable('leads').set({ type }).where('id', '=', lead.id).execute();
  return lead.id;
}

/** Links the business's listings `refs` to owner `leadId` (`owner_lead_id`, CONTRACT §24) as the editor would. */
export async function linkOwner(db: Db, leadId: number, refs: readonly string[]): Promise<void> {
  if (refs.length) await db.updateTable('properties').set({ owner_lead_id: leadId }).where('external_ref', 'in', refs).execute();
}
