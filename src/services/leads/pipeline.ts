/**
 * Leads worked in the console (issue 29, CONTRACT §16): a lead's status, notes, who handles it
 * and its follow-ups.
 *
 * Each change is one transaction that writes the lead's `updated_at` (so `GET /leads?updated_since=`
 * returns it), a line of the lead's history (who, what, when) and the event `lead.updated` (the
 * lead as `GET /leads/{id}` shows it, for `GET /events` and webhooks). A change that changes
 * nothing (the status it already has, the person already handling it) writes nothing.
 *
 * The history holds codes and ids, never a note's text (that stays in the lead's notes) nor any
 * of the lead's contact details.
 */
import { isRowId, type Db, type Executor } from '../../db/database.ts';
import * as followUps from '../../db/repositories/follow-ups.ts';
import * as repo from '../../db/repositories/leads.ts';
import { findUser, listUsers } from '../../db/repositories/users.ts';
import { LEAD_STATUSES } from '../../domain/leads/rules.ts';
import { nowRfc3339, toRfc3339 } from '../../domain/time.ts';
import { DateTime } from 'luxon';
import { businessClock } from '../viewings/clock.ts';
import { InmoError } from '../../errors.ts';
import { displayName, type Role } from '../access/console-users.ts';
import { recordLeadEvent } from '../integrations/events.ts';

/** Who makes a change: a console user of a business. */
export interface Actor {
  userId: number;
  role: Role;
  businessId: number;
}

/** Longest reason given with a status change, characters. */
export const STATUS_REASON_MAX = 500;
/** Longest note, characters. */
export const NOTE_MAX = 5000;

/** A line of a lead's history as the lead page shows it. */
export interface HistoryLine {
  id: number;
  change: 'status' | 'note' | 'assign' | 'follow_up' | 'edit' | 'owner_stage';
  /**
   * `{from, to, reason}` for a status; `{from, to}` (user ids, or null) for an assignment; `{}` for
   * a note; `{id, done: true}` or `{id, from, to}` (due instants) for a follow-up; `{fields, via?,
   * property_id?}` for an edit (services/leads/edit.ts: the fields' names, never their values).
   */
  detail: {
    id?: number;
    done?: boolean;
    from?: string | number | null;
    to?: string | number | null;
    reason?: string | null;
    fields?: string[];
    via?: 'api';
    property_id?: number;
  };
  /** Who made it: the user's e-mail, or null when that user is gone. */
  by: string | null;
  created_at: string;
}

/** The business's lead, in the transaction; else LEAD_NOT_FOUND (another business's lead too). */
async function leadOf(trx: Executor, actor: Actor, leadId: number) {
  const lead = await repo.findLeadState(trx, actor.businessId, leadId);
  if (!lead) throw new InmoError('LEAD_NOT_FOUND', { id: leadId });
  return lead;
}

/** Writes a change: the lead's columns with `updated_at`, its history line and `lead.updated`. */
async function recordChange(
  trx: Executor,
  actor: Actor,
  leadId: number,
  columns: { status?: string; assigned_user_id?: number | null },
  change: HistoryLine['change'],
  detail: object,
  now: string,
) {
  await repo.updateLeadWork(trx, leadId, { ...columns, updated_at: now });
  await repo.insertHistory(trx, {
    business_id: actor.businessId,
    lead_id: leadId,
    user_id: actor.userId,
    change,
    detail: JSON.stringify(detail),
    created_at: now,
  });
  await recordLeadEvent(trx, actor.businessId, leadId, 'lead.updated', now);
}

/**
 * Moves a lead to `status` (spec §2: `new`, `searching_property`, `active_negotiation`, `closed`,
 * `inactive`), with an optional reason kept in its history.
 * @throws InmoError LEAD_STATUS_INVALID (400), LEAD_NOT_FOUND (404).
 */
export async function changeLeadStatus(db: Db, actor: Actor, leadId: number, status: string, reason = ''): Promise<void> {
  if (!(LEAD_STATUSES as readonly string[]).includes(status)) throw new InmoError('LEAD_STATUS_INVALID');
  const why = reason.trim().slice(0, STATUS_REASON_MAX) || null;
  await db.transaction().execute(async (trx) => {
    const lead = await leadOf(trx, actor, leadId);
    if (lead.status === status) return;
    await recordChange(trx, actor, leadId, { status }, 'status', { from: lead.status, to: status, reason: why }, nowRfc3339());
  });
}

/**
 * Adds a note to a lead, with its author and time.
 * @param text at most {@link NOTE_MAX} characters (the form's bound).
 * @throws InmoError LEAD_NOTE_BLANK (400), LEAD_NOT_FOUND (404).
 */
export async function addLeadNote(db: Db, actor: Actor, leadId: number, text: string): Promise<void> {
  const note = text.trim();
  if (note === '') throw new InmoError('LEAD_NOTE_BLANK');
  await db.transaction().execute(async (trx) => {
    await leadOf(trx, actor, leadId);
    const now = nowRfc3339();
    await repo.insertAuthoredNote(trx, leadId, note.slice(0, NOTE_MAX), actor.userId, now);
    await recordChange(trx, actor, leadId, {}, 'note', {}, now);
  });
}

/**
 * Hands a lead to a user of the business, or to nobody (`userId` null). Owners assign as they
 * like; an agent may only take a lead nobody handles.
 * @throws InmoError LEAD_ASSIGN_FORBIDDEN (403), LEAD_ASSIGNEE_UNKNOWN (400: not an active user
 *   of the business), LEAD_NOT_FOUND (404).
 */
export async function assignLead(db: Db, actor: Actor, leadId: number, userId: number | null): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const lead = await leadOf(trx, actor, leadId);
    if (lead.assigned_user_id === userId) return;
    if (actor.role !== 'owner' && (userId !== actor.userId || lead.assigned_user_id !== null)) throw new InmoError('LEAD_ASSIGN_FORBIDDEN');
    if (userId !== null) {
      if (!isRowId(userId)) throw new InmoError('LEAD_ASSIGNEE_UNKNOWN');
      const user = await findUser(trx, userId, actor.businessId);
      if (!user || user.disabled_at !== null) throw new InmoError('LEAD_ASSIGNEE_UNKNOWN');
    }
    await recordChange(
      trx,
      actor,
      leadId,
      { assigned_user_id: userId },
      'assign',
      { from: lead.assigned_user_id, to: userId },
      nowRfc3339(),
    );
  });
}

/**
 * Marks a lead's due follow-up done (the agent followed up); the next one stays as scheduled.
 * @throws InmoError FOLLOW_UP_NOT_FOUND (404: not this lead's), FOLLOW_UP_NOT_DUE (409), LEAD_NOT_FOUND.
 */
export async function completeFollowUp(db: Db, actor: Actor, leadId: number, followUpId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await leadOf(trx, actor, leadId);
    const followUp = isRowId(followUpId) ? await followUps.findFollowUpOfLead(trx, actor.businessId, leadId, followUpId) : undefined;
    if (!followUp) throw new InmoError('FOLLOW_UP_NOT_FOUND', { id: followUpId });
    const now = nowRfc3339();
    if (!(await followUps.moveFollowUp(trx, followUpId, 'due', 'done', now))) {
      throw new InmoError('FOLLOW_UP_NOT_DUE', { id: followUpId, state: followUp.state });
    }
    await recordChange(trx, actor, leadId, {}, 'follow_up', { id: followUpId, done: true }, now);
  });
}

/**
 * Puts a lead's due follow-up off until tomorrow at 9:00 in the business's time zone (issue 47,
 * "Hoy"): it leaves "Hoy" until then and stays due, so done still applies; the lead's history
 * says so.
 * @param now epoch ms (tests); now by default.
 * @returns the instant it is put off until, RFC 3339.
 * @throws InmoError FOLLOW_UP_NOT_FOUND (404: not this lead's), FOLLOW_UP_NOT_DUE (409), LEAD_NOT_FOUND.
 */
export async function snoozeFollowUp(db: Db, actor: Actor, leadId: number, followUpId: number, now = Date.now()): Promise<string> {
  const { zone } = await businessClock(db, actor.businessId);
  const until = toRfc3339(
    DateTime.fromMillis(now, { zone }).plus({ days: 1 }).set({ hour: 9, minute: 0, second: 0, millisecond: 0 }).toJSDate(),
  );
  await db.transaction().execute(async (trx) => {
    await leadOf(trx, actor, leadId);
    const followUp = isRowId(followUpId) ? await followUps.findFollowUpOfLead(trx, actor.businessId, leadId, followUpId) : undefined;
    if (!followUp) throw new InmoError('FOLLOW_UP_NOT_FOUND', { id: followUpId });
    const at = toRfc3339(new Date(now));
    if (!(await followUps.snoozeDueFollowUp(trx, actor.businessId, followUpId, until, at))) {
      throw new InmoError('FOLLOW_UP_NOT_DUE', { id: followUpId, state: followUp.state });
    }
    await recordChange(trx, actor, leadId, {}, 'follow_up', { id: followUpId, snoozed: until }, at);
  });
  return until;
}

/**
 * Moves a lead's scheduled follow-up to another day (the same time of day), 1 to 3,650 days
 * from now; the next ones follow it at its period.
 * @param day `YYYY-MM-DD`.
 * @throws InmoError FOLLOW_UP_DAY (400: not a day in that range), FOLLOW_UP_NOT_FOUND (404),
 *   FOLLOW_UP_NOT_DUE (409: it is due or done, not scheduled), LEAD_NOT_FOUND.
 */
export async function moveFollowUpTo(db: Db, actor: Actor, leadId: number, followUpId: number, day: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await leadOf(trx, actor, leadId);
    const followUp = isRowId(followUpId) ? await followUps.findFollowUpOfLead(trx, actor.businessId, leadId, followUpId) : undefined;
    if (!followUp) throw new InmoError('FOLLOW_UP_NOT_FOUND', { id: followUpId });
    const dueAt = `${day}${followUp.due_at.slice(10)}`;
    const ms = Date.parse(dueAt);
    const now = nowRfc3339();
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(ms) || ms <= Date.now() || ms > Date.now() + 3650 * 86_400_000) {
      throw new InmoError('FOLLOW_UP_DAY');
    }
    if (followUp.state !== 'scheduled' || !(await followUps.rescheduleFollowUp(trx, followUpId, leadId, dueAt, now))) {
      throw new InmoError('FOLLOW_UP_NOT_DUE', { id: followUpId, state: followUp.state });
    }
    await recordChange(trx, actor, leadId, {}, 'follow_up', { id: followUpId, from: followUp.due_at, to: dueAt }, now);
  });
}

/** A lead's history, newest first (the business's lead only: another's has none). */
export async function listLeadHistory(db: Db, businessId: number, leadId: number): Promise<HistoryLine[]> {
  const rows = await repo.listHistory(db, businessId, leadId);
  return rows.map((r) => ({
    id: r.id,
    change: r.change,
    detail: JSON.parse(r.detail) as HistoryLine['detail'],
    // Named as CONTRACT §23 says: the display name, else the e-mail.
    by: r.display_name ?? r.email,
    created_at: r.created_at,
  }));
}

/** Interactions the lead page lists; the export has them all. */
export const INTERACTIONS_SHOWN = 20;

/**
 * The requests about a lead that came again without changing it (CONTRACT §22), as the lead page
 * lists them: `{newest, total}`, the newest {@link INTERACTIONS_SHOWN} (`{id, channel, source,
 * note, created_at}`) and how many there are in all. Anyone with a publishable key can add some (20 a minute from one
 * address), so the page never lists them all. The business's lead only (another's has none).
 */
export async function listLeadInteractions(db: Db, businessId: number, leadId: number) {
  const rows = (await repo.listInteractions(db, leadId, INTERACTIONS_SHOWN)).filter((r) => r.business_id === businessId);
  const total = rows.length < INTERACTIONS_SHOWN ? rows.length : await repo.countInteractions(db, leadId);
  return { newest: rows.map(({ business_id: _business, lead_id: _lead, ...kept }) => kept), total };
}

/** The people a lead can be handed to: the business's active users, `{id, email, role}`, by e-mail. */
export async function assignableUsers(db: Db, businessId: number): Promise<Array<{ id: number; email: string; name: string; role: Role }>> {
  return (await listUsers(db, businessId))
    .filter((u) => u.disabled_at === null)
    .map((u) => ({ id: u.id, email: u.email, name: displayName(u), role: u.role }))
    .sort((a, b) => a.name.localeCompare(b.name, 'es'));
}
