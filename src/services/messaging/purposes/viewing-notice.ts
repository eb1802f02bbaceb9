/**
 * A viewing's notice (CONTRACT §20, issue 44): what the lead is told when the agency schedules a
 * viewing (or accepts a requested one), moves it or cancels it. Queued with the change, by the
 * rules of services/viewings/notices.ts `queueViewingNotice` (the channel's template for the
 * purpose, else an e-mail). Its words are written when its send is claimed, from the viewing as it
 * is then (services/viewings/notices.ts `viewingTemplate`, `writeViewingEmail`; the wording in
 * domain/messaging/viewing-notice.ts): a notice that no longer holds (the viewing moved, was
 * cancelled, or began) fails visibly instead of misleading. A template that fails for good is
 * replaced by an e-mail when the lead has an address, once per notice (`fallback_message_id`).
 */
import { findNoticeOfMessage } from '../../../db/repositories/viewing-notices.ts';
import { queueNoticeFallback, viewingTemplate, VIEWING_AUTHOR, writeViewingEmail } from '../../viewings/notices.ts';
import type { Purpose } from './purpose.ts';

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
