/** Console users, their one-time links and sessions (migration 0007): SQL only, no rules (see services/access/console-users.ts). */
import type { Executor } from '../database.ts';
import type { Insertable, Selectable } from 'kysely';
import type { ConsoleSessionTable, UserTable } from '../types.ts';

export type UserRow = Selectable<UserTable>;
export type SessionRow = Selectable<ConsoleSessionTable>;

export async function insertUser(db: Executor, user: Insertable<UserTable>): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

/** A user by id, of `businessId` only unless it is null (the operator's CLI). */
export async function findUser(db: Executor, id: number, businessId: number | null = null): Promise<UserRow | undefined> {
  let query = db.selectFrom('users').selectAll().where('id', '=', id);
  if (businessId !== null) query = query.where('business_id', '=', businessId);
  return query.executeTakeFirst();
}

export async function listUsers(db: Executor, businessId: number): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().where('business_id', '=', businessId).orderBy('id').execute();
}

export async function setDisplayName(db: Executor, id: number, name: string | null): Promise<void> {
  await db.updateTable('users').set({ display_name: name }).where('id', '=', id).execute();
}

export async function disableUser(db: Executor, id: number, at: string): Promise<void> {
  await db.updateTable('users').set({ disabled_at: at }).where('id', '=', id).where('disabled_at', 'is', null).execute();
  await db.deleteFrom('console_sessions').where('user_id', '=', id).execute();
}

export async function insertUserToken(db: Executor, row: { token_hash: string; user_id: number; created_at: string; expires_at: string }) {
  await db.insertInto('user_tokens').values(row).execute();
}

/** The unspent, unexpired link with this hash and its user. */
export async function findUsableToken(db: Executor, tokenHash: string, now: string) {
  return db
    .selectFrom('user_tokens')
    .innerJoin('users', 'users.id', 'user_tokens.user_id')
    .select(['user_tokens.token_hash', 'users.id as user_id', 'users.email', 'users.disabled_at'])
    .where('user_tokens.token_hash', '=', tokenHash)
    .where('user_tokens.used_at', 'is', null)
    .where('user_tokens.expires_at', '>', now)
    .executeTakeFirst();
}

/** Spends a link. @returns false when it was spent already (two submissions racing). */
export async function spendToken(db: Executor, tokenHash: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('user_tokens')
    .set({ used_at: at })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function setPasswordHash(db: Executor, userId: number, hash: string, at: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: hash, password_set_at: at }).where('id', '=', userId).execute();
  // A new password ends every session the old one opened.
  await db.deleteFrom('console_sessions').where('user_id', '=', userId).execute();
}

export async function insertSession(db: Executor, row: SessionRow): Promise<void> {
  await db.insertInto('console_sessions').values(row).execute();
}

/** A session and its (enabled) user, by the token's hash. */
export async function findSession(db: Executor, tokenHash: string) {
  return db
    .selectFrom('console_sessions')
    .innerJoin('users', 'users.id', 'console_sessions.user_id')
    .innerJoin('businesses', 'businesses.id', 'users.business_id')
    .select([
      'console_sessions.token_hash',
      'console_sessions.created_at',
      'console_sessions.last_seen_at',
      'console_sessions.expires_at',
      'users.id as user_id',
      'users.email',
      'users.display_name',
      'users.role',
      'users.business_id',
      'users.disabled_at',
      'businesses.name as business_name',
      'businesses.timezone',
    ])
    .where('console_sessions.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function touchSession(db: Executor, tokenHash: string, at: string): Promise<void> {
  await db.updateTable('console_sessions').set({ last_seen_at: at }).where('token_hash', '=', tokenHash).execute();
}

export async function deleteSession(db: Executor, tokenHash: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('token_hash', '=', tokenHash).execute();
}
