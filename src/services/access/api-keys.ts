/**
 * API keys (spec §5, CONTRACT §3): issuing (shown once), listing, revoking, and checking a
 * presented key for a request.
 */
import type { Db } from '../../db/database.ts';
import * as repo from '../../db/repositories/api-keys.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import { generateApiKey, parseApiKey, parseOrigin, PUBLISHABLE_SCOPES, secretMatches, type Scope } from '../../domain/access/api-key.ts';
import { nowRfc3339, toRfc3339 } from '../../domain/time.ts';
import { LRUCache } from 'lru-cache';
import { signalChange, type ChangeWatch } from '../../db/change-watch.ts';
import type { ApiKeyRow } from '../../db/types.ts';
import { InmoError } from '../../errors.ts';
import { CLI, recordAudit, type AuditActor } from './audit.ts';

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
  /** `secret` (`AC_LIVE_`) or `publishable` (`AC_PUB_`, bound to `origins`). */
  kind: 'secret' | 'publishable';
  origins: string[] | null;
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
    kind: row.origins === null ? 'secret' : 'publishable',
    origins: row.origins === null ? null : (JSON.parse(row.origins) as string[]),
  };
}

/**
 * Issues a key for a business: a secret key, or with `origins` a publishable one (CONTRACT §13),
 * whose scopes must be among {@link PUBLISHABLE_SCOPES} and which is used only from those origins.
 * @returns the full key (its only appearance) with the stored facts.
 * @throws InmoError UNKNOWN_BUSINESS when the business does not exist; KEY_ORIGIN_INVALID for an
 *   origin that is not `scheme://host[:port]`; KEY_PUBLISHABLE_SCOPE for a scope a page may not have.
 * @param actor who did it, for the audit trail (CONTRACT §18): the command line unless said.
 */
export async function createApiKey(
  db: Db,
  options: { businessId: number; scopes: Scope[]; label?: string | null; expiresAt?: string | null; origins?: string[] },
  actor: AuditActor = CLI,
): Promise<ApiKeyInfo & { key: string }> {
  if (!(await findBusiness(db, options.businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: options.businessId });
  const publishable = options.origins !== undefined;
  let origins: string[] | null = null;
  if (publishable) {
    origins = [...new Set(options.origins!.map((o) => parseOrigin(o) ?? ''))];
    if (origins.length === 0 || origins.includes('')) throw new InmoError('KEY_ORIGIN_INVALID');
    if (options.scopes.some((s) => !(PUBLISHABLE_SCOPES as readonly string[]).includes(s))) throw new InmoError('KEY_PUBLISHABLE_SCOPE');
  }
  const { key, keyId, secretHash } = generateApiKey(publishable);
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
    origins: origins === null ? null : JSON.stringify(origins),
  };
  await db.transaction().execute(async (trx) => {
    await repo.insertApiKey(trx, row);
    await recordAudit(trx, options.businessId, actor, 'key.create', keyId, row.created_at);
  });
  // Every process's preflight answers learn the new origins (KeyVerifier.allowedOrigins).
  if (publishable) signalChange(db);
  return { key, ...info(row) };
}

/** A key's state as operators see it: revoked, expired (at `now`, ms since the epoch), or active. */
export function keyState(
  key: { revoked_at: string | null; expires_at: string | null },
  now = Date.now(),
): 'active' | 'revoked' | 'expired' {
  if (key.revoked_at) return 'revoked';
  if (key.expires_at && Date.parse(key.expires_at) <= now) return 'expired';
  return 'active';
}

export async function listApiKeys(db: Db, businessId: number): Promise<ApiKeyInfo[]> {
  return (await repo.listApiKeys(db, businessId)).map(info);
}

/** A key of the business (never another's), or undefined. */
export async function findApiKey(db: Db, businessId: number, keyId: string): Promise<ApiKeyInfo | undefined> {
  const row = await repo.findBusinessApiKey(db, keyId, businessId);
  return row && info(row);
}

/**
 * Revokes a key (idempotent); requests of every process refuse it within 1 s, of this one at once.
 * @param businessId the business whose key alone may be revoked (the console), or null for any (the operator's CLI).
 * @returns the key, or undefined when there is no such key.
 * @param actor who did it, for the audit trail (CONTRACT §18): the command line unless said.
 */
export async function revokeApiKey(
  db: Db,
  keyId: string,
  businessId: number | null,
  actor: AuditActor = CLI,
): Promise<ApiKeyInfo | undefined> {
  const at = nowRfc3339();
  const row = await db.transaction().execute(async (trx) => {
    const found = await repo.revokeApiKey(trx, keyId, businessId, at);
    // Recorded when this call revoked it, not when it was revoked already.
    if (found?.revoked) await recordAudit(trx, found.row.business_id, actor, 'key.revoke', keyId, at);
    return found?.row;
  });
  signalChange(db);
  return row && info(row);
}

/** Who a valid key speaks for. */
export interface KeyContext {
  keyId: string;
  businessId: number;
  businessName: string;
  catalogueVersion: number;
  scopes: Scope[];
  /** A publishable key's allowed origins; null for a secret key. */
  origins: string[] | null;
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

/** Verified keys kept per process (most recently used first); each entry is one presented key. */
const KEY_CACHE_SIZE = 10_000;

/** What a presented key was found to be, as of one change stamp (db/change-watch.ts). */
interface VerifiedKey {
  stamp: number;
  /** The stored hash the presented secret matched: while it is unchanged, the secret needs no new check. */
  secretHash: string;
  context: Omit<KeyContext, 'useDue'>;
  revoked: boolean;
  /** Expiry, ms since the epoch; null: never. Checked on every request, so a key expires on time. */
  expiresAt: number | null;
}

/**
 * Checks presented keys (spec §5, CONTRACT §3), and keeps what it verified: the hot path of
 * every request (issue 14).
 *
 * A presented key maps to its verification (the key row, the secret check, the business's
 * name and catalogue version), trusted while the change stamp is unchanged: revocation, a
 * change of expiry or scopes, and a catalogue import, by this process or another, change it
 * (db/change-watch.ts). Only keys whose secret matched are kept: garbage cannot fill the cache.
 * After a change the row is read again, and the secret checked again only if its hash changed.
 */
export class KeyVerifier {
  private readonly verified = new LRUCache<string, VerifiedKey>({ max: KEY_CACHE_SIZE });
  private origins: { stamp: number; set: ReadonlySet<string> } | null = null;
  /** When this process last wrote each key's `last_used_at` (or read it), ms since the epoch. */
  private readonly lastUsed = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly changes: ChangeWatch,
  ) {}

  /**
   * Checks a presented key: form, existence, secret (constant time), revocation, expiry.
   * An unknown key id and a wrong secret are the same failure, `invalid`. Writes nothing:
   * the use of a key is recorded only for requests that succeed ({@link recordUse}), so a
   * refused request leaves the database as it was.
   * @param now ms since the epoch.
   */
  async authenticate(presented: string | undefined, now = Date.now()): Promise<KeyContext | AuthFailure> {
    if (presented === undefined || presented === '') return 'missing';
    const stamp = this.changes.stamp();
    let entry = this.verified.get(presented);
    if (entry?.stamp !== stamp) {
      const parts = parseApiKey(presented);
      if (!parts) return 'malformed';
      const row = await repo.findApiKey(this.db, parts.keyId);
      // The hash is computed even for an unknown id, so both cases take the same time.
      const matches =
        (row !== undefined && entry?.secretHash === row.secret_hash) || secretMatches(parts.secret, row?.secret_hash ?? '0'.repeat(64));
      // A key id presented with the other kind's prefix is no key at all.
      if (!row || !matches || (row.origins !== null) !== parts.publishable) {
        this.verified.delete(presented);
        return 'invalid';
      }
      entry = {
        stamp,
        secretHash: row.secret_hash,
        revoked: row.revoked_at !== null,
        expiresAt: row.expires_at === null ? null : Date.parse(row.expires_at),
        context: {
          keyId: row.key_id,
          businessId: row.business_id,
          businessName: row.business_name,
          catalogueVersion: row.catalogue_version,
          scopes: row.scopes.split(',') as Scope[],
          origins: row.origins === null ? null : (JSON.parse(row.origins) as string[]),
        },
      };
      this.verified.set(presented, entry);
      const used = row.last_used_at === null ? 0 : Date.parse(row.last_used_at);
      if (used > (this.lastUsed.get(row.key_id) ?? -1)) this.lastUsed.set(row.key_id, used);
    }
    if (entry.revoked) return 'revoked';
    if (entry.expiresAt !== null && entry.expiresAt <= now) return 'expired';
    const lastUsed = this.lastUsed.get(entry.context.keyId) ?? 0;
    return { ...entry.context, useDue: lastUsed === 0 || now - lastUsed >= TOUCH_INTERVAL_MS };
  }

  /**
   * The verification of `presented` as this process holds it, without touching the database:
   * the key's context when its verification is current (same change stamp), it is neither
   * revoked nor expired, and its use need not be recorded now; otherwise null, and the caller
   * takes the full path ({@link authenticate}), which decides, refuses, or records the use.
   * The fast path of cached reads (http/fast-path.ts) depends on it; the object returned is
   * the same for every hit of one verification (a memo key).
   * @param now ms since the epoch.
   */
  cachedContext(presented: string, now = Date.now()): Omit<KeyContext, 'useDue'> | null {
    const entry = this.verified.get(presented);
    if (entry === undefined || entry.revoked || entry.stamp !== this.changes.stamp()) return null;
    if (entry.expiresAt !== null && entry.expiresAt <= now) return null;
    const lastUsed = this.lastUsed.get(entry.context.keyId) ?? 0;
    if (lastUsed === 0 || now - lastUsed >= TOUCH_INTERVAL_MS) return null;
    return entry.context;
  }

  /**
   * The origins of every active publishable key: a CORS preflight carries no key, so it is
   * answered for any of them (the request that follows is checked against its own key's list).
   * Read again when the change stamp moves.
   */
  async allowedOrigins(): Promise<ReadonlySet<string>> {
    const stamp = this.changes.stamp();
    if (this.origins?.stamp !== stamp) this.origins = { stamp, set: new Set(await repo.listPublishableOrigins(this.db)) };
    return this.origins.set;
  }

  /** Records that a key was used (`last_used_at`), at most once a minute per key and process: call after a successful request. */
  async recordUse(key: KeyContext, now = Date.now()): Promise<void> {
    if (!key.useDue) return;
    // Marked first: the requests running beside this one need not write it too.
    this.lastUsed.set(key.keyId, now);
    await repo.touchApiKey(this.db, key.keyId, toRfc3339(new Date(now)));
  }
}
