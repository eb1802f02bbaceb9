/**
 * API keys (spec §5, CONTRACT §3): `AC_LIVE_<key_id>.<secret>`, or `AC_PUB_<key_id>.<secret>`
 * for a publishable key (CONTRACT §13: browser forms, bound to origins), `key_id` 16 base62
 * characters, secret 43 base62 characters (256 bits from the CSPRNG). Only `key_id` and the
 * SHA-256 of the secret are stored; a fast hash is right here because the secret is random
 * and long, not a password (the same choice as GitHub's and immich's tokens).
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIX = 'AC_LIVE_';
export const PUBLISHABLE_PREFIX = 'AC_PUB_';
export const SCOPES = [
  'properties:read',
  'leads:read',
  'leads:ingest',
  'events:read',
  'leads:erase',
  'viewings:write',
  // Editing a lead's contact and searches (CONTRACT §25): secret keys only.
  'leads:write',
] as const;
export type Scope = (typeof SCOPES)[number];
/** The only scopes a publishable key may have: what a public web page may do (CONTRACT §13, §20: ask for a viewing). */
export const PUBLISHABLE_SCOPES = ['properties:read', 'leads:ingest', 'viewings:write'] as const satisfies readonly Scope[];

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEY_ID_LENGTH = 16;
const SECRET_LENGTH = 43; // 43 × log2(62) ≈ 256 bits
const KEY_PATTERN = /^AC_(LIVE|PUB)_([A-Za-z0-9]{16})\.([A-Za-z0-9]{32,256})$/;

/** `length` characters of base62 from the CSPRNG (each about 5.95 bits). */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(BASE62.length)];
  return out;
}

/** SHA-256 of a secret, hex. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** A new key: the full text (shown once) and what is stored. */
export function generateApiKey(publishable = false): { key: string; keyId: string; secretHash: string } {
  const keyId = randomBase62(KEY_ID_LENGTH);
  const secret = randomBase62(SECRET_LENGTH);
  return { key: `${publishable ? PUBLISHABLE_PREFIX : KEY_PREFIX}${keyId}.${secret}`, keyId, secretHash: hashSecret(secret) };
}

/** Splits a presented key; null when it does not have the documented form. */
export function parseApiKey(text: string): { keyId: string; secret: string; publishable: boolean } | null {
  const match = KEY_PATTERN.exec(text);
  return match ? { keyId: match[2], secret: match[3], publishable: match[1] === 'PUB' } : null;
}

/**
 * A web origin as browsers send it in `Origin`: `https://site.example` or
 * `http://localhost:8080` (scheme, host, port if not the default; no path).
 * @returns the origin, or null when `text` is not one.
 */
export function parseOrigin(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) return null;
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) return null;
  return url.origin === text.replace(/\/$/, '') ? url.origin : null;
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
