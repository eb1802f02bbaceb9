/** Follow-up rules and follow-ups. SQL only. */
import type { Executor } from '../database.ts';
import type { FollowUpState } from '../types.ts';

/** Sets the period of a lead type for a business (replacing the previous one). */
export async function upsertFollowUpRule(db: Executor, businessId: number, leadType: string, everyDays: number): Promise<void> {
  await db
    .insertInto('follow_up_rules')
    .values({ business_id: businessId, lead_type: leadType, every_days: everyDays })
    .onConflict((oc) => oc.columns(['business_id', 'lead_type']).doUpdateSet({ every_days: everyDays }))
    .execute();
}

/** The business's periods by lead type, days. */
export async function followUpRules(db: Executor, businessId: number): Promise<Map<string, number>> {
  const rows = await db.selectFrom('follow_up_rules').select(['lead_type', 'every_days']).where('business_id', '=', businessId).execute();
  return new Map(rows.map((r) => [r.lead_type, r.every_days]));
}

/**
 * Schedules a follow-up unless the lead already has one due at that instant.
 * @returns its id (the existing one's when it was already scheduled).
 */
export async function scheduleFollowUp(
  db: Executor,
  row: { business_id: number; lead_id: number; due_at: string; every_days: number; now: string },
): Promise<number> {
  const { now, ...fields } = row;
  await db
    .insertInto('follow_ups')
    .values({ ...fields, state: 'scheduled', created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['lead_id', 'due_at']).doNothing())
    .execute();
  const stored = await db
    .selectFrom('follow_ups')
    .select('id')
    .where('lead_id', '=', row.lead_id)
    .where('due_at', '=', row.due_at)
    .executeTakeFirstOrThrow();
  return stored.id;
}

export async function findFollowUp(db: Executor, id: number) {
  return db.selectFrom('follow_ups').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Moves a follow-up to `state` from `from`. @returns whether it moved. */
export async function moveFollowUp(db: Executor, id: number, from: FollowUpState, to: FollowUpState, now: string): Promise<boolean> {
  const result = await db
    .updateTable('follow_ups')
    .set({ state: to, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function listFollowUpsOfLead(db: Executor, leadId: number) {
  return db
    .selectFrom('follow_ups')
    .select(['id', 'due_at', 'every_days', 'state'])
    .where('lead_id', '=', leadId)
    .orderBy('due_at')
    .execute();
}

/** Follow-ups that are due: recorded as due by the worker, oldest first, with their lead's contact. */
export async function listDueFollowUps(db: Executor, options: { businessId?: number; limit: number }) {
  let query = db
    .selectFrom('follow_ups as f')
    .innerJoin('leads as l', 'l.id', 'f.lead_id')
    .select(['f.id', 'f.business_id', 'f.lead_id', 'f.due_at', 'f.every_days', 'f.state', 'l.name', 'l.phone_number_1', 'l.type'])
    .where('f.state', '=', 'due')
    .orderBy('f.due_at')
    .orderBy('f.id')
    .limit(options.limit);
  if (options.businessId !== undefined) query = query.where('f.business_id', '=', options.businessId);
  return query.execute();
}

/** A follow-up of the business's lead `leadId`, or undefined (another lead's or business's too). */
export async function findFollowUpOfLead(db: Executor, businessId: number, leadId: number, id: number) {
  return db
    .selectFrom('follow_ups')
    .selectAll()
    .where('id', '=', id)
    .where('lead_id', '=', leadId)
    .where('business_id', '=', businessId)
    .executeTakeFirst();
}

/**
 * Moves a scheduled follow-up to `dueAt`, and the pending `follow_up` job that fires it.
 * @returns whether it was still scheduled (and moved).
 */
export async function rescheduleFollowUp(db: Executor, id: number, leadId: number, dueAt: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('follow_ups')
    .set({ due_at: dueAt, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'scheduled')
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  const jobs = await db
    .selectFrom('jobs')
    .select(['id', 'payload'])
    .where('lead_id', '=', leadId)
    .where('kind', '=', 'follow_up')
    .where('state', '=', 'pending')
    .execute();
  const ids = jobs.filter((j) => (JSON.parse(j.payload ?? '{}') as { follow_up_id?: number }).follow_up_id === id).map((j) => j.id);
  if (ids.length > 0) await db.updateTable('jobs').set({ run_at: dueAt, updated_at: now }).where('id', 'in', ids).execute();
  return true;
}

/** Puts a due follow-up of the business off "Hoy" until `until` (migration 0034). @returns whether it was due. */
export async function snoozeDueFollowUp(db: Executor, businessId: number, id: number, until: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('follow_ups')
    .set({ snoozed_until: until, updated_at: now })
    .where('id', '=', id)
    .where('business_id', '=', businessId)
    .where('state', '=', 'due')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
