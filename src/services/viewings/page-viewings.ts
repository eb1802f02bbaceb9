/**
 * The viewing form of a listing's public page (CONTRACT §21 "Listing page for recipients", §20):
 * `/l/<token>` offers the listing's free slots of the next 7 days (services/viewings/availability.ts)
 * and asks for a name, a phone, an optional e-mail and the consent; a choice is booked as
 * `POST /v1/ext/viewings` from a publishable key books one: a `requested` viewing with source
 * `website` (an agent confirms it) through services/viewings/booking.ts, the person made a lead
 * as the page's inquiry makes one (services/catalogue/listing-page.ts), or, when known by the
 * phone or e-mail, kept as an interaction of their lead (CONTRACT §22) with the viewing theirs.
 * A slot taken meanwhile is refused (no agent is booked twice) and the form shows the slots again;
 * any instant the page does not offer (off the grid, past its 7 days) is refused as `gone`. The
 * bounds of every request hold (services/viewings/booking.ts): the listing's page makes at most
 * INMO_VIEWING_REQUESTS_PER_DAY requests in 24 hours (VIEWING_REQUESTS_LIMIT), and a person's
 * request beyond their own bounds is kept as an interaction only, thanked for alike.
 */
import type { Db } from '../../db/database.ts';
import { findListingOfPage } from '../../db/repositories/listing-pages.ts';
import type { ListingLanguage } from '../../domain/catalogue/languages.ts';
import { LISTING_WORDS } from '../../domain/catalogue/listing-words.ts';
import { addDays, dayStart, localDate, onSlotGrid, VIEWING_MINUTES, type Slot } from '../../domain/viewings/hours.ts';
import { InmoError, RequestValidationError } from '../../errors.ts';
import { checkPageInquiry, PAGE_TOKEN, pageInquiry, type PageInquiryFaults } from '../catalogue/listing-page.ts';
import type { InquiryOutcome, LeadWrites } from '../leads/intake.ts';
import { viewingAvailability } from './availability.ts';
import { bookViewing } from './booking.ts';
import { businessClock } from './clock.ts';

/** Days of free slots the page offers. */
export const PAGE_VIEWING_DAYS = 7;

/** The viewing form's fields as posted (any may be missing). */
export interface PageViewingForm {
  /** The slot's start as offered (RFC 3339 with the business's offset). */
  slot?: string;
  name?: string;
  phone?: string;
  email?: string;
  /** `1` when the consent box was ticked. */
  consent?: string;
}

/** What is wrong with the slot: none chosen (or not one offered), taken meanwhile, or no longer bookable (past, outside hours). */
export type SlotFault = 'required' | 'taken' | 'gone';

/** The form's faults by field. */
export type PageViewingFaults = Omit<PageInquiryFaults, 'message'> & { slot?: SlotFault };

/** What a page's viewing request did: booked (`requested`), refused for its fields (nothing stored), or the listing is gone. */
export type PageViewingResult =
  | { outcome: 'sent'; startsAt: number; leadOutcome: InquiryOutcome | null }
  | { outcome: 'invalid'; faults: PageViewingFaults }
  | { outcome: 'gone' };

/** An instant as the form offers it: RFC 3339 with an offset. */
const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,3})?)?(Z|[+-]\d\d:\d\d)$/;

/**
 * The free slots of a page's listing for the next {@link PAGE_VIEWING_DAYS} days, in the
 * business's time zone `zone` (none when the listing left the catalogue meanwhile).
 * @param now epoch ms (tests).
 */
export async function pageViewingSlots(
  db: Db,
  businessId: number,
  propertyId: number,
  now: number = Date.now(),
): Promise<{ zone: string; slots: Slot[] }> {
  try {
    const { clock, slots } = await viewingAvailability(db, businessId, { propertyId, days: PAGE_VIEWING_DAYS, listedOnly: true, now });
    return { zone: clock.zone, slots };
  } catch (error) {
    if (error instanceof InmoError && error.code === 'PROPERTY_NOT_FOUND') return { zone: 'UTC', slots: [] };
    throw error;
  }
}

/**
 * Whether the page offers a slot starting at `startsAt` when free (what {@link pageViewingSlots}
 * walks): on the slot grid of the viewing hours, after `now`, on one of the next
 * {@link PAGE_VIEWING_DAYS} local days. Whether it is free is the booking's to say (a `requested`
 * booking sees every held time, as the page's offer does), as is the horizon.
 */
async function offerable(db: Db, businessId: number, startsAt: number, now: number): Promise<boolean> {
  const clock = await businessClock(db, businessId);
  const end = dayStart(addDays(localDate(now, clock.zone), PAGE_VIEWING_DAYS), clock.zone);
  return startsAt > now && startsAt < end && onSlotGrid(clock.zone, clock.hours, startsAt, startsAt + VIEWING_MINUTES * 60_000);
}

/**
 * Books the viewing asked for on the page of `token` (see the module's comment).
 * @param context the page's language and absolute URL (the lead's `sourcePage`); `now` epoch ms (tests).
 * @returns null for a token no listing has; `gone`; `invalid` with the faults; else `sent`. Only `sent` stores anything.
 * @throws InmoError LEAD_NOT_STORED when the lead cannot be stored; VIEWING_REQUESTS_LIMIT (429)
 *   beyond the page's requests of 24 hours.
 */
export async function requestPageViewing(
  db: Db,
  writes: LeadWrites,
  token: string,
  form: PageViewingForm,
  context: { lang: ListingLanguage; pageUrl: string; now?: number },
): Promise<PageViewingResult | null> {
  if (!PAGE_TOKEN.test(token)) return null;
  const row = await findListingOfPage(db, token);
  if (!row) return null;
  if (row.listed !== 1) return { outcome: 'gone' };
  const { faults: inquiryFaults, phone } = checkPageInquiry({ ...form, message: '' });
  const faults: PageViewingFaults = { ...inquiryFaults };
  const slot = form.slot?.trim() ?? '';
  const startsAt = INSTANT.test(slot) ? Date.parse(slot) : Number.NaN;
  if (Number.isNaN(startsAt)) faults.slot = 'required';
  else if (!(await offerable(db, row.business_id, startsAt, context.now ?? Date.now()))) faults.slot = 'gone';
  if (Object.keys(faults).length > 0 || phone === null) return { outcome: 'invalid', faults };
  const inquiry = pageInquiry(row, { name: form.name!, email: form.email }, phone, {
    ...context,
    notes: `Ref. ${row.external_ref}`,
    consentText: LISTING_WORDS[context.lang].visitConsent,
  });
  try {
    const { leadOutcome } = await bookViewing(writes, row.business_id, {
      propertyId: row.id,
      startsAt,
      lead: { inquiry },
      status: 'requested',
      source: 'website',
      listedOnly: true,
      now: context.now,
    });
    return { outcome: 'sent', startsAt, leadOutcome };
  } catch (error) {
    // A time in the past or outside the viewing hours (a page left open; hours changed).
    if (error instanceof RequestValidationError) return { outcome: 'invalid', faults: { slot: 'gone' } };
    if (!(error instanceof InmoError)) throw error;
    if (error.code === 'VIEWING_SLOT_TAKEN') return { outcome: 'invalid', faults: { slot: 'taken' } };
    if (error.code === 'PROPERTY_NOT_FOUND') return { outcome: 'gone' };
    throw error;
  }
}
