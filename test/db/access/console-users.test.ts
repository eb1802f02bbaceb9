/**
 * Console users and sessions (issue 15, CONTRACT §12): the password policy, one-time links,
 * logins that never say which half was wrong, and sessions that end on idle, on age, at logout,
 * on a new password and when the user is disabled. On this process's engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { hashPassword, passwordProblem, verifyPassword, DUMMY_HASH } from '../../../src/domain/access/passwords.ts';
import {
  createUser,
  disableUser,
  findUser,
  findPasswordLink,
  listUsers,
  login,
  logout,
  sessionOf,
  setPasswordWithLink,
  LINK_TTL_MS,
  SESSION_IDLE_MS,
  SESSION_MAX_MS,
} from '../../../src/services/access/console-users.ts';
import { businessWithKey, freshDb } from '../../helpers/db.ts';

const GOOD = 'tejado-azul-sobre-Zaragoza';
const tokenOf = (url: string) => url.split('/').pop()!;

describe('password policy and hashing', () => {
  it('refuses short, common and email-like passwords, accepts a long uncommon one', () => {
    expect(passwordProblem('corto', 'ana@a.example')).toBe('password_too_short');
    expect(passwordProblem('x'.repeat(257), 'ana@a.example')).toBe('password_too_long');
    expect(passwordProblem('1q2w3e4r5t6y', 'ana@a.example')).toBe('password_common');
    expect(passwordProblem('QWERTY123456', 'ana@a.example')).toBe('password_common');
    expect(passwordProblem('ana.garcia.lopez@a.example', 'Ana.Garcia.Lopez@a.example')).toBe('password_is_email');
    expect(passwordProblem(GOOD, 'ana@a.example')).toBeNull();
  });

  it('hashes with a salt and verifies only the same password', async () => {
    const [a, b] = [await hashPassword(GOOD), await hashPassword(GOOD)];
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword(GOOD, a)).toBe(true);
    expect(await verifyPassword(`${GOOD}!`, a)).toBe(false);
    expect(await verifyPassword(GOOD, DUMMY_HASH)).toBe(false);
    expect(await verifyPassword(GOOD, 'not-a-hash')).toBe(false);
  });
});

describe('users, links and sessions', () => {
  let db: Db;
  let businessId: number;
  let otherBusiness: number;

  beforeAll(async () => {
    ({ db } = await freshDb());
    ({ businessId } = await businessWithKey(db, 'Agencia Uno'));
    ({ businessId: otherBusiness } = await businessWithKey(db, 'Agencia Dos'));
  });
  afterAll(() => db.destroy());

  it('creates a user with a one-time link; the email is unique and lower-cased', async () => {
    const user = await createUser(db, { businessId, email: ' Ana@Uno.Example ', role: 'owner' });
    expect(user).toMatchObject({ email: 'ana@uno.example', role: 'owner' });
    expect(user.set_password_url).toMatch(/^\/console\/set-password\/[A-Za-z0-9_-]{43}$/);
    await expect(createUser(db, { businessId: otherBusiness, email: 'ANA@uno.example', role: 'agent' })).rejects.toThrow(
      'A user with email ana@uno.example already exists',
    );
    await expect(createUser(db, { businessId, email: 'no-at-sign', role: 'agent' })).rejects.toMatchObject({ code: 'USER_EMAIL_INVALID' });
    await expect(createUser(db, { businessId, email: 'x@uno.example', role: 'admin' })).rejects.toMatchObject({
      code: 'USER_ROLE_UNKNOWN',
    });
    await expect(createUser(db, { businessId: 999, email: 'x@uno.example', role: 'agent' })).rejects.toThrow('Business 999');
    expect((await listUsers(db, businessId)).map((u) => [u.email, u.state])).toEqual([['ana@uno.example', 'invited']]);
  });

  it('a link sets the password once, within 24 h, and only with a password the policy accepts', async () => {
    const now = new Date('2026-11-23T10:00:00Z');
    const { set_password_url } = await createUser(db, { businessId, email: 'luis@uno.example', role: 'agent' }, now);
    const token = tokenOf(set_password_url);
    expect(await findPasswordLink(db, token, now)).toEqual({ email: 'luis@uno.example' });
    expect(await findPasswordLink(db, token, new Date(now.getTime() + LINK_TTL_MS))).toBeUndefined();
    expect(await setPasswordWithLink(db, token, '123456789012', now)).toBe('password_common');
    expect(await login(db, 'luis@uno.example', '123456789012', now)).toBeNull();
    expect(await setPasswordWithLink(db, token, GOOD, now)).toBeNull();
    expect(await setPasswordWithLink(db, token, `${GOOD}-2`, now)).toBe('link');
    expect(await findPasswordLink(db, token, now)).toBeUndefined();
    expect(await setPasswordWithLink(db, 'made-up-token', GOOD, now)).toBe('link');
  });

  it('an expired link sets nothing', async () => {
    const then = new Date('2026-11-20T10:00:00Z');
    const { set_password_url } = await createUser(db, { businessId, email: 'late@uno.example', role: 'agent' }, then);
    expect(await setPasswordWithLink(db, tokenOf(set_password_url), GOOD, new Date(then.getTime() + LINK_TTL_MS + 1))).toBe('link');
    expect(await login(db, 'late@uno.example', GOOD)).toBeNull();
  });

  it('logs in with the right pair only; wrong email and wrong password are the same null', async () => {
    expect(await login(db, 'luis@uno.example', 'wrong-password-here')).toBeNull();
    expect(await login(db, 'nobody@uno.example', GOOD)).toBeNull();
    const token = await login(db, 'LUIS@uno.example', GOOD);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await sessionOf(db, token!)).toMatchObject({
      email: 'luis@uno.example',
      role: 'agent',
      businessId,
      businessName: 'Agencia Uno',
    });
    await logout(db, token!);
    expect(await sessionOf(db, token!)).toBeNull();
  });

  it('a session ends after idle time and after its absolute lifetime, even when used', async () => {
    const t0 = new Date('2026-11-23T08:00:00Z');
    const token = (await login(db, 'luis@uno.example', GOOD, t0))!;
    expect(await sessionOf(db, token, new Date(t0.getTime() + SESSION_IDLE_MS - 1000))).not.toBeNull();
    // Used just now: idle counts from the last request.
    let at = t0.getTime() + SESSION_IDLE_MS - 1000;
    while (at + SESSION_IDLE_MS / 2 < t0.getTime() + SESSION_MAX_MS) {
      at += SESSION_IDLE_MS / 2;
      expect(await sessionOf(db, token, new Date(at))).not.toBeNull();
    }
    expect(await sessionOf(db, token, new Date(t0.getTime() + SESSION_MAX_MS))).toBeNull();
    const idle = (await login(db, 'luis@uno.example', GOOD, t0))!;
    expect(await sessionOf(db, idle, new Date(t0.getTime() + SESSION_IDLE_MS))).toBeNull();
  });

  it('disabling a user ends their sessions and refuses their logins', async () => {
    const { set_password_url, id } = await createUser(db, { businessId, email: 'eva@uno.example', role: 'agent' });
    expect(await setPasswordWithLink(db, tokenOf(set_password_url), GOOD)).toBeNull();
    const token = (await login(db, 'eva@uno.example', GOOD))!;
    expect(await sessionOf(db, token)).not.toBeNull();
    // Scoped to another business (as the console scopes it), she is not found and stays active.
    await expect(disableUser(db, id, businessId + 1000)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    expect(await findUser(db, businessId + 1000, id)).toBeUndefined();
    expect(await sessionOf(db, token)).not.toBeNull();
    expect((await findUser(db, businessId, id))?.state).toBe('active');
    expect((await disableUser(db, id, businessId)).state).toBe('disabled');
    expect(await sessionOf(db, token)).toBeNull();
    expect(await login(db, 'eva@uno.example', GOOD)).toBeNull();
    await expect(disableUser(db, 424242, null)).rejects.toThrow('No user with id 424242');
  });
});
