/**
 * The one welcome a new lead is queued, whatever the channel (CONTRACT §7, §19): the rule both
 * the intake's transaction (services/leads/intake.ts) and a new lead's one statement
 * (services/leads/new-lead-at-once.ts) decide it by, from the same inputs.
 *
 * - the business's WhatsApp template (`welcomeTemplate`, channels/whatsapp-cloud.ts) when it has
 *   a channel and the lead's consent does not refuse WhatsApp;
 * - else an e-mail, when the business sends e-mail (its own SMTP server or `INMO_SMTP_URL`) and
 *   the lead gave an e-mail address, written in the language of its `preferred_language`;
 * - else the template when there is a channel (it then fails visibly at its send, as before);
 * - else none.
 *
 * A template that later fails for good gets the e-mail in its place at its send
 * (services/messaging/purposes/welcome.ts: the `welcome_fallback` row).
 */
import { DEFAULT_TEMPLATE_LANGUAGES, templateLanguage, welcomeTemplate } from '../../channels/whatsapp-cloud.ts';
import { isEmailAddress } from '../../channels/email-smtp.ts';

/** A welcome row's deciding values: kind, template (templates only), language code and recipient. */
export type WelcomeDecision =
  | { kind: 'template'; template: string; language: string; recipient: string }
  | { kind: 'email'; template: null; language: string; recipient: string };

/** The lead's e-mail address to write to: its personal one, else its professional one, when it is an address. */
export function leadEmailAddress(lead: { personal_email?: string | null; professional_email?: string | null }): string | null {
  for (const candidate of [lead.personal_email, lead.professional_email]) {
    const address = candidate?.trim();
    if (address && isEmailAddress(address)) return address;
  }
  return null;
}

/** The e-mail's language code for a `preferred_language`: es, gb → en, fr, ge → de, it; anything else es. */
export function emailLanguage(preferred: string | null): string {
  return templateLanguage(DEFAULT_TEMPLATE_LANGUAGES, preferred);
}

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
