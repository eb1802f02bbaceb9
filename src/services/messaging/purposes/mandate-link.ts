/**
 * A mandate's link to sign remotely (CONTRACT §24), e-mailed to the owner: queued by
 * services/owners/mandate-links.ts `sendMandateLink`, its words and its one-use token written when
 * its send is claimed (`writeMandateLinkEmail`). By e-mail only; nothing replaces one that fails.
 * No unsubscribe link: the owner asked for it, and it is the agency's contract, not marketing.
 */
import { MANDATE_AUTHOR, writeMandateLinkEmail } from '../../owners/mandate-links.ts';
import type { Purpose } from './purpose.ts';

export const mandateLink: Purpose = {
  name: 'mandate-link',
  author: MANDATE_AUTHOR,
  unsubscribe: false,
  email: (db, message, facts) => writeMandateLinkEmail(db, message, facts),
};
