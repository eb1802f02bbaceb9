/** Leads: SQL only. */
import { likeLiteral } from '../like.ts';
import type { Executor } from '../database.ts';
import { PRESENTED_COLUMNS, type PresentedRow } from '../../domain/leads/presenter.ts';
import { comparableText, leadSearchText, searchedText, searchWords } from '../../domain/search-text.ts';
import { sql } from 'kysely';
import { insertReturningId, runCompiledOnce } from '../compiled-once.ts';
import type { Insertable } from 'kysely';
import type { LeadConsentTable, LeadHistoryTable, LeadInteractionTable, LeadRow, NewLead } from '../types.ts';

/**
 * `lead` with its `search_text` (migration 0031): every insert of a lead goes through this, so
 * the text a search reads is always the lead's own.
 */
export function withSearchText<T extends Partial<NewLead>>(lead: T): T & { search_text: string | null } {
  return { ...lead, search_text: leadSearchText(lead) };
}

export async function insertLead(db: Executor, lead: NewLead): Promise<LeadRow> {
  return db.insertInto('leads').values(withSearchText(lead)).returningAll().executeTakeFirstOrThrow();
}

/** Inserts a lead. @returns its id. (Compiled once per set of columns: it runs for every new lead.) */
export async function insertLeadId(db: Executor, lead: NewLead): Promise<number> {
  return insertReturningId(db, 'leads', withSearchText(lead) as Record<string, unknown>);
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
 * The business's oldest lead with this e-mail address, personal or professional, compared
 * without case (a portal's e-mail for a known person, CONTRACT §19, §22).
 */
export async function findLeadByEmail(db: Executor, businessId: number, email: string): Promise<LeadRow | undefined> {
  const lower = email.toLowerCase();
  return db
    .selectFrom('leads')
    .selectAll()
    .where('business_id', '=', businessId)
    .where((eb) => eb.or([eb(eb.fn('lower', ['personal_email']), '=', lower), eb(eb.fn('lower', ['professional_email']), '=', lower)]))
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/**
 * A lead by id; with `businessId`, only that business's (another's is not found, as a missing
 * one): the console reads through this, so a page cannot show a lead of another business.
 */
/** `captured_by` of each of the business's leads among `ids` (SQL only; services/leads/leads.ts `capturedByOf`). */
export async function listCapturedBy(db: Executor, businessId: number, ids: readonly number[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('leads').select(['id', 'captured_by']).where('business_id', '=', businessId).where('id', 'in', ids).execute();
}

export async function findLead(db: Executor, id: number, businessId?: number): Promise<LeadRow | undefined> {
  let query = db.selectFrom('leads').selectAll().where('id', '=', id);
  if (businessId !== undefined) query = query.where('business_id', '=', businessId);
  return query.executeTakeFirst();
}

/**
 * A lead's notes, oldest first, each with its author's display name, else e-mail (CONTRACT §23;
 * null for the service's own notes).
 */
export async function listNotes(db: Executor, leadId: number): Promise<Array<{ created_at: string; text: string; author: string | null }>> {
  return db
    .selectFrom('lead_notes as n')
    .leftJoin('users as u', 'u.id', 'n.author_user_id')
    .select((eb) => ['n.created_at', 'n.text', eb.fn.coalesce('u.display_name', 'u.email').as('author')])
    .where('n.lead_id', '=', leadId)
    .orderBy('n.id')
    .execute();
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
  if (Number(result.numUpdatedRows) !== 1) return false;
  // The addresses it kept count too: its search text is made from the row as it now is.
  await refreshSearchText(db, id);
  return true;
}

export async function insertNote(db: Executor, leadId: number, text: string, at: string): Promise<void> {
  await runCompiledOnce(db, 'insertNote', [leadId, text, at], ([lead, textParam, atParam]) =>
    db.insertInto('lead_notes').values({ lead_id: lead as unknown as number, text: textParam, created_at: atParam }),
  );
}

/** Records a `consent` object given with a lead (CONTRACT §18). */
export async function insertConsent(db: Executor, row: Omit<Insertable<LeadConsentTable>, 'id'>): Promise<void> {
  await db.insertInto('lead_consents').values(row).execute();
}

/**
 * What a lead's consent allows now: its newest record's `marketing` and `whatsapp` (0/1); with
 * none recorded, marketing 0 (none given) and WhatsApp 1 (not refused), as every reader takes
 * them (CONTRACT §18, §21).
 */
export async function consentInForce(db: Executor, leadId: number): Promise<{ marketing: number; whatsapp: number }> {
  const newest = await db
    .selectFrom('lead_consents')
    .select(['marketing', 'whatsapp'])
    .where('lead_id', '=', leadId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return newest ?? { marketing: 0, whatsapp: 1 };
}

/** Records a request about a known lead that did not change it (CONTRACT §22). */
export async function insertInteraction(db: Executor, row: Omit<LeadInteractionTable, 'id'>): Promise<void> {
  await db.insertInto('lead_interactions').values(row).execute();
}

/** A lead's interactions (requests that came again), newest first; the newest `limit` only when given. */
export async function listInteractions(db: Executor, leadId: number, limit?: number) {
  const query = db.selectFrom('lead_interactions').selectAll().where('lead_id', '=', leadId).orderBy('id', 'desc');
  return (limit === undefined ? query : query.limit(limit)).execute();
}

/** How many interactions a lead has. */
export async function countInteractions(db: Executor, leadId: number): Promise<number> {
  const { count } = await db
    .selectFrom('lead_interactions')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('lead_id', '=', leadId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** A lead's consents, oldest first. */
export async function listConsents(db: Executor, leadId: number) {
  return db.selectFrom('lead_consents').selectAll().where('lead_id', '=', leadId).orderBy('id').execute();
}

/** Whether the newest consent of the lead refuses WhatsApp messages (none recorded: no). */
export async function refusesWhatsApp(db: Executor, leadId: number): Promise<boolean> {
  const newest = await db
    .selectFrom('lead_consents')
    .select('whatsapp')
    .where('lead_id', '=', leadId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return newest?.whatsapp === 0;
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
  /**
   * Words each found in the name or an e-mail address, in any order, without regard to case or
   * accents (CONTRACT §23, §25), or digits of a phone number; its first 200 characters are read,
   * without U+0000, and their first 8 words (domain/search-text.ts `searchWords`).
   */
  text?: string;
  /** The console user handling the lead; null for leads nobody handles (CONTRACT §16). */
  assigned?: number | null;
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
  const query = narrowed(db, businessId, search);
  const { n } = await query.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  const rows =
    offset < Number(n)
      ? await query.select(PRESENTED_COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute()
      : [];
  return { rows, total: Number(n) };
}

/** The business's leads `search` finds, newest first, `limit` at most, as a choice of lead shows them (no count). */
export async function listLeadChoices(db: Executor, businessId: number, search: LeadSearch, limit: number) {
  return narrowed(db, businessId, search)
    .select(['id', 'name', 'phone_number_1'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** How many of the business's leads `search` finds, by status (its own `status` aside). */
export async function countLeadsByStatus(db: Executor, businessId: number, search: LeadSearch): Promise<Map<string, number>> {
  const rows = await narrowed(db, businessId, { ...search, status: undefined })
    .select(['status', sql<number>`count(*)`.as('n')])
    .groupBy('status')
    .execute();
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

/** The business's leads narrowed by `search`. */
function narrowed(db: Executor, businessId: number, search: LeadSearch) {
  let query = db.selectFrom('leads').where('business_id', '=', businessId);
  if (search.assigned === null) query = query.where('assigned_user_id', 'is', null);
  else if (search.assigned !== undefined) query = query.where('assigned_user_id', '=', search.assigned);
  if (search.status) query = query.where('status', '=', search.status);
  if (search.type) query = query.where('type', '=', search.type);
  if (search.source) query = query.where('source', '=', comparableText(search.source));
  if (search.createdFrom) query = query.where('created_at', '>=', search.createdFrom);
  if (search.createdBefore) query = query.where('created_at', '<', search.createdBefore);
  if (search.updatedSince) query = query.where('updated_at', '>=', search.updatedSince);
  const text = searchedText(search.text ?? '');
  if (text) {
    const digits = text.replace(/\D/g, '');
    // Name and e-mail addresses, without case or accents (migration 0031): each word typed, in any order (issue 57).
    const words = sql<boolean>`(${sql.join(
      searchWords(text).map((word) => sql`search_text like ${`%${likeLiteral(word)}%`} escape '\\'`),
      sql` and `,
    )})`;
    query =
      digits.length >= 3 && /^[\d\s+().-]+$/.test(text)
        ? query.where((eb) => eb.or([words, eb('phone_number_1', 'like', `%${digits}%`), eb('phone_number_2', 'like', `%${digits}%`)]))
        : query.where(words);
  }
  return query;
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

/** The business's lead `id`: its status and who handles it (CONTRACT §16), or undefined. */
export async function findLeadState(db: Executor, businessId: number, id: number) {
  return db
    .selectFrom('leads')
    .select(['id', 'status', 'assigned_user_id'])
    .where('id', '=', id)
    .where('business_id', '=', businessId)
    .executeTakeFirst();
}

/** Sets columns of a lead worked in the console: its status, who handles it, and `updated_at`. */
export async function updateLeadWork(
  db: Executor,
  id: number,
  change: { updated_at: string; status?: string; assigned_user_id?: number | null },
): Promise<void> {
  await db.updateTable('leads').set(change).where('id', '=', id).execute();
}

/**
 * Writes a lead's edited contact columns and searches (CONTRACT §25) with `updated_at`, and its
 * `search_text` made from the row as it then is (migration 0031).
 */
export async function updateLeadContact(db: Executor, id: number, change: Partial<NewLead> & { updated_at: string }): Promise<void> {
  await db.updateTable('leads').set(change).where('id', '=', id).execute();
  await refreshSearchText(db, id);
}

/** Rewrites lead `id`'s `search_text` (migration 0031) from its name and addresses as they now are. */
async function refreshSearchText(db: Executor, id: number): Promise<void> {
  const lead = await db
    .selectFrom('leads')
    .select(['name', 'personal_email', 'professional_email'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  await db
    .updateTable('leads')
    .set({ search_text: leadSearchText(lead) })
    .where('id', '=', id)
    .execute();
}

/** Adds a note written in the console by `authorUserId`. */
export async function insertAuthoredNote(db: Executor, leadId: number, text: string, authorUserId: number, at: string): Promise<void> {
  await db.insertInto('lead_notes').values({ lead_id: leadId, text, created_at: at, author_user_id: authorUserId }).execute();
}

/** Adds a line to a lead's history (`detail` is JSON). */
export async function insertHistory(db: Executor, line: Insertable<LeadHistoryTable>): Promise<void> {
  await db.insertInto('lead_history').values(line).execute();
}

/**
 * A lead's history, newest first, with the e-mail and the display name (CONTRACT §23) of who made
 * each change (null once that user is gone; the name null when none was given).
 */
export async function listHistory(db: Executor, businessId: number, leadId: number) {
  return db
    .selectFrom('lead_history as h')
    .leftJoin('users as u', 'u.id', 'h.user_id')
    .select(['h.id', 'h.change', 'h.detail', 'h.created_at', 'u.email', 'u.display_name'])
    .where('h.lead_id', '=', leadId)
    .where('h.business_id', '=', businessId)
    .orderBy('h.id', 'desc')
    .execute();
}
