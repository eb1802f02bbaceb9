/**
 * API keys (spec §5, CONTRACT §3): issuing (shown once), listing, revoking, and checking a
 * presented key for a request.
 */
import type { Db } from '../db/database.ts';
import * as repo from '../db/repositories/api-keys.ts';
import { findBusiness } from '../db/repositories/businesses.ts';
import { generateApiKey, parseApiKey, secretMatches, type Scope } from '../domain/api-key.ts';
import { nowRfc3339 } from '../domain/time.ts';
import type { ApiKeyRow } from '../db/types.ts';
import { InmoError } from '../errors.ts';

/** A key as operators see it: never the secret nor its hash. */
export interface ApiKeyInfo {
  key_id: string;
  business_id: number;
  scopes: Scope[];
  name: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

function info(row: ApiKeyRow): ApiKeyInfo {
  return {
    key_id: row.key_id,
    business_id: row.business_id,
    scopes: row.scopes.split(',') as Scope[],
    name: row.label,
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
  };
}

/**
 * Issues a key for a business.
 * @returns the full key (its only appearance) with the stored facts.
 * @throws InmoError UNKNOWN_BUSINESS when the business does not exist.
 */
export async function createApiKey(
  db: Db,
  options: { businessId: number; scopes: Scope[]; label?: string | null; expiresAt?: string | null },
): Promise<ApiKeyInfo & { key: string }> {
  if (!(await findBusiness(db, options.businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: options.businessId });
  const { key, keyId, secretHash } = generateApiKey();
  const row: ApiKeyRow = {
    key_id: keyId,
    business_id: options.businessId,
    secret_hash: secretHash,
    scopes: options.scopes.join(','),
    label: options.label ?? null,
    created_at: nowRfc3339(),
    expires_at: options.expiresAt ?? null,
    revoked_at: null,
    last_used_at: null,
  };
  await repo.insertApiKey(db, row);
  return { key, ...info(row) };
}

export async function listApiKeys(db: Db, businessId: number): Promise<ApiKeyInfo[]> {
  return (await repo.listApiKeys(db, businessId)).map(info);
}

/** Revokes a key (idempotent). @returns the key, or undefined when no key has that id. */
export async function revokeApiKey(db: Db, keyId: string): Promise<ApiKeyInfo | undefined> {
  const row = await repo.revokeApiKey(db, keyId, nowRfc3339());
  return row && info(row);
}

/** Who a valid key speaks for. */
export interface KeyContext {
  keyId: string;
  businessId: number;
  businessName: string;
  catalogueVersion: number;
  scopes: Scope[];
  /** Whether `last_used_at` is due to be written ({@link recordKeyUse}) once the request succeeds. */
  useDue: boolean;
}

/**
 * Why a presented key was refused; each maps to one fixed 401 message (http/errors.ts).
 * `scheme`: an `Authorization` header with another scheme than `ApiKey`.
 */
export type AuthFailure = 'missing' | 'malformed' | 'scheme' | 'invalid' | 'revoked' | 'expired';

/** `last_used_at` is written at most this often per key, so reads stay read-only. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Checks a presented key: form, existence, secret (constant time), revocation, expiry.
 * An unknown key id and a wrong secret are the same failure, `invalid`. Writes nothing:
 * the use of a key is recorded only for requests that succeed ({@link recordKeyUse}), so a
 * refused request leaves the database as it was.
 */
export async function authenticate(db: Db, presented: string | undefined, now = new Date()): Promise<KeyContext | AuthFailure> {
  if (presented === undefined || presented === '') return 'missing';
  const parts = parseApiKey(presented);
  if (!parts) return 'malformed';
  const row = await repo.findApiKey(db, parts.keyId);
  // The hash is computed even for an unknown id, so both cases take the same time.
  const matches = secretMatches(parts.secret, row?.secret_hash ?? '0'.repeat(64));
  if (!row || !matches) return 'invalid';
  if (row.revoked_at !== null) return 'revoked';
  if (row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime()) return 'expired';
  return {
    useDue: row.last_used_at === null || now.getTime() - Date.parse(row.last_used_at) >= TOUCH_INTERVAL_MS,
    keyId: row.key_id,
    businessId: row.business_id,
    businessName: row.business_name,
    catalogueVersion: row.catalogue_version,
    scopes: row.scopes.split(',') as Scope[],
  };
}

/** Records that a key was used (`last_used_at`), at most once a minute per key: call after a successful request. */
export async function recordKeyUse(db: Db, key: KeyContext): Promise<void> {
  if (key.useDue) await repo.touchApiKey(db, key.keyId, nowRfc3339());
}
