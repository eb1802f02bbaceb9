/**
 * Agents' calendar URLs (migration 0035) and what their calendar reads (CONTRACT §20): SQL only,
 * the rules are in services/viewings/calendar.ts.
 */
import { sql } from 'kysely';
import type { Executor } from '../database.ts';
import { insertReturningId } from '../compiled-once.ts';

/** Revokes the user's live URL, if any. @returns whether one was revoked. */
export async function revokeLiveCalendarUrl(db: Executor, userId: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('calendar_urls')
    .set({ revoked_at: at })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Stores a new live URL of the user (only its token's hash). @returns its id. */
export async function insertCalendarUrl(
  db: Executor,
  row: { business_id: number; user_id: number; token_hash: string; created_at: string },
): Promise<number> {
  return insertReturningId(db, 'calendar_urls', { ...row, revoked_at: null });
}

/** When the user's live URL was made, or undefined when they have none. */
export async function findLiveCalendarUrl(db: Executor, userId: number): Promise<{ created_at: string } | undefined> {
  return db
    .selectFrom('calendar_urls')
    .select('created_at')
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Whose calendar a token's hash opens: a live URL of a user who is not disabled, with their
 * business's name and time zone; undefined otherwise.
 */
export async function findCalendarOwner(db: Executor, tokenHash: string) {
  return db
    .selectFrom('calendar_urls')
    .innerJoin('users', 'users.id', 'calendar_urls.user_id')
    .innerJoin('businesses', 'businesses.id', 'calendar_urls.business_id')
    .select([
      'calendar_urls.user_id',
      'calendar_urls.business_id',
      'users.email',
      'users.display_name',
      'businesses.name as business_name',
      'businesses.timezone',
    ])
    .where('calendar_urls.token_hash', '=', tokenHash)
    .where('calendar_urls.revoked_at', 'is', null)
    .where('users.disabled_at', 'is', null)
    .executeTakeFirst();
}

/**
 * The agent's viewings starting at `from` (canonical UTC) or later, by start then id, with what
 * the calendar shows of each: its listing's title, reference and address fields, and its lead's
 * name. Reads the index `viewings_agent` (user_id, starts_at).
 */
export async function listCalendarViewings(db: Executor, businessId: number, userId: number, from: string) {
  return (
    db
      .selectFrom('viewings')
      // CROSS JOIN: SQLite keeps this order (the agent's viewings by the index, then each one's
      // listing and lead by key) instead of perhaps walking every lead; PostgreSQL plans it as the
      // inner join it is.
      .crossJoin('properties')
      .crossJoin('leads')
      .whereRef('properties.id', '=', 'viewings.property_id')
      .whereRef('leads.id', '=', 'viewings.lead_id')
      .select([
        'viewings.id',
        'viewings.starts_at',
        'viewings.ends_at',
        'viewings.status',
        'viewings.kind',
        'viewings.sequence',
        'viewings.updated_at',
        'properties.title',
        'properties.external_ref',
        'properties.address',
        'properties.address_approximate',
        'properties.address_privacy',
        'properties.city',
        'leads.name as lead_name',
      ])
      .where('viewings.user_id', '=', userId)
      .where('viewings.business_id', '=', businessId)
      .where('viewings.starts_at', '>=', from)
      .orderBy('viewings.starts_at')
      .orderBy('viewings.id')
      .execute()
  );
}

/**
 * What {@link listCalendarViewings} would read, in one row of aggregates that changes whenever
 * any field it reads changes: how many viewings and the sum of their ids (one added, gone or
 * moved in or out of the window), the sum of their `sequence` and their latest `updated_at`
 * (every change to a viewing raises the one and sets the other), the sum of their listings'
 * `change_seq` (every write of a listing sets it to a new catalogue version) and their leads'
 * latest `updated_at` (every write of a lead's name or phone sets it). One pass over the index
 * `viewings_agent` and two joins by key; nothing is carried to the application per row.
 */
export async function calendarFingerprint(db: Executor, businessId: number, userId: number, from: string) {
  return (
    db
      .selectFrom('viewings')
      // CROSS JOIN: SQLite keeps this order (the agent's viewings by the index, then each one's
      // listing and lead by key) instead of perhaps walking every lead; PostgreSQL plans it as the
      // inner join it is.
      .crossJoin('properties')
      .crossJoin('leads')
      .whereRef('properties.id', '=', 'viewings.property_id')
      .whereRef('leads.id', '=', 'viewings.lead_id')
      .select([
        sql<number>`count(*)`.as('viewings'),
        sql<string>`coalesce(sum(viewings.id), 0)`.as('ids'),
        sql<string>`coalesce(sum(viewings.sequence), 0)`.as('sequences'),
        sql<string | null>`max(viewings.updated_at)`.as('viewings_changed'),
        sql<string>`coalesce(sum(properties.change_seq), 0)`.as('listings'),
        sql<string | null>`max(leads.updated_at)`.as('leads_changed'),
      ])
      .where('viewings.user_id', '=', userId)
      .where('viewings.business_id', '=', businessId)
      .where('viewings.starts_at', '>=', from)
      .executeTakeFirstOrThrow()
  );
}
