/**
 * One-click unsubscribe (CONTRACT §19, RFC 8058): every e-mail that is not a direct answer
 * carries `List-Unsubscribe: <https://…/u/<token>>` and `List-Unsubscribe-Post:
 * List-Unsubscribe=One-Click`.
 *
 * A token is a capability token (domain/capability-token.ts: 256 random bits, base64url),
 * single-purpose (it only unsubscribes one lead of one business) and says nothing about the
 * lead; only its SHA-256 is kept (`unsubscribe_tokens`, migration 0027), so the database alone
 * cannot make a link.
 *
 * Using one (`POST /u/<token>`, no key, no cookie) records the opt-out: a consent record refusing
 * marketing and WhatsApp (CONTRACT §18: when and how, in its `text` and `version`), and the lead's
 * conversation `opted_out`, which stops every later message by any channel (services/messaging/delivery.ts).
 * A second use changes nothing.
 */
import type { Db, Executor } from '../../db/database.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import { findUnsubscribeToken, insertUnsubscribeToken, markUnsubscribeTokenUsed } from '../../db/repositories/email-out.ts';
import { findLead, insertConsent } from '../../db/repositories/leads.ts';
import { setConversationState, touchConversation } from '../../db/repositories/messaging.ts';
import { transact } from '../../db/transaction.ts';
import { hashToken, mintToken, TOKEN_FORM } from '../../domain/capability-token.ts';
import { nowRfc3339 } from '../../domain/time.ts';
import { emailLanguage } from './welcome.ts';

/** Path of the unsubscribe endpoint on the server: `/u/<token>`. */
export const UNSUBSCRIBE_PATH = '/u/';

/**
 * The SHA-256 of a token, hex (what is stored): domain/capability-token.ts `hashToken`, under the
 * name the lookups of alerts' tokens still use.
 */
export const unsubscribeTokenHash: (token: string) => string = hashToken;

/**
 * Makes a new unsubscribe link for a lead, in the caller's transaction.
 * @param publicUrl the server's public origin (config.ts `emailOutSettings().publicUrl`), no trailing slash.
 * @returns the absolute URL `<publicUrl>/u/<token>`.
 */
export async function newUnsubscribeLink(db: Executor, businessId: number, leadId: number, publicUrl: string, at: string): Promise<string> {
  const { token, hash } = mintToken();
  await insertUnsubscribeToken(db, { business_id: businessId, lead_id: leadId, token_hash: hash, created_at: at });
  return `${publicUrl.replace(/\/+$/, '')}${UNSUBSCRIBE_PATH}${token}`;
}

/** The wording of the consent record an unsubscribe leaves (no personal data). */
export const UNSUBSCRIBE_CONSENT_TEXT = 'Unsubscribed with the one-click link of an e-mail (RFC 8058)';
export const UNSUBSCRIBE_CONSENT_VERSION = 'unsubscribe-link';

/** The form of a token: 43 base64url characters (every one was minted so). */
const TOKEN = TOKEN_FORM;

/**
 * What the unsubscribe page shows for a token: the business's name, the lead's e-mail language
 * (es, en, fr, de, it) and whether it was used already; null for an unknown token (or a lead gone).
 */
export async function unsubscribePage(db: Db, token: string): Promise<{ businessName: string; language: string; done: boolean } | null> {
  if (!TOKEN.test(token)) return null;
  const row = await findUnsubscribeToken(db, hashToken(token));
  if (!row) return null;
  const [lead, business] = await Promise.all([findLead(db, row.lead_id), findBusiness(db, row.business_id)]);
  if (!lead || !business) return null;
  return { businessName: business.name, language: emailLanguage(lead.preferred_language), done: row.used_at !== null };
}

/**
 * Records the opt-out a token stands for, once: the consent record and the conversation
 * `opted_out`, in one transaction.
 * @returns the page's values as {@link unsubscribePage} gives them (`done` true), or null for an
 *   unknown token, writing nothing.
 */
export async function unsubscribe(db: Db, token: string, at: string = nowRfc3339()) {
  const page = await unsubscribePage(db, token);
  if (!page) return null;
  await transact(db, async (trx) => {
    const row = await findUnsubscribeToken(trx, hashToken(token));
    if (!row || !(await markUnsubscribeTokenUsed(trx, row.id, at))) return;
    await insertConsent(trx, {
      business_id: row.business_id,
      lead_id: row.lead_id,
      marketing: 0,
      whatsapp: 0,
      text: UNSUBSCRIBE_CONSENT_TEXT,
      version: UNSUBSCRIBE_CONSENT_VERSION,
      source_page: null,
      created_at: at,
    });
    await touchConversation(trx, { leadId: row.lead_id, businessId: row.business_id, at });
    await setConversationState(trx, row.lead_id, { state: 'opted_out', updated_at: at });
  });
  return { ...page, done: true };
}
