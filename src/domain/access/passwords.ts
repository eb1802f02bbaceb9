/**
 * Console passwords (issue 15): the policy, and hashing with scrypt from node:crypto.
 *
 * Policy: 12 to 256 characters, not one of the 49,000 most common passwords (the list of
 * `@zxcvbn-ts/language-common`, compared without case), and not the account's own email.
 *
 * Hashes read `scrypt$<N>$<r>$<p>$<salt>$<hash>` (salt and hash base64, 16 and 32 bytes), so the
 * cost can rise later without breaking stored hashes. N = 2^15, r = 8, p = 1 costs 32 MiB and
 * about 160 ms on a 2-core server: slow for a guesser, bearable for a login. Hashing runs on
 * libuv's thread pool (async scrypt), never on the event loop.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { createRequire } from 'node:module';
import type { dictionary as Dictionary } from '@zxcvbn-ts/language-common';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

const COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_BYTES = 32;

let common: Set<string> | null = null;
function commonPasswords(): Set<string> {
  if (!common) {
    // The list is required at the first password checked, not when the console loads.
    const { dictionary } = createRequire(import.meta.url)('@zxcvbn-ts/language-common') as { dictionary: typeof Dictionary };
    common = new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));
  }
  return common;
}

/** Why a password is refused, as a message key of the console (http/console/i18n.ts); null when accepted. */
export type PasswordProblem = 'password_too_short' | 'password_too_long' | 'password_common' | 'password_is_email' | null;

/** Checks a new password against the policy above. */
export function passwordProblem(password: string, email: string): PasswordProblem {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return 'password_too_short';
  if (length > PASSWORD_MAX_LENGTH) return 'password_too_long';
  const lower = password.toLowerCase();
  if (commonPasswords().has(lower)) return 'password_common';
  if (lower === email.toLowerCase() || lower === email.toLowerCase().split('@')[0]) return 'password_is_email';
  return null;
}

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** Hashes a password (policy already checked) into the stored form above. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** A hash of no password: verifying against it costs what a real check costs (unknown accounts take as long as known ones). */
export const DUMMY_HASH = `scrypt$${COST.N}$${COST.r}$${COST.p}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(KEY_BYTES).toString('base64')}`;

/**
 * Whether `password` is the one `stored` was made from; compared in constant time.
 * A malformed stored value is simply no match.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  if (![N, r, p].every(Number.isSafeInteger)) return false;
  const expected = Buffer.from(parts[5], 'base64');
  if (expected.length !== KEY_BYTES) return false;
  const key = await derive(password, Buffer.from(parts[4], 'base64'), { N, r, p });
  return timingSafeEqual(key, expected);
}
