/**
 * The lead is told (CONTRACT §20, issue 44): when the agency schedules a viewing (or accepts a
 * requested one), moves it or cancels it, and `INMO_VIEWING_REMINDER_HOURS` before it.
 *
 * - **Which channel**, decided when the notice is queued, in the transaction of the change: the
 *   business's WhatsApp channel when it names an approved template for the purpose (the channel's
 *   `templates`, migration 0039), the lead has a phone and its newest consent does not refuse
 *   WhatsApp; else an e-mail (CONTRACT §19) when the business sends e-mail and the lead has an
 *   address; else nothing (the notice row is kept, without a message).
 * - **Durably, once.** A notice is a `viewing_notices` row, its message (`author = 'viewing'`,
 *   `pending`) and its `send_viewing_notice` job, committed with the change; the job sends it by
 *   the welcome's send-once rule (jobs/deliver.ts, jobs/deliver-email.ts). What it says is written
 *   when its send is claimed ({@link viewingTemplate}, {@link writeViewingEmail}), from the
 *   viewing as it is then: a notice that no longer holds (the viewing moved, was cancelled, or
 *   began) fails visibly instead of misleading. A template that fails for good is replaced by an
 *   e-mail when the lead has an address ({@link queueNoticeFallback}), once.
 * - **Reminders** are found by the worker ({@link composeDueReminders}): `scheduled` and
 *   `confirmed` viewings starting within the reminder hours; one per viewing and start time (a
 *   partial unique index), so a moved viewing gets a new one and a start time never two. A
 *   viewing whose time the lead was told within those hours gets none (the row is kept).
 * - **Answers.** The template's quick-reply buttons ("Confirmar", "Cancelar") carry the payloads
 *   `viewing:<id>:confirm|cancel`; their replies come through the WhatsApp webhook
 *   (services/viewings/answers.ts `answerViewingButton`). The e-mail carries two one-click links `/v/<token>` (256
 *   random bits, base64url; only the SHA-256 kept, `viewing_links`) whose page shows the viewing
 *   and one button that posts the answer (a GET changes nothing: mail scanners follow links),
 *   then says in the lead's language what happened. Both go through services/viewings/transitions.ts,
 *   so `viewing.updated` is recorded as for any change.
 */
import { templateLanguage } from '../../channels/whatsapp-cloud.ts';
import type { Db, Executor } from '../../db/database.ts';
import { findEmailSettings } from '../../db/repositories/email-out.ts';
import { enqueueJob } from '../../db/repositories/jobs.ts';
import { findLead, refusesWhatsApp } from '../../db/repositories/leads.ts';
import { findChannel, findConversation, insertOutbound, type MessageRow } from '../../db/repositories/messaging.ts';
import {
  findNoticeOfMessage,
  findTimeNotice,
  insertNotice,
  insertViewingLink,
  listReminderCandidates,
  setNoticeFallback,
  setNoticeMessage,
} from '../../db/repositories/viewing-notices.ts';
import { findViewing, type ViewingRow } from '../../db/repositories/viewings.ts';
import { transact } from '../../db/transaction.ts';
import { heldTexts, listingLanguage } from '../../domain/catalogue/languages.ts';
import { mintToken } from '../../domain/capability-token.ts';
import { storedTemplates } from '../../domain/messaging/templates.ts';
import {
  asksToConfirm,
  buttonPayloads,
  noticePlace,
  templateParameters,
  templatePurposeOf,
  viewingEmail,
  type NoticeFacts,
  type NoticePurpose,
} from '../../domain/messaging/viewing-notice.ts';
import type { ViewingAction, ViewingStatus } from '../../domain/viewings/status.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { sendsEmail } from '../messaging/email.ts';
import { emailLanguage, leadEmailAddress } from '../messaging/welcome.ts';
import { businessClock } from './clock.ts';

/** The `author` of a viewing notice's message. */
export const VIEWING_AUTHOR = 'viewing';

/** Path of the one-click links of notices' e-mails on the server: `/v/<token>`. */
export const VIEWING_LINK_PATH = '/v/';

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
 * the notice row, and when a channel can carry it, its message and `send_viewing_notice` job.
 * @param at the instant of the change, canonical RFC 3339 (the job is due then).
 * @returns the message's id; null when nothing can carry it, or for a reminder its start time
 *   already has.
 */
export async function queueViewingNotice(trx: Executor, viewing: ViewingRow, purpose: NoticePurpose, at: string): Promise<number | null> {
  const noticeId = await insertNotice(trx, noticeRow(viewing, purpose, at));
  if (noticeId === undefined) return null;
  const lead = await findLead(trx, viewing.lead_id, viewing.business_id);
  if (!lead) return null;
  const channel = await findChannel(trx, viewing.business_id);
  const template = channel ? storedTemplates(channel.templates)[templatePurposeOf(purpose)] : undefined;
  const phone = lead.phone_number_1?.trim();
  let message: { kind: string; template: string | null; language: string; recipient: string } | null = null;
  if (channel && template && phone && !(await refusesWhatsApp(trx, lead.id))) {
    const language = templateLanguage(JSON.parse(channel.languages) as Record<string, string>, lead.preferred_language);
    message = { kind: 'template', template, language, recipient: phone };
  } else {
    const address = leadEmailAddress(lead);
    if (address !== null && sendsEmail(await findEmailSettings(trx, viewing.business_id))) {
      message = { kind: 'email', template: null, language: emailLanguage(lead.preferred_language), recipient: address };
    }
  }
  if (message === null) return null;
  const messageId = await insertOutbound(trx, {
    business_id: viewing.business_id,
    lead_id: lead.id,
    author: VIEWING_AUTHOR,
    ...message,
    created_at: at,
    updated_at: at,
  });
  if (messageId === undefined) return null;
  await setNoticeMessage(trx, noticeId, messageId);
  await enqueueJob(trx, {
    businessId: viewing.business_id,
    leadId: lead.id,
    kind: 'send_viewing_notice',
    payload: { message_id: messageId },
    runAt: at,
    now: at,
  });
  return messageId;
}

/** Why a notice no longer holds for `viewing` as it is at `now` (moved, cancelled, begun), or null when it does. */
function noticeOutrun(notice: { purpose: string; starts_at: string }, viewing: ViewingRow, now: string): string | null {
  if (notice.purpose === 'cancelled') return null;
  if (viewing.status === 'cancelled') return 'not sent: the viewing was cancelled since';
  if (viewing.starts_at !== notice.starts_at) return 'not sent: the viewing was moved since (the new time has its own message)';
  if (viewing.starts_at <= now || viewing.status === 'done' || viewing.status === 'no_show') return 'not sent: the viewing has begun';
  return null;
}

/**
 * Queues the e-mail that stands in for a notice's WhatsApp template that failed for good (refused
 * by the provider or the lead's consent, or out of attempts; never one whose outcome is unknown),
 * as the welcome's does (jobs/tasks/send-welcome.ts): once per notice (`fallback_message_id`),
 * only while the notice still holds, the lead has an address, has not opted out, and the business
 * sends e-mail.
 * @param templateId the failed template's message.
 * @returns the e-mail's message id (the one queued before, after a crash), or null.
 */
export async function queueNoticeFallback(db: Db, templateId: number, at: string): Promise<number | null> {
  return transact(db, async (trx) => {
    const notice = await findNoticeOfMessage(trx, templateId);
    if (!notice || notice.message_id !== templateId) return null;
    if (notice.fallback_message_id !== null) return notice.fallback_message_id;
    const viewing = await findViewing(trx, notice.business_id, notice.viewing_id);
    const lead = await findLead(trx, notice.lead_id, notice.business_id);
    if (!viewing || !lead || noticeOutrun(notice, viewing, at) !== null) return null;
    if ((await findConversation(trx, lead.id))?.state === 'opted_out') return null;
    const address = leadEmailAddress(lead);
    if (address === null || !sendsEmail(await findEmailSettings(trx, notice.business_id))) return null;
    const messageId = await insertOutbound(trx, {
      business_id: notice.business_id,
      lead_id: lead.id,
      author: VIEWING_AUTHOR,
      kind: 'email',
      template: null,
      language: emailLanguage(lead.preferred_language),
      recipient: address,
      created_at: at,
      updated_at: at,
    });
    if (messageId === undefined || !(await setNoticeFallback(trx, notice.id, messageId))) return null;
    return messageId;
  });
}

/** What a notice speaks of, read when its send is claimed; or why it no longer holds. */
async function noticeFacts(
  db: Executor,
  message: MessageRow,
  now: string,
): Promise<{ facts: NoticeFacts; viewing: ViewingRow; language: string; leadName: string | null } | { refused: string }> {
  const notice = await findNoticeOfMessage(db, message.id);
  const viewing = notice && (await findViewing(db, notice.business_id, notice.viewing_id));
  const lead = await findLead(db, message.lead_id);
  if (!notice || !viewing || !lead) return { refused: 'the viewing is gone' };
  const purpose = notice.purpose as NoticePurpose;
  const outrun = noticeOutrun(notice, viewing, now);
  if (outrun !== null) return { refused: outrun };
  const listing = await db
    .selectFrom('properties')
    .select(['external_ref', 'title', 'titles', 'address', 'address_approximate', 'address_privacy', 'city'])
    .where('id', '=', viewing.property_id)
    .executeTakeFirst();
  const language = emailLanguage(lead.preferred_language);
  const title = listing ? (heldTexts(listing.title, listing.titles)[listingLanguage(language) ?? 'es'] ?? listing.title) : null;
  const clock = await businessClock(db, viewing.business_id);
  return {
    viewing,
    language,
    leadName: lead.name,
    facts: {
      purpose,
      startsAt: notice.starts_at,
      zone: clock.zone,
      listing: title?.trim() || listing?.external_ref || '',
      place: listing ? noticePlace(listing) : { kind: 'hidden' },
    },
  };
}

/**
 * The WhatsApp template content of a notice's message, when its send is claimed (jobs/deliver.ts):
 * the body's parameters ({{1}} date, {{2}} time, {{3}} listing, {{4}} place, in the lead's
 * language: domain/messaging/viewing-notice.ts `templateParameters`) and, but for a
 * cancellation, the payloads of its two quick-reply buttons ("Confirmar", "Cancelar").
 * @returns the content and a one-line summary for the conversation, or `{refused}` when the notice no longer holds.
 */
export async function viewingTemplate(
  db: Executor,
  message: MessageRow,
  now: string,
): Promise<{ parameters: string[]; buttons: string[]; summary: string } | { refused: string }> {
  const read = await noticeFacts(db, message, now);
  if ('refused' in read) return read;
  const parameters = templateParameters(read.language, read.facts);
  const buttons = asksToConfirm(read.facts.purpose) ? buttonPayloads(read.viewing.id) : [];
  return { parameters, buttons, summary: `${message.template}: ${parameters.join(' · ')}` };
}

/**
 * The words of a notice's e-mail, when its send is claimed (jobs/deliver-email.ts), in the
 * caller's transaction: a notice that asks gets two new one-click links (only their hashes kept;
 * a send claimed again writes new ones).
 * @param words the business's name, the unsubscribe URL, and the server's public origin.
 * @returns `{subject, text, html}`, or `{refused}` when the notice no longer holds.
 */
export async function writeViewingEmail(
  db: Executor,
  message: MessageRow,
  words: { businessName: string; unsubscribeUrl: string; publicUrl: string; now: string },
): Promise<{ subject: string; text: string; html: string } | { refused: string }> {
  const read = await noticeFacts(db, message, words.now);
  if ('refused' in read) return read;
  let links: { confirm: string; cancel: string } | null = null;
  if (asksToConfirm(read.facts.purpose)) {
    const origin = words.publicUrl.replace(/\/+$/, '');
    const made: Record<string, string> = {};
    for (const action of ['confirm', 'cancel'] as const) {
      const { token, hash } = mintToken();
      await insertViewingLink(db, {
        business_id: read.viewing.business_id,
        lead_id: read.viewing.lead_id,
        viewing_id: read.viewing.id,
        action,
        starts_at: read.viewing.starts_at,
        token_hash: hash,
        created_at: words.now,
      });
      made[action] = `${origin}${VIEWING_LINK_PATH}${token}`;
    }
    links = { confirm: made.confirm, cancel: made.cancel };
  }
  return viewingEmail(message.language ?? read.language, read.facts, {
    businessName: words.businessName,
    leadName: read.leadName,
    unsubscribeUrl: words.unsubscribeUrl,
    links,
  });
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
