/** Mandates, their signing links and the agency's mandate clause (migration 0062, CONTRACT §24): SQL only, no rules. */
import type { Insertable, Selectable, Updateable } from 'kysely';
import { readsMustLock, type Executor } from '../database.ts';
import type { MandateLinkTable, MandateTable } from '../types.ts';

export type MandateRow = Selectable<MandateTable>;

/** Inserts a version. @returns its id. Throws the engine's unique violation for a second draft of a listing. */
export async function insertMandate(trx: Executor, row: Insertable<MandateTable>): Promise<number> {
  const { id } = await trx.insertInto('mandates').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

/** Changes version `id`. @returns the row as it is after. */
export async function updateMandate(trx: Executor, id: number, set: Updateable<MandateTable>): Promise<MandateRow> {
  return trx.updateTable('mandates').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Changes version `id` only while it is in `status`. @returns the row after, or undefined: it was not. */
export async function updateMandateIf(
  trx: Executor,
  id: number,
  status: MandateRow['status'],
  set: Updateable<MandateTable>,
): Promise<MandateRow | undefined> {
  return trx.updateTable('mandates').set(set).where('id', '=', id).where('status', '=', status).returningAll().executeTakeFirst();
}

/** Ends now the links of version `mandateId` sent and not used (its terms changed); one not yet written carries the new terms. */
export async function closeOpenLinks(trx: Executor, mandateId: number, at: string): Promise<void> {
  await trx
    .updateTable('mandate_links')
    .set({ expires_at: at })
    .where('mandate_id', '=', mandateId)
    .where('used_at', 'is', null)
    .where('token_hash', 'is not', null)
    .where('expires_at', '>', at)
    .execute();
}

/** The business's version `id`, locked until the transaction ends when `lock` (PostgreSQL). */
export async function findMandate(db: Executor, businessId: number, id: number, lock = false): Promise<MandateRow | undefined> {
  let query = db.selectFrom('mandates').selectAll().where('id', '=', id).where('business_id', '=', businessId);
  if (lock && readsMustLock(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Every version of the business's listing `propertyId`'s mandate, the newest first. */
export async function listMandatesOfListing(db: Executor, businessId: number, propertyId: number): Promise<MandateRow[]> {
  return db
    .selectFrom('mandates')
    .selectAll()
    .where('property_id', '=', propertyId)
    .where('business_id', '=', businessId)
    .orderBy('version', 'desc')
    .execute();
}

/** The highest version number of the listing's mandate, 0 when it has none. */
export async function lastMandateVersion(db: Executor, propertyId: number): Promise<number> {
  const row = await db
    .selectFrom('mandates')
    .select((eb) => eb.fn.max('version').as('version'))
    .where('property_id', '=', propertyId)
    .executeTakeFirst();
  return Number(row?.version ?? 0);
}

/** A signed mandate as lists show it: the version and its listing's reference and title, and its owner's name. */
export interface SignedMandate {
  id: number;
  business_id: number;
  property_id: number;
  owner_lead_id: number | null;
  version: number;
  kind: MandateTable['kind'];
  ends_on: string;
  keep_listed_after_expiry: number;
  external_ref: string;
  title: string | null;
  owner_name: string | null;
}

/**
 * The `signed` mandates of a business (every business when null) ending on or before `until`
 * (`YYYY-MM-DD`; null: any), the soonest first, `limit` at most. Reads the index `mandates_ending`.
 */
export async function listSignedMandates(
  db: Executor,
  businessId: number | null,
  until: string | null,
  limit: number,
): Promise<SignedMandate[]> {
  let query = db
    .selectFrom('mandates as m')
    .innerJoin('properties as p', 'p.id', 'm.property_id')
    .leftJoin('leads as l', 'l.id', 'm.owner_lead_id')
    .select([
      'm.id',
      'm.business_id',
      'm.property_id',
      'm.owner_lead_id',
      'm.version',
      'm.kind',
      'm.ends_on',
      'm.keep_listed_after_expiry',
      'p.external_ref',
      'p.title',
      'l.name as owner_name',
    ])
    .where('m.status', '=', 'signed');
  if (businessId !== null) query = query.where('m.business_id', '=', businessId);
  if (until !== null) query = query.where('m.ends_on', '<=', until);
  return query.orderBy('m.ends_on').orderBy('m.id').limit(limit).execute();
}

/** The versions drafted for owner `leadId` (its export, CONTRACT §18), by listing then version. */
export async function listMandatesOfOwner(db: Executor, leadId: number): Promise<MandateRow[]> {
  return db.selectFrom('mandates').selectAll().where('owner_lead_id', '=', leadId).orderBy('property_id').orderBy('version').execute();
}

/** Deletes the versions drafted for owner `leadId`, with their links (its erasure, CONTRACT §18). */
export async function deleteMandatesOfOwner(trx: Executor, leadId: number): Promise<void> {
  await trx.deleteFrom('mandates').where('owner_lead_id', '=', leadId).execute();
}

/** The business's mandate clause (null: the default one), or undefined: no such business. */
export async function findMandateClause(db: Executor, businessId: number): Promise<{ clause: string | null } | undefined> {
  return db.selectFrom('businesses').select('mandate_clause as clause').where('id', '=', businessId).executeTakeFirst();
}

/** Sets the business's mandate clause (null: back to the default). */
export async function setMandateClause(db: Executor, businessId: number, clause: string | null): Promise<void> {
  await db.updateTable('businesses').set({ mandate_clause: clause }).where('id', '=', businessId).execute();
}

/** Inserts a signing link. */
export async function insertMandateLink(trx: Executor, row: Insertable<MandateLinkTable>): Promise<void> {
  await trx.insertInto('mandate_links').values(row).execute();
}

/** The link whose token hashes to `hash`, locked when `lock` (PostgreSQL). */
export async function findMandateLink(db: Executor, hash: string, lock = false) {
  let query = db.selectFrom('mandate_links').selectAll().where('token_hash', '=', hash);
  if (lock && readsMustLock(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Marks link `id` used at `at`. @returns whether it was unused until now. */
export async function useMandateLink(trx: Executor, id: number, at: string): Promise<boolean> {
  const result = await trx
    .updateTable('mandate_links')
    .set({ used_at: at })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The link an e-mail carries, by the e-mail's message id. */
export async function findLinkOfMessage(db: Executor, messageId: number) {
  return db.selectFrom('mandate_links').selectAll().where('message_id', '=', messageId).executeTakeFirst();
}

/** Gives link `id` its token's hash and when it expires (its e-mail written). */
export async function setLinkToken(db: Executor, id: number, hash: string, expiresAt: string): Promise<void> {
  await db.updateTable('mandate_links').set({ token_hash: hash, expires_at: expiresAt }).where('id', '=', id).execute();
}
