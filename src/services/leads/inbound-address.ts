/**
 * A business's inbound e-mail address (CONTRACT §19, §25): the one token that both the webhook
 * (`/webhooks/email/<token>`) and the SMTP listener (`<token>@INMO_INBOUND_DOMAIN`) take, so that
 * one secret serves both ways in.
 *
 * - The token shown is the business's newest live one that was kept sealed (migration 0054); when
 *   it has none (none at all, or only tokens made before 0054, which still work but cannot be shown
 *   again), {@link inboundAddressOf} makes one, and the console offers to. Revoking it (the
 *   console, `inmo email inbound revoke`) ends both ways at once.
 * - Whoever holds the address can post to the webhook and send by SMTP: both are believed the same
 *   (domain/leads/portal-emails/trust.ts, docs/security.md). An address used as an e-mail's
 *   `Reply-To` is known to the lead it went to.
 *
 * {@link inboundAddressOf} is what e-mails out name as their `Reply-To`.
 */
import type { InboundSmtpSettings } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import * as repo from '../../db/repositories/inbound-email.ts';
import { openSecret } from '../../secrets.ts';
import { createInboundAddress, inboundBusinessOf, inboundPath } from './email-intake.ts';

/**
 * The business's newest live token that can be shown, or null when it has none (nothing is made).
 * @throws SecretKeyMismatchError when the secret key changed since it was sealed.
 */
export async function shownInboundToken(db: Db, businessId: number): Promise<string | null> {
  const shown = await repo.findShownInboundToken(db, businessId);
  return shown?.token_sealed ? openSecret(shown.token_sealed) : null;
}

/**
 * The business's inbound token, made now when it has none that can be shown.
 * @returns the token (43 characters; secret: never logged).
 * @throws InmoError UNKNOWN_BUSINESS; SecretKeyMismatchError when the secret key changed since it was sealed.
 */
export async function inboundTokenOf(db: Db, businessId: number): Promise<string> {
  return (await shownInboundToken(db, businessId)) ?? (await createInboundAddress(db, businessId)).token;
}

/**
 * The business's inbound e-mail address, `<token>@INMO_INBOUND_DOMAIN`, when the SMTP listener is
 * configured (CONTRACT §25): what an e-mail inmo sends names as its `Reply-To`.
 * @param settings the installation's inbound SMTP settings (config.ts `Config.inboundSmtp`), or null.
 * @returns the address, or null when `settings` is null (no SMTP listener: no address to give).
 * @throws as {@link inboundTokenOf}.
 */
export async function inboundAddressOf(
  db: Db,
  businessId: number,
  settings: Pick<InboundSmtpSettings, 'domain'> | null,
): Promise<string | null> {
  if (settings === null) return null;
  return `${await inboundTokenOf(db, businessId)}@${settings.domain}`;
}

/**
 * What the console's e-mail page shows of the way in: the address and the webhook's path (under
 * the server's public URL), of the same token. Makes nothing (a page read writes nothing): the
 * owner makes the first one with a button (`POST /console/email/addresses`).
 * @returns `{address, webhookPath}` (`address` null without the SMTP listener), or null when the
 *   business has no token that can be shown.
 */
export async function inboundWaysOf(
  db: Db,
  businessId: number,
  settings: Pick<InboundSmtpSettings, 'domain'> | null,
): Promise<{ address: string | null; webhookPath: string } | null> {
  const token = await shownInboundToken(db, businessId);
  if (token === null) return null;
  return { address: settings === null ? null : `${token}@${settings.domain}`, webhookPath: inboundPath(token) };
}

/**
 * The business an SMTP recipient names: `<token>@domain` with `domain` the inbound domain (any
 * case) and the token a live one (as written, else lower-cased: new tokens are lower-case, and
 * some mail systems change an address's case).
 * @returns its business id, or null (another domain, a malformed or unknown or revoked token).
 */
export async function businessOfInboundRecipient(db: Db, recipient: string, domain: string): Promise<number | null> {
  const at = recipient.lastIndexOf('@');
  if (
    at <= 0 ||
    recipient
      .slice(at + 1)
      .toLowerCase()
      .replace(/\.$/, '') !== domain
  )
    return null;
  const local = recipient.slice(0, at);
  const found = await inboundBusinessOf(db, local);
  if (found !== null || local === local.toLowerCase()) return found;
  return inboundBusinessOf(db, local.toLowerCase());
}
