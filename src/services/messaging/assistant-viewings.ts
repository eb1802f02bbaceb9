/**
 * The assistant's viewings (CONTRACT §20, §10): a lead who asks to visit a listing is offered
 * up to three free slots of its agent (or any agent) in the next 7 days within viewing hours, as
 * a WhatsApp interactive list; the lead's choice books a `scheduled` viewing (source
 * `assistant`) through services/viewings/booking.ts and hands the conversation to that agent.
 * Wording and slot picking are domain/messaging/viewing-offer.ts; the job that calls this is
 * jobs/tasks/assistant-reply.ts, which applies the outcome in the transaction that records the reply.
 */
import type { Transaction } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { inSavepoint } from '../../db/transaction.ts';
import type { Database, LeadRow } from '../../db/types.ts';
import { findLead, insertHistory, listInteractions, listNotes, updateLeadWork } from '../../db/repositories/leads.ts';
import { listPropertySummaries } from '../../db/repositories/matches.ts';
import { findListingsByReferences, findListingToView, findUserDisplayName } from '../../db/repositories/viewings.ts';
import { heldTexts } from '../../domain/catalogue/languages.ts';
import type { ReplyLanguage } from '../../domain/messaging/assistant.ts';
import {
  bookedText,
  goneText,
  inquiryReferences,
  noSlotsText,
  OFFER_DAYS,
  OFFER_NOTICE_MINUTES,
  offerList,
  pickSlots,
  referencesIn,
  type InteractiveList,
  type OfferedListing,
  type SlotChoice,
  whichListingText,
} from '../../domain/messaging/viewing-offer.ts';
import { listingPointer, resolvePointer } from '../../domain/messaging/listing-pointer.ts';
import { lastListedListings } from '../../db/repositories/messaging.ts';
import type { Weekday } from '../../domain/viewings/hours.ts';
import { InmoError, RequestValidationError } from '../../errors.ts';
import { recordLeadEvent } from '../integrations/events.ts';
import { viewingAvailability } from '../viewings/availability.ts';
import { bookViewing } from '../viewings/booking.ts';
import { businessClock } from '../viewings/clock.ts';

const MINUTE_MS = 60_000;

/**
 * What a lead who asks to visit means (CONTRACT §20, §10):
 * - a listing the message names by reference (its `external_ref`, or its id written `#12`);
 * - else one it points at among those the assistant's last list showed ("el primero", "the
 *   last one", "ese": domain/messaging/listing-pointer.ts, the list of `messages.listings`), or a
 *   question when it cannot tell which: a position beyond the list, or "ese" when it showed several;
 * - else the one the lead's inquiry was about (the newest reference in its notes and repeated
 *   requests: the website kit's "Ref. X", a portal e-mail's "Referencia del anuncio: X", a viewing
 *   request's).
 * A listing named or inquired about counts only while published (CONTRACT §5); one pointed at is
 * meant even when it is no longer (the lead is told so).
 * @returns the listing's id, the listings to ask among, or null when no listing is meant.
 */
export async function listingMeant(
  db: Executor,
  lead: Pick<LeadRow, 'id' | 'business_id'>,
  text: string | null,
): Promise<{ propertyId: number } | { which: number[]; reason: 'beyond' | 'several' } | null> {
  const published = async (ids: readonly number[]) => {
    for (const id of ids) if ((await findListingToView(db, lead.business_id, id))?.listed === 1) return id;
    return null;
  };
  const named = await published(await findListingsByReferences(db, lead.business_id, referencesIn(text)));
  if (named !== null) return { propertyId: named };
  const pointer = listingPointer(text);
  const shown = pointer === null ? null : await lastListedListings(db, lead.id);
  if (pointer !== null && shown !== null && shown.ids.length > 0) {
    const meant = resolvePointer(pointer, shown.ids);
    return 'id' in meant ? { propertyId: meant.id } : { which: shown.ids, reason: meant.which };
  }
  const [notes, interactions] = await Promise.all([listNotes(db, lead.id), listInteractions(db, lead.id, 20)]);
  const written = [
    ...notes.map((n) => ({ at: n.created_at, text: n.text })),
    ...interactions.map((i) => ({ at: i.created_at, text: i.note })),
  ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const inquired = await published(
    await findListingsByReferences(db, lead.business_id, inquiryReferences(written.map((w) => w.text)), true),
  );
  return inquired === null ? null : { propertyId: inquired };
}

/**
 * Whether a message that asks for nothing else ("el segundo", "sí, ese", "2") picks a listing
 * from the assistant's list it answers: the assistant's last message listed listings, and the
 * message points at one (domain/messaging/listing-pointer.ts). It is then a request to visit it.
 */
export async function picksFromList(db: Executor, leadId: number, text: string | null): Promise<boolean> {
  if (listingPointer(text) === null) return false;
  return (await lastListedListings(db, leadId))?.latest === true;
}

/**
 * The question "which one?" in the lead's language, listing again those the assistant's last list
 * showed, numbered as there (domain/messaging/viewing-offer.ts `whichListingText`).
 */
export async function whichListingQuestion(
  db: Executor,
  businessId: number,
  ids: readonly number[],
  reason: 'beyond' | 'several',
  language: ReplyLanguage,
): Promise<string> {
  const listings = [];
  for (const id of ids) {
    const listing = await offeredListing(db, businessId, id, language);
    if (listing) listings.push(listing);
  }
  return whichListingText(listings, reason, language);
}

/** What the assistant does about a visit: the reply to record and whether the conversation goes to an agent. */
export type VisitOutcome =
  | { kind: 'offer'; list: InteractiveList }
  | { kind: 'booked'; text: string; agentId: number; viewingId: number }
  | { kind: 'hand_off'; text: string };

/** A listing as the lead is told about it, its title in the lead's language where it is written. */
async function offeredListing(
  db: Executor,
  businessId: number,
  propertyId: number,
  language: ReplyLanguage,
): Promise<OfferedListing | null> {
  const [row] = await listPropertySummaries(db, businessId, [propertyId]);
  if (!row) return null;
  return { id: row.id, title: heldTexts(row.title, row.titles)[language] ?? row.title, external_ref: row.external_ref };
}

/**
 * The slots to offer for listing `propertyId`, from `now` plus the notice, for the next 7 days.
 * @returns the list to send, `gone` when the listing is no longer published, or null when there is no free slot.
 */
async function offer(
  trx: Executor,
  businessId: number,
  listing: OfferedListing,
  options: { now: number; weekday: Weekday | null; language: ReplyLanguage; again: 'taken' | 'passed' | null },
): Promise<InteractiveList | 'gone' | null> {
  let availability;
  try {
    availability = await viewingAvailability(trx, businessId, {
      propertyId: listing.id,
      days: OFFER_DAYS,
      now: options.now + OFFER_NOTICE_MINUTES * MINUTE_MS,
      listedOnly: true,
      // The assistant books `scheduled` viewings, made over website requests (services/viewings/booking.ts).
      withRequested: false,
    });
  } catch (error) {
    if (error instanceof InmoError && error.code === 'PROPERTY_NOT_FOUND') return 'gone';
    throw error;
  }
  const slots = pickSlots(availability.slots, availability.clock.zone, options.weekday);
  return slots.length ? offerList(listing, slots, availability.clock.zone, options.language, options.again) : null;
}

/**
 * Decides and writes, in `trx`, what a visit request or a chosen slot does:
 * - a choice: the viewing is booked (`scheduled`, source `assistant`; its `viewing.scheduled`
 *   event fires), the lead is given to its agent when nobody had it (history and `lead.updated`),
 *   and the reply confirms it in words; a slot taken meanwhile (or passed, or outside viewing
 *   hours changed since, or one at which the lead has another viewing) is answered with the next
 *   free slots;
 * - a request: up to three free slots as a list;
 * - no free slot, or a listing no longer published: a plain hand-off message saying which.
 * The listing must be published (CONTRACT §5) at the time of the choice as at the offer.
 * @param request.choice the slot chosen from a list, or null for a request in words.
 * @param request.now the instant, epoch ms.
 * @throws the database's errors (the job runs again; nothing of this run is kept).
 */
export async function visitOutcome(
  trx: Transaction<Database>,
  lead: Pick<LeadRow, 'id' | 'business_id'>,
  request: { propertyId: number; choice: SlotChoice | null; weekday: Weekday | null; language: ReplyLanguage; now: number },
): Promise<VisitOutcome> {
  const { language, now } = request;
  const listing = await offeredListing(trx, lead.business_id, request.propertyId, language);
  if (!listing) return { kind: 'hand_off', text: goneText(language) };
  let again: 'taken' | 'passed' | null = null;
  if (request.choice !== null) {
    try {
      const { viewing } = await bookViewing({ run: (work) => inSavepoint(trx, work) }, lead.business_id, {
        propertyId: listing.id,
        startsAt: request.choice.startsAt,
        lead: { id: lead.id },
        status: 'scheduled',
        source: 'assistant',
        listedOnly: true,
        now,
      });
      const agent = await findUserDisplayName(trx, lead.business_id, viewing.user_id);
      return {
        kind: 'booked',
        text: bookedText(listing, request.choice.startsAt, (await businessClock(trx, lead.business_id)).zone, language, agent),
        agentId: viewing.user_id,
        viewingId: viewing.id,
      };
    } catch (error) {
      const refused =
        (error instanceof InmoError && (error.code === 'VIEWING_SLOT_TAKEN' || error.code === 'VIEWING_LEAD_BUSY')) ||
        // In the past by now, or outside viewing hours changed since the offer.
        error instanceof RequestValidationError;
      if (!refused) {
        if (error instanceof InmoError && error.code === 'PROPERTY_NOT_FOUND') return { kind: 'hand_off', text: goneText(language) };
        throw error;
      }
      again = request.choice.startsAt <= now ? 'passed' : 'taken';
    }
  }
  const list = await offer(trx, lead.business_id, listing, { now, weekday: request.weekday, language, again });
  if (list === 'gone') return { kind: 'hand_off', text: goneText(language) };
  return list ? { kind: 'offer', list } : { kind: 'hand_off', text: noSlotsText(listing, language) };
}

/**
 * Gives the lead to the agent of the viewing it booked when nobody handles it yet: the history
 * says so (by nobody: the assistant) and `lead.updated` fires.
 */
export async function giveLeadToAgent(
  trx: Executor,
  lead: Pick<LeadRow, 'id' | 'business_id'>,
  agentId: number,
  now: string,
): Promise<void> {
  if ((await findLead(trx, lead.id, lead.business_id))?.assigned_user_id !== null) return;
  await updateLeadWork(trx, lead.id, { assigned_user_id: agentId, updated_at: now });
  await insertHistory(trx, {
    business_id: lead.business_id,
    lead_id: lead.id,
    user_id: null,
    change: 'assign',
    detail: JSON.stringify({ from: null, to: agentId }),
    created_at: now,
  });
  await recordLeadEvent(trx, lead.business_id, lead.id, 'lead.updated', now);
}
