/**
 * The purposes of a message (purpose.ts), and which one a stored message is for: by its `author`,
 * and for an agent's message whether it carries a digest (listings sent by hand) or not (a reply),
 * for a viewing's whether its notice is a reminder. A new purpose is a module of this folder, a
 * line in {@link PURPOSES}, and its words in domain/messaging/ (docs/architecture.md).
 */
import type { Executor } from '../../../db/database.ts';
import { findDigestOrigin, HAND_ORIGIN } from '../../../db/repositories/alerts.ts';
import type { MessageRow } from '../../../db/repositories/messaging.ts';
import { findNoticeOfMessage } from '../../../db/repositories/viewing-notices.ts';
import { alertDigest } from './alert-digest.ts';
import { handSend } from './hand-send.ts';
import { mandateLink } from './mandate-link.ts';
import { ownerReport } from './owner-report.ts';
import type { Purpose, PurposeName } from './purpose.ts';
import { reply } from './reply.ts';
import { viewingNotice } from './viewing-notice.ts';
import { viewingReminder } from './viewing-reminder.ts';
import { welcome } from './welcome.ts';

export type { EmailFacts, EmailWords, Purpose, PurposeName } from './purpose.ts';

/** Every purpose, by name. */
export const PURPOSES: { readonly [N in PurposeName]: Purpose } = {
  welcome,
  reply,
  'viewing-notice': viewingNotice,
  'viewing-reminder': viewingReminder,
  'alert-digest': alertDigest,
  'hand-send': handSend,
  'mandate-link': mandateLink,
  'owner-report': ownerReport,
};

/** The purpose a stored outbound message is for. */
export async function purposeOf(db: Executor, message: MessageRow): Promise<Purpose> {
  switch (message.author) {
    case 'welcome':
    case 'welcome_fallback':
      return welcome;
    case alertDigest.author:
      return alertDigest;
    case viewingNotice.author:
      // An answer to a notice's button is a text of the notice's author with no notice of its own: a reply.
      if (message.kind === 'text') return reply;
      return (await findNoticeOfMessage(db, message.id))?.purpose === 'reminder' ? viewingReminder : viewingNotice;
    case mandateLink.author:
      return mandateLink;
    case ownerReport.author:
      return ownerReport;
    case handSend.author:
      return (await findDigestOrigin(db, message.id)) === HAND_ORIGIN ? handSend : reply;
    default:
      // The assistant's answers.
      return reply;
  }
}
