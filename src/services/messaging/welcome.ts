/**
 * A lead's e-mail address and language as every message to it by e-mail uses them (CONTRACT §19):
 * the welcome (services/messaging/purposes/welcome.ts `decideWelcome`), replies, notices, digests.
 */
import { DEFAULT_TEMPLATE_LANGUAGES, templateLanguage } from '../../channels/whatsapp-cloud.ts';
import { isEmailAddress } from '../../channels/email-smtp.ts';

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
