/**
 * An owner's report as the owner gets it (CONTRACT §24): the words of its message when its send is
 * claimed (services/messaging/purposes/owner-report.ts), with the link to its page `/o/<token>`,
 * and what that page shows. The token is minted at the claim (256 random bits, base64url), only
 * its SHA-256 kept on the report (`owner_reports.page_token_hash`), so the database alone cannot
 * make a link; a claim again mints a new one and the earlier link, never delivered, stops working.
 * The page shows the figures as composed (services/owners/owner-reports.ts), never read again.
 */
import type { Db, Executor } from '../../db/database.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import { findLead } from '../../db/repositories/leads.ts';
import type { MessageRow } from '../../db/repositories/messaging.ts';
import * as repo from '../../db/repositories/owner-reports.ts';
import { hashToken, mintToken, TOKEN_FORM } from '../../domain/capability-token.ts';
import { ownerReportEmail, ownerReportTemplateParameters } from '../../domain/messaging/owner-report.ts';
import type { OwnerReportFigures } from '../../domain/owners/owner-report.ts';
import { DEFAULT_TIME_ZONE } from '../../domain/viewings/hours.ts';

/** The `author` of a report's message. */
export const OWNER_REPORT_AUTHOR = 'owner_report';

/** Path of a report's page on the server: `/o/<token>`. */
export const REPORT_PAGE_PATH = '/o/';

const DAY_MS = 86_400_000;

/** Days a report's period covers, whole (at least 1), for its words. */
const periodDays = (report: { period_from: string; period_to: string }) =>
  Math.max(1, Math.round((Date.parse(report.period_to) - Date.parse(report.period_from)) / DAY_MS));

/** Mints the page token of a message's report (its hash kept): the absolute link, or null with no report. */
async function mintReportLink(db: Executor, message: MessageRow, publicUrl: string) {
  const report = await repo.findReportOfMessage(db, message.id);
  if (!report) return null;
  const { token, hash } = mintToken();
  await repo.setReportToken(db, report.id, hash);
  const origin = publicUrl.replace(/\/+$/, '');
  return { report, url: `${origin}${REPORT_PAGE_PATH}${token}`, stored: `${origin}${REPORT_PAGE_PATH}…` };
}

/**
 * The e-mail of a report's message when its send is claimed, in the claim's transaction: a new page token.
 * @returns the words (the stored body without the token), or `{refused}` when the report is gone.
 */
export async function writeOwnerReportEmail(
  db: Executor,
  message: MessageRow,
  facts: { businessName: string; leadName: string | null; publicUrl: string },
) {
  const link = await mintReportLink(db, message, facts.publicUrl);
  if (!link) return { refused: 'not sent: the report is gone' };
  const words = { businessName: facts.businessName, ownerName: facts.leadName, days: periodDays(link.report) };
  const email = ownerReportEmail(message.language ?? 'es', { ...words, url: link.url });
  return { ...email, storedBody: ownerReportEmail(message.language ?? 'es', { ...words, url: link.stored }).text };
}

/** The `owner_report` template's content when its send is claimed: the owner's first name, the agency, the page's new link. */
export async function ownerReportTemplate(db: Executor, message: MessageRow, publicUrl: string) {
  const link = await mintReportLink(db, message, publicUrl);
  const [lead, business] = await Promise.all([findLead(db, message.lead_id), findBusiness(db, message.business_id)]);
  if (!link || !lead || !business) return { refused: 'not sent: the report is gone' };
  const parameters = ownerReportTemplateParameters({ ownerName: lead.name, businessName: business.name, url: link.url });
  const summary = `${message.template}: ${ownerReportTemplateParameters({ ownerName: lead.name, businessName: business.name, url: link.stored }).join(' · ')}`;
  return { parameters, summary };
}

/** A report as its page shows it: the agency's name, the owner's language, the business's time zone and the figures as composed. */
export interface ReportPage {
  businessName: string;
  language: string;
  timeZone: string;
  figures: OwnerReportFigures;
}

/** What `GET /o/<token>` shows, or null: no report of that token (404). */
export async function readReportPage(db: Db, token: string): Promise<ReportPage | null> {
  if (!TOKEN_FORM.test(token)) return null;
  const report = await repo.findReportByToken(db, hashToken(token));
  if (!report) return null;
  return {
    businessName: report.business_name,
    language: report.language,
    timeZone: report.timezone || DEFAULT_TIME_ZONE,
    figures: JSON.parse(report.figures) as OwnerReportFigures,
  };
}

/** A business's report as the console shows it (the same page), or null. */
export async function readReportOfOwner(db: Db, businessId: number, leadId: number, reportId: number): Promise<ReportPage | null> {
  const report = await repo.findOwnerReport(db, businessId, reportId);
  if (!report || report.lead_id !== leadId) return null;
  return {
    businessName: report.business_name,
    language: report.language,
    timeZone: report.timezone || DEFAULT_TIME_ZONE,
    figures: JSON.parse(report.figures) as OwnerReportFigures,
  };
}
