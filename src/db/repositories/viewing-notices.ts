/**
 * What leads are told about their viewings (migration 0039, CONTRACT §20): the notices, the
 * one-click links of their e-mails, and the viewings whose reminder is due. SQL only.
 */
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../database.ts';
import type { ViewingLinkTable, ViewingNoticeTable } from '../types.ts';

export type ViewingNoticeRow = Selectable<ViewingNoticeTable>;
export type ViewingLinkRow = Selectable<ViewingLinkTable>;

/**
 * Records a notice. A reminder for a start time the viewing already has one for is refused by a
 * partial unique index (its predicate a literal, as SQLite matches it by text).
 * @returns the new row's id, or undefined for such a second reminder.
 */
export async function insertNotice(db: Executor, notice: Insertable<ViewingNoticeTable>): Promise<number | undefined> {
  let query = db.insertInto('viewing_notices').values(notice);
  if (notice.purpose === 'reminder') {
    query = query.onConflict((oc) => oc.columns(['viewing_id', 'starts_at']).where('purpose', '=', sql.lit('reminder')).doNothing());
  }
  const row = await query.returning('id').executeTakeFirst();
  return row?.id;
}

/** Sets the message carrying a notice. */
export async function setNoticeMessage(db: Executor, noticeId: number, messageId: number): Promise<void> {
  await db.updateTable('viewing_notices').set({ message_id: messageId }).where('id', '=', noticeId).execute();
}

/** The notice a message carries (its own message, or the e-mail standing in for its template). */
export async function findNoticeOfMessage(db: Executor, messageId: number): Promise<ViewingNoticeRow | undefined> {
  return db
    .selectFrom('viewing_notices')
    .selectAll()
    .where((eb) => eb.or([eb('message_id', '=', messageId), eb('fallback_message_id', '=', messageId)]))
    .executeTakeFirst();
}

/** Sets the e-mail standing in for a notice's template, unless it has one. @returns whether it was set. */
export async function setNoticeFallback(db: Executor, noticeId: number, messageId: number): Promise<boolean> {
  const result = await db
    .updateTable('viewing_notices')
    .set({ fallback_message_id: messageId })
    .where('id', '=', noticeId)
    .where('fallback_message_id', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A viewing's notices, oldest first. */
export async function listNotices(db: Executor, viewingId: number): Promise<ViewingNoticeRow[]> {
  return db.selectFrom('viewing_notices').selectAll().where('viewing_id', '=', viewingId).orderBy('id').execute();
}

/**
 * Viewings that may need their reminder now: `scheduled` or `confirmed`, starting in `(from,
 * until]`, with no reminder for their start time yet. At most `limit`, soonest first.
 */
export async function listReminderCandidates(db: Executor, from: string, until: string, limit: number) {
  return db
    .selectFrom('viewings as v')
    .select(['v.id', 'v.business_id', 'v.lead_id', 'v.starts_at', 'v.sequence'])
    .where('v.status', 'in', ['scheduled', 'confirmed'])
    .where('v.starts_at', '>', from)
    .where('v.starts_at', '<=', until)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('viewing_notices as n')
            .select('n.id')
            .whereRef('n.viewing_id', '=', 'v.id')
            .whereRef('n.starts_at', '=', 'v.starts_at')
            .where('n.purpose', '=', 'reminder'),
        ),
      ),
    )
    .orderBy('v.starts_at')
    .limit(limit)
    .execute();
}

/** The newest notice telling a viewing's time (scheduled or rescheduled) for a start time. */
export async function findTimeNotice(db: Executor, viewingId: number, startsAt: string): Promise<ViewingNoticeRow | undefined> {
  return db
    .selectFrom('viewing_notices')
    .selectAll()
    .where('viewing_id', '=', viewingId)
    .where('starts_at', '=', startsAt)
    .where('purpose', 'in', ['scheduled', 'rescheduled'])
    .where('message_id', 'is not', null)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** Keeps a one-click link's token hash. */
export async function insertViewingLink(db: Executor, link: Insertable<ViewingLinkTable>): Promise<void> {
  await db.insertInto('viewing_links').values(link).execute();
}

/** What a notice says of its viewing's listing: its reference, titles and the address as it may be published. */
export async function findNoticeListing(db: Executor, propertyId: number) {
  return db
    .selectFrom('properties')
    .select(['external_ref', 'title', 'titles', 'address', 'address_approximate', 'address_privacy', 'city'])
    .where('id', '=', propertyId)
    .executeTakeFirst();
}

/** A one-click link by its token's hash. */
export async function findViewingLink(db: Executor, tokenHash: string): Promise<ViewingLinkRow | undefined> {
  return db.selectFrom('viewing_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Marks a link used, once. @returns whether this call marked it. */
export async function markViewingLinkUsed(db: Executor, id: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('viewing_links')
    .set({ used_at: at })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
