/**
 * E-mail as a conversation, inbound (CONTRACT §25): an e-mail that answers one inmo sent is added
 * to the lead's conversation instead of being read as a portal e-mail.
 *
 * Every inbound path stores a message the same way (the webhook, the IMAP pulls:
 * services/leads/email-intake.ts), and its `process_email` job asks here first, from the
 * message's own headers (channels/email-message.ts `threadingOf`, linear in their length, no body
 * read), before any portal parser runs. A message answers the lead
 * - whose e-mail its `In-Reply-To` or `References` names (the `Message-ID` inmo gave every e-mail
 *   it sent, kept in `provider_message_id`: services/messaging/delivery.ts), else
 * - whose address it comes from, when an agent has written to that lead by e-mail and the message
 *   was sent to one of the business's reply addresses (its inbound address,
 *   services/messaging/reply-address.ts, its `Reply-To`, or its From address).
 *
 * The answer is kept as `direction: "in"`, `kind: "email"`, its text without the part it quotes
 * (domain/messaging/email-reply.ts, read on the e-mail reader's thread), and the conversation waits
 * for an agent (`conversation.waiting`). What the lead wrote is never logged.
 */
import type { Transaction } from 'kysely';
import { threadingOf } from '../../channels/email-message.ts';
import { emailOutSettings, type EmailOutSettings } from '../../config.ts';
import type { Executor } from '../../db/database.ts';
import { findEmailSettings } from '../../db/repositories/email-out.ts';
import {
  findConversation,
  findLeadOfSentEmail,
  findLeadWrittenAt,
  insertInbound,
  setConversationState,
  touchConversation,
} from '../../db/repositories/messaging.ts';
import type { Database } from '../../db/types.ts';
import { recordEvent } from '../integrations/events.ts';
import { inboundReplyAddress } from './reply-address.ts';

/**
 * The addresses a lead's answer to the business may be sent to, lower-case: its inbound address
 * ({@link inboundReplyAddress}), its own `Reply-To` and From addresses, else the server's From.
 */
export async function replyAddressesOf(
  db: Executor,
  businessId: number,
  server: EmailOutSettings['smtp'] = emailOutSettings().smtp,
): Promise<Set<string>> {
  const [inbound, own] = await Promise.all([inboundReplyAddress(db, businessId), findEmailSettings(db, businessId)]);
  const addresses = own ? [inbound, own.reply_to, own.from_address] : [inbound, server?.from];
  return new Set(addresses.filter((a): a is string => Boolean(a?.trim())).map((a) => a.trim().toLowerCase()));
}

/**
 * The lead a raw e-mail received for `businessId` answers (see the module's comment), or null
 * when it answers none: it is then read as a portal e-mail.
 */
export async function leadAnsweredBy(db: Executor, businessId: number, raw: Buffer): Promise<number | null> {
  const threading = threadingOf(raw);
  const byThread = await findLeadOfSentEmail(db, businessId, threading.answers);
  if (byThread !== undefined) return byThread;
  if (threading.from === null || threading.recipients.length === 0) return null;
  const addresses = await replyAddressesOf(db, businessId);
  if (!threading.recipients.some((r) => addresses.has(r))) return null;
  return (await findLeadWrittenAt(db, businessId, threading.from)) ?? null;
}

/**
 * Adds a lead's answer to its conversation, in `trx`: the message (`in`, `email`, `received`,
 * keyed by the e-mail's `Message-ID` or digest so that it is kept once), the conversation made or
 * moved to its newest message, and waiting for an agent unless the lead opted out.
 * @returns the message's id, or undefined when the same e-mail was already kept.
 */
export async function keepEmailAnswer(
  trx: Transaction<Database>,
  answer: { businessId: number; leadId: number; messageKey: string; text: string; at: string },
): Promise<number | undefined> {
  const { businessId, leadId, at } = answer;
  const id = await insertInbound(trx, {
    business_id: businessId,
    lead_id: leadId,
    kind: 'email',
    body: answer.text,
    provider_message_id: answer.messageKey,
    sent_at: at,
    created_at: at,
    updated_at: at,
  });
  if (id === undefined) return undefined;
  await touchConversation(trx, { leadId, businessId, at });
  const conversation = await findConversation(trx, leadId);
  if (conversation && conversation.state === 'assistant') {
    await setConversationState(trx, leadId, { state: 'waiting_for_agent', unrecognised: 0, updated_at: at });
    await recordEvent(trx, businessId, 'conversation.waiting', leadId, { lead_id: leadId }, at);
  }
  return id;
}
