/**
 * Catalogue files uploaded in the console and their progress (`catalogue_imports`, issue 15), and
 * the catalogue's figures shown beside them. SQL only; the rules are in
 * services/catalogue/import/uploads.ts.
 */
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../database.ts';
import type { CatalogueImportTable } from '../types.ts';

/** Records an import. @returns its id. */
export async function insertCatalogueImport(db: Executor, row: Insertable<CatalogueImportTable>): Promise<number> {
  const { id } = await db.insertInto('catalogue_imports').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

/** Writes an import's progress or outcome. */
export async function updateCatalogueImport(db: Executor, id: number, values: Updateable<CatalogueImportTable>): Promise<void> {
  await db.updateTable('catalogue_imports').set(values).where('id', '=', id).execute();
}

/** One import of the business, or undefined. */
export async function findCatalogueImport(
  db: Executor,
  businessId: number,
  id: number,
): Promise<Selectable<CatalogueImportTable> | undefined> {
  return db.selectFrom('catalogue_imports').selectAll().where('id', '=', id).where('business_id', '=', businessId).executeTakeFirst();
}

/** The business's latest `limit` imports, newest first. */
export async function listCatalogueImports(
  db: Executor,
  businessId: number,
  limit: number,
): Promise<Array<Selectable<CatalogueImportTable>>> {
  return db.selectFrom('catalogue_imports').selectAll().where('business_id', '=', businessId).orderBy('id', 'desc').limit(limit).execute();
}

/** The business's listings counted by `status`, in status order (`n` may be a string on PostgreSQL). */
export async function countListingsByStatus(db: Executor, businessId: number): Promise<Array<{ status: string; n: number | string }>> {
  return db
    .selectFrom('properties')
    .select(['status', sql<number>`count(*)`.as('n')])
    .where('business_id', '=', businessId)
    .groupBy('status')
    .orderBy('status')
    .execute();
}

/**
 * The business's published listings (`listed`) in all and by operation, and the last import's
 * time. Sums may be strings on PostgreSQL: callers convert with `Number`.
 */
export async function publishedListingFigures(db: Executor, businessId: number) {
  return db
    .selectFrom('properties')
    .select([
      sql<number>`coalesce(sum(listed), 0)`.as('total'),
      sql<number>`coalesce(sum(op_venta * listed), 0)`.as('venta'),
      sql<number>`coalesce(sum(op_alquiler * listed), 0)`.as('alquiler'),
      sql<number>`coalesce(sum(op_traspaso * listed), 0)`.as('traspaso'),
      sql<string | null>`max(imported_at)`.as('last_imported_at'),
    ])
    .where('business_id', '=', businessId)
    .executeTakeFirstOrThrow();
}
