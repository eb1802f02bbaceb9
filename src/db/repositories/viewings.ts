/**
 * Viewings (migration 0030, CONTRACT §20): SQL only; the rules are in services/viewings/ and
 * domain/viewings/. Times are canonical RFC 3339 UTC text, so that comparisons as text are
 * comparisons in time on both engines.
 */
import type { Insertable, Selectable } from 'kysely';
import { sql } from 'kysely';
import { isRowId, readsMustLock, type Executor } from '../database.ts';
import type { ViewingTable } from '../types.ts';
import type { ViewingKind } from '../../domain/viewings/status.ts';

export type ViewingRow = Selectable<ViewingTable>;

/** A viewing that holds its agent's time: `{user_id, starts_at, ends_at}` (canonical UTC). */
export interface HeldTime {
  user_id: number;
  starts_at: string;
  ends_at: string;
}

/** What a listing needs to be viewed: `listed` (public and disponible/reservada), its agent, title, reference and owner lead. */
export async function findListingToView(db: Executor, businessId: number, propertyId: number) {
  return db
    .selectFrom('properties')
    .select(['id', 'listed', 'agent_user_id', 'title', 'external_ref', 'owner_lead_id'])
    .where('id', '=', propertyId)
    .where('business_id', '=', businessId)
    .executeTakeFirst();
}

/**
 * The listings of the business named by `refs`, in the order of `refs`: an `external_ref`, or an
 * inmo id written `#12` (or `12` when `numbersAreIds`): what a lead may call a listing by (the
 * assistant, CONTRACT §20).
 */
export async function findListingsByReferences(
  db: Executor,
  businessId: number,
  refs: readonly string[],
  numbersAreIds = false,
): Promise<number[]> {
  if (refs.length === 0) return [];
  const idOf = (ref: string) => {
    const digits = /^#[1-9]\d{0,9}$/.test(ref) ? ref.slice(1) : numbersAreIds && /^[1-9]\d{0,9}$/.test(ref) ? ref : null;
    return digits !== null && isRowId(Number(digits)) ? Number(digits) : null;
  };
  const ids = refs.map(idOf).filter((id): id is number => id !== null);
  const rows = await db
    .selectFrom('properties')
    .select(['id', 'external_ref'])
    .where('business_id', '=', businessId)
    .where((eb) => eb.or([eb('external_ref', 'in', [...refs]), ...(ids.length ? [eb('id', 'in', ids)] : [])]))
    .execute();
  const found: number[] = [];
  for (const ref of refs) {
    const row = rows.find((r) => r.external_ref === ref) ?? rows.find((r) => r.id === idOf(ref));
    if (row && !found.includes(row.id)) found.push(row.id);
  }
  return found;
}

/** The name the console shows for a user (migration 0036), or null when none was given. */
export async function findUserDisplayName(db: Executor, businessId: number, userId: number): Promise<string | null> {
  const row = await db
    .selectFrom('users')
    .select('display_name')
    .where('id', '=', userId)
    .where('business_id', '=', businessId)
    .executeTakeFirst();
  return row?.display_name ?? null;
}

/** The ids of the business's active (not disabled) users, in id order; `only`: that one, if it is one of them. */
export async function listActiveAgents(db: Executor, businessId: number, only?: number): Promise<number[]> {
  let query = db.selectFrom('users').select('id').where('business_id', '=', businessId).where('disabled_at', 'is', null);
  if (only !== undefined) query = query.where('id', '=', only);
  return (await query.orderBy('id').execute()).map((r) => r.id);
}

/**
 * Locks the agents' rows, in id order, until the transaction ends (`FOR NO KEY UPDATE` on
 * PostgreSQL: two bookings for one agent take turns, while rows that merely refer to the user
 * are not held up; SQLite has one writer at a time).
 */
export async function lockAgents(trx: Executor, ids: readonly number[]): Promise<void> {
  if (!readsMustLock(trx) || ids.length === 0) return;
  await trx
    .selectFrom('users')
    .select('id')
    .where('id', 'in', [...ids])
    .orderBy('id')
    .forNoKeyUpdate()
    .execute();
}

/**
 * The times held (every status but `cancelled`) by the agents' viewings that overlap
 * `[from, to)`, in no particular order; `earliest`: no viewing starting before it can overlap
 * (the longest viewing's bound), which keeps the scan on the index `viewings_held`, whose
 * columns are all it reads. `except`: a viewing left out (the one being moved).
 */
export async function listHeldTimes(
  db: Executor,
  businessId: number,
  agents: readonly number[],
  range: { from: string; to: string; earliest: string },
  except?: number,
  withRequested = true,
): Promise<HeldTime[]> {
  if (agents.length === 0) return [];
  let query = db
    .selectFrom('viewings')
    .select(['user_id', 'starts_at', 'ends_at'])
    .where('business_id', '=', businessId)
    .where('user_id', 'in', [...agents])
    .where('starts_at', '>=', range.earliest)
    .where('starts_at', '<', range.to)
    .where('ends_at', '>', range.from)
    // Written as the partial index's condition is, a literal and not a parameter, so that both
    // engines see the index applies.
    .where('status', '<>', sql.lit('cancelled'));
  if (except !== undefined) query = query.where('id', '!=', except);
  if (!withRequested) query = query.where('status', '<>', 'requested');
  return query.execute();
}

/** A lead's viewing that is still to come and not settled: requested, scheduled or confirmed. */
export interface OpenViewing {
  id: number;
  property_id: number;
  starts_at: string;
  ends_at: string;
  status: string;
}

/** The lead's viewings `requested`, `scheduled` or `confirmed` that end after `now` (canonical UTC). */
export async function listOpenViewingsOfLead(db: Executor, businessId: number, leadId: number, now: string): Promise<OpenViewing[]> {
  return db
    .selectFrom('viewings')
    .select(['id', 'property_id', 'starts_at', 'ends_at', 'status'])
    .where('lead_id', '=', leadId)
    .where('business_id', '=', businessId)
    .where('status', 'in', ['requested', 'scheduled', 'confirmed'])
    .where('ends_at', '>', now)
    .orderBy('starts_at')
    .execute();
}

/**
 * How many of the lead's valuations (kind `valuation`) other than `except` are `requested`,
 * `scheduled` or `confirmed`: whether an owner still has a valuation booked (index `viewings_valuations`).
 */
export async function countOpenValuations(db: Executor, businessId: number, leadId: number, except: number): Promise<number> {
  const row = await db
    .selectFrom('viewings')
    .select(sql<number>`count(*)`.as('n'))
    .where('lead_id', '=', leadId)
    .where('kind', '=', 'valuation')
    .where('business_id', '=', businessId)
    .where('id', '<>', except)
    .where('status', 'in', ['requested', 'scheduled', 'confirmed'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The id of the lead's next viewing `scheduled` or `confirmed` that starts after `now` (canonical
 * UTC), or undefined: what a WhatsApp button's text answers (services/viewings/answers.ts).
 */
export async function findNextViewingToAnswer(db: Executor, businessId: number, leadId: number, now: string): Promise<number | undefined> {
  const next = await db
    .selectFrom('viewings')
    .select('id')
    .where('business_id', '=', businessId)
    .where('lead_id', '=', leadId)
    .where('status', 'in', ['scheduled', 'confirmed'])
    .where('starts_at', '>', now)
    .orderBy('starts_at')
    .limit(1)
    .executeTakeFirst();
  return next?.id;
}

/** A listing's reference and its titles (the default one, and by language as stored), or undefined. */
export async function findListingTitles(db: Executor, propertyId: number) {
  return db.selectFrom('properties').select(['external_ref', 'title', 'titles']).where('id', '=', propertyId).executeTakeFirst();
}

/**
 * How many viewings were booked since `since` (canonical UTC) through publishable key `apiKeyId`,
 * or, for `{propertyId}`, from the listing's public page (source `website`, no key), in any status;
 * `oldest`: the first one's `created_at`.
 */
export async function countRequestsSince(
  db: Executor,
  businessId: number,
  by: { apiKeyId: string } | { propertyId: number },
  since: string,
): Promise<{ count: number; oldest: string | null }> {
  let query = db
    .selectFrom('viewings')
    .select([sql<number>`count(*)`.as('n'), sql<string | null>`min(created_at)`.as('oldest')])
    .where('business_id', '=', businessId);
  query =
    'apiKeyId' in by
      ? query.where('api_key_id', '=', by.apiKeyId)
      : query.where('property_id', '=', by.propertyId).where('source', '=', 'website').where('api_key_id', 'is', null);
  const row = await query.where('created_at', '>', since).executeTakeFirstOrThrow();
  return { count: Number(row.n), oldest: row.oldest };
}

/**
 * Locks a lead's row, or a key's, until the transaction ends (`FOR NO KEY UPDATE` on PostgreSQL;
 * SQLite has one writer at a time), so that two bookings counted against one bound take turns.
 */
export async function lockForCount(trx: Executor, what: { leadId: number } | { apiKeyId: string }): Promise<void> {
  if (!readsMustLock(trx)) return;
  if ('leadId' in what) await trx.selectFrom('leads').select('id').where('id', '=', what.leadId).forNoKeyUpdate().execute();
  else await trx.selectFrom('api_keys').select('key_id').where('key_id', '=', what.apiKeyId).forNoKeyUpdate().execute();
}

/** Removes a viewing just inserted (a request kept as an interaction only, services/viewings/booking.ts). */
export async function deleteViewing(trx: Executor, id: number): Promise<void> {
  await trx.deleteFrom('viewings').where('id', '=', id).execute();
}

export async function insertViewing(trx: Executor, row: Insertable<ViewingTable>): Promise<ViewingRow> {
  return trx.insertInto('viewings').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The business's viewing `id`; `lock`: locked until the transaction ends (PostgreSQL). */
export async function findViewing(db: Executor, businessId: number, id: number, lock = false): Promise<ViewingRow | undefined> {
  let query = db.selectFrom('viewings').selectAll().where('id', '=', id).where('business_id', '=', businessId);
  if (lock && readsMustLock(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Changes a viewing, raising its `sequence` (iCalendar's SEQUENCE). */
export async function updateViewing(
  trx: Executor,
  id: number,
  set: Partial<Pick<ViewingTable, 'status' | 'starts_at' | 'ends_at' | 'user_id' | 'feedback' | 'updated_at'>>,
): Promise<ViewingRow> {
  return trx
    .updateTable('viewings')
    .set({ ...set, sequence: sql`sequence + 1` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Filters of a list of viewings: by lead, listing, agent, kind, and `starts_at` in `[from, to)` (canonical UTC). */
export interface ViewingFilters {
  leadId?: number;
  propertyId?: number;
  userId?: number;
  kind?: ViewingKind;
  from?: string;
  to?: string;
}

function filtered(db: Executor, businessId: number, f: ViewingFilters) {
  let query = db.selectFrom('viewings').where('business_id', '=', businessId);
  if (f.leadId !== undefined) query = query.where('lead_id', '=', f.leadId);
  if (f.propertyId !== undefined) query = query.where('property_id', '=', f.propertyId);
  if (f.userId !== undefined) query = query.where('user_id', '=', f.userId);
  if (f.kind !== undefined) query = query.where('kind', '=', f.kind);
  if (f.from !== undefined) query = query.where('starts_at', '>=', f.from);
  if (f.to !== undefined) query = query.where('starts_at', '<', f.to);
  return query;
}

/** A page of the business's viewings matching `filters`, by start then id. */
export async function listViewings(db: Executor, businessId: number, filters: ViewingFilters, limit: number, offset: number) {
  return filtered(db, businessId, filters).selectAll().orderBy('starts_at').orderBy('id').limit(limit).offset(offset).execute();
}

/** How many of the business's viewings match `filters`. */
export async function countViewings(db: Executor, businessId: number, filters: ViewingFilters): Promise<number> {
  const row = await filtered(db, businessId, filters)
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Filters of the console's lists of viewings: those of a list (lead, listing, agent, `[from, to)`), or one by `id`. */
export interface NamedViewingFilters extends ViewingFilters {
  id?: number;
}

/**
 * The business's viewings matching `filters` with the words a page shows beside them: the lead's
 * name and first phone, the listing's title, reference, address and city, the agent's e-mail. By start then id (`order` `desc`:
 * latest first), `limit` rows.
 */
export async function listNamedViewings(
  db: Executor,
  businessId: number,
  f: NamedViewingFilters,
  limit: number,
  order: 'asc' | 'desc' = 'asc',
) {
  let query = db
    .selectFrom('viewings as v')
    .innerJoin('leads as l', 'l.id', 'v.lead_id')
    .innerJoin('properties as p', 'p.id', 'v.property_id')
    .innerJoin('users as u', 'u.id', 'v.user_id')
    .select([
      'v.id',
      'v.lead_id',
      'v.property_id',
      'v.user_id',
      'v.kind',
      'v.starts_at',
      'v.ends_at',
      'v.status',
      'v.source',
      'v.feedback',
      'v.sequence',
      'v.created_at',
      'v.updated_at',
      'l.name as lead_name',
      'l.phone_number_1 as lead_phone',
      'p.title',
      'p.external_ref',
      'p.address',
      'p.city',
      'u.email as agent_email',
      'u.display_name as agent_display_name',
    ])
    .where('v.business_id', '=', businessId);
  if (f.id !== undefined) query = query.where('v.id', '=', f.id);
  if (f.leadId !== undefined) query = query.where('v.lead_id', '=', f.leadId);
  if (f.propertyId !== undefined) query = query.where('v.property_id', '=', f.propertyId);
  if (f.userId !== undefined) query = query.where('v.user_id', '=', f.userId);
  if (f.from !== undefined) query = query.where('v.starts_at', '>=', f.from);
  if (f.to !== undefined) query = query.where('v.starts_at', '<', f.to);
  return query.orderBy('v.starts_at', order).orderBy('v.id', order).limit(limit).execute();
}
