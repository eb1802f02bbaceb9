/**
 * The address a lead's answer to an agent's e-mail comes back to (CONTRACT §25): one of the
 * business's inbound e-mail. With the SMTP listener configured (`INMO_SMTP_INBOUND_PORT`,
 * `INMO_INBOUND_DOMAIN`), the business's `<token>@domain` (services/leads/inbound-address.ts);
 * else the mailbox inmo pulls over IMAP (CONTRACT §19) when its user name is an address. Every
 * reply's `Reply-To` and every answer's match read them through this one function.
 */
import { isEmailAddress } from '../../channels/email-smtp.ts';
import { inboundSmtpSettings } from '../../config.ts';
import type { Executor } from '../../db/database.ts';
import { listEmailPulls } from '../../db/repositories/email-pulls.ts';
import { findShownInboundToken } from '../../db/repositories/inbound-email.ts';
import { openSecret } from '../../secrets.ts';

/** The user of a stored pull's URL (`imaps://user@host:993/INBOX`, percent-encoded), or null. */
function userOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.username ? decodeURIComponent(parsed.username) : null;
  } catch {
    return null;
  }
}

/** The inbound domain of this process's settings, or null (no SMTP listener, or settings `inmo serve` would refuse). */
function inboundDomain(): string | null {
  try {
    return inboundSmtpSettings()?.domain ?? null;
  } catch {
    return null;
  }
}

/**
 * The business's inbound address that answers should be sent to: `<token>@domain`
 * when the SMTP listener is configured and the business has a token that can be shown (none is
 * made here: the owner makes it on the e-mail page), else the address of its oldest IMAP mailbox
 * still pulled whose user name is an e-mail address.
 * @returns the address, or null when it has none (the reply then carries the business's own
 *   `Reply-To`, or none, and the answer reaches inmo when it is forwarded: by its `In-Reply-To`).
 */
export async function inboundReplyAddress(db: Executor, businessId: number): Promise<string | null> {
  const domain = inboundDomain();
  if (domain !== null) {
    const shown = await findShownInboundToken(db, businessId);
    if (shown?.token_sealed) {
      try {
        return `${openSecret(shown.token_sealed)}@${domain}`;
      } catch {
        // Sealed with another key: no address to give; the mailbox below, if any.
      }
    }
  }
  for (const pull of await listEmailPulls(db, businessId)) {
    const user = userOf(pull.url)?.trim().toLowerCase();
    if (user && isEmailAddress(user)) return user;
  }
  return null;
}
