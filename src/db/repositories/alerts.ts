/** Alerts (CONTRACT §21, migration 0032): candidates, digests, their listings, dismissals. SQL only. */
import { sql, type Insertable, type RawBuilder } from 'kysely';
import type { Executor } from '../database.ts';
import type { AlertItemTable } from '../types.ts';

/** Rows per insert statement. */
const CHUNK = 500;

/** `alert_digests.origin` of the daily alert, and of listings an agent sends by hand (migration 0041). */
export const ALERT_ORIGIN = 'alert';
export const HAND_ORIGIN = 'agent';

/** The states of a message that went out. */
const SENT_STATES = ['sent', 'delivered', 'read'];

/**
 * Whether the lead aliased `l` takes alerts: searching and active, its newest consent says
 * `marketing` yes or its agent ticked "wants alerts", and it has not opted out.
 */
const TAKES_ALERTS: RawBuilder<boolean> = sql<boolean>`(l.status = 'searching_property' and l.active = 1
  and (l.wants_alerts = 1
    or (select c.marketing from lead_consents c where c.lead_id = l.id order by c.id desc limit 1) = 1)
  and not exists (select 1 from conversations v where v.lead_id = l.id and v.state = 'opted_out'))`;

/** Whether a lead takes alerts now (see {@link TAKES_ALERTS}). */
export async function leadTakesAlerts(db: Executor, leadId: number): Promise<boolean> {
  const row = await db.selectFrom('leads as l').select('l.id').where('l.id', '=', leadId).where(TAKES_ALERTS).executeTakeFirst();
  return row !== undefined;
}

/** Which of these leads take alerts now (see {@link TAKES_ALERTS}). */
export async function listLeadsTakingAlerts(db: Executor, leadIds: readonly number[]): Promise<Set<number>> {
  const taking = new Set<number>();
  for (let i = 0; i < leadIds.length; i += CHUNK) {
    const rows = await db
      .selectFrom('leads as l')
      .select('l.id')
      .where('l.id', 'in', leadIds.slice(i, i + CHUNK))
      .where(TAKES_ALERTS)
      .execute();
    for (const row of rows) taking.add(row.id);
  }
  return taking;
}

/** Records listings that newly match leads as candidates of their next digests (a listing already waiting stays once). */
export async function insertAlertCandidates(
  db: Executor,
  businessId: number,
  candidates: ReadonlyArray<{ leadId: number; propertyIds: readonly number[] }>,
  at: string,
): Promise<void> {
  const rows = candidates.flatMap((c) =>
    c.propertyIds.map((property_id) => ({ lead_id: c.leadId, property_id, business_id: businessId, created_at: at })),
  );
  for (let i = 0; i < rows.length; i += CHUNK) {
    await db
      .insertInto('alert_candidates')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) => oc.columns(['lead_id', 'property_id']).doNothing())
      .execute();
  }
}

/**
 * What both kinds of candidate need (`x` names `lead_id` and `property_id`, `l` the lead, `p` the
 * listing): the lead takes alerts, the listing is public and available and still matches one of
 * its searches, the lead did not dismiss it, and has no digest of `round` yet.
 */
const offerable = (round: string) => sql<boolean>`(p.listed = 1 and p.status = 'disponible' and ${TAKES_ALERTS}
  and exists (select 1 from lead_matches m where m.lead_id = x.lead_id and m.property_id = x.property_id and m.failed is null)
  and not exists (select 1 from lead_dismissals dd where dd.lead_id = x.lead_id and dd.property_id = x.property_id)
  and not exists (select 1 from alert_digests dg where dg.lead_id = x.lead_id and dg.round = ${round} and dg.origin = 'alert'))`;

/** The price a listing states now in the column `x.price_field` names (an item's, or a match price's). */
const CURRENT_PRICE = sql<
  number | null
>`(case x.price_field when 'price_rent' then p.price_rent when 'price_transfer' then p.price_transfer else p.price end)`;

/**
 * What the business's leads that take alerts may be sent in `round` (any lead not sent that
 * round's digest yet), each only while offerable ({@link offerable}):
 *
 * - `new`: listings waiting as candidates that were never sent to the lead;
 * - `price_drop`: listings whose price, in the column the reference was read from, is now at most
 *   `keepShare` of the reference (CONTRACT §21 "drops its price by 3 % or more"). The reference
 *   is the price the lead last saw, the newest item sent to it (in an alert or by hand), else the
 *   price the listing had when it started matching the lead (`alert_match_prices`, migration
 *   0051). A reference moves only when the listing is sent, or starts matching again, so small
 *   drops add up; a rise does not move it.
 * @returns `[{lead_id, property_id, since (RFC 3339: when it became a candidate, was sent, or
 *   started matching), reason, price_field, before (the reference, €; null for `new`)}]`.
 */
export async function listDigestCandidates(db: Executor, businessId: number, round: string, keepShare: number) {
  const offered = (from: 'alert_candidates' | 'alert_items' | 'alert_match_prices') =>
    db
      .selectFrom(`${from} as x` as 'alert_candidates as x')
      .innerJoin('leads as l', 'l.id', 'x.lead_id')
      .innerJoin('properties as p', 'p.id', 'x.property_id')
      .select(['x.lead_id', 'x.property_id', 'x.created_at as since'])
      .where('x.business_id', '=', businessId)
      .where(offerable(round));
  const neverSent = sql<boolean>`not exists (select 1 from alert_items i where i.lead_id = x.lead_id and i.property_id = x.property_id)`;
  const dropped = sql<boolean>`x.price > 0 and ${CURRENT_PRICE} <= x.price * ${keepShare}`;
  const reference = [sql<string>`x.price_field`.as('price_field'), sql<number>`x.price`.as('before')];
  const fresh = await offered('alert_candidates').where(neverSent).execute();
  const droppedSinceSent = await offered('alert_items')
    .select(reference)
    .where(sql<boolean>`x.latest = 1 and ${dropped}`)
    .execute();
  const droppedSinceMatched = await offered('alert_match_prices').select(reference).where(neverSent).where(dropped).execute();
  return [
    ...fresh.map((r) => ({ ...r, reason: 'new' as const, price_field: null, before: null })),
    ...[...droppedSinceSent, ...droppedSinceMatched].map((r) => ({ ...r, reason: 'price_drop' as const, before: Number(r.before) })),
  ];
}

/**
 * Records the prices listings had when they started matching leads (the reference of a price
 * drop while never sent, migration 0051), replacing any older one, and drops those of listings
 * that stopped matching.
 * @param started `[{lead_id, property_id, price_field, price (€ or null)}]`.
 * @param stopped per lead, the listings it no longer matches.
 */
export async function writeMatchPrices(
  db: Executor,
  businessId: number,
  started: ReadonlyArray<{ lead_id: number; property_id: number; price_field: string; price: number | null }>,
  stopped: ReadonlyArray<{ leadId: number; propertyIds: readonly number[] }>,
  at: string,
): Promise<void> {
  for (const { leadId, propertyIds } of stopped) {
    for (let i = 0; i < propertyIds.length; i += CHUNK) {
      await db
        .deleteFrom('alert_match_prices')
        .where('lead_id', '=', leadId)
        .where('property_id', 'in', propertyIds.slice(i, i + CHUNK))
        .execute();
    }
  }
  const rows = started.map((r) => ({ ...r, business_id: businessId, created_at: at }));
  // 6 parameters a row: well under SQLite's limit.
  for (let i = 0; i < rows.length; i += CHUNK) {
    await db
      .insertInto('alert_match_prices')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc.columns(['lead_id', 'property_id']).doUpdateSet((eb) => ({
          price_field: eb.ref('excluded.price_field'),
          price: eb.ref('excluded.price'),
          created_at: eb.ref('excluded.created_at'),
        })),
      )
      .execute();
  }
}

/** The prices and offers of some listings, as the reference of a match is read from them. */
export async function listListingPrices(db: Executor, propertyIds: readonly number[]) {
  const rows = [];
  for (let i = 0; i < propertyIds.length; i += CHUNK) {
    rows.push(
      ...(await db
        .selectFrom('properties')
        .select(['id', 'op_venta', 'op_alquiler', 'op_traspaso', 'price', 'price_rent', 'price_transfer'])
        .where('id', 'in', propertyIds.slice(i, i + CHUNK))
        .execute()),
    );
  }
  return rows;
}

/** What a digest's listings are written from: the lead's searches and address, and each listing's prices and offers. */
export async function listDigestSources(db: Executor, leadId: number, propertyIds: readonly number[]) {
  const lead = await db
    .selectFrom('leads')
    .select(['id', 'business_id', 'search_preferences', 'preferred_language', 'personal_email', 'professional_email'])
    .where('id', '=', leadId)
    .executeTakeFirst();
  if (!lead || propertyIds.length === 0) return { lead, listings: [], matches: [] };
  const listings = await db
    .selectFrom('properties')
    .select(['id', 'op_venta', 'op_alquiler', 'op_traspaso', 'price', 'price_rent', 'price_transfer'])
    .where('id', 'in', propertyIds)
    .execute();
  const matches = await db
    .selectFrom('lead_matches')
    .select(['property_id', 'search_index'])
    .where('lead_id', '=', leadId)
    .where('failed', 'is', null)
    .where('property_id', 'in', propertyIds)
    .execute();
  return { lead, listings, matches };
}

/**
 * Claims a lead's digest of `round`. @returns its id, or undefined when the lead already has
 * that round's digest (another composer got there first: PostgreSQL waits for it to commit).
 */
export async function claimDigest(db: Executor, row: { business_id: number; lead_id: number; round: string; created_at: string }) {
  const inserted = await db
    .insertInto('alert_digests')
    .values({ ...row, message_id: null, origin: ALERT_ORIGIN, user_id: null })
    // The index's own predicate, written as it is (SQLite matches a partial index by its text, not by a bound value).
    .onConflict((oc) =>
      oc
        .columns(['lead_id', 'round'])
        .where(sql<boolean>`origin = 'alert'`)
        .doNothing(),
    )
    .returning('id')
    .executeTakeFirst();
  return inserted?.id;
}

/**
 * Records listings an agent sends by hand (migration 0041): a digest of origin `agent`, by
 * `user_id`, with no limit per day (`round` is the business's local date of the send).
 * @returns its id.
 */
export async function insertHandDigest(
  db: Executor,
  row: { business_id: number; lead_id: number; round: string; user_id: number; message_id: number; created_at: string },
): Promise<number> {
  const inserted = await db
    .insertInto('alert_digests')
    .values({ ...row, origin: HAND_ORIGIN })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

/**
 * The listings of each send by hand to a lead since `since` (RFC 3339), by its message, with the
 * message's channel (`kind`): what a second post of the same form (a double click) is compared with.
 */
export async function listRecentHandSends(db: Executor, leadId: number, since: string) {
  return db
    .selectFrom('alert_digests as d')
    .innerJoin('alert_items as i', 'i.digest_id', 'd.id')
    .innerJoin('messages as m', 'm.id', 'd.message_id')
    .select(['d.message_id', 'm.kind', 'i.property_id'])
    .where('d.lead_id', '=', leadId)
    .where('d.origin', '=', HAND_ORIGIN)
    .where('d.created_at', '>=', since)
    .execute();
}

/**
 * The business's listings among `propertyIds` as a hand send needs them: reference, whether the
 * listing is in the public catalogue (`listed` 1), prices and operations, and whether the lead
 * dismissed it ("No me interesa").
 */
export async function listHandSendables(db: Executor, businessId: number, leadId: number, propertyIds: readonly number[]) {
  if (propertyIds.length === 0) return [];
  return db
    .selectFrom('properties as p')
    .leftJoin('lead_dismissals as x', (join) => join.onRef('x.property_id', '=', 'p.id').on('x.lead_id', '=', leadId))
    .select([
      'p.id',
      'p.external_ref',
      'p.listed',
      'p.op_venta',
      'p.op_alquiler',
      'p.op_traspaso',
      'p.price',
      'p.price_rent',
      'p.price_transfer',
      'x.created_at as dismissed_at',
    ])
    .where('p.business_id', '=', businessId)
    .where('p.id', 'in', propertyIds)
    .execute();
}

/** Links a digest to its message. */
export async function setDigestMessage(db: Executor, digestId: number, messageId: number): Promise<void> {
  await db.updateTable('alert_digests').set({ message_id: messageId }).where('id', '=', digestId).execute();
}

/** Records a digest's listings; each becomes the newest item of its (lead, listing). */
export async function insertAlertItems(
  db: Executor,
  leadId: number,
  items: Array<Omit<Insertable<AlertItemTable>, 'latest' | 'lead_id'>>,
): Promise<void> {
  if (items.length === 0) return;
  await db
    .updateTable('alert_items')
    .set({ latest: 0 })
    .where('lead_id', '=', leadId)
    .where(
      'property_id',
      'in',
      items.map((i) => i.property_id),
    )
    .where('latest', '=', 1)
    .execute();
  await db
    .insertInto('alert_items')
    .values(items.map((i) => ({ ...i, lead_id: leadId, latest: 1 })))
    .execute();
}

/** Drops a lead's candidates for these listings (sent, or no longer offerable). */
export async function deleteAlertCandidates(db: Executor, leadId: number, propertyIds: readonly number[]): Promise<void> {
  for (let i = 0; i < propertyIds.length; i += CHUNK) {
    await db
      .deleteFrom('alert_candidates')
      .where('lead_id', '=', leadId)
      .where('property_id', 'in', propertyIds.slice(i, i + CHUNK))
      .execute();
  }
}

/** Drops the business's candidates that can never be sent: dismissed, or already sent (a price drop is found from the item instead). */
export async function deleteSpentCandidates(db: Executor, businessId: number): Promise<void> {
  await db
    .deleteFrom('alert_candidates as x')
    .where('x.business_id', '=', businessId)
    .where(
      sql<boolean>`(exists (select 1 from lead_dismissals dd where dd.lead_id = x.lead_id and dd.property_id = x.property_id)
        or exists (select 1 from alert_items i where i.lead_id = x.lead_id and i.property_id = x.property_id))`,
    )
    .execute();
}

/**
 * Moves the business's alert round forward to `round` (`YYYY-MM-DD`), never back.
 * @returns whether it moved (false: that round or a later one was composed already).
 */
export async function advanceAlertsRound(db: Executor, businessId: number, round: string): Promise<boolean> {
  const result = await db
    .updateTable('businesses')
    .set({ alerts_round: round })
    .where('id', '=', businessId)
    .where((eb) => eb.or([eb('alerts_round', 'is', null), eb('alerts_round', '<', round)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Every business with its latest composed alert round. */
export async function listAlertRounds(db: Executor) {
  return db.selectFrom('businesses').select(['id', 'alerts_round', 'timezone']).orderBy('id').execute();
}

/** What a digest's item says of its listing (`i` the item, `p` the listing): the e-mail's and the digest page's columns. */
export const DIGEST_ITEM_COLUMNS = [
  'i.id',
  'i.property_id',
  'i.reason',
  'i.price',
  'i.price_before',
  'i.price_field',
  'p.external_ref',
  'p.title',
  'p.titles',
  'p.size_total',
  'p.bedrooms',
  'p.city',
] as const;

/** The digest a message carries, with its listings as the e-mail shows them, in the digest's order. */
/** The origin of the digest a message carries (`alert`, or `agent` for listings sent by hand), or undefined when it carries none. */
export async function findDigestOrigin(db: Executor, messageId: number): Promise<string | undefined> {
  const row = await db.selectFrom('alert_digests').select('origin').where('message_id', '=', messageId).executeTakeFirst();
  return row?.origin;
}

export async function listDigestOfMessage(db: Executor, messageId: number) {
  const digest = await db.selectFrom('alert_digests').selectAll().where('message_id', '=', messageId).executeTakeFirst();
  if (!digest) return undefined;
  const items = await db
    .selectFrom('alert_items as i')
    .innerJoin('properties as p', 'p.id', 'i.property_id')
    .select(DIGEST_ITEM_COLUMNS)
    .where('i.digest_id', '=', digest.id)
    .orderBy('i.id')
    .execute();
  return { digest, items };
}

/** Sets the hash of an item's "No me interesa" token. */
export async function setAlertItemToken(db: Executor, itemId: number, tokenHash: string): Promise<void> {
  await db.updateTable('alert_items').set({ token_hash: tokenHash }).where('id', '=', itemId).execute();
}

/** The item of a "No me interesa" token's hash, with its listing's title. */
export async function findAlertItemByToken(db: Executor, tokenHash: string) {
  return db
    .selectFrom('alert_items as i')
    .innerJoin('properties as p', 'p.id', 'i.property_id')
    .select(['i.id', 'i.business_id', 'i.lead_id', 'i.property_id', 'p.title', 'p.external_ref'])
    .where('i.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Records that a lead is not interested in a listing. @returns whether it was new. */
export async function insertDismissal(
  db: Executor,
  row: { lead_id: number; property_id: number; business_id: number; created_at: string },
) {
  const result = await db
    .insertInto('lead_dismissals')
    .values(row)
    .onConflict((oc) => oc.columns(['lead_id', 'property_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Whether a lead dismissed a listing. */
export async function isDismissed(db: Executor, leadId: number, propertyId: number): Promise<boolean> {
  const row = await db
    .selectFrom('lead_dismissals')
    .select('property_id')
    .where('lead_id', '=', leadId)
    .where('property_id', '=', propertyId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Every listing put in a lead's digests, newest first: the listing, why, the price, the digest's
 * round, origin (`alert` or `agent`) and agent (`user_id`), its message's channel (`kind`:
 * `email`, or `text` or `template` for WhatsApp) and state and when it was sent, and whether the lead dismissed
 * the listing.
 */
export async function listLeadAlertItems(db: Executor, leadId: number) {
  return db
    .selectFrom('alert_items as i')
    .innerJoin('alert_digests as d', 'd.id', 'i.digest_id')
    .leftJoin('messages as m', 'm.id', 'd.message_id')
    .leftJoin('properties as p', 'p.id', 'i.property_id')
    .leftJoin('lead_dismissals as x', (join) => join.onRef('x.lead_id', '=', 'i.lead_id').onRef('x.property_id', '=', 'i.property_id'))
    .select([
      'i.id',
      'i.property_id',
      'i.reason',
      'i.price',
      'i.created_at',
      'd.round',
      'd.origin',
      'd.user_id',
      'm.kind',
      'm.state',
      'm.sent_at',
      'p.external_ref',
      'p.title',
      'x.created_at as dismissed_at',
    ])
    .where('i.lead_id', '=', leadId)
    .orderBy('i.id', 'desc')
    .execute();
}

/**
 * Per listing of a lead: when it was last sent, in an alert or by hand (the newest `sent_at` of
 * a digest's message that went out, by either channel) and whether the lead dismissed it.
 */
export async function listAlertMarks(db: Executor, leadId: number): Promise<Map<number, { sent_at: string | null; dismissed: boolean }>> {
  const sent = await db
    .selectFrom('alert_items as i')
    .innerJoin('alert_digests as d', 'd.id', 'i.digest_id')
    .innerJoin('messages as m', 'm.id', 'd.message_id')
    .select(['i.property_id', (eb) => eb.fn.max('m.sent_at').as('sent_at')])
    .where('i.lead_id', '=', leadId)
    // Sent, and perhaps since delivered or read (WhatsApp's statuses move a message on).
    .where('m.state', 'in', SENT_STATES)
    .groupBy('i.property_id')
    .execute();
  const dismissed = await db.selectFrom('lead_dismissals').select('property_id').where('lead_id', '=', leadId).execute();
  const marks = new Map<number, { sent_at: string | null; dismissed: boolean }>();
  for (const row of sent) marks.set(row.property_id, { sent_at: row.sent_at ?? null, dismissed: false });
  for (const { property_id } of dismissed) marks.set(property_id, { sent_at: marks.get(property_id)?.sent_at ?? null, dismissed: true });
  return marks;
}

/** Sets the agent's "wants alerts" of a lead. @returns whether the lead exists in the business. */
export async function setWantsAlerts(db: Executor, businessId: number, leadId: number, wants: boolean): Promise<boolean> {
  const result = await db
    .updateTable('leads')
    .set({ wants_alerts: wants ? 1 : 0 })
    .where('id', '=', leadId)
    .where('business_id', '=', businessId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
