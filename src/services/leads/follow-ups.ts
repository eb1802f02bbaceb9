/**
 * Follow-ups for the operator (CONTRACT §9 `inmo followups rules|due`): the workspace's
 * periods for lead types other than searching `demandante`s, and the follow-ups that are due.
 */
import type { Db } from '../../db/database.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import type { Transaction } from 'kysely';
import {
  findFollowUp,
  followUpRules,
  listDueFollowUps,
  moveFollowUp,
  scheduleFollowUp,
  upsertFollowUpRule,
} from '../../db/repositories/follow-ups.ts';
import { enqueueJob } from '../../db/repositories/jobs.ts';
import type { Database } from '../../db/types.ts';
import { canonicalLeadType, LEAD_TYPE_ALIASES, LEAD_TYPES } from '../../domain/leads/rules.ts';
import { nowRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';

export { LEAD_TYPES };

/**
 * The follow-up period of every lead type for a business: `{type, every_days}` in the order of
 * LEAD_TYPES, `every_days` (days) null where the business set none (the default applies).
 */
export async function listFollowUpRules(db: Db, businessId: number): Promise<Array<{ type: string; every_days: number | null }>> {
  const rules = await followUpRules(db, businessId);
  return LEAD_TYPES.map((type) => ({ type, every_days: rules.get(type) ?? null }));
}

/**
 * Sets the follow-up period of a lead type for a business. It applies to leads whose
 * follow-ups are scheduled from then on; follow-ups already scheduled keep their period.
 * @param leadType a stored lead type or any alias the API accepts (`owner`, `buyer`…, spec §4.2), any case.
 * @param everyDays days between follow-ups, 1–3650.
 * @returns the rule, with the stored lead type.
 * @throws InmoError UNKNOWN_BUSINESS, FOLLOW_UP_TYPE_UNKNOWN or FOLLOW_UP_PERIOD.
 */
export async function setFollowUpRule(db: Db, businessId: number, typeText: string, everyDays: number) {
  const leadType = canonicalLeadType(typeText);
  if (leadType === null) {
    const aliases = Object.keys(LEAD_TYPE_ALIASES).filter((alias) => !(LEAD_TYPES as readonly string[]).includes(alias));
    throw new InmoError('FOLLOW_UP_TYPE_UNKNOWN', { types: LEAD_TYPES, aliases });
  }
  if (!Number.isInteger(everyDays) || everyDays < 1 || everyDays > 3650) throw new InmoError('FOLLOW_UP_PERIOD');
  if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  await upsertFollowUpRule(db, businessId, leadType, everyDays);
  return { business_id: businessId, type: leadType, every_days: everyDays };
}

/** Due follow-ups, oldest first, with the lead's name and phone. */
export async function dueFollowUps(db: Db, options: { businessId?: number; limit?: number }) {
  return listDueFollowUps(db, { businessId: options.businessId, limit: options.limit ?? 1000 });
}

/**
 * Marks a due follow-up done (the agent has followed up).
 * @throws InmoError FOLLOW_UP_NOT_FOUND, or FOLLOW_UP_NOT_DUE when it is scheduled or done already.
 */
export async function markFollowUpDone(db: Db, id: number): Promise<void> {
  if (await moveFollowUp(db, id, 'due', 'done', nowRfc3339())) return;
  const followUp = await findFollowUp(db, id);
  if (!followUp) throw new InmoError('FOLLOW_UP_NOT_FOUND', { id });
  throw new InmoError('FOLLOW_UP_NOT_DUE', { id, state: followUp.state });
}

/**
 * Schedules a lead's follow-up due at `dueAt`, repeating every `everyDays` days, with the
 * `follow_up` job that fires when it comes due (its `run_at` is `dueAt`), in `trx`.
 */
export async function scheduleFollowUpJob(
  trx: Transaction<Database>,
  lead: { business_id: number; id: number },
  dueAt: string,
  everyDays: number,
  now: string,
): Promise<void> {
  const id = await scheduleFollowUp(trx, { business_id: lead.business_id, lead_id: lead.id, due_at: dueAt, every_days: everyDays, now });
  await enqueueJob(trx, {
    businessId: lead.business_id,
    leadId: lead.id,
    kind: 'follow_up',
    payload: { follow_up_id: id },
    runAt: dueAt,
    now,
  });
}
