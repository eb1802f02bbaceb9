/**
 * People in the loop (CONTRACT §10, §25): agents see every conversation, answer a lead inside
 * WhatsApp's 24-hour window or by e-mail, take a conversation from the assistant and give it back.
 *
 * A lead "has a conversation" once it has written on WhatsApp; before that, its thread holds
 * at most the welcome template.
 */
import type { Db, Executor } from '../../db/database.ts';
import { findLead } from '../../db/repositories/leads.ts';
import type { LeadRow } from '../../db/types.ts';
import {
  findConversation,
  handConversationToAgents,
  listConversations as listConversationRows,
  markConversationSeen as markSeen,
  listThread,
  setConversationState,
  touchConversation,
  type MessageRow,
} from '../../db/repositories/messaging.ts';
import { transact } from '../../db/transaction.ts';
import { nowRfc3339 } from '../../domain/time.ts';
import { InmoError, type ErrorCode } from '../../errors.ts';
import { recordEvent } from '../integrations/events.ts';
import { queueMessage } from './outbox.ts';
import { replyWays, type ReplyChannel } from './purposes/reply.ts';
import { emailLanguage, leadEmailAddress } from './welcome.ts';

/** WhatsApp's limit on a text message, characters. */
export const MAX_REPLY_CHARS = 4096;

/** One message of a thread, as `inmo conversations show --json` prints it (CONTRACT §10). */
export function presentMessage(m: MessageRow) {
  return {
    id: m.id,
    direction: m.direction,
    kind: m.kind,
    author: m.author,
    text: m.body ?? (m.kind === 'template' ? m.template : null),
    state: m.state,
    provider_message_id: m.provider_message_id,
    reply_to: m.reply_to,
    error: m.last_error,
    sent_at: m.sent_at,
    created_at: m.created_at,
  };
}

/**
 * A lead's conversation: `{lead_id, state: assistant|waiting_for_agent|opted_out,
 * window_open_until, messages: [...]}`, messages oldest first.
 * @throws InmoError LEAD_NOT_FOUND.
 */
export async function showConversation(db: Db, leadId: number) {
  if (!(await findLead(db, leadId))) throw new InmoError('LEAD_NOT_FOUND', { id: leadId });
  return conversationOf(db, leadId);
}

/** The conversation of a lead known to exist (also part of `inmo leads show`). */
export async function conversationOf(db: Db, leadId: number) {
  const conversation = await findConversation(db, leadId);
  return {
    lead_id: leadId,
    state: conversation?.state ?? 'assistant',
    window_open_until: conversation?.window_open_until ?? null,
    messages: (await listThread(db, leadId)).map(presentMessage),
  };
}

/**
 * Conversations, those waiting for an agent first, then the most recent first: `{data: [{lead_id,
 * business_id, state, window_open_until, last_message_at, name, phone_number_1, unread, last_text,
 * channel: 'email'|'whatsapp'|null}]}` (`channel`: the way of its last message, CONTRACT §25),
 * `unread` counting the lead's messages no agent has seen (CONTRACT §16).
 */
export async function listConversations(db: Db, filter: { businessId?: number; waiting?: boolean; limit?: number; offset?: number }) {
  const rows = await listConversationRows(db, { ...filter, limit: filter.limit ?? 100 });
  // PostgreSQL counts in bigint, which its driver gives as text.
  return {
    data: rows.map(({ last_kind, ...r }) => ({
      ...r,
      unread: Number(r.unread),
      channel: last_kind === null ? null : last_kind === 'email' ? ('email' as const) : ('whatsapp' as const),
    })),
  };
}

/** Marks what the lead has written so far as seen by an agent (the business's lead only). */
export async function markConversationSeen(db: Db, businessId: number, leadId: number): Promise<void> {
  await markSeen(db, businessId, leadId);
}

export { REPLY_CHANNELS, type ReplyChannel } from './purposes/reply.ts';

/**
 * An agent's message to the lead, queued in the outbox (services/messaging/outbox.ts, purpose
 * `reply`) and sent by the worker (`send_message`). The conversation
 * stays with the agents until resumed: the assistant does not answer the lead meanwhile.
 *
 * By WhatsApp (CONTRACT §10) inside the lead's 24-hour window, or by e-mail (CONTRACT §25) when
 * the lead has an address and the business sends e-mail: written in the lead's language, in the
 * thread of its e-mails, with the business's inbound address to answer to (services/messaging/purposes/reply.ts).
 * Without `channel`, WhatsApp when its window is open, else e-mail when it can go, else the
 * refusal WhatsApp's rule gives.
 * @param options.channel `whatsapp` or `email`; absent: chosen as above.
 * @returns the message id.
 * @throws InmoError LEAD_NOT_FOUND, REPLY_BLANK, REPLY_TOO_LONG, REPLY_OPTED_OUT; by WhatsApp
 *   REPLY_NO_CHANNEL, REPLY_WINDOW_CLOSED (with the time the window closed); by e-mail
 *   REPLY_NO_EMAIL, REPLY_EMAIL_OFF. Nothing is stored then.
 */
export async function replyAsAgent(
  db: Db,
  leadId: number,
  text: string,
  now: string = nowRfc3339(),
  options: { channel?: ReplyChannel } = {},
): Promise<number> {
  const body = text.trim();
  if (body === '') throw new InmoError('REPLY_BLANK');
  if (body.length > MAX_REPLY_CHARS) throw new InmoError('REPLY_TOO_LONG', { max: MAX_REPLY_CHARS });
  return transact(db, async (trx) => {
    const lead = await findLead(trx, leadId);
    if (!lead) throw new InmoError('LEAD_NOT_FOUND', { id: leadId });
    const conversation = await findConversation(trx, leadId);
    if (conversation?.state === 'opted_out') throw new InmoError('REPLY_OPTED_OUT');
    const ways = await replyWays(trx, lead, conversation, now);
    const channel = options.channel ?? (ways.whatsapp === null || ways.email !== null ? 'whatsapp' : 'email');
    const refused = ways[channel];
    if (refused !== null) throw refused;
    if (channel === 'email') return queueEmailReply(trx, lead, body, now);
    const id = (await queueMessage(trx, { lead, purpose: 'reply', kind: 'text', body, recipient: lead.phone_number_1, at: now }))!;
    await handConversationToAgents(trx, leadId, now);
    return id;
  });
}

/**
 * Why each way cannot carry an agent's reply to lead `leadId` of `businessId` now: the code of the
 * error a reply by it would be refused with (REPLY_OPTED_OUT, REPLY_NO_CHANNEL, REPLY_WINDOW_CLOSED,
 * REPLY_NO_EMAIL, REPLY_EMAIL_OFF), or null when it can (the lead's page offers the ways, CONTRACT §25).
 * @throws InmoError LEAD_NOT_FOUND (also another business's lead).
 */
export async function replyWaysOf(
  db: Db,
  businessId: number,
  leadId: number,
  now: string = nowRfc3339(),
): Promise<Record<ReplyChannel, ErrorCode | null>> {
  const lead = await findLead(db, leadId, businessId);
  if (!lead) throw new InmoError('LEAD_NOT_FOUND', { id: leadId });
  const conversation = await findConversation(db, leadId);
  if (conversation?.state === 'opted_out') return { whatsapp: 'REPLY_OPTED_OUT', email: 'REPLY_OPTED_OUT' };
  const ways = await replyWays(db, lead, conversation, now);
  return { whatsapp: ways.whatsapp?.code ?? null, email: ways.email?.code ?? null };
}

/** Queues an agent's reply by e-mail in the outbox (CONTRACT §25). @returns the message id. */
async function queueEmailReply(trx: Executor, lead: LeadRow, body: string, now: string): Promise<number> {
  const language = emailLanguage(lead.preferred_language);
  const id = (await queueMessage(trx, {
    lead,
    purpose: 'reply',
    kind: 'email',
    body,
    language,
    recipient: leadEmailAddress(lead),
    at: now,
  }))!;
  // A lead that never wrote on WhatsApp has its conversation from now on, with the agents.
  await touchConversation(trx, { leadId: lead.id, businessId: lead.business_id, at: now });
  await setConversationState(trx, lead.id, { state: 'waiting_for_agent', updated_at: now });
  return id;
}

/**
 * Sets who answers the lead: `assistant` (resume) or `waiting_for_agent` (hand-off). A lead
 * who opted out stays so unless `optedIn` says they asked to be contacted again.
 * @throws InmoError LEAD_NOT_FOUND, CONVERSATION_NOT_FOUND, RESUME_OPTED_OUT.
 */
export async function setAnswerer(db: Db, leadId: number, state: 'assistant' | 'waiting_for_agent', options: { optedIn?: boolean } = {}) {
  if (!(await findLead(db, leadId))) throw new InmoError('LEAD_NOT_FOUND', { id: leadId });
  const current = await findConversation(db, leadId);
  if (current?.state === 'opted_out' && !options.optedIn) throw new InmoError('RESUME_OPTED_OUT', { id: leadId });
  const lead = (await findLead(db, leadId))!;
  await transact(db, async (trx) => {
    const now = nowRfc3339();
    if (!(await setConversationState(trx, leadId, { state, unrecognised: 0, updated_at: now }))) {
      throw new InmoError('CONVERSATION_NOT_FOUND', { id: leadId });
    }
    if (state === 'waiting_for_agent' && current?.state !== 'waiting_for_agent') {
      await recordEvent(trx, lead.business_id, 'conversation.waiting', leadId, { lead_id: leadId }, now);
    }
  });
  return conversationOf(db, leadId);
}
