/** Leads: SQL only. */
import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database, LeadRow, NewLead } from '../types.ts';

type Db = Kysely<Database> | Transaction<Database>;

export async function insertLead(db: Db, lead: NewLead): Promise<LeadRow> {
  return db.insertInto('leads').values(lead).returningAll().executeTakeFirstOrThrow();
}

/** Inserts a lead. @returns its id. */
export async function insertLeadId(db: Db, lead: NewLead): Promise<number> {
  return (await db.insertInto('leads').values(lead).returning('id').executeTakeFirstOrThrow()).id;
}

export async function findLeadByPhone(db: Db, businessId: number, phone: string): Promise<LeadRow | undefined> {
  return db.selectFrom('leads').selectAll().where('business_id', '=', businessId).where('phone_number_1', '=', phone).executeTakeFirst();
}

export async function findLead(db: Db, id: number): Promise<LeadRow | undefined> {
  return db.selectFrom('leads').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A page of the business's leads, newest first (`created_at` desc, then `id` desc). */
export async function listLeads(db: Db, businessId: number, limit: number, offset: number): Promise<LeadRow[]> {
  return db
    .selectFrom('leads')
    .selectAll()
    .where('business_id', '=', businessId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countLeads(db: Db, businessId: number): Promise<number> {
  const row = await db
    .selectFrom('leads')
    .select(sql<number>`count(*)`.as('n'))
    .where('business_id', '=', businessId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function listNotes(db: Db, leadId: number): Promise<Array<{ created_at: string; text: string }>> {
  return db.selectFrom('lead_notes').select(['created_at', 'text']).where('lead_id', '=', leadId).orderBy('id').execute();
}

/** Updates a lead's columns. */
export async function updateLead(db: Db, id: number, values: Partial<NewLead>): Promise<void> {
  await db.updateTable('leads').set(values).where('id', '=', id).execute();
}

export async function insertNote(db: Db, leadId: number, text: string, at: string): Promise<void> {
  await db.insertInto('lead_notes').values({ lead_id: leadId, text, created_at: at }).execute();
}
