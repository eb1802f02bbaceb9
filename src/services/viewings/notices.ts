/**
 * The lead is told (CONTRACT §20, issue 44): when the agency schedules a viewing (or accepts a
 * requested one), moves it or cancels it, and `INMO_VIEWING_REMINDER_HOURS` before it.
 *
 * - **Which channel**, decided when the notice is queued, in the transaction of the change, by the
 *   purpose's rule (services/messaging/purposes/viewing-notice.ts `noticeCarrier`): the business's
 *   WhatsApp template for the purpose, else an e-mail, else nothing (the notice row is kept,
 *   without a message).
 * - **Durably, once.** A notice is a `viewing_notices` row and its message (`author = 'viewing'`,
 *   `pending`) queued in the outbox with its `send_message` job (services/messaging/outbox.ts),
 *   committed with the change; the outbox's delivery sends it once (services/messaging/delivery.ts).
 *   What it says is written when its send is claimed, from the viewing as it is then, and a
 *   template that fails for good is replaced by an e-mail once: the purposes `viewing-notice` and
 *   `viewing-reminder` (services/messaging/purposes/viewing-notice.ts, viewing-reminder.ts).
 * - **Reminders** are found by the worker ({@link composeDueReminders}): `scheduled` and
 *   `confirmed` viewings starting within the reminder hours; one per viewing and start time (a
 *   partial unique index), so a moved viewing gets a new one and a start time never two. A
 *   viewing whose time the lead was told within those hours gets none (the row is kept).
 * - **Answers.** The template's quick-reply buttons ("Confirmar", "Cancelar") carry the payloads
 *   `viewing:<id>:confirm|cancel`; their replies come through the WhatsApp webhook
 *   ({@link answerViewingButton}). The e-mail carries two one-click links `/v/<token>` (256
 *   random bits, base64url; only the SHA-256 kept, `viewing_links`) whose page shows the viewing
 *   and one button that posts the answer (a GET changes nothing: mail scanners follow links),
 *   then says in the lead's language what happened. Both go through services/viewings/transitions.ts,
 *   so `viewing.updated` is recorded as for any change.
 */
import type { Transaction } from 'kysely';
import type { Db, Executor } from '../../db/database.ts';
import { findLead } from '../../db/repositories/leads.ts';
import { findConversation } from '../../db/repositories/messaging.ts';
import {
  findTimeNotice,
  findViewingLink,
  insertNotice,
  listReminderCandidates,
  markViewingLinkUsed,
  setNoticeMessage,
} from '../../db/repositories/viewing-notices.ts';
import { findViewing, type ViewingRow } from '../../db/repositories/viewings.ts';
import { transact } from '../../db/transaction.ts';
import type { Database } from '../../db/types.ts';
import { heldTexts, listingLanguage } from '../../domain/catalogue/languages.ts';
import { hashToken } from '../../domain/capability-token.ts';
import {
  linkPageWords,
  readButtonPayload,
  readButtonText,
  type LinkOutcome,
  type NoticePurpose,
} from '../../domain/messaging/viewing-notice.ts';
import type { ViewingAction, ViewingStatus } from '../../domain/viewings/status.ts';
import { nowRfc3339, toRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { queueMessage } from '../messaging/outbox.ts';
import { noticeCarrier, VIEWING_AUTHOR } from '../messaging/purposes/viewing-notice.ts';
import { emailLanguage } from '../messaging/welcome.ts';
import { businessClock } from './clock.ts';
import { changeViewingIn } from './transitions.ts';

export { VIEWING_AUTHOR, VIEWING_LINK_PATH } from '../messaging/purposes/viewing-notice.ts';

const HOUR_MS = 3_600_000;

/**
 * What a change tells the lead: a requested viewing accepted is `scheduled`; a new time of a
 * viewing the lead was told of (it is `scheduled` after it) is `rescheduled`; a cancellation is
 * `cancelled`; anything else (done, no show, feedback, a requested viewing moved) nothing.
 */
export function noticeOfChange(before: ViewingStatus, after: ViewingStatus, action: ViewingAction): NoticePurpose | null {
  if (action === 'confirm' && before === 'requested' && after === 'scheduled') return 'scheduled';
  if (action === 'reschedule' && after === 'scheduled') return 'rescheduled';
  if (action === 'cancel' && after === 'cancelled') return 'cancelled';
  return null;
}

/** A notice's row, without its message yet. */
const noticeRow = (viewing: ViewingRow, purpose: NoticePurpose, at: string) => ({
  business_id: viewing.business_id,
  lead_id: viewing.lead_id,
  viewing_id: viewing.id,
  purpose,
  starts_at: viewing.starts_at,
  sequence: viewing.sequence,
  message_id: null,
  created_at: at,
});

/**
 * Queues the lead's notice of `viewing` (as it is after the change) in the caller's transaction:
 * the notice row, and when a channel can carry it, its message and job (the outbox).
 * @param at the instant of the change, canonical RFC 3339 (the job is due then).
 * @returns the message's id; null when nothing can carry it, or for a reminder its start time
 *   already has.
 */
export async function queueViewingNotice(trx: Executor, viewing: ViewingRow, purpose: NoticePurpose, at: string): Promise<number | null> {
  const noticeId = await insertNotice(trx, noticeRow(viewing, purpose, at));
  if (noticeId === undefined) return null;
  const lead = await findLead(trx, viewing.lead_id, viewing.business_id);
  if (!lead) return null;
  const message = await noticeCarrier(trx, lead, purpose);
  if (message === null) return null;
  const messageId = await queueMessage(trx, {
    lead,
    purpose: purpose === 'reminder' ? 'viewing-reminder' : 'viewing-notice',
    ...message,
    at,
  });
  if (messageId === undefined) return null;
  await setNoticeMessage(trx, noticeId, messageId);
  return messageId;
}

/**
 * Queues the reminders due now (the worker, once a minute): `scheduled` and `confirmed` viewings
 * starting after `now` and within `hours`, each in a transaction of its own that locks the
 * viewing and looks again. A viewing whose time the lead was told within those hours gets a
 * reminder row without a message.
 * @param hours `INMO_VIEWING_REMINDER_HOURS`.
 * @returns how many reminders were queued with a message.
 */
export async function composeDueReminders(db: Db, now: Date, hours: number, limit = 500): Promise<number> {
  const at = toRfc3339(now);
  const until = toRfc3339(new Date(now.getTime() + hours * HOUR_MS));
  let queued = 0;
  for (const candidate of await listReminderCandidates(db, at, until, limit)) {
    const sent = await transact(db, async (trx) => {
      const viewing = await findViewing(trx, candidate.business_id, candidate.id, true);
      if (!viewing || (viewing.status !== 'scheduled' && viewing.status !== 'confirmed')) return false;
      if (viewing.starts_at <= at || viewing.starts_at > until) return false;
      const told = await findTimeNotice(trx, viewing.id, viewing.starts_at);
      const remindAt = toRfc3339(new Date(Date.parse(viewing.starts_at) - hours * HOUR_MS));
      if (told && told.created_at >= remindAt) {
        await insertNotice(trx, noticeRow(viewing, 'reminder', at));
        return false;
      }
      return (await queueViewingNotice(trx, viewing, 'reminder', at)) !== null;
    });
    if (sent) queued++;
  }
  return queued;
}

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
    const next = await trx
      .selectFrom('viewings')
      .select('id')
      .where('business_id', '=', businessId)
      .where('lead_id', '=', leadId)
      .where('status', 'in', ['scheduled', 'confirmed'])
      .where('starts_at', '>', toRfc3339(new Date(now)))
      .orderBy('starts_at')
      .limit(1)
      .executeTakeFirst();
    if (!next) return false;
    answer = { viewingId: next.id, action };
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
  const facts = { startsAt: viewing.starts_at, zone: clock.zone, listing: await listingTitle(trx, viewing.property_id, language) };
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
  const listing = await db
    .selectFrom('properties')
    .select(['external_ref', 'title', 'titles'])
    .where('id', '=', propertyId)
    .executeTakeFirst();
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
  const words = linkPageWords(language, action, { startsAt: link.starts_at, zone: clock.zone, listing: title }, shown);
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
