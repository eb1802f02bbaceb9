/**
 * The welcome (spec §6 step 2, CONTRACT §7, §19): the one welcome a lead may ever get, queued with
 * the lead (services/leads/intake.ts; the one-statement twin, services/leads/new-lead-at-once.ts)
 * by the rule both decide it by, from the same inputs ({@link decideWelcome}):
 *
 * - the business's WhatsApp template (`welcomeTemplate`, channels/whatsapp-cloud.ts) when it has
 *   a channel and the lead's consent does not refuse WhatsApp;
 * - else an e-mail, when the business sends e-mail (its own SMTP server or `INMO_SMTP_URL`) and
 *   the lead gave an e-mail address, written in the language of its `preferred_language`;
 * - else the template when there is a channel (it then fails visibly at its send, as before);
 * - else none.
 *
 * Its words: the template as approved, or domain/messaging/welcome-email.ts.
 *
 * A template that fails for good (refused by the provider, the lead's consent, or retries run out;
 * never one whose outcome is unknown) is replaced by an e-mail when the lead has a verified address
 * and the business sends e-mail: the lead's one `welcome_fallback` row (a partial unique index), so
 * that at most one welcome reaches the person whatever the channel.
 */
import { welcomeTemplate } from '../../../channels/whatsapp-cloud.ts';
import { findEmailSettings } from '../../../db/repositories/email-out.ts';
import { findLead } from '../../../db/repositories/leads.ts';
import { findWelcomeFallback, insertWelcomeFallback } from '../../../db/repositories/messaging.ts';
import { transact } from '../../../db/transaction.ts';
import { welcomeEmail } from '../../../domain/messaging/welcome-email.ts';
import { sendsEmail } from '../email.ts';
import { emailLanguage, leadEmailAddress } from '../welcome.ts';
import type { Purpose } from './purpose.ts';

/** A welcome row's deciding values: kind, template (templates only), language code and recipient. */
export type WelcomeDecision =
  | { kind: 'template'; template: string; language: string; recipient: string }
  | { kind: 'email'; template: null; language: string; recipient: string };

/**
 * The welcome of a new lead.
 * @param channel the business's WhatsApp channel (`template`, `languages` as stored), if any.
 * @param sendsEmail whether the business sends e-mail (services/messaging/email.ts `sendsEmail`).
 * @param lead its phone (E.164), e-mail address ({@link leadEmailAddress}), `preferred_language`,
 *   and whether its newest consent refuses WhatsApp (CONTRACT §18).
 * @returns the row's values, or null: no welcome.
 */
export function decideWelcome(
  channel: { template: string; languages: string } | undefined,
  sendsEmail: boolean,
  lead: { phone: string; email: string | null; preferredLanguage: string | null; refusesWhatsApp: boolean },
): WelcomeDecision | null {
  const template = welcomeTemplate(channel, lead.preferredLanguage);
  if (template && !lead.refusesWhatsApp) return { kind: 'template', ...template, recipient: lead.phone };
  if (sendsEmail && lead.email !== null) {
    return { kind: 'email', template: null, language: emailLanguage(lead.preferredLanguage), recipient: lead.email };
  }
  return template && { kind: 'template', ...template, recipient: lead.phone };
}

export const welcome: Purpose = {
  name: 'welcome',
  author: 'welcome',
  unsubscribe: true,
  async email(_db, message, facts) {
    return welcomeEmail(message.language ?? 'es', {
      businessName: facts.businessName,
      leadName: facts.leadName,
      unsubscribeUrl: facts.unsubscribeUrl ?? '',
    });
  },
  async replace(db, message, now) {
    return transact(db, async (trx) => {
      const existing = await findWelcomeFallback(trx, message.lead_id);
      if (existing) return existing.id;
      const lead = await findLead(trx, message.lead_id);
      const address = lead && leadEmailAddress(lead);
      // Never to an address an unverified request gave (migration 0045, docs/security.md).
      if (!lead || !address || lead.contact_verified === 0 || !sendsEmail(await findEmailSettings(trx, lead.business_id))) return null;
      await insertWelcomeFallback(trx, {
        business_id: lead.business_id,
        lead_id: lead.id,
        language: emailLanguage(lead.preferred_language),
        recipient: address,
        state: 'pending',
        created_at: now,
        updated_at: now,
      });
      return (await findWelcomeFallback(trx, lead.id))?.id ?? null;
    });
  },
  async replacementOf(db, message) {
    if (message.author !== 'welcome') return null;
    return (await findWelcomeFallback(db, message.lead_id))?.id ?? null;
  },
};
