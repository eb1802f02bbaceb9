/** Businesses (workspaces): SQL only, no rules. */
import { sql } from 'kysely';
import type { Db, Executor } from '../database.ts';

export async function insertBusiness(db: Executor, name: string, createdAt: string): Promise<{ id: number; name: string }> {
  return db.insertInto('businesses').values({ name, created_at: createdAt }).returning(['id', 'name']).executeTakeFirstOrThrow();
}

export async function findBusiness(db: Executor, id: number) {
  return db.selectFrom('businesses').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countBusinesses(db: Db): Promise<number> {
  const row = await db
    .selectFrom('businesses')
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Marks the catalogue as changed, so caches keyed by its version are dropped. */
export async function bumpCatalogueVersion(db: Executor, businessId: number): Promise<void> {
  await db
    .updateTable('businesses')
    .set({ catalogue_version: sql`catalogue_version + 1` })
    .where('id', '=', businessId)
    .execute();
}
