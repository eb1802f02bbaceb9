/**
 * "Hoy", the console's home page (issue 47, CONTRACT §23): what a user has to do today.
 *
 * - their viewings of today (the business's day, in its time zone), every agent's for an owner;
 * - follow-ups due or overdue across leads (an agent's: the leads assigned to them or to
 *   nobody; an owner's: all), each done or put off from the list;
 * - conversations waiting for an agent; new leads nobody has taken; leads whose requests came
 *   again in the last 7 days (CONTRACT §22); how many e-mails wait as not understood.
 *
 * A follow-up is put off with services/leads/pipeline.ts `snoozeFollowUp`.
 */
import { DateTime } from 'luxon';
import type { Db } from '../../db/database.ts';
import { listConversations } from '../../db/repositories/messaging.ts';
import * as repo from '../../db/repositories/today.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { businessClock } from '../viewings/clock.ts';

/** Rows of each list shown; the page says how many more there are where it counts them. */
export const TODAY_SHOWN = 10;

/** Days back that a request which came again stays on "Hoy". */
export const CONTACTED_AGAIN_DAYS = 7;

/** Whose "Hoy" it is. */
export interface TodayReader {
  businessId: number;
  userId: number;
  role: 'owner' | 'agent';
}

/**
 * The lists of "Hoy" at `now` (epoch ms).
 * @returns `{zone, day (YYYY-MM-DD, the business's), viewings, followUps: {rows, total}, waiting,
 *   unassigned, contactedAgain, emailsNotUnderstood}`; times are RFC 3339 instants, shown in `zone`.
 */
export async function todayOf(db: Db, reader: TodayReader, now: number = Date.now()) {
  const { zone } = await businessClock(db, reader.businessId);
  const local = DateTime.fromMillis(now, { zone });
  const dayStart = local.startOf('day');
  const mine = reader.role === 'owner' ? null : reader.userId;
  const at = toRfc3339(new Date(now));
  const [viewings, followUps, waiting, unassigned, contactedAgain, emailsNotUnderstood] = await Promise.all([
    repo.listViewingsBetween(db, reader.businessId, mine, toRfc3339(dayStart.toJSDate()), toRfc3339(dayStart.plus({ days: 1 }).toJSDate())),
    repo.listDueFollowUpsFor(db, reader.businessId, mine, at, TODAY_SHOWN),
    listConversations(db, { businessId: reader.businessId, waiting: true, limit: TODAY_SHOWN }),
    repo.listUnassignedNewLeads(db, reader.businessId, TODAY_SHOWN),
    repo.listContactedAgain(db, reader.businessId, toRfc3339(new Date(now - CONTACTED_AGAIN_DAYS * 86_400_000)), TODAY_SHOWN),
    repo.countEmailsNotUnderstood(db, reader.businessId),
  ]);
  return {
    zone,
    day: dayStart.toISODate()!,
    viewings,
    followUps: { rows: followUps.rows.map((f) => ({ ...f, overdue: Date.parse(f.due_at) < dayStart.toMillis() })), total: followUps.total },
    waiting,
    unassigned,
    contactedAgain: contactedAgain.map((c) => ({ ...c, times: Number(c.times) })),
    emailsNotUnderstood,
  };
}
