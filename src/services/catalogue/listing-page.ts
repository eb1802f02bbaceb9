/**
 * A listing's public page for the people it is sent to (CONTRACT §21 "Listing page for
 * recipients"): `/l/<token>` shows one public listing under its agency's name, and its inquiry
 * form makes a lead as the website kit's would.
 *
 * - The token (migration 0037) is the listing's own, random and never changed, so a link in an
 *   e-mail or a sheet's QR code keeps working for as long as the listing is offered; the page
 *   then answers what the listing is now: shown while it is in the public catalogue (public,
 *   and available or reserved), gone once it leaves it (sold, rented, withdrawn or made private).
 * - What it shows is the published Property object (domain/catalogue/property-doc.ts, privacy
 *   applied when the listing was written), in words (domain/catalogue/listing-words.ts).
 * - The agency: its name, and the e-mail address it answers at (its e-mail settings' reply-to,
 *   else its from address; none without e-mail settings of its own).
 * - An inquiry from the page (name, phone, optional e-mail and message, and the consent it
 *   ticked) is the website kit's inquiry (CONTRACT §17): a `demandante` through
 *   services/leads/intake.ts `createInquiryLead`, with `source` {@link PAGE_SOURCE}, the page as
 *   `sourcePage`, the listing's reference in the notes, the consent's words as the person read
 *   them, the page's language as `preferred_language`, and a search built from the listing as a
 *   portal e-mail's (operation, type, city, ±15 % of its price); a known phone or e-mail adds it
 *   to that lead (CONTRACT §22).
 */
import { insertListingInquiry } from '../../db/repositories/listing-activity.ts';
import type { Db } from '../../db/database.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import { findEmailSettings } from '../../db/repositories/email-out.ts';
import { findListingOfPage, listingMediaObjects, pageTokenOf } from '../../db/repositories/listing-pages.ts';
import { type ListingLanguage } from '../../domain/catalogue/languages.ts';
import { LISTING_WORDS, listingView, type ListingView } from '../../domain/catalogue/listing-words.ts';
import { normalizePhone } from '../../domain/leads/phone.ts';
import { searchOfListing } from '../../domain/leads/portal-emails/search.ts';
import { nowRfc3339 } from '../../domain/time.ts';
import { DEFAULT_LIMITS } from '../../limits.ts';
import { createInquiryLead, type Inquiry, type InquiryOutcome, type LeadWrites } from '../leads/intake.ts';

/** The path of a listing's page: `/l/<token>`; its sheet is the same with `.pdf`. */
export const PAGE_PATH = '/l/';

/**
 * A page token: 43 base64url characters as made since issue 56 (db/repositories/listing-pages.ts,
 * domain/capability-token.ts), or 32 lowercase hex characters as made before (migration 0037).
 */
export const PAGE_TOKEN = /^(?:[A-Za-z0-9_-]{43}|[0-9a-f]{32})$/;

/** The `source` of a lead made from a listing's page (the console's words: "Página del inmueble"). */
export const PAGE_SOURCE = 'listing_page';

/** The agency a page speaks for: its name and, when it has e-mail settings of its own, the address it answers at. */
export interface BusinessContact {
  name: string;
  email: string | null;
}

/** A photo as the page shows it: its widths stored by inmo (`srcset`), or its own URL alone. */
export interface PagePhoto {
  /** The URL to show (the widest stored width, or the listing's own URL). */
  src: string;
  /** Each stored width's URL, narrowest first; empty for a photo inmo does not keep. */
  widths: Array<{ url: string; width: number }>;
  title: string | null;
  primary: boolean;
}

/** What a page shows: the listing in words, its photos and its agency; or that it is gone. */
export type ListingPage =
  | { state: 'public'; businessId: number; propertyId: number; business: BusinessContact; view: ListingView; photos: PagePhoto[] }
  | { state: 'gone'; business: BusinessContact };

/** The address in an e-mail settings' `from`/`reply-to` (`Name <a@b>` or `a@b`). */
function addressOf(value: string | null | undefined): string | null {
  const text = value?.trim();
  if (!text) return null;
  return /<([^<>\s]+@[^<>\s]+)>/.exec(text)?.[1] ?? (/^[^\s@<>]+@[^\s@<>]+$/.test(text) ? text : null);
}

/** The agency's name and contact address. */
export async function businessContact(db: Db, businessId: number, name: string): Promise<BusinessContact> {
  const email = await findEmailSettings(db, businessId);
  return { name, email: addressOf(email?.reply_to) ?? addressOf(email?.from_address) };
}

/** Width of a stored photo's key (`…-<width>.jpg`, media/store.ts). */
const widthOf = (key: string) => Number(/-(\d+)\.jpg$/.exec(key)?.[1] ?? 0);

/**
 * The stored widths of a listing's photos, by the URL the listing's image holds.
 * @param urlOf the URL a media key is shown at.
 */
export async function storedWidths(
  db: Db,
  businessId: number,
  propertyId: number,
  urlOf: (key: string) => string,
): Promise<Map<string, Array<{ key: string; url: string; width: number }>>> {
  const byUrl = new Map<string, Array<{ key: string; url: string; width: number }>>();
  for (const object of await listingMediaObjects(db, businessId, propertyId)) {
    const widths = byUrl.get(object.url) ?? [];
    widths.push({ key: object.key, url: urlOf(object.key), width: widthOf(object.key) });
    byUrl.set(object.url, widths);
  }
  for (const widths of byUrl.values()) widths.sort((a, b) => a.width - b.width);
  return byUrl;
}

/**
 * The listing whose page is `token`, in language `lang`.
 * @param urlOf the URL a stored photo's key is shown at (on this server, or the media's public base).
 * @returns the page, `gone` for a listing no longer in the public catalogue, or null for a token no listing has.
 */
export async function readListingPage(
  db: Db,
  token: string,
  lang: ListingLanguage,
  urlOf: (key: string) => string,
): Promise<ListingPage | null> {
  if (!PAGE_TOKEN.test(token)) return null;
  const row = await findListingOfPage(db, token);
  if (!row) return null;
  const business = await businessContact(db, row.business_id, row.business_name);
  if (row.listed !== 1 || row.api_doc === null) return { state: 'gone', business };
  const view = listingView(row.api_doc, row.lang_texts, lang);
  const stored = await storedWidths(db, row.business_id, row.id, urlOf);
  const photos = view.photos.map((photo) => {
    const widths = stored.get(photo.url) ?? [];
    return {
      src: widths.at(-1)?.url ?? photo.url,
      widths: widths.map(({ url, width }) => ({ url, width })),
      title: photo.title,
      primary: photo.primary,
    };
  });
  return { state: 'public', businessId: row.business_id, propertyId: row.id, business, view, photos };
}

/**
 * The token of a listing's page, for the console's links, its sheet and alerts.
 * @returns undefined when the business has no such listing.
 */
export async function listingPageToken(db: Db, businessId: number, propertyId: number): Promise<string | undefined> {
  return pageTokenOf(db, businessId, propertyId, nowRfc3339());
}

/** The inquiry form's fields as posted (any may be missing). */
export interface PageInquiryForm {
  name?: string;
  phone?: string;
  email?: string;
  message?: string;
  /** `1` when the consent box was ticked. */
  consent?: string;
}

/** What is wrong with a field of the form: empty, too long, not a phone number, not an e-mail address, the consent not given. */
export type PageInquiryFault = 'required' | 'too_long' | 'phone' | 'email' | 'consent';
/** The form's faults by field; a field without a fault is absent. */
export type PageInquiryFaults = Partial<Record<'name' | 'phone' | 'email' | 'message' | 'consent', PageInquiryFault>>;

/** Longest message, characters (the form's `maxlength`). */
export const MESSAGE_MAX = 2000;
/** Longest name and e-mail address, characters. */
export const NAME_MAX = DEFAULT_LIMITS.nameChars;
export const EMAIL_MAX = 254;

/** What a page's inquiry did: sent; refused for its fields (nothing stored); or the listing is gone (nothing stored). */
export type PageInquiryResult =
  { outcome: 'sent'; leadOutcome: InquiryOutcome } | { outcome: 'invalid'; faults: PageInquiryFaults } | { outcome: 'gone' };

/** The form's faults, every one at once; none when it can be sent. */
export function checkPageInquiry(form: PageInquiryForm): { faults: PageInquiryFaults; phone: string | null } {
  const faults: PageInquiryFaults = {};
  const name = form.name?.trim() ?? '';
  if (name === '') faults.name = 'required';
  else if (name.length > NAME_MAX) faults.name = 'too_long';
  const phoneText = form.phone?.trim() ?? '';
  const phone = phoneText === '' ? null : normalizePhone(phoneText);
  if (phoneText === '') faults.phone = 'required';
  else if (phone === null) faults.phone = 'phone';
  const email = form.email?.trim() ?? '';
  if (email.length > EMAIL_MAX) faults.email = 'too_long';
  else if (email !== '' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) faults.email = 'email';
  if ((form.message ?? '').trim().length > MESSAGE_MAX) faults.message = 'too_long';
  if (form.consent !== '1') faults.consent = 'consent';
  return { faults, phone };
}

/** The spec's `preferred_language` of a page language (CONTRACT §22: English is `gb`, German `ge`). */
export const PREFERRED_LANGUAGE = { es: 'es', en: 'gb', fr: 'fr', de: 'ge', it: 'it' } as const;

/**
 * Sends the inquiry posted on the page of `token` (see the module's comment): checked, then
 * made a lead, or added to the known person's (CONTRACT §22).
 * @param pageUrl the page's absolute URL (the lead's `sourcePage`).
 * @returns null for a token no listing has; `gone` for a listing no longer public; `invalid`
 *   with the faults; else `sent`. Only `sent` stores anything.
 * @throws InmoError LEAD_NOT_STORED when the lead cannot be stored.
 */
export async function sendPageInquiry(
  db: Db,
  writes: LeadWrites,
  token: string,
  form: PageInquiryForm,
  context: { lang: ListingLanguage; pageUrl: string },
): Promise<PageInquiryResult | null> {
  if (!PAGE_TOKEN.test(token)) return null;
  const row = await findListingOfPage(db, token);
  if (!row) return null;
  if (row.listed !== 1) return { outcome: 'gone' };
  const { faults, phone } = checkPageInquiry(form);
  if (Object.keys(faults).length > 0 || phone === null) return { outcome: 'invalid', faults };
  const message = form.message?.trim() ?? '';
  const inquiry = pageInquiry(row, { name: form.name!, email: form.email }, phone, {
    ...context,
    // As the website kit writes it (CONTRACT §17): the message, then the listing's reference.
    notes: [message, `Ref. ${row.external_ref}`].filter(Boolean).join('\n'),
    consentText: LISTING_WORDS[context.lang].consent,
  });
  const { outcome, leadId } = await createInquiryLead(writes, row.business_id, inquiry);
  // The request about the listing, for its owner's report (CONTRACT §24): after the lead, in a write of its own.
  await writes.run((trx) =>
    insertListingInquiry(trx, {
      business_id: row.business_id,
      property_id: row.id,
      lead_id: leadId,
      source: PAGE_SOURCE,
      created_at: nowRfc3339(),
    }),
  );
  return { outcome: 'sent', leadOutcome: outcome };
}

/**
 * The inquiry a form of a listing's page makes (the inquiry form, the viewing form,
 * services/viewings/page-viewings.ts): a `demandante` searching what the listing is, with source
 * `listing_page`, the page's URL, its language, and the consent the form's words asked for.
 * @param phone the form's phone, already E.164.
 */
export function pageInquiry(
  row: Parameters<typeof searchOfListing>[0] & { external_ref: string },
  form: { name: string; email?: string },
  phone: string,
  context: { lang: ListingLanguage; pageUrl: string; notes: string; consentText: string },
): Inquiry {
  const search = searchOfListing(row);
  return {
    name: form.name.trim(),
    type: 'demandante',
    phone_number_1: phone,
    phone_number_2: null,
    landline_phone: null,
    personal_email: form.email?.trim() || undefined,
    preferred_language: PREFERRED_LANGUAGE[context.lang],
    source: PAGE_SOURCE,
    sourcePage: context.pageUrl,
    notes: context.notes,
    search_preferences: search ? ([search] as Inquiry['search_preferences']) : undefined,
    consent: { marketing: false, whatsapp: true, text: context.consentText },
  };
}

/** The business's name, for a page of one of its listings made from the console. */
export async function businessName(db: Db, businessId: number): Promise<string> {
  return (await findBusiness(db, businessId))?.name ?? '';
}
