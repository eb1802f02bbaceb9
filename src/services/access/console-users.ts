/**
 * People of the workspace console (issue 15, CONTRACT §12): users, one-time links to set a
 * password, logins and server-side sessions.
 *
 * - A user belongs to one business, as `owner` (keys, users, channel) or `agent` (leads and
 *   conversations). `inmo users create` prints a one-time link, valid {@link LINK_TTL_MS}.
 * - Sessions are rows shared by every process; the cookie carries a capability token
 *   (domain/capability-token.ts), the row its SHA-256. A session ends {@link SESSION_IDLE_MS}
 *   after its last request, {@link SESSION_MAX_MS} after login whatever happens, at logout, when
 *   the password changes, or when the user is disabled.
 * - A failed login says nothing of which of email or password was wrong, and an unknown email
 *   costs the same scrypt as a known one.
 */
import type { Db } from '../../db/database.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import * as repo from '../../db/repositories/users.ts';
import { DUMMY_HASH, hashPassword, passwordProblem, verifyPassword, type PasswordProblem } from '../../domain/access/passwords.ts';
import { hashToken, mintToken } from '../../domain/capability-token.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { CLI, recordAudit, type AuditActor } from './audit.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { ROLES, type Role } from '../../domain/access/roles.ts';

export { ROLES, type Role };

/** A one-time link to set a password is valid this long (CONTRACT §12: 24 h), ms. */
export const LINK_TTL_MS = 24 * 3600 * 1000;
/** A session ends this long after its last request, ms. */
export const SESSION_IDLE_MS = 2 * 3600 * 1000;
/** A session ends this long after login, whatever its use, ms. */
export const SESSION_MAX_MS = 24 * 3600 * 1000;
/** `last_seen_at` is written at most this often per session, ms (reads stay reads). */
const TOUCH_MS = 60 * 1000;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A user as operators and the console see them: never the password hash. */
export interface UserInfo {
  id: number;
  business_id: number;
  email: string;
  /** The display name (CONTRACT §23), or null when none was given: see {@link displayName}. */
  name: string | null;
  role: Role;
  state: 'invited' | 'active' | 'disabled';
  created_at: string;
}

function info(row: repo.UserRow): UserInfo {
  return {
    id: row.id,
    business_id: row.business_id,
    email: row.email,
    name: row.display_name,
    role: row.role,
    state: row.disabled_at !== null ? 'disabled' : row.password_hash === null ? 'invited' : 'active',
    created_at: row.created_at,
  };
}

/** The longest display name, characters. */
export const DISPLAY_NAME_MAX = 80;

/**
 * A display name as stored: trimmed, inner white space made single spaces; null for an empty one.
 * @throws InmoError USER_NAME_INVALID for one over {@link DISPLAY_NAME_MAX} characters or holding
 *   control characters.
 */
export function checkedDisplayName(name: string | undefined | null): string | null {
  const clean = (name ?? '').trim().replace(/\s+/g, ' ');
  if (clean === '') return null;
  // eslint-disable-next-line no-control-regex
  if ([...clean].length > DISPLAY_NAME_MAX || /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(clean))
    throw new InmoError('USER_NAME_INVALID');
  return clean;
}

/**
 * How the console names a user to colleagues (CONTRACT §23): the display name, else the e-mail.
 * @param user a user row or {@link UserInfo}.
 */
export function displayName(user: { display_name?: string | null; name?: string | null; email: string }): string {
  return user.display_name ?? user.name ?? user.email;
}

/** The path of a one-time link, relative to the server's base URL. */
export const setPasswordPath = (token: string) => `/console/set-password/${token}`;

/**
 * Creates a user and a one-time link to set their password.
 * @param options.name the display name (CONTRACT §23), optional.
 * @returns `{id, email, name, role, set_password_url}` (CONTRACT §12), the link shown only here.
 * @throws InmoError UNKNOWN_BUSINESS, USER_EMAIL_INVALID, USER_NAME_INVALID, USER_ROLE_UNKNOWN, USER_EMAIL_TAKEN.
 * @param actor who did it, for the audit trail (CONTRACT §18): the command line unless said.
 */
export async function createUser(
  db: Db,
  options: { businessId: number; email: string; role: string; name?: string },
  now = new Date(),
  actor: AuditActor = CLI,
): Promise<{ id: number; email: string; name: string | null; role: Role; set_password_url: string }> {
  const email = options.email.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) throw new InmoError('USER_EMAIL_INVALID');
  const name = checkedDisplayName(options.name);
  if (!(ROLES as readonly string[]).includes(options.role)) throw new InmoError('USER_ROLE_UNKNOWN');
  if (!(await findBusiness(db, options.businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: options.businessId });
  const { token, hash } = mintToken();
  try {
    const user = await db.transaction().execute(async (trx) => {
      const row = await repo.insertUser(trx, {
        business_id: options.businessId,
        email,
        display_name: name,
        role: options.role as Role,
        password_hash: null,
        created_at: toRfc3339(now),
        password_set_at: null,
        disabled_at: null,
      });
      await repo.insertUserToken(trx, {
        token_hash: hash,
        user_id: row.id,
        created_at: toRfc3339(now),
        expires_at: toRfc3339(new Date(now.getTime() + LINK_TTL_MS)),
      });
      await recordAudit(trx, options.businessId, actor, 'user.invite', row.id, toRfc3339(now));
      return row;
    });
    return { id: user.id, email: user.email, name: user.display_name, role: user.role, set_password_url: setPasswordPath(token) };
  } catch (error) {
    if (isUniqueViolation(error)) throw new InmoError('USER_EMAIL_TAKEN', { email });
    throw error;
  }
}

export async function listUsers(db: Db, businessId: number): Promise<UserInfo[]> {
  if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  return (await repo.listUsers(db, businessId)).map(info);
}

/** A user of the business (never another's), or undefined. */
export async function findUser(db: Db, businessId: number, id: number): Promise<UserInfo | undefined> {
  const row = await repo.findUser(db, id, businessId);
  return row && info(row);
}

/**
 * Gives a user of the business a display name, or takes it away (`''`), audited as `user.rename`
 * (the name itself is not in the audit trail).
 * @throws InmoError USER_NAME_INVALID, USER_NOT_FOUND (also for another business's user).
 */
export async function renameUser(
  db: Db,
  businessId: number | null,
  id: number,
  name: string,
  now = new Date(),
  actor: AuditActor = CLI,
): Promise<UserInfo> {
  const displayName = checkedDisplayName(name);
  return db.transaction().execute(async (trx) => {
    const user = await repo.findUser(trx, id, businessId);
    if (!user) throw new InmoError('USER_NOT_FOUND', { id });
    if (user.display_name !== displayName) {
      await repo.setDisplayName(trx, id, displayName);
      await recordAudit(trx, user.business_id, actor, 'user.rename', id, toRfc3339(now));
    }
    return info((await repo.findUser(trx, id))!);
  });
}

/**
 * Disables a user and ends their sessions at once (idempotent).
 * @param businessId the business whose user alone may be disabled (the console), or null for any (the operator's CLI).
 * @throws InmoError USER_NOT_FOUND, also for another business's user.
 * @param actor who did it, for the audit trail (CONTRACT §18): the command line unless said.
 */
export async function disableUser(
  db: Db,
  id: number,
  businessId: number | null,
  now = new Date(),
  actor: AuditActor = CLI,
): Promise<UserInfo> {
  return db.transaction().execute(async (trx) => {
    const user = await repo.findUser(trx, id, businessId);
    if (!user) throw new InmoError('USER_NOT_FOUND', { id });
    await repo.disableUser(trx, id, toRfc3339(now));
    if (user.disabled_at === null) await recordAudit(trx, user.business_id, actor, 'user.disable', id, toRfc3339(now));
    return info((await repo.findUser(trx, id))!);
  });
}

/** The account a one-time link opens, or undefined when it is unknown, spent, expired, or its user disabled. */
export async function findPasswordLink(db: Db, token: string, now = new Date()): Promise<{ email: string } | undefined> {
  const link = await repo.findUsableToken(db, hashToken(token), toRfc3339(now));
  return link && link.disabled_at === null ? { email: link.email } : undefined;
}

/**
 * Sets a password through a one-time link, spending it; ends the user's other sessions.
 * @returns null when done; the policy's problem; or `link` when the link is not usable (any more).
 */
export async function setPasswordWithLink(
  db: Db,
  token: string,
  password: string,
  now = new Date(),
): Promise<Exclude<PasswordProblem, null> | 'link' | null> {
  const link = await repo.findUsableToken(db, hashToken(token), toRfc3339(now));
  if (!link || link.disabled_at !== null) return 'link';
  const problem = passwordProblem(password, link.email);
  if (problem) return problem;
  const hash = await hashPassword(password);
  return db.transaction().execute(async (trx) => {
    if (!(await repo.spendToken(trx, link.token_hash, toRfc3339(now)))) return 'link';
    await repo.setPasswordHash(trx, link.user_id, hash, toRfc3339(now));
    return null;
  });
}

/**
 * Checks an email and password; on success opens a session.
 * @returns the session's token (for the cookie), or null: wrong email, wrong password, no
 *   password yet, or a disabled user, all alike.
 */
export async function login(db: Db, email: string, password: string, now = new Date()): Promise<string | null> {
  const user = await repo.findUserByEmail(db, email.trim().toLowerCase());
  const usable = user !== undefined && user.disabled_at === null && user.password_hash !== null;
  // The same work whether or not the account exists.
  const matches = await verifyPassword(password, usable ? user.password_hash! : DUMMY_HASH);
  if (!usable || !matches) return null;
  const { token, hash } = mintToken();
  const at = toRfc3339(now);
  await repo.insertSession(db, {
    token_hash: hash,
    user_id: user.id,
    created_at: at,
    last_seen_at: at,
    expires_at: toRfc3339(new Date(now.getTime() + SESSION_MAX_MS)),
  });
  return token;
}

/** Who a console request comes from. */
export interface ConsoleSession {
  userId: number;
  email: string;
  /** The user's display name, or null (CONTRACT §23). */
  name: string | null;
  role: Role;
  businessId: number;
  businessName: string;
  /** The business's time zone (IANA, e.g. `Europe/Madrid`): every time a page shows is in it (CONTRACT §23). */
  timezone: string;
  /** An opaque id of the session (not its token): binds CSRF tokens to it. */
  id: string;
}

/**
 * The live session of a cookie's token, or null (unknown, expired, idle too long, user
 * disabled). A dead session's row is deleted.
 */
export async function sessionOf(db: Db, token: string, now = new Date()): Promise<ConsoleSession | null> {
  const tokenHash = hashToken(token);
  const row = await repo.findSession(db, tokenHash);
  if (!row) return null;
  const at = now.getTime();
  const dead = row.disabled_at !== null || Date.parse(row.expires_at) <= at || Date.parse(row.last_seen_at) + SESSION_IDLE_MS <= at;
  if (dead) {
    await repo.deleteSession(db, tokenHash);
    return null;
  }
  if (at - Date.parse(row.last_seen_at) >= TOUCH_MS) await repo.touchSession(db, tokenHash, toRfc3339(now));
  return {
    userId: row.user_id,
    email: row.email,
    name: row.display_name,
    role: row.role,
    businessId: row.business_id,
    businessName: row.business_name,
    timezone: row.timezone,
    id: tokenHash.slice(0, 32),
  };
}

/** Ends a session (logout); nothing happens for an unknown token. */
export async function logout(db: Db, token: string): Promise<void> {
  await repo.deleteSession(db, hashToken(token));
}
