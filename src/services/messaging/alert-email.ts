/**
 * An alert digest written as an e-mail (CONTRACT §21, §19), when its send is claimed
 * (services/messaging/delivery.ts): the digest's listings as they are now (title, photo, size, rooms,
 * city) at the price they were put in the digest at, each with a link to it (the business's own
 * `listing_url` template, else the listing's page on inmo, `/l/<token>`, CONTRACT §21) and a new
 * "No me interesa" link.
 *
 * A "No me interesa" token is 256 random bits (base64url), single-purpose (it dismisses one
 * listing for one lead) and says nothing about the lead; only its SHA-256 is kept
 * (`alert_items.token_hash`), so the database alone cannot make a link. A send claimed again
 * after a retry writes new tokens: the links of an e-mail that never went out stop working.
 */
import type { Executor } from '../../db/database.ts';
import { HAND_ORIGIN, listDigestOfMessage, setAlertItemToken } from '../../db/repositories/alerts.ts';
import { findUser } from '../../db/repositories/users.ts';
import { listCoverImages } from '../../db/repositories/matches.ts';
import { findChannel } from '../../db/repositories/messaging.ts';
import { listingLink } from '../../domain/leads/alerts.ts';
import { pageTokenOf, pageTokensOf } from '../../db/repositories/listing-pages.ts';
import { nowRfc3339 } from '../../domain/time.ts';
import { PAGE_PATH } from '../catalogue/listing-page.ts';
import { heldTexts, listingLanguage } from '../../domain/catalogue/languages.ts';
import { alertEmail, type AlertListing, type ChosenBy } from '../../domain/messaging/alert-email.ts';
import { mintToken } from '../../domain/capability-token.ts';

/** Path of the "No me interesa" links on the server: `/a/<token>`. */
export const DISMISS_PATH = '/a/';

/** An absolute URL for a stored one (a photo inmo serves is stored by its path). */
function absolute(url: string, publicUrl: string): string {
  return url.startsWith('/') ? `${publicUrl}${url}` : url;
}

/** The name an agent is given to a lead: their display name (never their e-mail address), or null. */
export async function agentNameForLead(db: Executor, businessId: number, userId: number | null): Promise<string | null> {
  if (userId === null) return null;
  const user = await findUser(db, userId, businessId);
  return user?.display_name?.trim() || null;
}

/**
 * The listing cards of the digest a message carries, each with a new "No me interesa" token
 * (its hash kept on the item in the caller's transaction), and who chose them.
 * @param publicUrl the server's public origin.
 * @returns null when the message carries no digest or its listings are gone.
 */
export async function digestListings(
  db: Executor,
  message: { id: number; business_id: number; language: string | null },
  publicUrl: string,
): Promise<{ listings: AlertListing[]; chosenBy: ChosenBy } | null> {
  const digest = await listDigestOfMessage(db, message.id);
  if (!digest || digest.items.length === 0) return null;
  publicUrl = publicUrl.replace(/\/+$/, '');
  const [covers, channel] = await Promise.all([
    listCoverImages(
      db,
      message.business_id,
      digest.items.map((i) => i.property_id),
    ),
    findChannel(db, message.business_id),
  ]);
  const language = listingLanguage(message.language) ?? 'es';
  // Without a template of the business's own, each listing links its page on inmo (CONTRACT §21).
  const pages = channel?.listing_url
    ? new Map<number, string>()
    : await pageTokensOf(
        db,
        message.business_id,
        digest.items.map((i) => i.property_id),
      );
  const listings: AlertListing[] = [];
  for (const item of digest.items) {
    const page = channel?.listing_url
      ? undefined
      : (pages.get(item.property_id) ?? (await pageTokenOf(db, message.business_id, item.property_id, nowRfc3339())));
    const { token, hash } = mintToken();
    await setAlertItemToken(db, item.id, hash);
    const cover = covers.get(item.property_id);
    listings.push({
      // The listing's title in the lead's language where it is written (CONTRACT §22), else its own.
      title: heldTexts(item.title, item.titles)[language] ?? item.title,
      price: item.price,
      monthly: item.price_field === 'price_rent',
      size: item.size_total,
      bedrooms: item.bedrooms,
      city: item.city,
      photoUrl: cover === undefined ? null : absolute(cover, publicUrl),
      url: listingLink(
        channel?.listing_url,
        { id: item.property_id, external_ref: item.external_ref },
        page === undefined ? null : `${publicUrl}${PAGE_PATH}${page}`,
      ),
      dismissUrl: `${publicUrl}${DISMISS_PATH}${token}`,
      priceDropped: item.reason === 'price_drop',
      priceBefore: item.reason === 'price_drop' ? item.price_before : null,
    });
  }
  const chosenBy: ChosenBy =
    digest.digest.origin === HAND_ORIGIN
      ? { by: 'agent', agentName: await agentNameForLead(db, message.business_id, digest.digest.user_id) }
      : { by: 'alert' };
  return { listings, chosenBy };
}

/**
 * The words of the digest a message carries (an alert's, or listings an agent sent by hand), in
 * the caller's transaction (which also keeps the new tokens' hashes).
 * @param publicUrl the server's public origin, no trailing slash.
 * @returns `{subject, text, html}`, or null when the message carries no digest or its listings are gone.
 */
export async function writeAlertEmail(
  db: Executor,
  message: { id: number; business_id: number; language: string | null },
  words: { businessName: string; leadName: string | null; unsubscribeUrl: string; publicUrl: string },
): Promise<{ subject: string; text: string; html: string } | null> {
  const cards = await digestListings(db, message, words.publicUrl);
  if (cards === null) return null;
  return alertEmail(message.language ?? 'es', {
    businessName: words.businessName,
    leadName: words.leadName,
    listings: cards.listings,
    unsubscribeUrl: words.unsubscribeUrl,
    chosenBy: cards.chosenBy,
  });
}
