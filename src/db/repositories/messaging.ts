/**
 * Messaging channels, the messages of each lead's WhatsApp thread, conversations and
 * webhook deliveries (CONTRACT §7, §10). SQL only.
 */
import type { Executor } from '../database.ts';
import { sql, type ExpressionBuilder, type Insertable, type Selectable, type Updateable } from 'kysely';
import { runCompiledOnce } from '../compiled-once.ts';
import type { ChannelTable, ConversationState, ConversationTable, Database, MessageTable, WebhookEventTable } from '../types.ts';

export type ChannelRow = Selectable<ChannelTable>;
export type MessageRow = Selectable<MessageTable>;
export type ConversationRow = Selectable<ConversationTable>;
export type WebhookEventRow = Selectable<WebhookEventTable>;

/** Connects (or reconnects, replacing the settings of) the business's channel. */
export async function upsertChannel(db: Executor, channel: Insertable<ChannelTable>): Promise<void> {
  const { business_id: _business, ...settings } = channel;
  await db
    .insertInto('channels')
    .values(channel)
    .onConflict((oc) => oc.column('business_id').doUpdateSet(settings))
    .execute();
}

/** Changes some settings of a connected channel. @returns whether the business has one. */
export async function updateChannel(db: Executor, businessId: number, settings: Updateable<ChannelTable>): Promise<boolean> {
  const result = await db.updateTable('channels').set(settings).where('business_id', '=', businessId).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The business's channel. (Compiled once: it runs for every new lead.) */
export async function findChannel(db: Executor, businessId: number): Promise<ChannelRow | undefined> {
  const rows = await runCompiledOnce<ChannelRow>(db, 'findChannel', [businessId], ([business]) =>
    db
      .selectFrom('channels')
      .selectAll()
      .where('business_id', '=', business as unknown as number),
  );
  return rows[0];
}

/**
 * The business other than `exceptBusinessId` whose channel has WhatsApp phone number id
 * `phoneNumberId`: `{ business_id }`, or undefined when none has it.
 */
export async function findChannelHolder(db: Executor, phoneNumberId: string, exceptBusinessId: number) {
  return db
    .selectFrom('channels')
    .select('business_id')
    .where('phone_number_id', '=', phoneNumberId)
    .where('business_id', '!=', exceptBusinessId)
    .executeTakeFirst();
}

/** Every channel that can verify webhooks (has an app secret or a verify token). */
export async function listWebhookChannels(db: Executor): Promise<ChannelRow[]> {
  return db
    .selectFrom('channels')
    .selectAll()
    .where((eb) => eb.or([eb('app_secret', 'is not', null), eb('verify_token', 'is not', null)]))
    .execute();
}

/** The lead's welcome (a template, or an e-mail: `kind`). */
export async function findWelcome(db: Executor, leadId: number): Promise<MessageRow | undefined> {
  return db.selectFrom('messages').selectAll().where('lead_id', '=', leadId).where('author', '=', 'welcome').executeTakeFirst();
}

/** The e-mail that stands in for the lead's welcome template when it failed for good (migration 0027). */
export async function findWelcomeFallback(db: Executor, leadId: number): Promise<MessageRow | undefined> {
  return db.selectFrom('messages').selectAll().where('lead_id', '=', leadId).where('author', '=', 'welcome_fallback').executeTakeFirst();
}

/** Records the e-mail standing in for a failed welcome template unless the lead has one (a partial unique index). */
export async function insertWelcomeFallback(
  db: Executor,
  message: Omit<Insertable<MessageTable>, 'direction' | 'kind' | 'author'>,
): Promise<void> {
  await db
    .insertInto('messages')
    .values({ ...message, direction: 'out', kind: 'email', author: 'welcome_fallback' })
    .onConflict((oc) => oc.column('lead_id').where('author', '=', sql.lit('welcome_fallback')).doNothing())
    .execute();
}

export async function findMessage(db: Executor, id: number): Promise<MessageRow | undefined> {
  return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The reply written to an inbound message, if any. */
export async function findReplyTo(db: Executor, inboundId: number): Promise<MessageRow | undefined> {
  return db.selectFrom('messages').selectAll().where('reply_to', '=', inboundId).executeTakeFirst();
}

/** An outbound message of the business by its WhatsApp message id. */
export async function findOutboundByProviderId(db: Executor, businessId: number, providerId: string): Promise<MessageRow | undefined> {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('provider_message_id', '=', providerId)
    .where('business_id', '=', businessId)
    .where('direction', '=', 'out')
    .executeTakeFirst();
}

/** A lead's thread, oldest first. */
export async function listThread(db: Executor, leadId: number): Promise<MessageRow[]> {
  return db.selectFrom('messages').selectAll().where('lead_id', '=', leadId).orderBy('id').execute();
}

/** The last `limit` messages of a lead's thread, oldest first. */
export async function listRecentThread(db: Executor, leadId: number, limit: number): Promise<MessageRow[]> {
  const rows = await db.selectFrom('messages').selectAll().where('lead_id', '=', leadId).orderBy('id', 'desc').limit(limit).execute();
  return rows.reverse();
}

/**
 * The listings of the assistant's most recent message to the lead that listed some (migration
 * 0056: `messages.listings`), in the order shown, and whether that message is the assistant's
 * last one (the lead's message answers it); null when no message of the assistant listed any.
 */
export async function lastListedListings(db: Executor, leadId: number): Promise<{ ids: number[]; latest: boolean } | null> {
  const assistant = () =>
    db.selectFrom('messages').where('lead_id', '=', leadId).where('direction', '=', 'out').where('author', '=', 'assistant');
  const listed = await assistant()
    .select(['id', 'listings'])
    .where('listings', 'is not', null)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!listed) return null;
  const last = await assistant().select('id').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
  const ids = (JSON.parse(listed.listings!) as unknown[]).filter((id): id is number => Number.isSafeInteger(id));
  return { ids, latest: last.id === listed.id };
}

/**
 * Records the lead's welcome unless it has one: a partial unique index makes a second
 * impossible. (The conflict target's predicate is a literal: SQLite matches it to the index's
 * text, which a parameter never matches.)
 */
export async function insertWelcome(db: Executor, message: Omit<Insertable<MessageTable>, 'direction' | 'author'>): Promise<void> {
  await db
    .insertInto('messages')
    .values({ ...message, direction: 'out', author: 'welcome' })
    .onConflict((oc) => oc.column('lead_id').where('author', '=', sql.lit('welcome')).doNothing())
    .execute();
}

/**
 * Records an inbound message unless its WhatsApp id is already stored for the business.
 * @returns the new row's id, or undefined when it was a repeat.
 */
export async function insertInbound(
  db: Executor,
  message: Omit<Insertable<MessageTable>, 'direction' | 'state'>,
): Promise<number | undefined> {
  const row = await db
    .insertInto('messages')
    .values({ ...message, direction: 'in', state: 'received' })
    .onConflict((oc) => oc.columns(['business_id', 'provider_message_id']).where('direction', '=', sql.lit('in')).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/**
 * Records an outbound message (`pending`). An assistant reply names the inbound message it
 * answers in `reply_to`; a second reply to it is refused by a partial unique index.
 * @returns the new row's id, or undefined when that inbound message already has its reply.
 */
export async function insertOutbound(
  db: Executor,
  message: Omit<Insertable<MessageTable>, 'direction' | 'state'>,
): Promise<number | undefined> {
  const query = db.insertInto('messages').values({ ...message, direction: 'out', state: 'pending' });
  const row = await (
    message.reply_to === null || message.reply_to === undefined
      ? query
      : query.onConflict((oc) => oc.column('reply_to').where('reply_to', 'is not', null).doNothing())
  )
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** Sets what the conversation shows of a message (a template's one-line summary, written when its send is claimed). */
export async function setMessageBody(db: Executor, id: number, body: string): Promise<void> {
  await db.updateTable('messages').set({ body }).where('id', '=', id).execute();
}

/** Moves a message to `to.state`, only from one of the states it is expected to be in. @returns whether it moved. */
export async function moveMessage(
  db: Executor,
  id: number,
  from: string | readonly string[],
  to: {
    state: string;
    provider_message_id?: string | null;
    last_error?: string | null;
    sent_at?: string | null;
    /** What the conversation shows of it (an e-mail's text part, a template's summary), written at the claim. */
    body?: string | null;
    updated_at: string;
  },
): Promise<boolean> {
  const result = await db.updateTable('messages').set(to).where('id', '=', id).where('state', 'in', [from].flat()).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function findConversation(db: Executor, leadId: number): Promise<ConversationRow | undefined> {
  return db.selectFrom('conversations').selectAll().where('lead_id', '=', leadId).executeTakeFirst();
}

/**
 * Notes a message in the lead's conversation, creating it (with the assistant answering)
 * when it is the first. The window's end and the last message's time only ever move later,
 * computed in the statement itself, so two deliveries processed at once cannot move them back.
 */
export async function touchConversation(
  db: Executor,
  conversation: { leadId: number; businessId: number; at: string; windowOpenUntil?: string },
): Promise<void> {
  const { leadId, businessId, at, windowOpenUntil } = conversation;
  const window = windowOpenUntil ?? null;
  await db
    .insertInto('conversations')
    .values({
      lead_id: leadId,
      business_id: businessId,
      state: 'assistant',
      window_open_until: window,
      last_message_at: at,
      updated_at: at,
    })
    .onConflict((oc) =>
      oc.column('lead_id').doUpdateSet({
        window_open_until: sql<
          string | null
        >`case when conversations.window_open_until is null or conversations.window_open_until < ${window}
          then coalesce(${window}, conversations.window_open_until) else conversations.window_open_until end`,
        last_message_at: sql<string>`case when conversations.last_message_at < ${at} then ${at} else conversations.last_message_at end`,
        updated_at: at,
      }),
    )
    .execute();
}

/**
 * Takes the conversation for the assistant's answer: true only while the assistant answers
 * it. The write locks the row until the transaction ends (PostgreSQL), so a hand-off or an
 * opt-out cannot interleave with the answer.
 */
export async function claimConversation(db: Executor, leadId: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('conversations')
    .set({ updated_at: at })
    .where('lead_id', '=', leadId)
    .where('state', '=', 'assistant')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Sets who answers the lead, and the count of unrecognised messages. */
export async function setConversationState(
  db: Executor,
  leadId: number,
  to: { state?: ConversationState; unrecognised?: number; updated_at: string },
): Promise<boolean> {
  const result = await db.updateTable('conversations').set(to).where('lead_id', '=', leadId).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Sets the time of the last message of the lead's conversation to `at` (an RFC 3339 instant). */
export async function setConversationLastMessageAt(db: Executor, leadId: number, at: string): Promise<void> {
  await db.updateTable('conversations').set({ last_message_at: at }).where('lead_id', '=', leadId).execute();
}

/**
 * Hands the lead's conversation to the agents after an agent's reply at `at`: `waiting_for_agent`,
 * its last message and update at `at`. With `unlessOptedOut`, a conversation `opted_out` is left as it is.
 */
export async function handConversationToAgents(
  db: Executor,
  leadId: number,
  at: string,
  options: { unlessOptedOut?: boolean } = {},
): Promise<void> {
  let query = db
    .updateTable('conversations')
    .set({ state: 'waiting_for_agent', last_message_at: at, updated_at: at })
    .where('lead_id', '=', leadId);
  if (options.unlessOptedOut) query = query.where('state', '<>', 'opted_out');
  await query.execute();
}

/**
 * Conversations, those waiting for an agent first, then the most recent first, each with the
 * count of inbound messages no agent has seen (`unread`), its last message's text and kind.
 */
export async function listConversations(db: Executor, filter: { businessId?: number; waiting?: boolean; limit: number; offset?: number }) {
  let query = db
    .selectFrom('conversations')
    .innerJoin('leads', 'leads.id', 'conversations.lead_id')
    .select([
      'conversations.lead_id',
      'conversations.business_id',
      'conversations.state',
      'conversations.window_open_until',
      'conversations.last_message_at',
      'leads.name',
      'leads.phone_number_1',
      (eb) =>
        eb
          .selectFrom('messages')
          .select((m) => m.fn.countAll<number>().as('n'))
          .whereRef('messages.lead_id', '=', 'conversations.lead_id')
          .where('messages.direction', '=', 'in')
          .where((m) => m('messages.id', '>', m.fn.coalesce('conversations.agent_seen_message_id', m.lit(0))))
          .as('unread'),
      (eb) =>
        eb
          .selectFrom('messages')
          .select('messages.body')
          .whereRef('messages.lead_id', '=', 'conversations.lead_id')
          .orderBy('messages.id', 'desc')
          .limit(1)
          .as('last_text'),
      // The way of its last message: `email`, or WhatsApp's kinds (CONTRACT §25: the inbox shows both).
      (eb) =>
        eb
          .selectFrom('messages')
          .select('messages.kind')
          .whereRef('messages.lead_id', '=', 'conversations.lead_id')
          .orderBy('messages.id', 'desc')
          .limit(1)
          .as('last_kind'),
    ]);
  if (filter.businessId !== undefined) query = query.where('conversations.business_id', '=', filter.businessId);
  if (filter.waiting) query = query.where('conversations.state', '=', 'waiting_for_agent');
  return query
    .orderBy((eb) => eb.case().when('conversations.state', '=', 'waiting_for_agent').then(0).else(1).end())
    .orderBy('conversations.last_message_at', 'desc')
    .orderBy('conversations.lead_id', 'desc')
    .limit(filter.limit)
    .offset(filter.offset ?? 0)
    .execute();
}

/**
 * Marks a lead's messages so far as seen by an agent (its conversation's unread count drops to
 * 0). Writes only when a message came in since: a page view of a read thread writes nothing.
 */
export async function markConversationSeen(db: Executor, businessId: number, leadId: number): Promise<void> {
  const newest = (eb: ExpressionBuilder<Database, 'conversations'>) =>
    eb
      .selectFrom('messages')
      .select((m) => m.fn.max('messages.id').as('id'))
      .where('messages.lead_id', '=', leadId);
  await db
    .updateTable('conversations')
    .set((eb) => ({ agent_seen_message_id: newest(eb) }))
    .where('lead_id', '=', leadId)
    .where('business_id', '=', businessId)
    .where((eb) => eb(eb.fn.coalesce('agent_seen_message_id', eb.lit(0)), '<', newest(eb)))
    .execute();
}

/**
 * Keeps a webhook delivery for its job, unless the same body was already kept for the business.
 * @returns the new event's id, or undefined for a repeat.
 */
export async function insertWebhookEvent(db: Executor, event: Insertable<WebhookEventTable>): Promise<number | undefined> {
  const row = await db
    .insertInto('webhook_events')
    .values(event)
    .onConflict((oc) => oc.columns(['business_id', 'body_sha256']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

export async function findWebhookEvent(db: Executor, id: number): Promise<WebhookEventRow | undefined> {
  return db.selectFrom('webhook_events').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The lead of the business's e-mail that one of `messageIds` names (its `Message-ID`, kept in
 * `provider_message_id`), the newest first; undefined when none does (CONTRACT §25).
 */
export async function findLeadOfSentEmail(db: Executor, businessId: number, messageIds: readonly string[]): Promise<number | undefined> {
  if (messageIds.length === 0) return undefined;
  const row = await db
    .selectFrom('messages')
    .select('lead_id')
    .where('provider_message_id', 'in', [...messageIds])
    .where('business_id', '=', businessId)
    .where('direction', '=', 'out')
    .where('kind', '=', 'email')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.lead_id;
}

/**
 * The newest lead of the business with e-mail address `address` (lower-case) that an agent has
 * written to by e-mail (CONTRACT §25); undefined when none.
 */
export async function findLeadWrittenAt(db: Executor, businessId: number, address: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('leads')
    .select('leads.id')
    .where('leads.business_id', '=', businessId)
    .where((eb) => eb.or([eb(eb.fn('lower', ['personal_email']), '=', address), eb(eb.fn('lower', ['professional_email']), '=', address)]))
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('messages')
          .select('messages.id')
          .whereRef('messages.lead_id', '=', 'leads.id')
          .where('messages.direction', '=', 'out')
          .where('messages.kind', '=', 'email')
          .where('messages.author', '=', 'agent'),
      ),
    )
    .orderBy('leads.id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** The `Message-ID`s of a lead's e-mails, either way, newest first, at most `limit` (a reply's `References`). */
export async function listEmailThreadIds(db: Executor, leadId: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('messages')
    .select('provider_message_id')
    .where('lead_id', '=', leadId)
    .where('kind', '=', 'email')
    .where('provider_message_id', 'is not', null)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => r.provider_message_id!);
}
