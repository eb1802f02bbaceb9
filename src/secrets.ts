/**
 * Secrets at rest: the channel access token is stored sealed (AES-256-GCM, node:crypto), so
 * neither a copy of the database nor a backup gives it away.
 *
 * The key comes from `INMO_SECRET_KEY` (any text of 16 characters or more; production sets it
 * alike on every process), else from the file `INMO_SECRET_KEY_FILE` (default
 * `~/.config/inmo/secret.key`, away from the database), created with 32 random bytes and
 * mode 0600 on first use so that a laptop install needs no setup. Sealed values read `v1:<iv>:<tag>:<ciphertext>` (base64).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { defaultSecretKeyFile, secretKeySource } from './config.ts';

const PREFIX = 'v1:';
/** Outside the database's folder, so that a copy of one does not bring the other. */
export const DEFAULT_SECRET_KEY_FILE = defaultSecretKeyFile();

/** The key cannot open a sealed value: it is not the key the value was sealed with. */
export class SecretKeyMismatchError extends Error {
  constructor() {
    super('a stored secret cannot be opened with this key: set INMO_SECRET_KEY (or INMO_SECRET_KEY_FILE) as when it was stored');
  }
}

/**
 * The 32-byte key of this process.
 * @param env the environment whose `INMO_SECRET_KEY*` say where the key is (config.ts
 *   `secretKeySource`; the process's own when omitted).
 * @throws Error when INMO_SECRET_KEY is set but shorter than 16 characters.
 */
export function secretKey(env?: NodeJS.ProcessEnv): Buffer {
  const { text, file: path } = secretKeySource(env);
  if (text !== null) {
    if (text.length < 16) throw new Error('INMO_SECRET_KEY must be at least 16 characters long');
    return createHash('sha256').update(text).digest();
  }
  try {
    return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(path), { recursive: true });
  try {
    // `wx`: of two processes creating it at once, one writes and the other reads its key.
    writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
}

/**
 * A key for `purpose` derived from this installation's key ({@link secretKey}): the same in
 * every process that shares it, and useless for opening sealed values. 32 bytes.
 */
export function derivedKey(purpose: string, env?: NodeJS.ProcessEnv): Buffer {
  return createHash('sha256').update(`${purpose}\0`).update(secretKey(env)).digest();
}

/** Seals a secret for storage. */
export function sealSecret(plain: string, key: Buffer = secretKey()): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${PREFIX}${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${sealed.toString('base64')}`;
}

/**
 * Opens a sealed secret (a value stored before sealing existed is returned as it is).
 * @throws SecretKeyMismatchError when the key is not the one it was sealed with.
 */
export function openSecret(stored: string, key: Buffer = secretKey()): string {
  if (!stored.startsWith(PREFIX)) return stored;
  const [iv, tag, sealed] = stored
    .slice(PREFIX.length)
    .split(':')
    .map((part) => Buffer.from(part, 'base64'));
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretKeyMismatchError();
  }
}
