/**
 * Agents' calendars (CONTRACT §20 "Agents' calendars"): each console user's private, revocable
 * URL `/calendar/<token>.ics`, which a phone's calendar subscribes to, and the document it serves.
 *
 * - The token is a capability token (domain/capability-token.ts: 256 bits from the CSPRNG, 43
 *   base64url characters; those made before issue 56 are 43 base62 characters, and still open
 *   their calendar), shown once; only its SHA-256 is kept (migration 0035), as for API keys and
 *   feed URLs: a fast hash is right for a random secret this long. A user has at most one live URL: making one revokes the one before,
 *   in the same transaction (the user's row is locked first, so two at once take turns). Both are
 *   recorded in the audit trail (CONTRACT §18). A disabled user's URL answers no more.
 * - The document (domain/viewings/calendar.ts) holds the user's viewings from the start of the
 *   local day {@link CALENDAR_DAYS_BACK} days ago onwards, cancelled ones included (as
 *   `CANCELLED`, so a subscribed phone drops them).
 * - Polling costs little: each request reads the URL's owner and one row of aggregates over the
 *   viewings it would show (db/repositories/calendar-urls.ts `calendarFingerprint`, which changes
 *   whenever a field the document shows changes); the rows are read and the document built only
 *   when that fingerprint differs from the one it was last built at in this process. Otherwise the
 *   same Buffer is handed out again, whose hash and compressed forms are already known
 *   (http/conditional.ts), so `If-None-Match` is answered 304 at the cost of the two reads. The
 *   same rows always give the same bytes, so every process gives the same ETag.
 */
import { LRUCache } from 'lru-cache';
import { DateTime } from 'luxon';
import type { Db, Executor } from '../../db/database.ts';
import { transact } from '../../db/transaction.ts';
import * as repo from '../../db/repositories/calendar-urls.ts';
import { findUser } from '../../db/repositories/users.ts';
import { lockAgents } from '../../db/repositories/viewings.ts';
import { hashToken, mintToken, TOKEN_FORM } from '../../domain/capability-token.ts';
import { agentCalendar } from '../../domain/viewings/calendar.ts';
import { nowRfc3339, toRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { CLI, recordAudit, type AuditActor } from '../access/audit.ts';

/** A calendar URL's token: 43 base64url characters (base62 ones, made before issue 56, have this form too). */
const TOKEN = TOKEN_FORM;

/** The calendar reaches back to the start of the business's local day this many days ago. */
export const CALENDAR_DAYS_BACK = 90;

/** The path of a calendar URL (prefix it with the server's public URL). */
export const calendarPath = (token: string) => `/calendar/${token}.ics`;

/** A calendar URL just made: its path, shown this once, and when it was made (canonical RFC 3339). */
export interface NewCalendarUrl {
  path: string;
  created_at: string;
}

/** A user of `businessId` (any business when null) who is not disabled. @throws InmoError USER_NOT_FOUND, CALENDAR_USER_DISABLED. */
async function activeUser(db: Executor, userId: number, businessId: number | null) {
  const user = await findUser(db, userId, businessId);
  if (!user) throw new InmoError('USER_NOT_FOUND', { id: userId });
  if (user.disabled_at !== null) throw new InmoError('CALENDAR_USER_DISABLED', { id: userId });
  return user;
}

/**
 * Makes the user a new calendar URL, revoking the one they had (it answers 404 from then on).
 * @param businessId the business whose user alone it may be (the console), or null for any (the operator's CLI).
 * @param actor who did it, for the audit trail: the command line unless said.
 * @returns the URL's path, shown once: only its token's hash is kept.
 * @throws InmoError USER_NOT_FOUND (also another business's user), CALENDAR_USER_DISABLED.
 */
export async function makeCalendarUrl(db: Db, userId: number, businessId: number | null, actor: AuditActor = CLI): Promise<NewCalendarUrl> {
  const { token, hash } = mintToken();
  const createdAt = nowRfc3339();
  await transact(db, async (trx) => {
    await lockAgents(trx, [userId]);
    const user = await activeUser(trx, userId, businessId);
    await repo.revokeLiveCalendarUrl(trx, user.id, createdAt);
    await repo.insertCalendarUrl(trx, {
      business_id: user.business_id,
      user_id: user.id,
      token_hash: hash,
      created_at: createdAt,
    });
    await recordAudit(trx, user.business_id, actor, 'calendar.create', user.id, createdAt);
  });
  return { path: calendarPath(token), created_at: createdAt };
}

/**
 * Revokes the user's calendar URL (idempotent): it answers 404 from then on.
 * @param businessId the business whose user alone it may be (the console), or null for any (the operator's CLI).
 * @returns whether there was a live URL to revoke.
 * @throws InmoError USER_NOT_FOUND (also another business's user).
 */
export async function revokeCalendarUrl(db: Db, userId: number, businessId: number | null, actor: AuditActor = CLI): Promise<boolean> {
  const at = nowRfc3339();
  return transact(db, async (trx) => {
    const user = await findUser(trx, userId, businessId);
    if (!user) throw new InmoError('USER_NOT_FOUND', { id: userId });
    const revoked = await repo.revokeLiveCalendarUrl(trx, user.id, at);
    if (revoked) await recordAudit(trx, user.business_id, actor, 'calendar.revoke', user.id, at);
    return revoked;
  });
}

/** Whether the business's user has a live calendar URL: when it was made, or null (never the URL: only its hash is kept). */
export async function calendarUrlState(db: Db, businessId: number, userId: number): Promise<{ created_at: string } | null> {
  const user = await findUser(db, userId, businessId);
  if (!user) throw new InmoError('USER_NOT_FOUND', { id: userId });
  return (await repo.findLiveCalendarUrl(db, user.id)) ?? null;
}

/** The first instant the calendar holds: the start of the local day {@link CALENDAR_DAYS_BACK} days before `now` (epoch ms) in `zone`. */
export function calendarWindowStart(now: number, zone: string): string {
  return toRfc3339(DateTime.fromMillis(now, { zone }).startOf('day').minus({ days: CALENDAR_DAYS_BACK }).toJSDate());
}

/** Documents built, by the token's hash: the fingerprint they were built at, and their bytes. */
const built = new LRUCache<string, { fingerprint: string; body: Buffer }>({
  maxSize: 64 * 1024 * 1024,
  sizeCalculation: (entry) => entry.body.length + 1,
});

/**
 * The calendar a URL's token opens, as RFC 5545 bytes (UTF-8).
 * @param options.host the host of the events' UIDs (`viewing-<id>@<host>`).
 * @param options.origin the origin of the events' links to the console (http/origin.ts `serverOrigin`).
 * @param options.now the instant the window is counted from, epoch ms; now by default (tests).
 * @returns the document, the very same Buffer while nothing it shows changed; null for a token
 *   that opens nothing (malformed, unknown, revoked, or its user disabled).
 */
export async function calendarDocument(
  db: Db,
  token: string,
  options: { host: string; origin: string; now?: number },
): Promise<Buffer | null> {
  if (!TOKEN.test(token)) return null;
  const hash = hashToken(token);
  const owner = await repo.findCalendarOwner(db, hash);
  if (!owner) {
    built.delete(hash);
    return null;
  }
  const from = calendarWindowStart(options.now ?? Date.now(), owner.timezone);
  // The user as CONTRACT §23 names them: the display name, else the e-mail.
  const heading = {
    name: `${owner.business_name} · ${owner.display_name ?? owner.email}`,
    zone: owner.timezone,
    host: options.host,
    origin: options.origin,
  };
  // Read before the rows: a change landing in between makes the next request build again, and
  // never leaves a document older than the fingerprint it is kept under.
  const aggregates = await repo.calendarFingerprint(db, owner.business_id, owner.user_id, from);
  const fingerprint = JSON.stringify([heading, from, Object.values(aggregates).map((v) => (v === null ? null : String(v)))]);
  const known = built.get(hash);
  if (known?.fingerprint === fingerprint) return known.body;
  const viewings = await repo.listCalendarViewings(db, owner.business_id, owner.user_id, from);
  const body = Buffer.from(agentCalendar(heading, viewings), 'utf8');
  built.set(hash, { fingerprint, body });
  return body;
}
