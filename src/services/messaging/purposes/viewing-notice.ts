/**
 * A viewing's notice (CONTRACT §20, issue 44): what the lead is told when the agency schedules a
 * viewing (or accepts a requested one), moves it or cancels it; its reminder is a notice of purpose
 * `reminder` (purposes/viewing-reminder.ts). Queued with the change by services/viewings/notices.ts
 * (`queueViewingNotice`, with its `viewing_notices` row), by this module's rule of which channel
 * carries it ({@link noticeCarrier}): the business's WhatsApp channel when it names an approved
 * template for the purpose (the channel's `templates`, migration 0039), the lead has a phone and its
 * newest consent does not refuse WhatsApp; else an e-mail (CONTRACT §19) when the business sends
 * e-mail and the lead has an address; else nothing.
 *
 * Its words are written when its send is claimed, from the viewing as it is then
 * ({@link viewingTemplate}, {@link writeViewingEmail}; the wording in domain/messaging/viewing-notice.ts):
 * a notice that no longer holds (the viewing moved, was cancelled, or began) fails visibly instead of
 * misleading. A notice that asks gets two one-click links `/v/<token>` (domain/capability-token.ts;
 * only the hashes kept, `viewing_links`). A template that fails for good is replaced by an e-mail
 * when the lead has an address, once per notice ({@link queueNoticeFallback}).
 */
import { templateLanguage } from '../../../channels/whatsapp-cloud.ts';
import type { Db, Executor } from '../../../db/database.ts';
import { findEmailSettings } from '../../../db/repositories/email-out.ts';
import { findLead, refusesWhatsApp } from '../../../db/repositories/leads.ts';
import { findChannel, findConversation, type MessageRow } from '../../../db/repositories/messaging.ts';
import { findNoticeListing, findNoticeOfMessage, insertViewingLink, setNoticeFallback } from '../../../db/repositories/viewing-notices.ts';
import { findViewing, type ViewingRow } from '../../../db/repositories/viewings.ts';
import { transact } from '../../../db/transaction.ts';
import type { LeadRow } from '../../../db/types.ts';
import { heldTexts, listingLanguage } from '../../../domain/catalogue/languages.ts';
import { mintToken } from '../../../domain/capability-token.ts';
import { storedTemplates } from '../../../domain/messaging/templates.ts';
import {
  asksToConfirm,
  buttonPayloads,
  noticePlace,
  templateParameters,
  templatePurposeOf,
  viewingEmail,
  type NoticeFacts,
  type NoticePurpose,
} from '../../../domain/messaging/viewing-notice.ts';
import { businessClock } from '../../viewings/clock.ts';
import type { ViewingKind } from '../../../domain/viewings/status.ts';
import { sendsEmail } from '../email.ts';
import { queueMessage } from '../outbox.ts';
import { emailLanguage, leadEmailAddress } from '../welcome.ts';
import type { Purpose } from './purpose.ts';

/** The `author` of a viewing notice's message. */
export const VIEWING_AUTHOR = 'viewing';

/** Path of the one-click links of notices' e-mails on the server: `/v/<token>`. */
export const VIEWING_LINK_PATH = '/v/';

/**
 * Which channel carries a notice of `purpose` about a viewing of `kind` to `lead` now (see the
 * module's comment; a valuation's template is the channel's `valuation_<purpose>`), in the
 * change's transaction: the message's deciding values, or null when nothing can carry it.
 */
export async function noticeCarrier(
  trx: Executor,
  lead: LeadRow,
  purpose: NoticePurpose,
  kind: ViewingKind = 'visit',
): Promise<{ kind: 'template' | 'email'; template: string | null; language: string; recipient: string } | null> {
  const channel = await findChannel(trx, lead.business_id);
  const template = channel ? storedTemplates(channel.templates)[templatePurposeOf(purpose, kind)] : undefined;
  const phone = lead.phone_number_1?.trim();
  let message: { kind: 'template' | 'email'; template: string | null; language: string; recipient: string } | null = null;
  if (channel && template && phone && !(await refusesWhatsApp(trx, lead.id))) {
    const language = templateLanguage(JSON.parse(channel.languages) as Record<string, string>, lead.preferred_language);
    message = { kind: 'template', template, language, recipient: phone };
  } else {
    const address = leadEmailAddress(lead);
    if (address !== null && sendsEmail(await findEmailSettings(trx, lead.business_id))) {
      message = { kind: 'email', template: null, language: emailLanguage(lead.preferred_language), recipient: address };
    }
  }
  return message;
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
 * as the welcome's does (services/messaging/purposes/welcome.ts): once per notice (`fallback_message_id`),
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
    // Sent at once by the delivery that found its template refused: no job of its own.
    const messageId = await queueMessage(trx, {
      lead,
      purpose: notice.purpose === 'reminder' ? 'viewing-reminder' : 'viewing-notice',
      kind: 'email',
      template: null,
      language: emailLanguage(lead.preferred_language),
      recipient: address,
      at,
      job: false,
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
  const listing = await findNoticeListing(db, viewing.property_id);
  const language = emailLanguage(lead.preferred_language);
  const title = listing ? (heldTexts(listing.title, listing.titles)[listingLanguage(language) ?? 'es'] ?? listing.title) : null;
  const clock = await businessClock(db, viewing.business_id);
  return {
    viewing,
    language,
    leadName: lead.name,
    facts: {
      purpose,
      kind: viewing.kind,
      startsAt: notice.starts_at,
      zone: clock.zone,
      listing: title?.trim() || listing?.external_ref || '',
      // The owner is told their own home's address whatever the listing's privacy (CONTRACT §24).
      place: listing ? noticePlace(viewing.kind === 'valuation' ? { ...listing, address_privacy: 'public' } : listing) : { kind: 'hidden' },
    },
  };
}

/**
 * The WhatsApp template content of a notice's message, when its send is claimed (services/messaging/delivery.ts):
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
 * The words of a notice's e-mail, when its send is claimed (services/messaging/delivery.ts), in the
 * caller's transaction: a notice that asks gets two new one-click links (only their hashes kept;
 * a send claimed again writes new ones). The conversation keeps its text without the links' tokens.
 * @param words the business's name, the unsubscribe URL, and the server's public origin.
 * @returns `{subject, text, html}`, or `{refused}` when the notice no longer holds.
 */
export async function writeViewingEmail(
  db: Executor,
  message: MessageRow,
  words: { businessName: string; unsubscribeUrl: string; publicUrl: string; now: string },
): Promise<{ subject: string; text: string; html: string; storedBody: string } | { refused: string }> {
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
  const language = message.language ?? read.language;
  const common = { businessName: words.businessName, leadName: read.leadName, unsubscribeUrl: words.unsubscribeUrl };
  const email = viewingEmail(language, read.facts, { ...common, links });
  // The conversation keeps the e-mail without the links' tokens (capabilities: only their hashes are stored).
  const hidden = `${words.publicUrl.replace(/\/+$/, '')}${VIEWING_LINK_PATH}…`;
  const stored = links ? viewingEmail(language, read.facts, { ...common, links: { confirm: hidden, cancel: hidden } }).text : email.text;
  return { ...email, storedBody: stored };
}

export const viewingNotice: Purpose = {
  name: 'viewing-notice',
  author: VIEWING_AUTHOR,
  unsubscribe: true,
  template: (db, message, now) => viewingTemplate(db, message, now),
  email: (db, message, facts) =>
    writeViewingEmail(db, message, {
      businessName: facts.businessName,
      unsubscribeUrl: facts.unsubscribeUrl ?? '',
      publicUrl: facts.publicUrl,
      now: facts.now,
    }),
  replace: (db, message, now) => queueNoticeFallback(db, message.id, now),
  async replacementOf(db, message) {
    const notice = await findNoticeOfMessage(db, message.id);
    return notice && notice.message_id === message.id ? notice.fallback_message_id : null;
  },
};
