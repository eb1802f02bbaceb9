/**
 * An owner's report (CONTRACT §24): composed and queued by services/owners/owner-reports.ts, its
 * words and the page's token written when its send is claimed: the e-mail linking `/o/<token>`,
 * or the `owner_report` template with the link. Sent while the report exists; nothing replaces one
 * that fails. With the unsubscribe link: it is a regular message the owner may stop.
 */
import { emailOutSettings } from '../../../config.ts';
import { OWNER_REPORT_AUTHOR, ownerReportTemplate, writeOwnerReportEmail } from '../../owners/owner-report-pages.ts';
import type { Purpose } from './purpose.ts';

export const ownerReport: Purpose = {
  name: 'owner-report',
  author: OWNER_REPORT_AUTHOR,
  unsubscribe: true,
  template: (db, message) => ownerReportTemplate(db, message, emailOutSettings().publicUrl),
  email: (db, message, facts) => writeOwnerReportEmail(db, message, facts),
};
