/**
 * The lead's answers to a viewing's notices (CONTRACT §20, issue 44; the notices themselves are
 * services/viewings/notices.ts's): a WhatsApp quick-reply button ({@link answerViewingButton}) and
 * the e-mail's one-click links `/v/<token>` ({@link viewingLinkPage}, {@link useViewingLink}). Both
 * confirm or cancel the viewing through services/viewings/transitions.ts, which itself queues
 * notices: kept apart from notices.ts so that neither imports the other back.
 */
import type { Transaction } from 'kysely';
import type { Db, Executor } from '../../db/database.ts';
import { findLead } from '../../db/repositories/leads.ts';
import { findConversation } from '../../db/repositories/messaging.ts';
import { findViewingLink, markViewingLinkUsed } from '../../db/repositories/viewing-notices.ts';
import { findListingTitles, findNextViewingToAnswer, findViewing, type ViewingRow } from '../../db/repositories/viewings.ts';
import { transact } from '../../db/transaction.ts';
import type { Database } from '../../db/types.ts';
import { heldTexts, listingLanguage } from '../../domain/catalogue/languages.ts';
import { hashToken } from '../../domain/capability-token.ts';
import { linkPageWords, readButtonPayload, readButtonText, type LinkOutcome } from '../../domain/messaging/viewing-notice.ts';
import { nowRfc3339, toRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { queueMessage } from '../messaging/outbox.ts';
import { VIEWING_AUTHOR } from '../messaging/purposes/viewing-notice.ts';
import { emailLanguage } from '../messaging/welcome.ts';
import { businessClock } from './clock.ts';
import { changeViewingIn } from './transitions.ts';

/**
 * A WhatsApp button reply read as the lead's answer to a notice, in the webhook processing's
 * transaction: the payload `viewing:<id>:confirm|cancel` of the lead's own viewing, else the
 * button's text ("Confirmar", "Cancelar" or their translations) for the lead's next viewing. The
 * answer confirms or cancels it through services/viewings/transitions.ts (`viewing.updated`); an
 * answer that no longer applies (already cancelled, begun) changes nothing. Either way the lead
 * is told what became of the viewing, in a text inside the window its reply opened.
 * @param now the instant of processing, epoch ms.
 * @returns whether the reply was an answer to a notice (the assistant then does not answer it).
 */
export async function answerViewingButton(
  trx: Transaction<Database>,
  businessId: number,
  leadId: number,
  reply: { payload: string | null; text: string | null },
  now: number,
): Promise<boolean> {
  let answer = readButtonPayload(reply.payload);
  if (answer === null) {
    const action = readButtonText(reply.payload) ?? readButtonText(reply.text);
    if (action === null) return false;
    const next = await findNextViewingToAnswer(trx, businessId, leadId, toRfc3339(new Date(now)));
    if (next === undefined) return false;
    answer = { viewingId: next, action };
  }
  const viewing = await findViewing(trx, businessId, answer.viewingId);
  // Another lead's viewing (a forwarded message's button): ours, but it changes nothing.
  if (!viewing || viewing.lead_id !== leadId) return true;
  const at = toRfc3339(new Date(now));
  let outcome = linkObstacle(viewing, { action: answer.action, starts_at: viewing.starts_at }, at);
  if (outcome === null) {
    try {
      await changeViewingIn(trx, businessId, viewing.id, { action: answer.action }, now, 'lead');
    } catch (error) {
      // An answer the viewing's status does not take (a requested viewing): nothing to say.
      if (error instanceof InmoError) return true;
      throw error;
    }
    outcome = answer.action === 'confirm' ? 'confirmed' : 'cancelled';
  }
  await acknowledge(trx, viewing, answer.action, outcome, at);
  return true;
}

/**
 * Tells the lead what its button did, as a text inside the 24-hour window its reply just opened
 * (a reply of the outbox, services/messaging/outbox.ts): the words of the e-mail link's page, in the lead's language.
 */
async function acknowledge(
  trx: Transaction<Database>,
  viewing: ViewingRow,
  action: 'confirm' | 'cancel',
  outcome: LinkOutcome,
  at: string,
): Promise<void> {
  const lead = await findLead(trx, viewing.lead_id, viewing.business_id);
  if (!lead?.phone_number_1 || (await findConversation(trx, lead.id))?.state === 'opted_out') return;
  const language = emailLanguage(lead.preferred_language);
  const clock = await businessClock(trx, viewing.business_id);
  const facts = {
    kind: viewing.kind,
    startsAt: viewing.starts_at,
    zone: clock.zone,
    listing: await listingTitle(trx, viewing.property_id, language),
  };
  await queueMessage(trx, {
    lead,
    purpose: 'reply',
    author: VIEWING_AUTHOR,
    kind: 'text',
    body: linkPageWords(language, action, facts, outcome).done,
    recipient: lead.phone_number_1,
    at,
  });
}

/** A listing's title in `language` where it is written, else its own, else its reference. */
async function listingTitle(db: Executor, propertyId: number, language: string): Promise<string> {
  const listing = await findListingTitles(db, propertyId);
  const title = listing ? (heldTexts(listing.title, listing.titles)[listingLanguage(language) ?? 'es'] ?? listing.title) : null;
  return title?.trim() || listing?.external_ref || '';
}

/** The form of a link's token: 43 base64url characters. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** What a one-click link's page shows: its words, the lead's language, and whether it is done. */
export interface ViewingLinkView {
  language: string;
  done: boolean;
  words: { title: string; ask: string; button: string; done: string };
}

/** Why a link's action cannot be done now, or null when it can. */
function linkObstacle(viewing: ViewingRow, link: { action: string; starts_at: string }, now: string): LinkOutcome | null {
  if (viewing.status === 'cancelled') return link.action === 'cancel' ? 'cancelled' : 'already_cancelled';
  if (link.action === 'confirm' && viewing.status === 'confirmed' && viewing.starts_at === link.starts_at) return 'confirmed';
  if (viewing.status === 'done' || viewing.status === 'no_show' || viewing.starts_at <= now) return 'over';
  if (viewing.starts_at !== link.starts_at) return 'moved';
  return null;
}

async function linkView(db: Executor, token: string, now: string, outcome?: LinkOutcome) {
  if (!TOKEN.test(token)) return null;
  const link = await findViewingLink(db, hashToken(token));
  const viewing = link && (await findViewing(db, link.business_id, link.viewing_id));
  const lead = link && (await findLead(db, link.lead_id));
  if (!link || !viewing || !lead) return null;
  const language = emailLanguage(lead.preferred_language);
  const title = await listingTitle(db, viewing.property_id, language);
  const clock = await businessClock(db, link.business_id);
  const shown = outcome ?? linkObstacle(viewing, link, now);
  const action = link.action === 'cancel' ? 'cancel' : 'confirm';
  const words = linkPageWords(language, action, { kind: viewing.kind, startsAt: link.starts_at, zone: clock.zone, listing: title }, shown);
  return { link, viewing, view: { language, done: shown !== null, words } satisfies ViewingLinkView };
}

/**
 * What `GET /v/<token>` shows: the viewing and the link's one button, or what became of it
 * (already confirmed or cancelled, moved, over). Null for an unknown token.
 */
export async function viewingLinkPage(db: Db, token: string, at: string = nowRfc3339()): Promise<ViewingLinkView | null> {
  return (await linkView(db, token, at))?.view ?? null;
}

/**
 * `POST /v/<token>`: confirms or cancels the link's viewing as the lead (services/viewings/transitions.ts),
 * once, and marks the link used, in one transaction.
 * @returns the page saying what happened; null for an unknown token, writing nothing.
 */
export async function useViewingLink(db: Db, token: string, at: string = nowRfc3339()): Promise<ViewingLinkView | null> {
  return transact(db, async (trx) => {
    const found = await linkView(trx, token, at);
    if (!found || found.view.done) return found?.view ?? null;
    const { link, viewing } = found;
    const action = link.action === 'cancel' ? 'cancel' : 'confirm';
    await changeViewingIn(trx, link.business_id, viewing.id, { action }, Date.parse(at), 'lead');
    await markViewingLinkUsed(trx, link.id, at);
    return (await linkView(trx, token, at, action === 'confirm' ? 'confirmed' : 'cancelled'))!.view;
  });
}
