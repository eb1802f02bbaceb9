/**
 * An alert digest (CONTRACT §21, issue 45): the listings newly matching a lead's searches, once a
 * day at `INMO_ALERT_HOUR`, composed by services/leads/alerts.ts (which also decides its channel:
 * e-mail when the business sends e-mail and the lead has an address, else the `property_alert`
 * template). Sent only while the lead still takes alerts. Its words, written at the claim: the
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
