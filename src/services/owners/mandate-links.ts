/**
 * A mandate signed remotely (CONTRACT §24): the draft's one-use link `/m/<token>` e-mailed to the
 * owner, and what the link's page shows and does.
 *
 * - **Sent through the outbox**, as every message to a person (services/messaging/outbox.ts): the
 *   console queues an e-mail of purpose `mandate-link` to the owner's address with a
 *   `mandate_links` row naming it ({@link sendMandateLink}); the e-mail's words, and its token,
 *   are written when its send is claimed ({@link writeMandateLinkEmail}): 256 random bits, only
 *   the SHA-256 kept, valid {@link MANDATE_LINK_DAYS} days from then. An e-mail claimed again
 *   mints a new token (the earlier one, never delivered, stops working).
 * - **One use.** The page signs the draft it was sent for, once: a link used, expired, or whose
 *   draft was signed, replaced or ended meanwhile says so and changes nothing. Signing spends the
 *   link and signs the draft in one transaction (services/owners/mandates.ts `signIn`, `link`).
 * - **Hostile input.** An unknown token is a 404 that reads one row by its hash; the signer is
 *   read as on the screen (name, DNI/NIE by its letter, a PNG signature by its content).
 */
import type { Db, Executor } from '../../db/database.ts';
import { findEmailSettings } from '../../db/repositories/email-out.ts';
import { findLead } from '../../db/repositories/leads.ts';
import type { MessageRow } from '../../db/repositories/messaging.ts';
import * as repo from '../../db/repositories/mandates.ts';
import { findListing } from '../../db/repositories/properties.ts';
import { transact } from '../../db/transaction.ts';
import { TOKEN_FORM, hashToken, mintToken } from '../../domain/capability-token.ts';
import { mandateLanguage, mandateLinkEmail, mandatePageWords } from '../../domain/messaging/mandate-link.ts';
import type { MandateLanguage } from './mandate-pdf.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { sendsEmail } from '../messaging/email.ts';
import { queueMessage } from '../messaging/outbox.ts';
import { emailLanguage, leadEmailAddress } from '../messaging/welcome.ts';
import { readSigner, type SheetInput } from '../viewings/visit-sheet.ts';
import { mandateClause, mandatePdf, presentMandate, signIn, type Mandate } from './mandates.ts';

/** Days a link holds from when its e-mail is written. */
export const MANDATE_LINK_DAYS = 7;

/** The `author` of a mandate link's e-mail. */
export const MANDATE_AUTHOR = 'mandate';

/** Path of the links on the server: `/m/<token>`. */
export const MANDATE_LINK_PATH = '/m/';

const DAY_MS = 86_400_000;

/**
 * E-mails the owner of the business's listing `propertyId` a link to sign its draft (see the
 * module's comment), in the owner's language.
 * @param now epoch ms.
 * @returns the queued e-mail's id.
 * @throws InmoError PROPERTY_NOT_FOUND; MANDATE_SIGNED (409: no draft to sign); MANDATE_LINK_NO_EMAIL
 *   (422: the owner has no address, or the business sends no e-mail).
 */
export async function sendMandateLink(db: Db, businessId: number, propertyId: number, now: number = Date.now()): Promise<number> {
  const at = toRfc3339(new Date(now));
  return transact(db, async (trx) => {
    const listing = await findListing(trx, businessId, propertyId);
    if (!listing) throw new InmoError('PROPERTY_NOT_FOUND');
    const draft = (await repo.listMandatesOfListing(trx, businessId, propertyId)).find((m) => m.status === 'draft');
    if (!draft) throw new InmoError('MANDATE_SIGNED');
    const owner = draft.owner_lead_id === null ? undefined : await findLead(trx, draft.owner_lead_id, businessId);
    const address = owner ? leadEmailAddress(owner) : null;
    if (!owner || address === null || !sendsEmail(await findEmailSettings(trx, businessId))) throw new InmoError('MANDATE_LINK_NO_EMAIL');
    const messageId = await queueMessage(trx, {
      lead: owner,
      purpose: 'mandate-link',
      kind: 'email',
      recipient: address,
      language: emailLanguage(owner.preferred_language),
      at,
    });
    if (messageId === undefined) throw new InmoError('MANDATE_LINK_NO_EMAIL');
    await repo.insertMandateLink(trx, {
      business_id: businessId,
      mandate_id: draft.id,
      message_id: messageId,
      token_hash: null,
      expires_at: null,
      used_at: null,
      created_at: at,
    });
    return messageId;
  });
}

/** A listing's title, else its reference. */
const listingName = (listing: { title: string | null; external_ref: string }) => listing.title?.trim() || listing.external_ref;

/**
 * The words of a link's e-mail when its send is claimed, in the claim's transaction: a new token
 * for its link, valid {@link MANDATE_LINK_DAYS} days from `facts.now`.
 * @returns `{subject, text, html}`, or `{refused}` when the draft was signed, replaced or ended since.
 */
export async function writeMandateLinkEmail(
  db: Executor,
  message: MessageRow,
  facts: { businessName: string; leadName: string | null; publicUrl: string; now: string },
): Promise<{ subject: string; text: string; html: string; storedBody: string } | { refused: string }> {
  const link = await repo.findLinkOfMessage(db, message.id);
  const mandate = link && (await repo.findMandate(db, link.business_id, link.mandate_id));
  if (!link || !mandate) return { refused: 'not sent: the mandate is gone' };
  if (mandate.status !== 'draft') return { refused: 'not sent: the mandate was signed, replaced or ended since' };
  const listing = await findListing(db, link.business_id, mandate.property_id);
  const { token, hash } = mintToken();
  await repo.setLinkToken(db, link.id, hash, toRfc3339(new Date(Date.parse(facts.now) + MANDATE_LINK_DAYS * DAY_MS)));
  const words = {
    businessName: facts.businessName,
    ownerName: facts.leadName,
    listing: listing ? listingName(listing) : '',
    days: MANDATE_LINK_DAYS,
  };
  const origin = facts.publicUrl.replace(/\/+$/, '');
  const email = mandateLinkEmail(message.language ?? 'es', { ...words, url: `${origin}${MANDATE_LINK_PATH}${token}` });
  // The conversation keeps the e-mail without its token: the link is a capability, only its hash is stored.
  const stored = mandateLinkEmail(message.language ?? 'es', { ...words, url: `${origin}${MANDATE_LINK_PATH}…` });
  return { ...email, storedBody: stored.text };
}

/** What a link's page is at: `open` (to sign), `done` (just signed), `used`, `expired`, `gone` (the draft is no longer one). */
export type LinkState = 'open' | 'done' | 'used' | 'expired' | 'gone';

/** What a link's page shows. */
export interface MandateLinkView {
  state: LinkState;
  /** The owner's language (es, en, fr, de, it). */
  language: string;
  words: ReturnType<typeof mandatePageWords>;
  mandate: Mandate;
  listing: { external_ref: string; title: string | null };
  /** The mandate's PDF's language: the owner's (es, en, fr, de, it). */
  pdfLanguage: MandateLanguage;
}

/** The link of `token` and its draft, or null for a token of no link. */
async function linkOf(db: Executor, token: string, lock = false) {
  if (!TOKEN_FORM.test(token)) return null;
  const link = await repo.findMandateLink(db, hashToken(token), lock);
  const mandate = link && (await repo.findMandate(db, link.business_id, link.mandate_id, lock));
  if (!link || !mandate) return null;
  return { link, mandate };
}

async function viewOf(
  db: Executor,
  found: NonNullable<Awaited<ReturnType<typeof linkOf>>>,
  now: string,
  shown?: LinkState,
): Promise<MandateLinkView> {
  const { link, mandate } = found;
  const owner = mandate.owner_lead_id === null ? undefined : await findLead(db, mandate.owner_lead_id, link.business_id);
  const language = emailLanguage(owner?.preferred_language ?? null);
  const listing = await findListing(db, link.business_id, mandate.property_id);
  const state: LinkState =
    shown ??
    (link.used_at !== null
      ? 'used'
      : link.expires_at === null || link.expires_at <= now
        ? 'expired'
        : mandate.status !== 'draft'
          ? 'gone'
          : 'open');
  return {
    state,
    language,
    words: mandatePageWords(language, listing ? listingName(listing) : ''),
    mandate: presentMandate(mandate),
    listing: { external_ref: listing?.external_ref ?? '', title: listing?.title ?? null },
    pdfLanguage: mandateLanguage(language) as MandateLanguage,
  };
}

/** What `GET /m/<token>` shows, or null: no such link (404). @param now epoch ms. */
export async function mandateLinkPage(db: Db, token: string, now: number = Date.now()): Promise<MandateLinkView | null> {
  const found = await linkOf(db, token);
  return found && viewOf(db, found, toRfc3339(new Date(now)));
}

/**
 * Signs the link's draft with what the owner typed and drew (`POST /m/<token>`), spending the link.
 * @returns the page after it (`done`, or why nothing changed), or null: no such link.
 * @throws VisitSheetFormError for the signer's faults (nothing stored).
 */
export async function signByLink(db: Db, token: string, input: SheetInput, now: number = Date.now()): Promise<MandateLinkView | null> {
  const at = toRfc3339(new Date(now));
  const found = await linkOf(db, token);
  if (!found) return null;
  const before = await viewOf(db, found, at);
  if (before.state !== 'open') return before;
  const signer = await readSigner(input);
  const clause = await mandateClause(db, found.link.business_id);
  try {
    return await transact(db, async (trx) => {
      const locked = await linkOf(trx, token, true);
      if (!locked) return null;
      const again = await viewOf(trx, locked, at);
      if (again.state !== 'open') return again;
      if (!(await repo.useMandateLink(trx, locked.link.id, at))) return viewOf(trx, locked, at, 'used');
      await signIn(trx, locked.link.business_id, locked.mandate.id, signer, clause.text, { by: 'link' }, at);
      return viewOf(trx, (await linkOf(trx, token))!, at, 'done');
    });
  } catch (error) {
    // The listing's owner changed, or the draft's last day passed, since it was sent: nothing signed.
    if (error instanceof InmoError && (error.code === 'MANDATE_NO_OWNER' || error.code === 'MANDATE_ENDS_IN_PAST')) {
      return viewOf(db, found, at, 'gone');
    }
    throw error;
  }
}

/**
 * The PDF of a link's draft, as the agency prints it, in {@link MandateLinkView.pdfLanguage}, while
 * the link is open; null otherwise (404).
 */
export async function mandateLinkPdf(db: Db, token: string, now: number = Date.now()): Promise<{ pdf: Buffer; fileName: string } | null> {
  const found = await linkOf(db, token);
  if (!found) return null;
  const view = await viewOf(db, found, toRfc3339(new Date(now)));
  if (view.state !== 'open') return null;
  return mandatePdf(db, found.link.business_id, found.mandate.property_id, view.pdfLanguage, found.mandate.version);
}
