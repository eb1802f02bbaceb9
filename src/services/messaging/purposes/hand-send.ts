/**
 * Listings an agent sends by hand (CONTRACT §21 "By hand", issue 45), queued by
 * services/leads/hand-sends.ts: by e-mail, the alert e-mail's listing cards under a subject and
 * intro that say an agent chose them (the digest of origin `agent`, written at the claim as an
 * alert's is); by WhatsApp, one free-form text written when it is queued (domain/messaging/alert-email.ts
 * `handWhatsAppText`), sent like an agent's reply inside the lead's 24-hour window. Nothing
 * replaces one that fails. Which ways can carry listings to the lead now: {@link handSendWays}.
 */
import type { Executor } from '../../../db/database.ts';
import { findEmailSettings } from '../../../db/repositories/email-out.ts';
import { findLead, refusesWhatsApp } from '../../../db/repositories/leads.ts';
import { findChannel, findConversation } from '../../../db/repositories/messaging.ts';
import { nowRfc3339 } from '../../../domain/time.ts';
import { InmoError } from '../../../errors.ts';
import { sendsEmail } from '../email.ts';
import { leadEmailAddress } from '../welcome.ts';
import { digestEmail } from './alert-digest.ts';
import type { Purpose } from './purpose.ts';

/** How listings go: by e-mail, or by WhatsApp. */
export type HandChannel = 'email' | 'whatsapp';
export const HAND_CHANNELS: readonly HandChannel[] = ['email', 'whatsapp'];

/**
 * Why a send was refused:
 * - `none_chosen`: nothing ticked and no reference typed; `too_many`: more than services/leads/hand-sends.ts `HAND_SEND_MAX`;
 * - `ref_unknown`: no listing of the business has that reference; `not_public`: a listing not in
 *   the public catalogue (its page would answer 410); `dismissed`: the lead said "No me interesa" to it;
 * - `channel_required`: no way chosen; for e-mail `no_email` (the lead has no address),
 *   `email_off` (the business sends no e-mail); for WhatsApp `no_channel`, `no_phone`,
 *   `whatsapp_refused` (its consent says no WhatsApp), `window_closed` (the lead has not written
 *   in the last 24 hours), `too_long` (the text would pass WhatsApp's 4,096 characters);
 *   for both `opted_out`.
 */
export type HandSendReason =
  | 'none_chosen'
  | 'too_many'
  | 'ref_unknown'
  | 'not_public'
  | 'dismissed'
  | 'channel_required'
  | 'no_email'
  | 'email_off'
  | 'no_channel'
  | 'no_phone'
  | 'whatsapp_refused'
  | 'window_closed'
  | 'too_long'
  | 'opted_out';

/** Whether each way can carry listings to the lead now: null when it can, else why not. */
export type HandSendWays = Record<HandChannel, HandSendReason | null>;

/**
 * Whether the lead can be sent listings by e-mail and by WhatsApp now (the lead page's choices).
 * @param now RFC 3339.
 * @throws InmoError LEAD_NOT_FOUND when the lead is not the business's.
 */
export async function handSendWays(db: Executor, businessId: number, leadId: number, now: string = nowRfc3339()): Promise<HandSendWays> {
  const lead = await findLead(db, leadId, businessId);
  if (!lead) throw new InmoError('LEAD_NOT_FOUND', { id: leadId });
  const conversation = await findConversation(db, leadId);
  if (conversation?.state === 'opted_out') return { email: 'opted_out', whatsapp: 'opted_out' };
  const email = leadEmailAddress(lead) === null ? 'no_email' : !sendsEmail(await findEmailSettings(db, businessId)) ? 'email_off' : null;
  const until = conversation?.window_open_until ?? null;
  const whatsapp = !(await findChannel(db, businessId))
    ? 'no_channel'
    : !lead.phone_number_1
      ? 'no_phone'
      : (await refusesWhatsApp(db, leadId))
        ? 'whatsapp_refused'
        : until === null || until <= now
          ? 'window_closed'
          : null;
  return { email, whatsapp };
}

/** The `author` of an agent's message: listings sent by hand carry it, as an agent's replies do. */
export const AGENT_AUTHOR = 'agent';

export const handSend: Purpose = {
  name: 'hand-send',
  author: AGENT_AUTHOR,
  unsubscribe: true,
  email: digestEmail,
};
