/**
 * Alert digests by WhatsApp (CONTRACT §21, issue 45): the `property_alert` template carries one
 * link, to the digest's public page `/d/<token>`, which shows its listings.
 *
 * - **The template**, written when its send is claimed (services/messaging/delivery.ts, {@link alertTemplate}):
 *   sent only while the lead still takes alerts; its parameters are the lead's first name, the
 *   number of listings, the agency's name and the page's link (domain/messaging/alert-page.ts).
 * - **The page's token** is a capability token (domain/capability-token.ts: 256 random bits,
 *   base64url, 43 characters), single-purpose (it shows one digest) and says nothing about the
 *   lead; only its SHA-256 is kept (`alert_digests.page_token_hash`, migration 0043), so the
 *   database alone cannot make a link. A send claimed again (after a retry) writes a new one: the
 *   link of a template that never went out stops working.
 * - **"No me interesa"** on the page is the e-mails' mechanism (`POST /a/<token>`,
 *   services/leads/alerts.ts `dismissListing`): each listing's token is derived from the page's
 *   (domain/capability-token.ts `deriveToken`: SHA-256 of the item's id and the page token,
 *   base64url), so the page can show it again whenever it is opened while only hashes are stored;
 *   knowing one listing's token tells nothing of the page's nor of the others'.
 * - **The page** ({@link readDigestPage}) names the agency and shows the digest's listings in its
 *   order, in the lead's language, each with its photo, title, price (as sent), size, rooms, city,
 *   a link to its page (`/l/<token>`, or the business's own `listing_url`) and its "No me
 *   interesa" button. A listing that left the public catalogue since is shown by its title alone
 *   as no longer available (no photo, price, link or button); one deleted since is left out; one
 *   the lead dismissed says so instead of its button. Nothing about the lead is shown.
 */
import type { Db, Executor } from '../../db/database.ts';
import { findDigestByPageToken, listDigestPageItems, setDigestPageToken } from '../../db/repositories/alert-pages.ts';
import { leadTakesAlerts, listDigestOfMessage, setAlertItemToken } from '../../db/repositories/alerts.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import { pageTokensOf } from '../../db/repositories/listing-pages.ts';
import { findLead } from '../../db/repositories/leads.ts';
import { listCoverImages } from '../../db/repositories/matches.ts';
import { findChannel, type MessageRow } from '../../db/repositories/messaging.ts';
import { heldTexts, listingLanguage } from '../../domain/catalogue/languages.ts';
import { deriveToken, hashToken, mintToken, TOKEN_FORM } from '../../domain/capability-token.ts';
import { listingLink } from '../../domain/leads/alerts.ts';
import { alertTemplateParameters, pageLanguage, type PageListing } from '../../domain/messaging/alert-page.ts';
import { PAGE_PATH } from '../catalogue/listing-page.ts';
import { DISMISS_PATH } from '../messaging/alert-email.ts';
import { emailLanguage } from '../messaging/welcome.ts';

/** Path of a digest's page on the server: `/d/<token>`. */
export const DIGEST_PAGE_PATH = '/d/';

/** The form of a page token: 43 base64url characters (every one was minted so). */
const TOKEN = TOKEN_FORM;

/** The "No me interesa" token of a digest's item, derived from the page's token (43 base64url characters). */
export function dismissTokenOf(pageToken: string, itemId: number): string {
  return deriveToken(pageToken, `inmo alert dismissal\n${itemId}`);
}

/**
 * The `property_alert` template's content of an alert digest's message, when its send is claimed
 * (services/messaging/delivery.ts), in the caller's transaction: a new page token (its hash kept on the digest)
 * and its listings' "No me interesa" tokens (their hashes kept on the items).
 * @param publicUrl the server's public origin (`INMO_PUBLIC_URL`).
 * @returns the body's parameters and a one-line summary for the conversation, or `{refused}`
 *   when the lead no longer takes alerts or the digest has no listings left.
 */
export async function alertTemplate(
  db: Executor,
  message: MessageRow,
  publicUrl: string,
): Promise<{ parameters: string[]; summary: string } | { refused: string }> {
  if (!(await leadTakesAlerts(db, message.lead_id))) return { refused: 'the lead no longer takes alerts' };
  const digest = await listDigestOfMessage(db, message.id);
  if (!digest || digest.items.length === 0) return { refused: 'the alert has no listings left' };
  const [lead, business] = await Promise.all([findLead(db, message.lead_id), findBusiness(db, message.business_id)]);
  if (!lead || !business) return { refused: 'the lead is gone' };
  const { token, hash } = mintToken();
  await setDigestPageToken(db, digest.digest.id, hash);
  for (const item of digest.items) await setAlertItemToken(db, item.id, hashToken(dismissTokenOf(token, item.id)));
  const link = `${publicUrl.replace(/\/+$/, '')}${DIGEST_PAGE_PATH}${token}`;
  const parameters = alertTemplateParameters(emailLanguage(lead.preferred_language), {
    leadName: lead.name,
    count: digest.items.length,
    businessName: business.name,
    link,
  });
  return { parameters, summary: `${message.template}: ${parameters.join(' · ')}` };
}

/** What a digest's page shows: its language, the agency's name and the listings. */
export interface DigestPage {
  language: string;
  businessName: string;
  listings: PageListing[];
}

/**
 * The digest whose page is `token`, as it is now (the module's comment).
 * @returns the page, or null for a token no digest has.
 */
export async function readDigestPage(db: Db, token: string): Promise<DigestPage | null> {
  if (!TOKEN.test(token)) return null;
  const digest = await findDigestByPageToken(db, hashToken(token));
  if (!digest) return null;
  const language = pageLanguage(emailLanguage(digest.preferred_language));
  const items = await listDigestPageItems(db, digest.id);
  const shown = items.filter((i) => i.listed === 1).map((i) => i.property_id);
  const [covers, channel, pages] = await Promise.all([
    listCoverImages(db, digest.business_id, shown),
    findChannel(db, digest.business_id),
    pageTokensOf(db, digest.business_id, shown),
  ]);
  const titleLanguage = listingLanguage(language) ?? 'es';
  const listings = items.map((item): PageListing => {
    const title = heldTexts(item.title, item.titles)[titleLanguage] ?? item.title;
    const gone = item.listed !== 1;
    const dismissed = item.dismissed_at !== null;
    if (gone) {
      return {
        title,
        price: null,
        monthly: false,
        size: null,
        bedrooms: null,
        city: item.city,
        priceDropped: false,
        priceBefore: null,
        photoUrl: null,
        url: null,
        dismissAction: null,
        dismissed,
        gone,
      };
    }
    const page = pages.get(item.property_id);
    return {
      title,
      price: item.price,
      monthly: item.price_field === 'price_rent',
      size: item.size_total,
      bedrooms: item.bedrooms,
      city: item.city,
      priceDropped: item.reason === 'price_drop',
      priceBefore: item.reason === 'price_drop' ? item.price_before : null,
      photoUrl: covers.get(item.property_id) ?? null,
      // On this server's pages the listing's page follows the page's origin, in the page's language.
      url: listingLink(
        channel?.listing_url,
        { id: item.property_id, external_ref: item.external_ref },
        page === undefined ? null : `${PAGE_PATH}${page}?lang=${titleLanguage}`,
      ),
      dismissAction: dismissed ? null : `${DISMISS_PATH}${dismissTokenOf(token, item.id)}`,
      dismissed,
      gone,
    };
  });
  return { language, businessName: digest.business_name, listings };
}
