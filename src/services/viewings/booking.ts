/**
 * Booking a viewing (CONTRACT §20): `POST /v1/ext/viewings` now, the console, the assistant and
 * the website kit later, all through {@link bookViewing}.
 *
 * One unit of work: the lead (an existing one, or one made from the request's contact details
 * exactly as an inquiry makes it, services/leads/intake.ts), the viewing, its event
 * `viewing.scheduled` and the caller's record (an Idempotency-Key's response) are committed
 * together or not at all, so a refused booking (a taken slot, a time outside viewing hours)
 * leaves no lead behind.
 *
 * No double booking. The agents who may take the viewing are locked before their viewings are
 * read (`FOR NO KEY UPDATE` of their user rows on PostgreSQL, db/repositories/viewings.ts
 * `lockAgents`), so two bookings of one agent's time take turns and the second sees the first's
 * viewing (READ COMMITTED reads what committed before each statement). SQLite has one writer at
 * a time, and a transaction that read before another committed is run again
 * (db/transaction.ts). An exclusion constraint (btree_gist) would say the same in the schema,
 * but needs an extension not every PostgreSQL lets an application create.
 *
 * A `scheduled` booking queues the lead's notice in the same unit (services/viewings/notices.ts).
 *
 * A valuation (kind `valuation`, CONTRACT §24) is an agent's visit to an owner's home: its lead is
 * a `propietario` given by id and its listing one linked to that owner, published or not. Booking
 * one moves the owner along the pipeline in the same unit (services/leads/owners.ts `ownerMoveOnViewing`).
 *
 * Bounds (issue 55, docs/security.md "Viewings"), so that a publishable key cannot take the
 * agents' time:
 * - every booking starts in the future and at most INMO_VIEWING_HORIZON_DAYS ahead; every one but
 *   the console's starts on the slot grid availability offers (`onSlotGrid`); a 422 at `starts_at`;
 * - a `requested` viewing (a publishable key, a listing page) holds its agent's time only against
 *   other requests: the agency's bookings (the console, a secret key, the assistant) are made over
 *   it, and the agent settles the clash (confirming the request is then refused as taken,
 *   services/viewings/transitions.ts);
 * - requests are counted per publishable key, and per listing page, over 24 hours
 *   (INMO_VIEWING_REQUESTS_PER_DAY; beyond, 429 `VIEWING_REQUESTS_LIMIT`);
 * - a lead never holds two viewings at overlapping times (the agency's booking: 409
 *   `VIEWING_LEAD_BUSY`), and a request holds at most one open viewing per listing and
 *   INMO_VIEWING_LEAD_MAX_OPEN in all. A request beyond these is kept as an interaction of the
 *   lead only (CONTRACT §22): its answer is a booking's, with an id spent and no viewing, so that
 *   a publishable key learns nothing of who is a client or what they booked.
 */
import type { Transaction } from 'kysely';
import { isWriteConflict } from '../../db/errors.ts';
import { inSavepoint } from '../../db/transaction.ts';
import type { Database } from '../../db/types.ts';
import { findLead } from '../../db/repositories/leads.ts';
import { viewingRulesFromEnv, type ViewingRules } from '../../config.ts';
import {
  countRequestsSince,
  deleteViewing,
  insertViewing,
  listActiveAgents,
  listOpenViewingsOfLead,
  lockAgents,
  lockForCount,
  type OpenViewing,
} from '../../db/repositories/viewings.ts';
import { freeAgent } from '../../domain/viewings/agenda.ts';
import { localDateTime, MAX_VIEWING_MINUTES, MIN_VIEWING_MINUTES, VIEWING_MINUTES } from '../../domain/viewings/hours.ts';
import { presentViewing, type Viewing } from '../../domain/viewings/presenter.ts';
import type { ViewingKind, ViewingSource } from '../../domain/viewings/status.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { InmoError, RequestValidationError } from '../../errors.ts';
import { recordEvent } from '../integrations/events.ts';
import { createInquiryLead, type Inquiry, type InquiryOutcome, type LeadWrites } from '../leads/intake.ts';
import { heldBetween, listingToView } from './availability.ts';
import { businessClock, viewingTimeFault } from './clock.ts';
import { queueViewingNotice } from './notices.ts';
import { ownerMoveOnViewing } from '../leads/owners.ts';
import { OWNER_TYPE } from '../catalogue/listing-owners.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** A viewing to book. */
export interface ViewingBooking {
  propertyId: number;
  /** When it starts, epoch ms. */
  startsAt: number;
  /** Minutes, 30 by default, 5 to 240. */
  durationMinutes?: number;
  /** The lead's id, or the contact details of an inquiry (type `demandante`, phones in E.164) to make or find the lead by. */
  lead:
    | { id: number }
    | {
        inquiry: Inquiry;
        /** The request proves it comes from the person or the agency (a secret key): see intake.ts `InquiryOrigin.verified`. */
        verified?: boolean;
      };
  /** `scheduled` (the agency books it) or `requested` (a website asks; an agent confirms it). */
  status: 'requested' | 'scheduled';
  source: ViewingSource;
  /** `visit` (the default), or `valuation`: an owner's home valued (the lead by id, a `propietario`; the listing its own). */
  kind?: ViewingKind;
  /** The agent chosen (the console); absent: the listing's agent, else any free active user (the lead's own agent first). */
  userId?: number;
  /** Only a listing the API publishes (CONTRACT §5): the API's bookings. */
  listedOnly: boolean;
  /** The instant of the booking, epoch ms (tests); now by default. */
  now?: number;
  /** The publishable key a request comes through (counted per key); absent for a listing page's request and the agency's bookings. */
  apiKeyId?: string;
  /** The console's bookings only: any start within viewing hours, not only the slot grid. */
  offGrid?: boolean;
  /** The bounds; INMO_VIEWING_* of the environment by default. */
  rules?: ViewingRules;
}

/**
 * What a booking did: the viewing, and what became of the lead (null: an existing lead by id).
 * `kept` is `interaction` for a request beyond the lead's bounds: no viewing was stored (its
 * id was spent), the request is only the lead's interaction.
 */
export interface Booked {
  viewing: Viewing;
  leadOutcome: InquiryOutcome | null;
  kept: 'viewing' | 'interaction';
}

/**
 * Called last inside the booking's transaction with the viewing as booked (an Idempotency-Key's
 * response is recorded there, CONTRACT §13). Throwing rolls everything back.
 */
export type OnBooked = (trx: Transaction<Database>, viewing: Viewing) => Promise<void>;

/** A 422 on `starts_at`, Pydantic-shaped (CONTRACT §2): the time cannot be booked whatever the agenda holds. */
function timeRefused(reason: string, input: string): RequestValidationError {
  return new RequestValidationError([
    { type: 'value_error', loc: ['body', 'starts_at'], msg: `Value error, ${reason}`, input, ctx: { error: {} } },
  ]);
}

/**
 * Refuses a request beyond INMO_VIEWING_REQUESTS_PER_DAY: of its publishable key, or of the
 * listing's page (a request with no key), in the 24 hours before `now`. The key's row is locked
 * first (PostgreSQL), so two requests at once are counted one after the other; a page's requests
 * take turns on the listing's agents' lock, taken before.
 * @throws InmoError VIEWING_REQUESTS_LIMIT (429, `Retry-After`: when the oldest counted one leaves the window).
 */
async function checkRequestCount(
  trx: Transaction<Database>,
  businessId: number,
  by: { apiKeyId: string } | { propertyId: number },
  perDay: number,
  now: number,
): Promise<void> {
  if (perDay === 0) return;
  if ('apiKeyId' in by) await lockForCount(trx, by);
  const { count, oldest } = await countRequestsSince(trx, businessId, by, toRfc3339(new Date(now - DAY_MS)));
  if (count < perDay) return;
  const seconds = Math.max(1, Math.ceil(((oldest === null ? now : Date.parse(oldest)) + DAY_MS - now) / 1000));
  throw new InmoError('VIEWING_REQUESTS_LIMIT', { seconds }, { 'retry-after': String(seconds) });
}

/**
 * Which of the lead's open viewings stands in the way of `slot` of listing `propertyId`: one at
 * an overlapping time (any booking; the agency's bookings are given no `requested` ones); for a request (`maxOpen` given), also one of the same
 * listing, or the latest when the lead already holds `maxOpen`. Null: none.
 */
export function leadObstacle(
  open: readonly OpenViewing[],
  slot: { start: number; end: number },
  propertyId: number,
  maxOpen: number | null,
) {
  const overlapping = open.find((v) => Date.parse(v.starts_at) < slot.end && slot.start < Date.parse(v.ends_at));
  if (overlapping) return overlapping;
  if (maxOpen === null) return null;
  return open.find((v) => v.property_id === propertyId) ?? (open.length >= maxOpen ? open.at(-1)! : null);
}

/** A lead's writes inside the booking's transaction, each try in a savepoint of its own (intake retries races). */
const inTransaction = (trx: Transaction<Database>): LeadWrites => ({ run: (work) => inSavepoint(trx, work) });

/** The first line of the notes of a lead made by a booking (Spanish, as the generated notes are). */
function bookingHeading(listing: { title: string | null; external_ref: string }, start: number, zone: string): string {
  const { date, time } = localDateTime(start, zone);
  const [y, m, d] = date.split('-');
  const title = listing.title?.trim() ? ` («${listing.title.trim()}»)` : '';
  return `Visita pedida al inmueble ${listing.external_ref}${title} para el ${d}/${m}/${y} a las ${time}.`;
}

/**
 * Books a viewing (see the module's comment).
 * @param writes how the unit commits: the API's group commit (db/group-commit.ts), or a job's transaction.
 * @returns the viewing (its agent chosen) and what became of the lead: `created`, `completed` (an
 *   unnamed lead with that phone), `known` (a lead with that phone or e-mail: the request is kept as
 *   its interaction, CONTRACT §22, and the viewing is that lead's), null for a lead given by id.
 * @throws RequestValidationError (422 at `starts_at`) for a time in the past, beyond the horizon,
 *   outside viewing hours or (but for the console) off the slot grid;
 *   InmoError VIEWING_DURATION, PROPERTY_NOT_FOUND, LEAD_NOT_FOUND, VIEWING_AGENT_UNKNOWN (the chosen agent is not an
 *   active user), VALUATION_NOT_OWNER (422: a valuation requested, for a person not known, for a
 *   lead not `propietario`, or at a listing not linked to that lead), VIEWING_REQUESTS_LIMIT (429: a request beyond its key's or page's count),
 *   VIEWING_SLOT_TAKEN (409: no agent of the listing is free then; a `scheduled` booking does not
 *   count `requested` viewings), VIEWING_LEAD_BUSY (409: the agency's booking of a lead who has
 *   another viewing then), LEAD_NOT_STORED.
 */
export async function bookViewing(writes: LeadWrites, businessId: number, booking: ViewingBooking, onBooked?: OnBooked): Promise<Booked> {
  const now = booking.now ?? Date.now();
  const rules = booking.rules ?? viewingRulesFromEnv();
  const request = booking.status === 'requested';
  const kind = booking.kind ?? 'visit';
  // A valuation is the agency's booking for an owner it knows: never a website's request nor a new person.
  if (kind === 'valuation' && (request || !('id' in booking.lead))) throw new InmoError('VALUATION_NOT_OWNER');
  const minutes = booking.durationMinutes ?? VIEWING_MINUTES;
  if (!Number.isInteger(minutes) || minutes < MIN_VIEWING_MINUTES || minutes > MAX_VIEWING_MINUTES) throw new InmoError('VIEWING_DURATION');
  const slot = { start: booking.startsAt, end: booking.startsAt + minutes * MINUTE_MS };
  return writes.run(async (trx) => {
    const clock = await businessClock(trx, businessId);
    const fault = viewingTimeFault(clock, slot.start, slot.end, now, { horizonDays: rules.horizonDays, grid: booking.offGrid !== true });
    if (fault !== null) throw timeRefused(fault, toRfc3339(new Date(slot.start)));
    // An owner's home is valued before it is published.
    const listing = await listingToView(trx, businessId, booking.propertyId, booking.listedOnly && kind === 'visit');
    let agents = listing.agents;
    if (booking.userId !== undefined) {
      agents = await listActiveAgents(trx, businessId, booking.userId);
      if (agents.length === 0) throw new InmoError('VIEWING_AGENT_UNKNOWN');
    }
    await lockAgents(trx, agents);
    if (request) {
      const by = booking.apiKeyId !== undefined ? { apiKeyId: booking.apiKeyId } : { propertyId: listing.id };
      await checkRequestCount(trx, businessId, by, rules.requestsPerDay, now);
    }
    let leadId: number;
    let leadOutcome: InquiryOutcome | null = null;
    if ('id' in booking.lead) {
      const lead = await findLead(trx, booking.lead.id, businessId);
      if (!lead) throw new InmoError('LEAD_NOT_FOUND', { id: booking.lead.id });
      if (kind === 'valuation' && (lead.type !== OWNER_TYPE || listing.owner_lead_id !== lead.id))
        throw new InmoError('VALUATION_NOT_OWNER');
      leadId = lead.id;
    } else {
      const heading = bookingHeading(listing, slot.start, clock.zone);
      ({ leadId, outcome: leadOutcome } = await createInquiryLead(inTransaction(trx), businessId, booking.lead.inquiry, {
        heading,
        verified: booking.lead.verified === true,
      }).catch((error: unknown) => {
        // Contention is the whole unit's to retry (group commit, db/transaction.ts), not a lead that cannot be stored.
        if (error instanceof InmoError && error.code === 'LEAD_NOT_STORED' && isWriteConflict(error.cause)) throw error.cause;
        throw error;
      }));
    }
    // A request sees every held time; the agency's booking is made over requests.
    const held = await heldBetween(trx, businessId, agents, slot.start, slot.end, undefined, request);
    // The lead's own agent first, when it may show the listing.
    const assigned = (await findLead(trx, leadId, businessId))?.assigned_user_id ?? null;
    const preferred = assigned !== null && agents.includes(assigned) ? [assigned, ...agents.filter((a) => a !== assigned)] : agents;
    const agent = freeAgent(slot, preferred, held);
    // Checked before the lead's own bounds, so that the answer is the same whoever the person is.
    if (agent === null) throw new InmoError('VIEWING_SLOT_TAKEN');
    const at = toRfc3339(new Date(now));
    await lockForCount(trx, { leadId });
    const open = await listOpenViewingsOfLead(trx, businessId, leadId, at);
    // The agency's booking is made over the lead's requests too: anyone may request in a client's name.
    const standing = request ? open : open.filter((v) => v.status !== 'requested');
    const obstacle = leadObstacle(standing, slot, listing.id, request ? rules.leadMaxOpen : null);
    if (obstacle !== null && !request) throw new InmoError('VIEWING_LEAD_BUSY');
    const row = await insertViewing(trx, {
      business_id: businessId,
      lead_id: leadId,
      property_id: listing.id,
      user_id: agent,
      kind,
      starts_at: toRfc3339(new Date(slot.start)),
      ends_at: toRfc3339(new Date(slot.end)),
      status: booking.status,
      source: booking.source,
      feedback: null,
      created_at: at,
      updated_at: at,
      api_key_id: request ? (booking.apiKeyId ?? null) : null,
    });
    const viewing = presentViewing(row, clock.zone);
    if (obstacle !== null) {
      // Beyond the lead's bounds: the request stays the lead's interaction (made above for a
      // known person, CONTRACT §22); the row goes, its id spent, so the answer is a booking's.
      await deleteViewing(trx, row.id);
      await onBooked?.(trx, viewing);
      return { viewing, leadOutcome, kept: 'interaction' as const };
    }
    await recordEvent(trx, businessId, 'viewing.scheduled', leadId, { viewing }, at);
    // The lead is told of a viewing the agency booked; a requested one when an agent accepts it.
    if (row.status === 'scheduled') await queueViewingNotice(trx, row, 'scheduled', at);
    await ownerMoveOnViewing(trx, row, at);
    await onBooked?.(trx, viewing);
    return { viewing, leadOutcome, kept: 'viewing' as const };
  });
}
