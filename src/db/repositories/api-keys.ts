/** API keys: SQL only, no rules (see services/api-keys.ts). */
import { CompiledQuery } from 'kysely';
import type { Db } from '../database.ts';
import type { ApiKeyRow } from '../types.ts';

export type KeyWithBusiness = ApiKeyRow & { business_name: string; catalogue_version: number };

export async function insertApiKey(db: Db, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

const keyLookup = (db: Db, keyId: string) =>
  db
    .selectFrom('api_keys')
    .innerJoin('businesses', 'businesses.id', 'api_keys.business_id')
    .selectAll('api_keys')
    .select(['businesses.name as business_name', 'businesses.catalogue_version'])
    .where('api_keys.key_id', '=', keyId);

/**
 * The SQL of the key lookup, compiled once per database handle: it runs on every request,
 * and building and compiling the query cost several times more than executing it.
 */
const compiledKeyLookup = new WeakMap<Db, string>();

/** The key and its business, by the public key id. */
export async function findApiKey(db: Db, keyId: string): Promise<KeyWithBusiness | undefined> {
  let text = compiledKeyLookup.get(db);
  if (text === undefined) {
    text = keyLookup(db, '').compile().sql;
    compiledKeyLookup.set(db, text);
  }
  const result = await db.executeQuery<KeyWithBusiness>(CompiledQuery.raw(text, [keyId]));
  return result.rows[0];
}

export async function listApiKeys(db: Db, businessId: number): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('business_id', '=', businessId).orderBy('created_at').orderBy('key_id').execute();
}

/** Sets `revoked_at` once; @returns whether a key with that id exists. */
export async function revokeApiKey(db: Db, keyId: string, at: string): Promise<ApiKeyRow | undefined> {
  await db.updateTable('api_keys').set({ revoked_at: at }).where('key_id', '=', keyId).where('revoked_at', 'is', null).execute();
  return db.selectFrom('api_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst();
}

export async function touchApiKey(db: Db, keyId: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('key_id', '=', keyId).execute();
}
