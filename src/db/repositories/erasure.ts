/**
 * Erasure of a lead's personal data (migration 0019, CONTRACT §18). SQL only; the order of the
 * steps and why is in services/leads/erasure.ts.
 */
import { sql } from 'kysely';
import { readsMustLock, type Executor } from '../database.ts';
import type { LeadErasureTable, LeadRow } from '../types.ts';
import { deleteLeadRecords } from './idempotency.ts';
import { deleteVisitSheetsOfLead } from './visit-sheets.ts';
import { deleteMandatesOfOwner } from './mandates.ts';

/**
 * The business's lead `id`, locked against every other writer until the transaction ends
 * (`FOR UPDATE` on PostgreSQL; SQLite has one writer at a time).
 */
export async function lockLead(trx: Executor, businessId: number | undefined, id: number): Promise<LeadRow | undefined> {
  let query = trx.selectFrom('leads').selectAll().where('id', '=', id);
  if (businessId !== undefined) query = query.where('business_id', '=', businessId);
  if (readsMustLock(trx)) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The record of lead `id`'s erasure (of the business when given). */
export async function findErasure(db: Executor, businessId: number | undefined, id: number): Promise<LeadErasureTable | undefined> {
  let query = db.selectFrom('lead_erasures').selectAll().where('lead_id', '=', id);
  if (businessId !== undefined) query = query.where('business_id', '=', businessId);
  return query.executeTakeFirst();
}

/** The phones the lead's WhatsApp messages went to or came from, E.164. */
export async function listMessagePhones(trx: Executor, leadId: number): Promise<string[]> {
  const rows = await trx
    .selectFrom('messages')
    .select('recipient')
    .distinct()
    .where('lead_id', '=', leadId)
    .where('recipient', 'is not', null)
    .execute();
  return rows.map((r) => r.recipient!);
}

/**
 * Deletes the lead and every row about it: its console history and consents first (they
 * refer to it without cascade), the visit sheets of its viewings (which its viewings' cascade
 * would take too; deleted by name so the erasure says it), the mandates drafted for it as an owner
 * (their signer, document and signature; CONTRACT §24), then the lead, which takes its notes, jobs, matches,
 * follow-ups, messages, conversation and viewings with it (`on delete cascade`), then its events (and
 * so their webhook deliveries), its Idempotency-Key records, and the stored bodies of WhatsApp
 * webhooks that name one of its phones (`digits`: E.164 without the `+`, as WhatsApp writes
 * them, quoted in the body).
 */
export async function deleteLeadData(trx: Executor, businessId: number, leadId: number, digits: readonly string[]): Promise<void> {
  await trx.deleteFrom('lead_history').where('lead_id', '=', leadId).execute();
  await trx.deleteFrom('lead_consents').where('lead_id', '=', leadId).execute();
  await deleteVisitSheetsOfLead(trx, leadId);
  await deleteMandatesOfOwner(trx, leadId);
  await trx.deleteFrom('leads').where('id', '=', leadId).execute();
  await trx.deleteFrom('events').where('business_id', '=', businessId).where('lead_id', '=', leadId).execute();
  await deleteLeadRecords(trx, leadId);
  if (digits.length > 0) {
    await trx
      .deleteFrom('webhook_events')
      .where('business_id', '=', businessId)
      .where((eb) => eb.or(digits.map((d) => eb('body', 'like', sql<string>`${`%"${d}"%`}`))))
      .execute();
  }
}

/**
 * Up to `limit` leads that retention erases (CONTRACT §18): `new`, `closed` or `inactive`, last
 * changed before `cutoff` and with no message since, owning no listing and holding no signed mandate, oldest change first (`only`: that lead,
 * if it is one). @returns their ids.
 */
export async function listQuietLeads(db: Executor, cutoff: string, limit: number, only?: number): Promise<number[]> {
  let query = db.selectFrom('leads');
  if (only !== undefined) query = query.where('id', '=', only);
  const rows = await query
    .select('id')
    .where('status', 'in', ['new', 'closed', 'inactive'])
    .where('updated_at', '<', cutoff)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('messages')
            .select('messages.id')
            .whereRef('messages.lead_id', '=', 'leads.id')
            .where('messages.created_at', '>=', cutoff),
        ),
      ),
    )
    // An owner with listings, or with a mandate signed or in force, is the agency's client while they last (CONTRACT §24).
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('properties').select('properties.id').whereRef('properties.owner_lead_id', '=', 'leads.id'))),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('mandates')
            .select('mandates.id')
            .whereRef('mandates.owner_lead_id', '=', 'leads.id')
            .where('mandates.status', '=', 'signed'),
        ),
      ),
    )
    .orderBy('updated_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

export async function insertErasure(trx: Executor, row: LeadErasureTable): Promise<void> {
  await trx.insertInto('lead_erasures').values(row).execute();
}
