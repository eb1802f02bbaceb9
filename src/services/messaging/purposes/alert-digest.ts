/**
 * An alert digest (CONTRACT §21, issue 45): the listings newly matching a lead's searches, once a
 * day at `INMO_ALERT_HOUR`, composed by services/leads/alerts.ts. Its channel
 * ({@link digestMessage}): e-mail when the business sends e-mail and the lead has an address, else
 * the `property_alert` template. Sent only while the lead still takes alerts. Its words, written at the claim: the
 * e-mail's listing cards (services/messaging/alert-email.ts, domain/messaging/alert-email.ts), or
 * the template's parameters and the link to the digest's page (services/leads/alert-pages.ts).
 * A template that fails for good is not replaced: a digest goes by WhatsApp only to a lead the
 * business cannot e-mail.
 */
import { leadTakesAlerts } from '../../../db/repositories/alerts.ts';
import { ALERT_AUTHOR } from '../../../domain/leads/alerts.ts';
import { emailOutSettings } from '../../../config.ts';
import { alertTemplate } from '../../leads/alert-pages.ts';
import { writeAlertEmail } from '../alert-email.ts';
import type { EmailFacts, Purpose } from './purpose.ts';
import type { MessageRow } from '../../../db/repositories/messaging.ts';
import type { Executor } from '../../../db/database.ts';
import { templateLanguage } from '../../../channels/whatsapp-cloud.ts';
import { findEmailSettings } from '../../../db/repositories/email-out.ts';
import { findLead, refusesWhatsApp } from '../../../db/repositories/leads.ts';
import { findChannel } from '../../../db/repositories/messaging.ts';
import { storedTemplates } from '../../../domain/messaging/templates.ts';
import { sendsEmail } from '../email.ts';
import { emailLanguage, leadEmailAddress } from '../welcome.ts';

/** How a business can carry its digests: e-mail, and its WhatsApp `property_alert` template (name and language mapping). */
export interface DigestChannels {
  email: boolean;
  whatsapp: { template: string; languages: Record<string, string> } | null;
}

/** The channels a business's digests can go by now (CONTRACT §21: e-mail, else the `property_alert` template). */
export async function digestChannels(db: Executor, businessId: number): Promise<DigestChannels> {
  const [email, channel] = await Promise.all([findEmailSettings(db, businessId), findChannel(db, businessId)]);
  const template = channel ? storedTemplates(channel.templates).property_alert : undefined;
  return {
    email: sendsEmail(email),
    whatsapp: channel && template ? { template, languages: JSON.parse(channel.languages) as Record<string, string> } : null,
  };
}

/**
 * How one lead's digest goes: an e-mail to its address when the business sends e-mail, else the
 * `property_alert` template to its phone when its newest consent does not refuse WhatsApp, else null.
 */
export async function digestMessage(
  trx: Executor,
  lead: { id: number; preferred_language: string | null; personal_email: string | null; professional_email: string | null },
  channels: DigestChannels,
): Promise<{ kind: 'email' | 'template'; template: string | null; language: string; recipient: string } | null> {
  const address = channels.email ? leadEmailAddress(lead) : null;
  if (address) return { kind: 'email', template: null, language: emailLanguage(lead.preferred_language), recipient: address };
  if (!channels.whatsapp) return null;
  const phone = (await findLead(trx, lead.id))?.phone_number_1?.trim();
  if (!phone || (await refusesWhatsApp(trx, lead.id))) return null;
  const { template, languages } = channels.whatsapp;
  return { kind: 'template', template, language: templateLanguage(languages, lead.preferred_language), recipient: phone };
}

/** A digest's e-mail (an alert's, or listings sent by hand): its listings, or refused when none is left. */
export async function digestEmail(db: Executor, message: MessageRow, facts: EmailFacts) {
  const words = await writeAlertEmail(db, message, {
    businessName: facts.businessName,
    leadName: facts.leadName,
    unsubscribeUrl: facts.unsubscribeUrl ?? '',
    publicUrl: facts.publicUrl,
  });
  return words ?? { refused: 'the alert has no listings left' };
}

export const alertDigest: Purpose = {
  name: 'alert-digest',
  author: ALERT_AUTHOR,
  unsubscribe: true,
  async stillWanted(db, message) {
    return (await leadTakesAlerts(db, message.lead_id)) ? null : 'the lead no longer takes alerts';
  },
  template: (db, message) => alertTemplate(db, message, emailOutSettings().publicUrl),
  email: digestEmail,
};
