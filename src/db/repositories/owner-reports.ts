/**
 * What an owner's report is composed from and kept as (migration 0063, CONTRACT §24;
 * services/owners/owner-reports.ts). SQL only: rows as stored, every read of a listing's activity
 * taking the owner's listings at once (at most {@link IN_MAX} ids per statement).
 */
import { sql } from 'kysely';
import { readsMustLock, type Executor } from '../database.ts';
import type { OwnerReportTable } from '../types.ts';

/** Ids per `in (…)`: far below both engines' bind limits. */
const IN_MAX = 500;

async function inChunks<T>(ids: readonly number[], read: (chunk: number[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += IN_MAX) out.push(...(await read(ids.slice(i, i + IN_MAX))));
  return out;
}

/**
 * The owners of a business (or of all) with a signed mandate in force: their contact and
 * language, their choice of days, when their first mandate in force was signed and when their
 * last report's period ended (null: none yet). Ordered by id.
 */
export async function listOwnersWithSignedMandates(db: Executor, businessId?: number) {
  let query = db
    .selectFrom('leads as l')
    .innerJoin('mandates as m', 'm.owner_lead_id', 'l.id')
    .select([
      'l.id',
      'l.business_id',
      'l.name',
      'l.preferred_language',
      'l.personal_email',
      'l.professional_email',
      'l.owner_report_days',
      sql<string>`min(m.signed_at)`.as('first_signed_at'),
      (eb) =>
        eb
          .selectFrom('owner_reports as r')
          .select(sql<string | null>`max(r.period_to)`.as('t'))
          .whereRef('r.lead_id', '=', 'l.id')
          .as('last_to'),
    ])
    .where('m.status', '=', 'signed')
    .where('l.active', '=', 1)
    // An owner who unsubscribed gets no report (its delivery would refuse it anyway).
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(selectFrom('conversations as v').select('v.lead_id').whereRef('v.lead_id', '=', 'l.id').where('v.state', '=', 'opted_out')),
      ),
    )
    .groupBy(['l.id', 'l.business_id', 'l.name', 'l.preferred_language', 'l.personal_email', 'l.professional_email', 'l.owner_report_days'])
    .orderBy('l.id');
  if (businessId !== undefined) query = query.where('l.business_id', '=', businessId);
  return query.execute();
}
export type ReportOwnerRow = Awaited<ReturnType<typeof listOwnersWithSignedMandates>>[number];

/** The listings of the owners `ownerIds` under a signed mandate, with the mandate's operation and the listing's facts now. */
export async function listListingsUnderMandate(db: Executor, ownerIds: readonly number[]) {
  return inChunks(ownerIds, (chunk) =>
    db
      .selectFrom('mandates as m')
      .innerJoin('properties as p', 'p.id', 'm.property_id')
      .select([
        'm.owner_lead_id',
        'm.operation',
        'p.id',
        'p.business_id',
        'p.external_ref',
        'p.title',
        'p.type',
        'p.size_total',
        'p.bedrooms',
        'p.price',
        'p.price_rent',
        'p.postal_code',
        'p.lat',
        'p.lon',
        'p.created_at',
      ])
      .where('m.owner_lead_id', 'in', chunk)
      .where('m.status', '=', 'signed')
      .orderBy('p.id')
      .execute(),
  );
}
export type MandatedListingRow = Awaited<ReturnType<typeof listListingsUnderMandate>>[number];

/** Views of the listings per source: from `fromHour` to before `toHour` (`period`), and before `toHour` (`total`). */
export async function listViewCounts(db: Executor, propertyIds: readonly number[], fromHour: string, toHour: string) {
  return inChunks(propertyIds, (chunk) =>
    db
      .selectFrom('listing_views')
      .select([
        'property_id',
        'source',
        sql<number>`coalesce(sum(case when hour >= ${fromHour} then views else 0 end), 0)`.as('period'),
        sql<number>`coalesce(sum(views), 0)`.as('total'),
      ])
      .where('property_id', 'in', chunk)
      .where('hour', '<', toHour)
      .groupBy(['property_id', 'source'])
      .execute(),
  );
}

/**
 * Every contact of a lead with the listings before `to`: each request about one
 * (`listing_inquiries`, its source) and each viewing of one (a visit, not a valuation; its source).
 */
export async function listListingContacts(db: Executor, propertyIds: readonly number[], to: string) {
  const inquiries = await inChunks(propertyIds, (chunk) =>
    db
      .selectFrom('listing_inquiries')
      .select(['property_id', 'lead_id', 'created_at as at', 'source'])
      .where('property_id', 'in', chunk)
      .where('created_at', '<', to)
      .execute(),
  );
  const viewings = await inChunks(propertyIds, (chunk) =>
    db
      .selectFrom('viewings')
      .select(['property_id', 'lead_id', 'created_at as at', 'source'])
      .where('property_id', 'in', chunk)
      .where('kind', '=', 'visit')
      .where('created_at', '<', to)
      .execute(),
  );
  return { inquiries, viewings };
}

/** The visits done of the listings that started before `to`: when, and the agent's feedback (JSON `{interest, comment}`); nothing of the visitor. */
export async function listDoneVisits(db: Executor, propertyIds: readonly number[], to: string) {
  return inChunks(propertyIds, (chunk) =>
    db
      .selectFrom('viewings')
      .select(['property_id', 'starts_at', 'feedback'])
      .where('property_id', 'in', chunk)
      .where('kind', '=', 'visit')
      .where('status', '=', 'done')
      .where('starts_at', '<', to)
      .orderBy('starts_at')
      .execute(),
  );
}

/**
 * Per listing, the searching leads (active, `searching_property`) it matches now, and how many of
 * them were sent it (an alert digest or listings sent by hand whose message went out).
 */
export async function listMatchingCounts(db: Executor, propertyIds: readonly number[]) {
  return inChunks(propertyIds, (chunk) =>
    db
      .selectFrom(
        db
          .selectFrom('lead_matches as m')
          .innerJoin('leads as l', 'l.id', 'm.lead_id')
          .select(['m.property_id', 'm.lead_id'])
          .where('m.property_id', 'in', chunk)
          .where('m.failed', 'is', null)
          .where('l.status', '=', 'searching_property')
          .where('l.active', '=', 1)
          .distinct()
          .as('x'),
      )
      .select([
        'x.property_id',
        sql<number>`count(*)`.as('leads'),
        sql<number>`sum(case when exists (
          select 1 from alert_items i
          join alert_digests d on d.id = i.digest_id
          join messages g on g.id = d.message_id
          where i.property_id = x.property_id and i.lead_id = x.lead_id and g.state in ('sent', 'delivered', 'read')
        ) then 1 else 0 end)`.as('sent'),
      ])
      .groupBy('x.property_id')
      .execute(),
  );
}

/** The listings' price changes before `to`, oldest first. */
export async function listPriceChanges(db: Executor, propertyIds: readonly number[], to: string) {
  return inChunks(propertyIds, (chunk) =>
    db
      .selectFrom('property_price_changes')
      .select(['property_id', 'field', 'old_price', 'new_price', 'changed_at'])
      .where('property_id', 'in', chunk)
      .where('changed_at', '<', to)
      .orderBy('changed_at')
      .orderBy('id')
      .execute(),
  );
}

/**
 * The business's listings that may compare with an owner's (CONTRACT §24: its catalogue and pulled
 * feeds): with a type, a size and a position or postal code, available or reserved with a price,
 * or sold or let at a recorded price.
 */
export async function listComparableListings(db: Executor, businessId: number) {
  return db
    .selectFrom('properties')
    .select([
      'id',
      'external_ref',
      'title',
      'type',
      'size_total',
      'bedrooms',
      'price',
      'price_rent',
      'op_venta',
      'op_alquiler',
      'closed_price',
      'status',
      'postal_code',
      'lat',
      'lon',
    ])
    .where('business_id', '=', businessId)
    .where('size_total', '>', 0)
    .where('type', 'is not', null)
    .where('status', 'in', ['disponible', 'reservada', 'vendida', 'alquilada'])
    .execute();
}
export type ComparableRow = Awaited<ReturnType<typeof listComparableListings>>[number];

/**
 * When owner `leadId`'s last report's period ended (null: none), read in the composing transaction
 * with the owner's row locked (PostgreSQL), so that two composers at once see each other's report.
 */
export async function lastReportEnd(db: Executor, leadId: number): Promise<string | null> {
  if (readsMustLock(db)) await db.selectFrom('leads').select('id').where('id', '=', leadId).forUpdate().execute();
  const row = await db
    .selectFrom('owner_reports')
    .select(sql<string | null>`max(period_to)`.as('t'))
    .where('lead_id', '=', leadId)
    .executeTakeFirst();
  return row?.t ?? null;
}

/** Stores a composed report. @returns its id. */
export async function insertOwnerReport(db: Executor, row: Omit<OwnerReportTable, 'id'>): Promise<number> {
  const { id } = await db.insertInto('owner_reports').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

/** The report a message carries. */
export async function findReportOfMessage(db: Executor, messageId: number) {
  return db.selectFrom('owner_reports').selectAll().where('message_id', '=', messageId).executeTakeFirst();
}

/** Sets the hash of a report's page token (a claim again replaces it: the old link stops working). */
export async function setReportToken(db: Executor, reportId: number, tokenHash: string): Promise<void> {
  await db.updateTable('owner_reports').set({ page_token_hash: tokenHash }).where('id', '=', reportId).execute();
}

/** The report of a page token's hash, with its business's name. */
export async function findReportByToken(db: Executor, tokenHash: string) {
  return db
    .selectFrom('owner_reports as r')
    .innerJoin('businesses as b', 'b.id', 'r.business_id')
    .selectAll('r')
    .select(['b.name as business_name', 'b.timezone'])
    .where('r.page_token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** A business's report by id, with its business's name. */
export async function findOwnerReport(db: Executor, businessId: number, reportId: number) {
  return db
    .selectFrom('owner_reports as r')
    .innerJoin('businesses as b', 'b.id', 'r.business_id')
    .selectAll('r')
    .select(['b.name as business_name', 'b.timezone'])
    .where('r.business_id', '=', businessId)
    .where('r.id', '=', reportId)
    .executeTakeFirst();
}

/** An owner's reports, newest first, with their message's state. */
export async function listReportsOfOwner(db: Executor, businessId: number, leadId: number) {
  return db
    .selectFrom('owner_reports as r')
    .leftJoin('messages as g', 'g.id', 'r.message_id')
    .select([
      'r.id',
      'r.period_from',
      'r.period_to',
      'r.language',
      'r.created_at',
      'r.figures',
      'g.state as message_state',
      'g.kind as message_kind',
    ])
    .where('r.business_id', '=', businessId)
    .where('r.lead_id', '=', leadId)
    .orderBy('r.period_to', 'desc')
    .orderBy('r.id', 'desc')
    .execute();
}

/** Sets an owner's days between reports (null: the installation's). */
export async function setOwnerReportDays(db: Executor, businessId: number, leadId: number, days: number | null): Promise<boolean> {
  const result = await db
    .updateTable('leads')
    .set({ owner_report_days: days })
    .where('business_id', '=', businessId)
    .where('id', '=', leadId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
