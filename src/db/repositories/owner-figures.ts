/**
 * What the owner's figures of the last days are read from (CONTRACT §23, services/console/owner-figures.ts).
 * SQL only: rows as stored (instants canonical RFC 3339 UTC text, which sorts as time), no rules.
 */
import { sql } from 'kysely';
import type { Executor } from '../database.ts';

/**
 * A lead created since an instant, with the first times a person acted on it: an agent's
 * WhatsApp message to it (`messages`, author `agent`) and a status change made in the console
 * by a user (`lead_history`, change `status` with a user). Null where there was none.
 */
export interface LeadContactRow {
  id: number;
  source: string | null;
  status: string;
  assigned_user_id: number | null;
  created_at: string;
  first_agent_message_at: string | null;
  first_status_change_at: string | null;
}

/**
 * The business's leads created at or after `from` (RFC 3339), oldest first, with their first
 * contacts by a person (see {@link LeadContactRow}). Reads the index `leads_newest_first`
 * and, per lead, `messages_thread` and `lead_history_lead`.
 */
export async function leadsWithFirstContact(db: Executor, businessId: number, from: string): Promise<LeadContactRow[]> {
  return db
    .selectFrom('leads as l')
    .select([
      'l.id',
      'l.source',
      'l.status',
      'l.assigned_user_id',
      'l.created_at',
      (eb) =>
        eb
          .selectFrom('messages as m')
          .select(sql<string | null>`min(m.created_at)`.as('at'))
          .whereRef('m.lead_id', '=', 'l.id')
          .where('m.direction', '=', 'out')
          .where('m.author', '=', 'agent')
          .as('first_agent_message_at'),
      (eb) =>
        eb
          .selectFrom('lead_history as h')
          .select(sql<string | null>`min(h.created_at)`.as('at'))
          .whereRef('h.lead_id', '=', 'l.id')
          .where('h.change', '=', 'status')
          .where('h.user_id', 'is not', null)
          .as('first_status_change_at'),
    ])
    .where('l.business_id', '=', businessId)
    .where('l.created_at', '>=', from)
    .orderBy('l.created_at')
    .orderBy('l.id')
    .execute();
}

/**
 * A listing that moved in the period: its status, whether it is public, when it came into the
 * catalogue (`created_at`, the listing's own date when an import line gave one), when it was
 * last written (`updated_at`), and the day of its sale or rental as the console recorded it
 * (`closed_on`, `YYYY-MM-DD` in the business's time zone, migration 0038; null when none was).
 */
export interface ListingMoveRow {
  status: string;
  public: number;
  created_at: string;
  updated_at: string;
  closed_on: string | null;
}

/**
 * The business's listings that are public and came into the catalogue at or after `from`, or
 * that are reserved, sold or rented since then: sold or rented on `fromDay` or later where the
 * day was recorded, else last written at or after `from` (RFC 3339). No index narrows this by
 * time: it reads the business's listings once.
 * @param fromDay the business's day that `from` starts, `YYYY-MM-DD`.
 */
export async function listingsMovedSince(db: Executor, businessId: number, from: string, fromDay: string): Promise<ListingMoveRow[]> {
  return db
    .selectFrom('properties')
    .select(['status', 'public', 'created_at', 'updated_at', 'closed_on'])
    .where('business_id', '=', businessId)
    .where((eb) =>
      eb.or([
        eb.and([eb('public', '=', 1), eb('created_at', '>=', from)]),
        eb.and([
          eb('status', 'in', ['reservada', 'vendida', 'alquilada']),
          eb.or([eb('closed_on', '>=', fromDay), eb.and([eb('closed_on', 'is', null), eb('updated_at', '>=', from)])]),
        ]),
      ]),
    )
    .execute();
}

/** The business's console users (disabled ones too: their leads still count): id, e-mail, whether disabled. */
export async function consoleUsers(db: Executor, businessId: number) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'display_name', 'disabled_at'])
    .where('business_id', '=', businessId)
    .orderBy('id')
    .execute();
}
