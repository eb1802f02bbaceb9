/** Visit sheets and the agency's clause (migration 0040, CONTRACT §20): SQL only, no rules. */
import type { Executor } from '../database.ts';
import type { VisitSheetTable } from '../types.ts';

/** Inserts a signed sheet. Throws the engine's unique violation when the viewing has one already. */
export async function insertVisitSheet(trx: Executor, row: VisitSheetTable): Promise<void> {
  await trx.insertInto('visit_sheets').values(row).execute();
}

/** The business's sheet of viewing `viewingId`, if signed. */
export async function findVisitSheet(db: Executor, businessId: number, viewingId: number): Promise<VisitSheetTable | undefined> {
  return db
    .selectFrom('visit_sheets')
    .selectAll()
    .where('viewing_id', '=', viewingId)
    .where('business_id', '=', businessId)
    .executeTakeFirst();
}

/** The sheets signed for lead `leadId`'s viewings, by viewing then signing time. */
export async function listVisitSheetsOfLead(db: Executor, leadId: number): Promise<VisitSheetTable[]> {
  return db
    .selectFrom('visit_sheets as s')
    .innerJoin('viewings as v', 'v.id', 's.viewing_id')
    .selectAll('s')
    .where('v.lead_id', '=', leadId)
    .orderBy('v.starts_at')
    .orderBy('s.viewing_id')
    .execute();
}

/** Deletes the sheets of lead `leadId`'s viewings (its erasure, CONTRACT §18). */
export async function deleteVisitSheetsOfLead(trx: Executor, leadId: number): Promise<void> {
  await trx
    .deleteFrom('visit_sheets')
    .where('viewing_id', 'in', (eb) => eb.selectFrom('viewings').select('id').where('lead_id', '=', leadId))
    .execute();
}

/** The business's clause (null: the default one), or undefined: no such business. */
export async function findVisitSheetClause(db: Executor, businessId: number): Promise<{ clause: string | null } | undefined> {
  return db.selectFrom('businesses').select('visit_sheet_clause as clause').where('id', '=', businessId).executeTakeFirst();
}

/** Sets the business's clause (null: back to the default). */
export async function setVisitSheetClause(db: Executor, businessId: number, clause: string | null): Promise<void> {
  await db.updateTable('businesses').set({ visit_sheet_clause: clause }).where('id', '=', businessId).execute();
}

/** Where the business's listing `propertyId` is: its full address, as kept (not as published). */
export async function findViewingPlace(db: Executor, businessId: number, propertyId: number) {
  return db
    .selectFrom('properties')
    .select(['address', 'postal_code', 'city', 'province'])
    .where('id', '=', propertyId)
    .where('business_id', '=', businessId)
    .executeTakeFirst();
}
