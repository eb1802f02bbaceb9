/**
 * A reply to the lead (CONTRACT §10, §25): the assistant's answer (`author = 'assistant'`, jobs/tasks/assistant-reply.ts),
 * an agent's (`author = 'agent'`, services/messaging/conversations.ts `replyAsAgent`), and what a
 * lead's answer to a viewing notice did (`author = 'viewing'`, services/viewings/notices.ts). By
 * WhatsApp it is a free-form text (or the assistant's list of slots) and goes only inside the lead's
 * 24-hour window; by e-mail its words are the agent's as written (domain/messaging/email-reply.ts),
 * threaded under the lead's e-mails (`In-Reply-To`, `References`) and answered to the business's
 * inbound address (services/messaging/reply-address.ts), without an unsubscribe link. Nothing
 * replaces one that fails. Which ways can carry an agent's reply now: {@link replyWays}.
 */
import type { Executor } from '../../../db/database.ts';
import { findEmailSettings } from '../../../db/repositories/email-out.ts';
import { findChannel, listEmailThreadIds } from '../../../db/repositories/messaging.ts';
import type { LeadRow } from '../../../db/types.ts';
import { InmoError } from '../../../errors.ts';
import { sendsEmail } from '../email.ts';
import { leadEmailAddress } from '../welcome.ts';
import { agentReplyEmail } from '../../../domain/messaging/email-reply.ts';
import { inboundReplyAddress } from '../reply-address.ts';
import type { Purpose } from './purpose.ts';

/** The ways an agent's reply can go (CONTRACT §10, §25). */
export const REPLY_CHANNELS = ['whatsapp', 'email'] as const;
export type ReplyChannel = (typeof REPLY_CHANNELS)[number];

/**
 * Why each way cannot carry an agent's reply now (the error it is refused with), or null when it
 * can: WhatsApp needs a channel and the lead's open window; e-mail an address of the lead and a
 * business that sends e-mail.
 */
export async function replyWays(
  trx: Executor,
  lead: LeadRow,
  conversation: { window_open_until: string | null } | undefined,
  now: string,
): Promise<Record<ReplyChannel, InmoError | null>> {
  const until = conversation?.window_open_until ?? null;
  const whatsapp = !(await findChannel(trx, lead.business_id))
    ? new InmoError('REPLY_NO_CHANNEL')
    : until === null || until <= now
      ? new InmoError('REPLY_WINDOW_CLOSED', { closedAt: until })
      : null;
  const email =
    leadEmailAddress(lead) === null
      ? new InmoError('REPLY_NO_EMAIL')
      : !sendsEmail(await findEmailSettings(trx, lead.business_id))
        ? new InmoError('REPLY_EMAIL_OFF')
        : null;
  return { whatsapp, email };
}

/** The most `Message-ID`s a reply's `References` names: the thread's newest. */
const REFERENCES_MAX = 20;

export const reply: Purpose = {
  name: 'reply',
  author: 'agent',
  unsubscribe: false,
  async email(db, message, facts) {
    const thread = (await listEmailThreadIds(db, message.lead_id, REFERENCES_MAX)).filter((id) => id.startsWith('<'));
    const words = agentReplyEmail(message.language ?? 'es', {
      businessName: facts.businessName,
      text: message.body ?? '',
      answering: thread.length > 0,
    });
    const headers: Record<string, string> = thread.length ? { 'In-Reply-To': thread[0], References: [...thread].reverse().join(' ') } : {};
    // The business's inbound address, else the sender's own Reply-To (the delivery's default).
    const replyTo = (await inboundReplyAddress(db, message.business_id)) ?? undefined;
    return { ...words, headers, replyTo, keepsBody: true };
  },
};
