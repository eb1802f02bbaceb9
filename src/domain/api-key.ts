/**
 * API keys (spec §5, CONTRACT §3): `AC_LIVE_<key_id>.<secret>`, `key_id` 16 base62
 * characters, secret 43 base62 characters (256 bits from the CSPRNG). Only `key_id` and the
 * SHA-256 of the secret are stored; a fast hash is right here because the secret is random
 * and long, not a password (the same choice as GitHub's and immich's tokens).
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIX = 'AC_LIVE_';
export const SCOPES = ['properties:read', 'leads:read', 'leads:ingest', 'events:read'] as const;
export type Scope = (typeof SCOPES)[number];

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEY_ID_LENGTH = 16;
const SECRET_LENGTH = 43; // 43 × log2(62) ≈ 256 bits
const KEY_PATTERN = /^AC_LIVE_([A-Za-z0-9]{16})\.([A-Za-z0-9]{32,256})$/;

function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(BASE62.length)];
  return out;
}

/** SHA-256 of a secret, hex. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** A new key: the full text (shown once) and what is stored. */
export function generateApiKey(): { key: string; keyId: string; secretHash: string } {
  const keyId = randomBase62(KEY_ID_LENGTH);
  const secret = randomBase62(SECRET_LENGTH);
  return { key: `${KEY_PREFIX}${keyId}.${secret}`, keyId, secretHash: hashSecret(secret) };
}

/** Splits a presented key; null when it does not have the documented form. */
export function parseApiKey(text: string): { keyId: string; secret: string } | null {
  const match = KEY_PATTERN.exec(text);
  return match ? { keyId: match[1], secret: match[2] } : null;
}

/** Constant-time comparison of a presented secret with the stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/**
 * Parses a comma-separated scope list.
 * @throws Error naming the first unknown scope, or when the list is empty.
 */
export function parseScopes(text: string): Scope[] {
  const scopes = [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (scopes.length === 0) throw new Error(`No scope given; use any of ${SCOPES.join(', ')}`);
  for (const scope of scopes) {
    if (!(SCOPES as readonly string[]).includes(scope)) {
      throw new Error(`Unknown scope ${JSON.stringify(scope)}; use any of ${SCOPES.join(', ')}`);
    }
  }
  return scopes as Scope[];
}
