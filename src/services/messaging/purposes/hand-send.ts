/**
 * Listings an agent sends by hand (CONTRACT §21 "By hand", issue 45), queued by
 * services/leads/hand-sends.ts: by e-mail, the alert e-mail's listing cards under a subject and
 * intro that say an agent chose them (the digest of origin `agent`, written at the claim as an
 * alert's is); by WhatsApp, one free-form text written when it is queued (domain/messaging/alert-email.ts
 * `handWhatsAppText`), sent like an agent's reply inside the lead's 24-hour window. Nothing
 * replaces one that fails.
 */
import { digestEmail } from './alert-digest.ts';
import type { Purpose } from './purpose.ts';

/** The `author` of an agent's message: listings sent by hand carry it, as an agent's replies do. */
export const AGENT_AUTHOR = 'agent';

export const handSend: Purpose = {
  name: 'hand-send',
  author: AGENT_AUTHOR,
  unsubscribe: true,
  email: digestEmail,
};
