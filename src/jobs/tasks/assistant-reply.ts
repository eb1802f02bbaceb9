/**
 * `assistant_reply`: answers one inbound WhatsApp message (spec §6.2, CONTRACT §10), queued
 * with the message in the transaction that stores it (services/messaging/whatsapp-inbound.ts).
 *
 * 1. Nothing happens unless the conversation is the assistant's (not handed to an agent, not
 *    opted out) and WhatsApp's 24-hour window is open. With the assistant off (its console
 *    page), nothing is answered: the conversation goes to the agents (an opt-out still counts).
 * 2. The message is understood (domain/messaging/assistant.ts) and the answer written (the built-in
 *    assistant, or the business's model with the built-in one as fallback), outside any
 *    transaction.
 * 3. One transaction applies what the message does (opt-out, hand-off, refined searches and
 *    their new matches) and records the reply as `pending`, `reply_to` the inbound message.
 *    A partial unique index allows one reply per inbound message, so a second run, or a
 *    second worker, finds the reply and does not decide again.
 * 4. The reply is delivered at most once (services/messaging/delivery.ts).
 *
 * A lead who asks to visit a listing, or chooses a slot from the list that answered, is answered
 * by services/messaging/assistant-viewings.ts inside step 3's transaction (CONTRACT §20): the
 * slots offered as an interactive list, or the viewing booked and the conversation handed to
 * its agent, or a plain hand-off.
 */
import { listingLink } from '../../domain/leads/alerts.ts';
import type { Transaction } from 'kysely';
import { findLead, updateSearchPreferences } from '../../db/repositories/leads.ts';
import { listLeadMatches, listPropertySummaries, replaceLeadMatches, type PropertySummaryRow } from '../../db/repositories/matches.ts';
import {
  findChannel,
  claimConversation,
  findConversation,
  findMessage,
  findReplyTo,
  listRecentThread,
  setConversationLastMessageAt,
  setConversationState,
  type MessageRow,
} from '../../db/repositories/messaging.ts';
import { transact } from '../../db/transaction.ts';
import type { Database, LeadRow } from '../../db/types.ts';
import {
  compose,
  listingsNamedIn,
  refineSearches,
  replyLanguage,
  understand,
  type ListingSummary,
  type ReplyLanguage,
  type Understanding,
} from '../../domain/messaging/assistant.ts';
import { heldTexts } from '../../domain/catalogue/languages.ts';
import { initialLeadStatus } from '../../domain/leads/rules.ts';
import type { LeadMatches } from '../../domain/leads/matching.ts';
import { assistantOf, replyWithFallback } from '../../services/messaging/assistant.ts';
import {
  giveLeadToAgent,
  listingMeant,
  picksFromList,
  visitOutcome,
  whichListingQuestion,
} from '../../services/messaging/assistant-viewings.ts';
import { namedWeekday, readSlotChoice, storedList, type SlotChoice } from '../../domain/messaging/viewing-offer.ts';
import type { Weekday } from '../../domain/viewings/hours.ts';
import { recordEvent, recordLeadEvent } from '../../services/integrations/events.ts';
import { matchSearchPreferences, type CatalogueSnapshot } from '../../services/leads/matching.ts';
import { recordMatchPrices } from '../../services/leads/alerts.ts';
import { settleParkedMessage } from '../../services/messaging/delivery.ts';
import { queueMessage } from '../../services/messaging/outbox.ts';
import { deliverInJob } from './send-message.ts';
import { failpoint } from '../failpoints.ts';
import { defineTask, type TaskContext } from '../task.ts';
import type { Db } from '../../db/database.ts';

/** Listings the assistant shows in one answer. */
export const LISTINGS_SHOWN = 3;
/** Messages of the thread given to a chat-completions assistant. */
const THREAD_LINES = 20;

const parseSearches = (text: string | null): Array<Record<string, unknown>> => {
  const value = text === null ? null : (JSON.parse(text) as unknown);
  return Array.isArray(value) ? (value as Array<Record<string, unknown>>) : [];
};

/** The operation a listing is shown under: the first the lead searches that it offers, else its own first. */
function shownOperation(row: PropertySummaryRow, wanted: readonly string[]): ListingSummary['operation'] {
  const offers = { venta: row.op_venta === 1, alquiler: row.op_alquiler === 1, traspaso: row.op_traspaso === 1 };
  const operation = wanted.find((op): op is ListingSummary['operation'] => op in offers && offers[op as keyof typeof offers]);
  return operation ?? (offers.venta ? 'venta' : offers.alquiler ? 'alquiler' : offers.traspaso ? 'traspaso' : 'venta');
}

/** The listing URL of a property from the channel's template (`{id}`, `{ref}`), or null (domain/leads/alerts.ts `listingLink`). */
export function listingUrl(template: string | null, row: Pick<PropertySummaryRow, 'id' | 'external_ref'>): string | null {
  return listingLink(template, row);
}

const positions = new WeakMap<CatalogueSnapshot, ReadonlyMap<number, number>>();
/** Each listing's place in the snapshot (newest first), computed once per snapshot. */
function positionsOf(snapshot: CatalogueSnapshot): ReadonlyMap<number, number> {
  let map = positions.get(snapshot);
  if (!map) positions.set(snapshot, (map = new Map(Array.from(snapshot.index.ids, (id, i) => [id, i]))));
  return map;
}

/** Up to `limit` matched listings, newest in the catalogue first, as the assistant shows them. */
async function summaries(
  ctx: TaskContext,
  businessId: number,
  ids: Iterable<number>,
  snapshot: CatalogueSnapshot,
  operations: readonly string[],
  template: string | null,
  limit: number,
  language: ReplyLanguage,
): Promise<ListingSummary[]> {
  const position = positionsOf(snapshot);
  const top = [...new Set(ids)]
    .filter((id) => position.has(id))
    .sort((a, b) => position.get(a)! - position.get(b)!)
    .slice(0, limit);
  const rows = new Map((await listPropertySummaries(ctx.db, businessId, top)).map((r) => [r.id, r]));
  return top
    .map((id) => rows.get(id))
    .filter((r): r is PropertySummaryRow => r !== undefined)
    .map((row) => {
      const operation = shownOperation(row, operations);
      return {
        id: row.id,
        // Its title in the reply's language where it is written (CONTRACT §22), else its own.
        title: heldTexts(row.title, row.titles)[language] ?? row.title,
        operation,
        amount: operation === 'venta' ? row.price : operation === 'alquiler' ? row.price_rent : row.price_transfer,
        city: row.city,
        size: row.size_total,
        bedrooms: row.bedrooms,
        url: listingUrl(template, row),
      };
    });
}

/** What was decided, to be applied in one transaction. */
interface Decision {
  inbound: MessageRow;
  lead: LeadRow;
  understanding: Understanding;
  /** The second unrecognised message in a row: the conversation goes to an agent. */
  handsOff: boolean;
  unrecognised: number;
  /** New searches and their matches, when the message refined them. */
  refined: { searches: Array<Record<string, unknown>>; matches: LeadMatches; version: number } | null;
  text: string | null;
  /** A visit to a listing the lead asked for or chose a slot of (CONTRACT §20); null: none, or no listing known. */
  visit: { propertyId: number; choice: SlotChoice | null; weekday: Weekday | null; language: ReplyLanguage } | null;
  /** The listings the reply lists, in its order (`messages.listings`): the matches it shows, or those it asks "which one?" among. */
  listed: number[] | null;
  /** The reply asks which listing the lead means to visit ("el quinto" of three, "ese" of several): no hand-off. */
  asksWhich: boolean;
}

/** Applies a decision and records its reply. @returns the reply's id, or undefined when there is none. */
async function apply(ctx: TaskContext, trx: Transaction<Database>, d: Decision): Promise<number | undefined> {
  const already = await findReplyTo(trx, d.inbound.id);
  if (already) return already.id;
  // Still the assistant's? The conditional write also locks the row until commit (PostgreSQL),
  // so an opt-out or an agent's reply committed meanwhile is seen, and none is overwritten
  // after. (An agent took the conversation, or the lead opted out, while the answer was written.)
  if (!(await claimConversation(trx, d.lead.id, ctx.now()))) return undefined;
  const now = ctx.now();
  let reply = d.text === null ? null : { kind: 'text' as 'text' | 'interactive', body: d.text, template: null as string | null };
  let visitHandsOff = false;
  if (d.visit) {
    // Another run that answered first is seen now that the conversation is claimed: one booking.
    const answered = await findReplyTo(trx, d.inbound.id);
    if (answered) return answered.id;
    const outcome = await visitOutcome(trx, d.lead, { ...d.visit, now: Date.parse(now) });
    if (outcome.kind === 'offer') {
      reply = { kind: 'interactive', body: outcome.list.body, template: storedList(outcome.list) };
    } else {
      reply = { kind: 'text', body: outcome.text, template: null };
      visitHandsOff = true;
      if (outcome.kind === 'booked') await giveLeadToAgent(trx, d.lead, outcome.agentId, now);
    }
  }
  let replyId: number | undefined;
  if (reply !== null) {
    // Queued in the outbox without a job: this job sends it.
    replyId = await queueMessage(trx, {
      lead: d.lead,
      purpose: 'reply',
      author: 'assistant',
      kind: reply.kind,
      body: reply.body,
      template: reply.template,
      recipient: d.lead.phone_number_1,
      replyTo: d.inbound.id,
      // What the reply lists, unless a visit's outcome replaced it.
      listings: d.listed === null || d.visit !== null ? null : JSON.stringify(d.listed),
      at: now,
      job: false,
    });
    if (replyId === undefined) return (await findReplyTo(trx, d.inbound.id))?.id;
    await setConversationLastMessageAt(trx, d.lead.id, now);
  }
  // A visit hands off unless its slots were offered (or the lead is asked which listing it means); a visit with no
  // listing known hands off as a request for an agent.
  const handsOffToAgent =
    d.understanding.intent === 'agent' ||
    d.handsOff ||
    visitHandsOff ||
    (d.understanding.intent === 'visit' && d.visit === null && !d.asksWhich);
  const state = d.understanding.intent === 'opt_out' ? 'opted_out' : handsOffToAgent ? 'waiting_for_agent' : null;
  await setConversationState(trx, d.lead.id, {
    ...(state === null ? {} : { state }),
    unrecognised: d.handsOff ? 0 : d.unrecognised,
    updated_at: now,
  });
  if (state === 'waiting_for_agent') {
    await recordEvent(trx, d.lead.business_id, 'conversation.waiting', d.lead.id, { lead_id: d.lead.id }, now);
  }
  if (d.refined) {
    const searches = JSON.stringify(d.refined.searches);
    const status = d.lead.status === 'new' ? initialLeadStatus(d.refined.searches) : d.lead.status;
    // Only over the lead as it was read: an inquiry that changed it since wins, and its own
    // match_lead job matches it again.
    if (await updateSearchPreferences(trx, d.lead.id, { search_preferences: searches, status, updated_at: now }, d.lead.updated_at)) {
      await recordLeadEvent(trx, d.lead.business_id, d.lead.id, 'lead.updated', now);
      const { matches, nearMisses, matchesTotal, nearMissesTotal } = d.refined.matches;
      const had = new Set((await listLeadMatches(trx, d.lead.id)).filter((m) => m.failed === null).map((m) => m.property_id));
      await replaceLeadMatches(
        trx,
        d.lead.id,
        [
          ...matches.map(([property_id, search_index]) => ({ property_id, search_index, failed: null })),
          ...nearMisses.map(([property_id, search_index, failed]) => ({ property_id, search_index, failed })),
        ],
        { catalogue_version: d.refined.version, matched_at: now, matches_total: matchesTotal, near_misses_total: nearMissesTotal },
      );
      // The price each listing starts matching at: the reference of a later drop (CONTRACT §21).
      const kept = new Set(matches.map(([id]) => id));
      await recordMatchPrices(
        trx,
        d.lead.business_id,
        [
          {
            leadId: d.lead.id,
            searchPreferences: searches,
            started: matches.filter(([id]) => !had.has(id)).map(([property_id, search_index]) => ({ property_id, search_index })),
            stopped: [...had].filter((id) => !kept.has(id)),
          },
        ],
        now,
      );
    }
  }
  return replyId;
}

/**
 * Reads the message and writes the answer; null when the assistant must stay silent.
 * @param listReplyId the row a list reply chose (its job's payload), null for any other message.
 */
async function decide(ctx: TaskContext, inbound: MessageRow, listReplyId: string | null): Promise<Decision | null> {
  const lead = await findLead(ctx.db, inbound.lead_id);
  const conversation = await findConversation(ctx.db, inbound.lead_id);
  if (!lead || conversation?.state !== 'assistant') return null;
  const now = ctx.now();
  if (conversation.window_open_until === null || conversation.window_open_until <= now) {
    ctx.log({ lead_id: lead.id, window_closed_at: conversation.window_open_until }, 'assistant: the 24-hour window is closed; no answer');
    return null;
  }
  const channel = await findChannel(ctx.db, lead.business_id);
  if (!channel) return null;
  const snapshot = await ctx.snapshots.get(ctx.db, lead.business_id);
  // The folded place names of the catalogue: those the snapshot's matching index holds.
  const places = snapshot.index.byPlace;
  const kindHasText = inbound.kind === 'text' || inbound.kind === 'button' || inbound.kind === 'interactive';
  const choice = readSlotChoice(listReplyId);
  // A slot chosen from the assistant's list is a visit, whatever its title reads as.
  let understanding: Understanding = choice
    ? { intent: 'visit', language: choice.language, refinement: {} }
    : understand(kindHasText ? inbound.body : null, places);
  // "El segundo", "sí, ese" or "2" in answer to the assistant's list picks a listing to visit.
  if (
    kindHasText &&
    (understanding.intent === 'unknown' || understanding.intent === 'listings') &&
    (await picksFromList(ctx.db, lead.id, inbound.body))
  ) {
    understanding = { intent: 'visit', language: understanding.language, refinement: {} };
  }
  // The assistant is off (the console's assistant page): no answer, the conversation waits for
  // an agent; a lead who opts out is still opted out.
  if (channel.assistant_enabled === 0) {
    return {
      inbound,
      lead,
      understanding,
      handsOff: understanding.intent !== 'opt_out',
      unrecognised: 0,
      refined: null,
      text: null,
      visit: null,
      listed: null,
      asksWhich: false,
    };
  }
  const unrecognised = understanding.intent === 'unknown' ? conversation.unrecognised + 1 : 0;
  const handsOff = understanding.intent === 'unknown' && unrecognised >= 2;

  let searches = parseSearches(lead.search_preferences);
  let refined: Decision['refined'] = null;
  let matchedIds: number[];
  if (understanding.intent === 'refine') {
    searches = refineSearches(searches, understanding.refinement);
    const matches = matchSearchPreferences(JSON.stringify(searches), snapshot, ctx.settings.matchLimit);
    refined = { searches, matches, version: snapshot.version };
    matchedIds = matches.matches.map(([id]) => id);
  } else {
    matchedIds = (await listLeadMatches(ctx.db, lead.id)).filter((m) => m.failed === null).map((m) => m.property_id);
  }
  const operations = [...new Set(searches.flatMap((s) => (Array.isArray(s.operations) ? (s.operations as string[]) : [])))];
  const assistant = assistantOf(channel, ctx.outbound);
  const listingLimit = assistant.name === 'built-in' ? LISTINGS_SHOWN : LISTINGS_SHOWN + 2;
  const language = replyLanguage(lead.preferred_language, understanding.language);
  const matches = await summaries(ctx, lead.business_id, matchedIds, snapshot, operations, channel.listing_url, listingLimit, language);
  const thread = (await listRecentThread(ctx.db, lead.id, THREAD_LINES))
    .filter((m) => m.body !== null || m.kind === 'template')
    .map((m) => ({
      direction: m.direction as 'in' | 'out',
      text: m.body ?? `[${m.kind}${m.template ? ` ${m.template}` : ''}]`,
    }));
  const input = { understanding, language, matches, operations, handsOff, leadName: lead.name, searches, thread };
  let text = await replyWithFallback(assistant, input, (error) =>
    ctx.log({ lead_id: lead.id, err: error.message }, 'assistant: the configured assistant failed; the built-in one answered'),
  );
  // The listings the answer shows, as numbered there: the built-in one's are its matches in order; a model's, those its text names.
  let listed: number[] | null = null;
  if ((understanding.intent === 'listings' || understanding.intent === 'refine') && text !== null && matches.length > 0) {
    listed = text === compose(input) ? matches.map((m) => m.id) : listingsNamedIn(text, matches);
    if (listed.length === 0) listed = null;
  }
  let visit: Decision['visit'] = null;
  let asksWhich = false;
  if (understanding.intent === 'visit') {
    const meant = choice ? { propertyId: choice.propertyId } : await listingMeant(ctx.db, lead, inbound.body);
    if (meant !== null && 'propertyId' in meant) {
      visit = { propertyId: meant.propertyId, choice, weekday: choice ? null : namedWeekday(inbound.body), language };
    } else if (meant !== null) {
      text = await whichListingQuestion(ctx.db, lead.business_id, meant.which, meant.reason, language);
      listed = meant.which;
      asksWhich = true;
    }
  }
  return { inbound, lead, understanding, handsOff, unrecognised, refined, text, visit, listed, asksWhich };
}

async function run(ctx: TaskContext<'assistant_reply'>): Promise<void> {
  const { message_id: messageId, list_reply_id: listReplyId } = ctx.payload;
  const inbound = await findMessage(ctx.db, messageId);
  if (!inbound || inbound.direction !== 'in') return;
  let replyId = (await findReplyTo(ctx.db, inbound.id))?.id;
  if (replyId === undefined) {
    const decision = await decide(ctx, inbound, listReplyId ?? null);
    if (!decision) return;
    failpoint('assistant:decided');
    replyId = await transact(ctx.db, (trx) => apply(ctx, trx, decision));
    failpoint('assistant:recorded');
  }
  if (replyId !== undefined) await deliverInJob(ctx, replyId);
}

/** A parked reply leaves no message half-way (services/messaging/delivery.ts). */
async function onParked(db: Db, job: { payload: { message_id: number } }, reason: string, now: string): Promise<void> {
  const reply = await findReplyTo(db, job.payload.message_id);
  if (reply) await settleParkedMessage(db, reply.id, reason, now);
}

export const assistantReplyTask = defineTask<'assistant_reply'>({ run, onParked });
