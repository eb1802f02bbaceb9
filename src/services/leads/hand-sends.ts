/**
 * Listings sent by hand (CONTRACT §21 "By hand", issue 45): on the lead's page an agent ticks
 * listings among the lead's matches (or types one's reference) and sends them to the lead
 *
 * - by e-mail (CONTRACT §19): the alert e-mail's listing cards, each with its "No me interesa"
 *   link, under a subject and intro that say an agent chose them (services/messaging/alert-email.ts);
 * - or by WhatsApp, only inside the lead's 24-hour window: one free-form text with each listing's
 *   title, facts, link (its `/l/<token>` page, or the business's own `listing_url`) and
 *   "No me interesa" link, sent as an agent's reply is.
 *
 * Kept as alerts are (migration 0041): a digest of origin `agent` naming the agent, its listings
 * as alert items (so an alert never sends them again unless their price drops 3 % or more, and
 * `GET /leads/{id}/matches` marks them `sent_at` once their message went out), one message and
 * its job, written in one transaction: queued in the outbox (services/messaging/outbox.ts, purpose
 * `hand-send`: services/messaging/purposes/hand-send.ts, which also says which ways can carry
 * listings now), sent once (services/messaging/delivery.ts): a crash never sends it twice, and
 * the same listings sent the same way again within a minute (a double click) are that send, not another. A refusal ({@link HandSendError})
 * stores nothing.
 */
import type { Db } from '../../db/database.ts';
import {
  deleteAlertCandidates,
  insertAlertItems,
  insertHandDigest,
  listHandSendables,
  listRecentHandSends,
} from '../../db/repositories/alerts.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import { findLead } from '../../db/repositories/leads.ts';
import { handConversationToAgents, setMessageBody } from '../../db/repositories/messaging.ts';
import { findIdsByRef } from '../../db/repositories/properties.ts';
import { transact } from '../../db/transaction.ts';
import { alertPriceField, alertTimeZone } from '../../domain/leads/alerts.ts';
import { handWhatsAppText } from '../../domain/messaging/alert-email.ts';
import { localDate } from '../../domain/viewings/hours.ts';
import { nowRfc3339, toRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { agentNameForLead, digestListings } from '../messaging/alert-email.ts';
import { MAX_REPLY_CHARS } from '../messaging/conversations.ts';
import { HAND_CHANNELS, handSendWays, type HandSendReason } from '../messaging/purposes/hand-send.ts';
import { queueMessage } from '../messaging/outbox.ts';
import { emailLanguage, leadEmailAddress } from '../messaging/welcome.ts';
import { searchOperations } from './alerts.ts';

/** Most listings in one send. */
export const HAND_SEND_MAX = 10;

/** How long the same listings sent the same way again count as the same send (a double click), ms. */
const REPEAT_WINDOW_MS = 60_000;

/** The `reason` of an alert item sent by hand (an alert's are `new` and `price_drop`). */
export const HAND_REASON = 'chosen';

export { HAND_CHANNELS, handSendWays, type HandChannel, type HandSendReason, type HandSendWays } from '../messaging/purposes/hand-send.ts';

/** A field of the form: the listings ticked, the reference typed, the way chosen. */
export type HandSendField = 'property_id' | 'property_ref' | 'channel';

/** A send refused, every fault at once where it can; nothing was stored. */
export class HandSendError extends Error {
  constructor(readonly faults: Array<{ field: HandSendField; reason: HandSendReason }>) {
    super(`Send refused: ${faults.map((f) => `${f.field} ${f.reason}`).join(', ')}`);
  }
}

/** What an agent sends. */
export interface HandSend {
  businessId: number;
  leadId: number;
  /** The agent (a user of the business). */
  userId: number;
  /** As posted: anything but `email` or `whatsapp` is refused. */
  channel: string;
  /** The listings ticked. */
  propertyIds: readonly number[];
  /** A listing's reference typed (`external_ref`), '' for none. */
  reference: string;
  /** The server's public origin, for the links of a WhatsApp text. */
  publicUrl: string;
  /** RFC 3339; now by default. */
  now?: string;
}

/**
 * Sends listings to a lead by hand (see the module's comment).
 * @returns the message's id, committed with its `send_message` job.
 * @throws HandSendError (422 beside the field, nothing stored); InmoError LEAD_NOT_FOUND.
 */
export async function sendListingsByHand(db: Db, send: HandSend): Promise<{ messageId: number }> {
  const now = send.now ?? nowRfc3339();
  const faults: HandSendError['faults'] = [];
  const ids = [...new Set(send.propertyIds)];
  const reference = send.reference.trim();
  let byRef: number | null = null;
  if (reference !== '') {
    byRef = (await findIdsByRef(db, send.businessId, [reference])).get(reference) ?? null;
    if (byRef === null) faults.push({ field: 'property_ref', reason: 'ref_unknown' });
    else if (!ids.includes(byRef)) ids.push(byRef);
  }
  if (ids.length === 0 && reference === '') faults.push({ field: 'property_id', reason: 'none_chosen' });
  if (ids.length > HAND_SEND_MAX) faults.push({ field: 'property_id', reason: 'too_many' });
  const found = new Map((await listHandSendables(db, send.businessId, send.leadId, ids)).map((l) => [l.id, l]));
  for (const id of ids) {
    const listing = found.get(id);
    const field = id === byRef && !send.propertyIds.includes(id) ? 'property_ref' : 'property_id';
    const reason = !listing || listing.listed !== 1 ? 'not_public' : listing.dismissed_at !== null ? 'dismissed' : null;
    if (reason !== null && !faults.some((f) => f.field === field && f.reason === reason)) faults.push({ field, reason });
  }
  const ways = await handSendWays(db, send.businessId, send.leadId, now);
  const channel = HAND_CHANNELS.find((c) => c === send.channel);
  if (channel === undefined) faults.push({ field: 'channel', reason: 'channel_required' });
  else if (ways[channel] !== null) faults.push({ field: 'channel', reason: ways[channel] });
  if (faults.length > 0 || channel === undefined) throw new HandSendError(faults);

  return transact(db, async (trx) => {
    const lead = await findLead(trx, send.leadId, send.businessId);
    const business = await findBusiness(trx, send.businessId);
    if (!lead || !business) throw new InmoError('LEAD_NOT_FOUND', { id: send.leadId });
    // The same listings by the same way a moment ago (a double click, a post sent again): that send, not another.
    const since = toRfc3339(new Date(Date.parse(now) - REPEAT_WINDOW_MS));
    const recent = new Map<number, { kind: string; ids: Set<number> }>();
    for (const row of await listRecentHandSends(trx, lead.id, since)) {
      const entry = recent.get(row.message_id!) ?? { kind: row.kind, ids: new Set<number>() };
      entry.ids.add(row.property_id);
      recent.set(row.message_id!, entry);
    }
    const kind = channel === 'email' ? 'email' : 'text';
    for (const [messageId, entry] of recent) {
      if (entry.kind === kind && entry.ids.size === ids.length && ids.every((id) => entry.ids.has(id))) return { messageId };
    }
    const language = emailLanguage(lead.preferred_language);
    // Its job is due once the transaction commits, with the listings, the digest and (by WhatsApp) the text written below.
    const messageId = (await queueMessage(trx, {
      lead,
      purpose: 'hand-send',
      kind: channel === 'email' ? 'email' : 'text',
      language,
      recipient: channel === 'email' ? leadEmailAddress(lead) : lead.phone_number_1,
      body: null,
      at: now,
    }))!;
    const digestId = await insertHandDigest(trx, {
      business_id: send.businessId,
      lead_id: lead.id,
      round: localDate(Date.parse(now), alertTimeZone(business)),
      user_id: send.userId,
      message_id: messageId,
      created_at: now,
    });
    const operations = searchOperations(lead.search_preferences);
    // The price each listing is sent at: that of the operation the lead searches, where it offers it.
    const wanted = [...new Set(operations.flat())];
    await insertAlertItems(
      trx,
      lead.id,
      ids.map((id) => {
        const listing = found.get(id)!;
        const field = alertPriceField(listing, wanted);
        return {
          business_id: send.businessId,
          digest_id: digestId,
          property_id: id,
          reason: HAND_REASON,
          price: listing[field],
          price_field: field,
          token_hash: null,
          created_at: now,
        };
      }),
    );
    await deleteAlertCandidates(trx, lead.id, ids);
    if (channel === 'email') return { messageId };
    // The WhatsApp text is written now (its "No me interesa" tokens kept by their hashes), and sent by the agents' path.
    const cards = await digestListings(trx, { id: messageId, business_id: send.businessId, language }, send.publicUrl);
    const text = handWhatsAppText(language, {
      businessName: business.name,
      leadName: lead.name,
      agentName: await agentNameForLead(trx, send.businessId, send.userId),
      listings: cards?.listings ?? [],
    });
    if (text.length > MAX_REPLY_CHARS) throw new HandSendError([{ field: 'property_id', reason: 'too_long' }]);
    await setMessageBody(trx, messageId, text);
    // As an agent's reply: the conversation stays with the agents until given back to the assistant.
    await handConversationToAgents(trx, lead.id, now, { unlessOptedOut: true });
    return { messageId };
  });
}
