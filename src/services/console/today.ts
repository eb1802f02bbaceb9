/**
 * "Hoy", the console's home page (issue 47, CONTRACT §23): what a user has to do today.
 *
 * - their viewings of today (the business's day, in its time zone), every agent's for an owner;
 * - follow-ups due or overdue across leads (an agent's: the leads assigned to them or to
 *   nobody; an owner's: all), each done or put off from the list;
 * - conversations waiting for an agent; new leads nobody has taken (db/repositories/today.ts
 *   `listUnassignedNewLeads`: searching ones too), each with the listing it asked about and the
 *   first words of its message, and how many there are; leads whose requests came again in the
 *   last 7 days (CONTRACT §22); how many e-mails wait as not understood; the business's signed
 *   mandates ending within 30 days, each at its warning (30, 15 or 7 days; CONTRACT §24).
 *
 * A follow-up is put off with services/leads/pipeline.ts `snoozeFollowUp`.
 */
import { DateTime } from 'luxon';
import type { Db } from '../../db/database.ts';
import { listConversations } from '../../db/repositories/messaging.ts';
import * as repo from '../../db/repositories/today.ts';
import { findListingsByReferences } from '../../db/repositories/viewings.ts';
import { inquiryReferences } from '../../domain/messaging/viewing-offer.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { businessClock } from '../viewings/clock.ts';
import { mandatesEnding } from '../owners/mandates.ts';
import { MANDATE_WARNINGS } from '../../domain/owners/mandates.ts';

/** Rows of each list shown; the page says how many more there are where it counts them. */
export const TODAY_SHOWN = 10;

/** Days back that a request which came again stays on "Hoy". */
export const CONTACTED_AGAIN_DAYS = 7;

/** The most characters of a new lead's message shown on "Hoy" (cut at a word, with `…`). */
export const MESSAGE_SHOWN = 90;

/**
 * The first words of the message a lead's generated note holds (domain/leads/notes.ts: the rest
 * of the line `Mensaje: …`, the message's first line): at most {@link MESSAGE_SHOWN} characters,
 * cut at a word with `…`. Null when the note holds none.
 */
export function messageOfNote(note: string | null): string | null {
  const match = note === null ? null : /^Mensaje: (.*)$/m.exec(note);
  if (!match) return null;
  const text = match[1].replace(/\s+/g, ' ').trim();
  if (text.length <= MESSAGE_SHOWN) return text || null;
  const cut = text.slice(0, MESSAGE_SHOWN - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > MESSAGE_SHOWN / 2 ? cut.slice(0, space) : cut).replace(/[\s.,;:]+$/, '')}…`;
}

/** Whose "Hoy" it is. */
export interface TodayReader {
  businessId: number;
  userId: number;
  role: 'owner' | 'agent';
}

/**
 * The lists of "Hoy" at `now` (epoch ms).
 * @returns `{zone, day (YYYY-MM-DD, the business's), viewings (with the lead's `phone` and the
 *   listing's `address`, `city`), followUps: {rows, total}, waiting, unassigned: {rows: [{id, name,
 *   type, source, captured_by, created_at, message (first words, or null), listing: {id, title,
 *   external_ref} | null}], total}, contactedAgain, emailsNotUnderstood, mandates: [{id, property_id,
 *   external_ref, title, ends_on, days_left, warning}]}`; times are RFC 3339
 *   instants, shown in `zone`.
 */
export async function todayOf(db: Db, reader: TodayReader, now: number = Date.now()) {
  const { zone } = await businessClock(db, reader.businessId);
  const local = DateTime.fromMillis(now, { zone });
  const dayStart = local.startOf('day');
  const mine = reader.role === 'owner' ? null : reader.userId;
  const at = toRfc3339(new Date(now));
  const [viewings, followUps, waiting, unassigned, contactedAgain, emailsNotUnderstood, mandates] = await Promise.all([
    repo.listViewingsBetween(db, reader.businessId, mine, toRfc3339(dayStart.toJSDate()), toRfc3339(dayStart.plus({ days: 1 }).toJSDate())),
    repo.listDueFollowUpsFor(db, reader.businessId, mine, at, TODAY_SHOWN),
    listConversations(db, { businessId: reader.businessId, waiting: true, limit: TODAY_SHOWN }),
    repo.listUnassignedNewLeads(db, reader.businessId, TODAY_SHOWN),
    repo.listContactedAgain(db, reader.businessId, toRfc3339(new Date(now - CONTACTED_AGAIN_DAYS * 86_400_000)), TODAY_SHOWN),
    repo.countEmailsNotUnderstood(db, reader.businessId),
    mandatesEnding(db, reader.businessId, MANDATE_WARNINGS[0], now, TODAY_SHOWN),
  ]);
  return {
    zone,
    day: dayStart.toISODate()!,
    viewings,
    followUps: { rows: followUps.rows.map((f) => ({ ...f, overdue: Date.parse(f.due_at) < dayStart.toMillis() })), total: followUps.total },
    waiting,
    unassigned: {
      rows: await Promise.all(unassigned.rows.map((lead) => newLeadShown(db, reader.businessId, lead))),
      total: unassigned.total,
    },
    contactedAgain: contactedAgain.map((c) => ({ ...c, times: Number(c.times) })),
    emailsNotUnderstood,
    mandates: mandates.map((m) => ({
      id: m.id,
      property_id: m.property_id,
      external_ref: m.external_ref,
      title: m.title,
      ends_on: m.ends_on,
      days_left: m.days_left,
      warning: m.warning,
    })),
  };
}

/**
 * A new lead as "Hoy" shows it: the first words of its message, and the listing it asked about:
 * the first of the business's listings its generated note names (the website kit's and the
 * listing page's "Ref. X", a portal e-mail's "Referencia del anuncio: X", a viewing request's).
 */
async function newLeadShown(db: Db, businessId: number, lead: Awaited<ReturnType<typeof repo.listUnassignedNewLeads>>['rows'][number]) {
  const { first_note: note, ...rest } = lead;
  const [listingId] = await findListingsByReferences(db, businessId, inquiryReferences(note === null ? [] : [note]));
  const listing = listingId === undefined ? null : ((await repo.findListingNamed(db, businessId, listingId)) ?? null);
  return { ...rest, message: messageOfNote(note), listing };
}
