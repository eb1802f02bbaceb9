/** Leads: SQL only. */
import { likeLiteral } from '../like.ts';
import type { Executor } from '../database.ts';
import { PRESENTED_COLUMNS, type PresentedRow } from '../../domain/lead-presenter.ts';
import { sql } from 'kysely';
import { insertReturningId, runCompiledOnce } from '../compiled-once.ts';
import type { LeadRow, NewLead } from '../types.ts';

export async function insertLead(db: Executor, lead: NewLead): Promise<LeadRow> {
  return db.insertInto('leads').values(lead).returningAll().executeTakeFirstOrThrow();
}

/** Inserts a lead. @returns its id. (Compiled once per set of columns: it runs for every new lead.) */
export async function insertLeadId(db: Executor, lead: NewLead): Promise<number> {
  return insertReturningId(db, 'leads', lead as Record<string, unknown>);
}

/** The business's lead with this primary phone. (Compiled once: it runs for every new lead.) */
export async function findLeadByPhone(db: Executor, businessId: number, phone: string): Promise<LeadRow | undefined> {
  const rows = await runCompiledOnce<LeadRow>(db, 'findLeadByPhone', [businessId, phone], ([business, phoneParam]) =>
    db
      .selectFrom('leads')
      .selectAll()
      .where('business_id', '=', business as unknown as number)
      .where('phone_number_1', '=', phoneParam),
  );
  return rows[0];
}

/**
 * A lead by id; with `businessId`, only that business's (another's is not found, as a missing
 * one): the console reads through this, so a page cannot show a lead of another business.
 */
export async function findLead(db: Executor, id: number, businessId?: number): Promise<LeadRow | undefined> {
  let query = db.selectFrom('leads').selectAll().where('id', '=', id);
  if (businessId !== undefined) query = query.where('business_id', '=', businessId);
  return query.executeTakeFirst();
}

export async function listNotes(db: Executor, leadId: number): Promise<Array<{ created_at: string; text: string }>> {
  return db.selectFrom('lead_notes').select(['created_at', 'text']).where('lead_id', '=', leadId).orderBy('id').execute();
}

/**
 * Completes a lead that has no name with `values`, only while it still has none: of two
 * transactions completing it at once, the second finds it named (PostgreSQL re-reads the
 * row once the first commits) and changes nothing.
 * @returns whether this call completed it.
 */
export async function completeUnnamedLead(db: Executor, id: number, values: Partial<NewLead>): Promise<boolean> {
  const result = await db
    .updateTable('leads')
    .set(values)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('name', 'is', null), eb(eb.fn('trim', ['name']), '=', '')]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertNote(db: Executor, leadId: number, text: string, at: string): Promise<void> {
  await runCompiledOnce(db, 'insertNote', [leadId, text, at], ([lead, textParam, atParam]) =>
    db.insertInto('lead_notes').values({ lead_id: lead as unknown as number, text: textParam, created_at: atParam }),
  );
}

/**
 * Replaces a lead's search preferences (the assistant refined them), only if the lead is
 * unchanged since `expectedUpdatedAt`. @returns whether it changed.
 */
export async function updateSearchPreferences(
  db: Executor,
  id: number,
  change: { search_preferences: string; status: string; updated_at: string },
  expectedUpdatedAt: string,
): Promise<boolean> {
  const result = await db
    .updateTable('leads')
    .set(change)
    .where('id', '=', id)
    .where('updated_at', '=', expectedUpdatedAt)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** What GET /leads and the console's lead list narrow by (every field optional). */
export interface LeadSearch {
  status?: string;
  type?: string;
  source?: string;
  /** Created at or after this RFC 3339 instant. */
  createdFrom?: string;
  /** Created before this RFC 3339 instant. */
  createdBefore?: string;
  /** Updated at or after this instant, in the canonical form of domain/time.ts (compared as text). */
  updatedSince?: string;
  /** Part of the name (any case), or digits of a phone number. */
  text?: string;
}

/**
 * A page of the business's leads narrowed by `search`, newest first (`created_at` desc, then
 * `id` desc), and how many match in all. Rows carry only the columns the API shows: rows of
 * every column cost three times as much to read.
 * @returns `{rows, total}`.
 */
export async function searchLeads(
  db: Executor,
  businessId: number,
  search: LeadSearch,
  limit: number,
  offset: number,
): Promise<{ rows: PresentedRow[]; total: number }> {
  let query = db.selectFrom('leads').where('business_id', '=', businessId);
  if (search.status) query = query.where('status', '=', search.status);
  if (search.type) query = query.where('type', '=', search.type);
  if (search.source) query = query.where('source', '=', search.source);
  if (search.createdFrom) query = query.where('created_at', '>=', search.createdFrom);
  if (search.createdBefore) query = query.where('created_at', '<', search.createdBefore);
  if (search.updatedSince) query = query.where('updated_at', '>=', search.updatedSince);
  const text = search.text?.trim();
  if (text) {
    const digits = text.replace(/\D/g, '');
    const name = sql<boolean>`lower(name) like ${`%${likeLiteral(text.toLowerCase())}%`} escape '\\'`;
    query =
      digits.length >= 3 && /^[\d\s+().-]+$/.test(text)
        ? query.where((eb) => eb.or([name, eb('phone_number_1', 'like', `%${digits}%`), eb('phone_number_2', 'like', `%${digits}%`)]))
        : query.where(name);
  }
  const { n } = await query.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  const rows =
    offset < Number(n)
      ? await query.select(PRESENTED_COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute()
      : [];
  return { rows, total: Number(n) };
}

/** The business's lead `id` with the columns the API shows, or undefined (another business's lead too). */
export async function findPresentedLead(db: Executor, businessId: number, id: number): Promise<PresentedRow | undefined> {
  // Compiled once: every new lead's event presents it.
  const rows = await runCompiledOnce<PresentedRow>(db, 'findPresentedLead', [id, businessId], ([lead, business]) =>
    db
      .selectFrom('leads')
      .select(PRESENTED_COLUMNS)
      .where('id', '=', lead as unknown as number)
      .where('business_id', '=', business as unknown as number),
  );
  return rows[0];
}
