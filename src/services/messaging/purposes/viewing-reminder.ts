/**
 * A viewing's reminder (CONTRACT §20): `INMO_VIEWING_REMINDER_HOURS` before a `scheduled` or
 * `confirmed` viewing, found by the worker (services/viewings/notices.ts `composeDueReminders`):
 * one per viewing and start time (a partial unique index), none when the lead was told its time
 * within those hours. It is a notice of purpose `reminder` (`viewing_notices.purpose`), written,
 * sent and replaced as every notice is ({@link viewingNotice}); its wording is the reminder's of
 * domain/messaging/viewing-notice.ts.
 */
import type { Purpose } from './purpose.ts';
import { viewingNotice } from './viewing-notice.ts';

export const viewingReminder: Purpose = { ...viewingNotice, name: 'viewing-reminder' };
