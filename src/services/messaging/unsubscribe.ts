/**
 * One-click unsubscribe (CONTRACT §19, RFC 8058): every e-mail that is not a direct answer
 * carries `List-Unsubscribe: <https://…/u/<token>>` and `List-Unsubscribe-Post:
 * List-Unsubscribe=One-Click`.
 *
 * A token is 256 random bits (base64url), single-purpose (it only unsubscribes one lead of one
 * business) and says nothing about the lead; only its SHA-256 is kept (`unsubscribe_tokens`,
 * migration 0026), so the database alone cannot make a link.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Executor } from '../../db/database.ts';
import { insertUnsubscribeToken } from '../../db/repositories/email-out.ts';

/** Path of the unsubscribe endpoint on the server: `/u/<token>`. */
export const UNSUBSCRIBE_PATH = '/u/';

/** The SHA-256 of a token, hex (what is stored). */
export function unsubscribeTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Makes a new unsubscribe link for a lead, in the caller's transaction.
 * @param publicUrl the server's public origin (config.ts `emailOutSettings().publicUrl`), no trailing slash.
 * @returns the absolute URL `<publicUrl>/u/<token>`.
 */
export async function newUnsubscribeLink(db: Executor, businessId: number, leadId: number, publicUrl: string, at: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await insertUnsubscribeToken(db, { business_id: businessId, lead_id: leadId, token_hash: unsubscribeTokenHash(token), created_at: at });
  return `${publicUrl.replace(/\/+$/, '')}${UNSUBSCRIBE_PATH}${token}`;
}
