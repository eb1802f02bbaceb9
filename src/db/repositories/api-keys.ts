/** API keys: SQL only, no rules (see services/access/api-keys.ts). */
import { runCompiledOnce } from '../compiled-once.ts';
import type { Db, Executor } from '../database.ts';
import type { ApiKeyRow } from '../types.ts';

export type KeyWithBusiness = ApiKeyRow & { business_name: string; catalogue_version: number };

export async function insertApiKey(db: Executor, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** The key and its business, by the public key id. (Compiled once: it runs on every request.) */
export async function findApiKey(db: Db, keyId: string): Promise<KeyWithBusiness | undefined> {
  const rows = await runCompiledOnce<KeyWithBusiness>(db, 'findApiKey', [keyId], ([id]) =>
    db
      .selectFrom('api_keys')
      .innerJoin('businesses', 'businesses.id', 'api_keys.business_id')
      .selectAll('api_keys')
      .select(['businesses.name as business_name', 'businesses.catalogue_version'])
      .where('api_keys.key_id', '=', id),
  );
  return rows[0];
}

export async function listApiKeys(db: Db, businessId: number): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('business_id', '=', businessId).orderBy('created_at').orderBy('key_id').execute();
}

/** A key by id, of `businessId` only unless it is null (the operator's CLI). */
export async function findBusinessApiKey(db: Executor, keyId: string, businessId: number | null): Promise<ApiKeyRow | undefined> {
  let query = db.selectFrom('api_keys').selectAll().where('key_id', '=', keyId);
  if (businessId !== null) query = query.where('business_id', '=', businessId);
  return query.executeTakeFirst();
}

/**
 * Sets `revoked_at` once, on a key of `businessId` only unless it is null.
 * @returns the key, or undefined when there is no such key.
 */
/**
 * Revokes a key not revoked yet (of the business, unless null).
 * @returns the key, and whether this call revoked it; undefined when there is no such key.
 */
export async function revokeApiKey(
  db: Executor,
  keyId: string,
  businessId: number | null,
  at: string,
): Promise<{ row: ApiKeyRow; revoked: boolean } | undefined> {
  let update = db.updateTable('api_keys').set({ revoked_at: at }).where('key_id', '=', keyId).where('revoked_at', 'is', null);
  if (businessId !== null) update = update.where('business_id', '=', businessId);
  const result = await update.executeTakeFirst();
  const row = await findBusinessApiKey(db, keyId, businessId);
  return row && { row, revoked: Number(result.numUpdatedRows) === 1 };
}

export async function touchApiKey(db: Db, keyId: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('key_id', '=', keyId).execute();
}

/** The origins of every publishable key that is not revoked (expired ones too: refused later, per request). */
export async function listPublishableOrigins(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('api_keys').select('origins').where('origins', 'is not', null).where('revoked_at', 'is', null).execute();
  return rows.flatMap((r) => JSON.parse(r.origins!) as string[]);
}
