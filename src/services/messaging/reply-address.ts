/**
 * The address a lead's answer to an agent's e-mail comes back to (CONTRACT §25): one of the
 * business's inbound e-mail. Today that is the mailbox inmo pulls over IMAP (CONTRACT §19) when its
 * user name is an address; the addresses of an inbound SMTP domain are to be added here, and every
 * reply's `Reply-To` and every answer's match read them through this one function.
 */
import { isEmailAddress } from '../../channels/email-smtp.ts';
import type { Executor } from '../../db/database.ts';
import { listEmailPulls } from '../../db/repositories/email-pulls.ts';

/** The user of a stored pull's URL (`imaps://user@host:993/INBOX`, percent-encoded), or null. */
function userOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.username ? decodeURIComponent(parsed.username) : null;
  } catch {
    return null;
  }
}

/**
 * The business's inbound address that answers should be sent to, lower-case: the address of its
 * oldest IMAP mailbox still pulled whose user name is an e-mail address.
 * @returns the address, or null when it has none (the reply then carries the business's own
 *   `Reply-To`, or none, and the answer reaches inmo when it is forwarded: by its `In-Reply-To`).
 */
export async function inboundReplyAddress(db: Executor, businessId: number): Promise<string | null> {
  for (const pull of await listEmailPulls(db, businessId)) {
    const user = userOf(pull.url)?.trim().toLowerCase();
    if (user && isEmailAddress(user)) return user;
  }
  return null;
}
