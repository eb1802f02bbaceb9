/** Businesses (workspaces): SQL only, no rules. */
import { sql } from 'kysely';
import { readsMustLock, type Db, type Executor } from '../database.ts';

/** A new business; `timezone` (an IANA name, checked by the caller) defaults to the column's, `Europe/Madrid`. */
export async function insertBusiness(
  db: Executor,
  name: string,
  createdAt: string,
  timezone?: string,
): Promise<{ id: number; name: string; timezone: string }> {
  return db
    .insertInto('businesses')
    .values({ name, created_at: createdAt, ...(timezone === undefined ? {} : { timezone }) })
    .returning(['id', 'name', 'timezone'])
    .executeTakeFirstOrThrow();
}

/** The business's time zone and stored viewing hours (JSON or null), or undefined: no such business (migration 0030). */
export async function findBusinessClock(db: Executor, id: number): Promise<{ timezone: string; viewing_hours: string | null } | undefined> {
  return db.selectFrom('businesses').select(['timezone', 'viewing_hours']).where('id', '=', id).executeTakeFirst();
}

/** Sets the business's time zone and viewing hours (JSON, or null for the default hours). @returns whether the business exists. */
export async function setBusinessClock(
  db: Executor,
  id: number,
  clock: { timezone?: string; viewing_hours?: string | null },
): Promise<boolean> {
  const result = await db.updateTable('businesses').set(clock).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function findBusiness(db: Executor, id: number) {
  return db.selectFrom('businesses').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The business's `config_version`, which changes whenever its keys' rights, its channel
 * (migration 0005) or what its webhook endpoints take (0024) change. Undefined: no such business.
 */
export async function findConfigVersion(db: Executor, businessId: number): Promise<number | undefined> {
  const row = await db.selectFrom('businesses').select('config_version').where('id', '=', businessId).executeTakeFirst();
  return row?.config_version;
}

/** The business's catalogue version (CONTRACT §4), 0 for no such business. */
export async function catalogueVersion(db: Executor, businessId: number): Promise<number> {
  const row = await db.selectFrom('businesses').select('catalogue_version').where('id', '=', businessId).executeTakeFirst();
  return row?.catalogue_version ?? 0;
}

/** The first business's id (the demo's), or undefined when there is none. */
export async function firstBusinessId(db: Executor): Promise<number | undefined> {
  const row = await db.selectFrom('businesses').select('id').orderBy('id').limit(1).executeTakeFirst();
  return row?.id;
}

export async function countBusinesses(db: Db): Promise<number> {
  const row = await db
    .selectFrom('businesses')
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Locks the business's catalogue against every other write of it until the transaction ends,
 * before a write that first reads the listing it changes: the row {@link bumpCatalogueVersion}
 * locks, taken first so that locks are always taken in the same order (`FOR UPDATE` on
 * PostgreSQL; SQLite has one writer at a time, and a transaction that read before another
 * committed is run again, db/transaction.ts).
 */
export async function lockCatalogue(trx: Executor, businessId: number): Promise<void> {
  if (!readsMustLock(trx)) return;
  await trx.selectFrom('businesses').select('id').where('id', '=', businessId).forUpdate().execute();
}

/**
 * Marks the catalogue as changed, so caches keyed by its version are dropped. On PostgreSQL
 * this locks the business's row until the transaction ends: the business's catalogue changes
 * commit one at a time, in version order (the changes feed relies on it).
 * @returns the new version.
 */
export async function bumpCatalogueVersion(db: Executor, businessId: number): Promise<number> {
  const row = await db
    .updateTable('businesses')
    .set({ catalogue_version: sql`catalogue_version + 1` })
    .where('id', '=', businessId)
    .returning('catalogue_version')
    .executeTakeFirstOrThrow();
  return row.catalogue_version;
}
