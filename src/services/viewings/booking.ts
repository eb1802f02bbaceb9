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
 */
import type { Transaction } from 'kysely';
import { isWriteConflict } from '../../db/errors.ts';
import { inSavepoint } from '../../db/transaction.ts';
import type { Database } from '../../db/types.ts';
import { findLead } from '../../db/repositories/leads.ts';
import { insertViewing, listActiveAgents, lockAgents } from '../../db/repositories/viewings.ts';
import { freeAgent } from '../../domain/viewings/agenda.ts';
import {
  localDateTime,
  MAX_VIEWING_MINUTES,
  MIN_VIEWING_MINUTES,
  VIEWING_MINUTES,
  withinViewingHours,
} from '../../domain/viewings/hours.ts';
import { presentViewing, type Viewing } from '../../domain/viewings/presenter.ts';
import type { ViewingSource } from '../../domain/viewings/status.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { InmoError, RequestValidationError } from '../../errors.ts';
import { recordEvent } from '../integrations/events.ts';
import { createInquiryLead, type Inquiry, type InquiryOutcome, type LeadWrites } from '../leads/intake.ts';
import { heldBetween, listingToView } from './availability.ts';
import { businessClock, type BusinessClock } from './clock.ts';
import { queueViewingNotice } from './notices.ts';

const MINUTE_MS = 60_000;

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
  /** The agent chosen (the console); absent: the listing's agent, else any free active user (the lead's own agent first). */
  userId?: number;
  /** Only a listing the API publishes (CONTRACT §5): the API's bookings. */
  listedOnly: boolean;
  /** The instant of the booking, epoch ms (tests); now by default. */
  now?: number;
}

/** What a booking did: the viewing, and what became of the lead (null: an existing lead by id). */
export interface Booked {
  viewing: Viewing;
  leadOutcome: InquiryOutcome | null;
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
 * Why `[start, end)` cannot be a viewing of the business, or null when it can: in the past, or
 * not within one period of its day's viewing hours. (Whether an agent is free is another matter.)
 */
export function viewingTimeFault(clock: BusinessClock, start: number, end: number, now: number): string | null {
  if (start <= now) return 'the viewing would start in the past';
  if (!withinViewingHours(clock.zone, clock.hours, start, end)) {
    return `the viewing must lie within the business's viewing hours, in its time zone ${clock.zone}`;
  }
  return null;
}

/** A lead's writes inside the booking's transaction, each try in a savepoint of its own (intake retries races). */
const inTransaction = (trx: Transaction<Database>): LeadWrites => ({
  run: (work) => inSavepoint(trx, work),
  alone: () => null,
});

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
 * @throws RequestValidationError (422 at `starts_at`) for a time in the past or outside viewing hours;
 *   InmoError VIEWING_DURATION, PROPERTY_NOT_FOUND, LEAD_NOT_FOUND, VIEWING_AGENT_UNKNOWN (the chosen agent is not an
 *   active user), VIEWING_SLOT_TAKEN (409: no agent of the listing is free then), LEAD_NOT_STORED.
 */
export async function bookViewing(writes: LeadWrites, businessId: number, booking: ViewingBooking, onBooked?: OnBooked): Promise<Booked> {
  const now = booking.now ?? Date.now();
  const minutes = booking.durationMinutes ?? VIEWING_MINUTES;
  if (!Number.isInteger(minutes) || minutes < MIN_VIEWING_MINUTES || minutes > MAX_VIEWING_MINUTES) throw new InmoError('VIEWING_DURATION');
  const slot = { start: booking.startsAt, end: booking.startsAt + minutes * MINUTE_MS };
  return writes.run(async (trx) => {
    const clock = await businessClock(trx, businessId);
    const fault = viewingTimeFault(clock, slot.start, slot.end, now);
    if (fault !== null) throw timeRefused(fault, toRfc3339(new Date(slot.start)));
    const listing = await listingToView(trx, businessId, booking.propertyId, booking.listedOnly);
    let leadId: number;
    let leadOutcome: InquiryOutcome | null = null;
    if ('id' in booking.lead) {
      const lead = await findLead(trx, booking.lead.id, businessId);
      if (!lead) throw new InmoError('LEAD_NOT_FOUND', { id: booking.lead.id });
      leadId = lead.id;
    } else {
      const heading = bookingHeading(listing, slot.start, clock.zone);
      ({ leadId, outcome: leadOutcome } = await createInquiryLead(inTransaction(trx), businessId, booking.lead.inquiry, undefined, {
        heading,
        verified: booking.lead.verified === true,
      }).catch((error: unknown) => {
        // Contention is the whole unit's to retry (group commit, db/transaction.ts), not a lead that cannot be stored.
        if (error instanceof InmoError && error.code === 'LEAD_NOT_STORED' && isWriteConflict(error.cause)) throw error.cause;
        throw error;
      }));
    }
    let agents = listing.agents;
    if (booking.userId !== undefined) {
      agents = await listActiveAgents(trx, businessId, booking.userId);
      if (agents.length === 0) throw new InmoError('VIEWING_AGENT_UNKNOWN');
    }
    await lockAgents(trx, agents);
    const held = await heldBetween(trx, businessId, agents, slot.start, slot.end);
    // The lead's own agent first, when it may show the listing.
    const assigned = (await findLead(trx, leadId, businessId))?.assigned_user_id ?? null;
    const preferred = assigned !== null && agents.includes(assigned) ? [assigned, ...agents.filter((a) => a !== assigned)] : agents;
    const agent = freeAgent(slot, preferred, held);
    if (agent === null) throw new InmoError('VIEWING_SLOT_TAKEN');
    const at = toRfc3339(new Date(now));
    const row = await insertViewing(trx, {
      business_id: businessId,
      lead_id: leadId,
      property_id: listing.id,
      user_id: agent,
      starts_at: toRfc3339(new Date(slot.start)),
      ends_at: toRfc3339(new Date(slot.end)),
      status: booking.status,
      source: booking.source,
      feedback: null,
      created_at: at,
      updated_at: at,
    });
    const viewing = presentViewing(row, clock.zone);
    await recordEvent(trx, businessId, 'viewing.scheduled', leadId, { viewing }, at);
    // The lead is told of a viewing the agency booked; a requested one when an agent accepts it.
    if (row.status === 'scheduled') await queueViewingNotice(trx, row, 'scheduled', at);
    await onBooked?.(trx, viewing);
    return { viewing, leadOutcome };
  });
}
