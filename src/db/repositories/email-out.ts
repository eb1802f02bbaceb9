/**
 * E-mail out (migration 0027, CONTRACT §19): a business's own SMTP server, and the one-click
 * unsubscribe links' tokens (their hashes). SQL only.
 */
import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../database.ts';
import type { EmailSettingsTable, UnsubscribeTokenTable } from '../types.ts';

export type EmailSettingsRow = Selectable<EmailSettingsTable>;
export type UnsubscribeTokenRow = Selectable<UnsubscribeTokenTable>;

/** Connects (or reconnects, replacing every setting of) the business's SMTP server. */
export async function upsertEmailSettings(db: Executor, settings: Insertable<EmailSettingsTable>): Promise<void> {
  const { business_id: _business, connected_at: _connected, ...changed } = settings;
  await db
    .insertInto('email_settings')
    .values(settings)
    .onConflict((oc) => oc.column('business_id').doUpdateSet(changed))
    .execute();
}

/** The business's own SMTP server, if it connected one. */
export async function findEmailSettings(db: Executor, businessId: number): Promise<EmailSettingsRow | undefined> {
  return db.selectFrom('email_settings').selectAll().where('business_id', '=', businessId).executeTakeFirst();
}

/** Records an unsubscribe token's hash for a lead. */
export async function insertUnsubscribeToken(db: Executor, token: Insertable<UnsubscribeTokenTable>): Promise<void> {
  await db.insertInto('unsubscribe_tokens').values(token).execute();
}

/** The unsubscribe token with this hash (SHA-256, hex). */
export async function findUnsubscribeToken(db: Executor, tokenHash: string): Promise<UnsubscribeTokenRow | undefined> {
  return db.selectFrom('unsubscribe_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Notes the first use of an unsubscribe token. @returns whether this was its first use. */
export async function markUnsubscribeTokenUsed(db: Executor, id: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('unsubscribe_tokens')
    .set({ used_at: at })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
