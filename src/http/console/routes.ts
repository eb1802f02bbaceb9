/**
 * The console's pages (issue 15, CONTRACT §12), registered under `/console` by plugin.ts: one
 * plugin per section, each in sections/ with the routes, forms and refusals it explains.
 *
 * - sections/auth.ts: login, one-time password links, logout;
 * - sections/overview.ts: the overview;
 * - sections/viewings.ts: the agenda, a viewing's page and what is done to a viewing;
 * - sections/keys.ts (owners): API keys, secret and publishable;
 * - sections/channel.ts (owners): the WhatsApp channel and its test message;
 * - sections/assistant.ts (owners): the assistant, on or off, and which one words its answers;
 * - sections/users.ts (owners): users and their one-time links;
 * - sections/jobs.ts (owners): follow-up rules and failed jobs;
 * - sections/audit.ts (owners): the audit trail (CONTRACT §18);
 * - sections/catalogue.ts: the catalogue and its uploads;
 * - sections/leads.ts: leads, a lead's page and its conversation;
 * - sections/owners.ts: the owner board, owners moved between the stages of winning them (CONTRACT §24);
 * - sections/listings.ts: the listings, created, edited, moved between statuses (CONTRACT §14);
 * - sections/mandates.ts: a listing's mandate drafted, signed on the screen, ended, printed (CONTRACT §24);
 * - sections/calendar.ts: the user's own calendar URL for their phone (CONTRACT §20);
 * - sections/settings.ts (owners): the business's settings (the visit sheet's clause, CONTRACT §20).
 *
 * Every POST passes `csrfProtection` before its handler (forms.ts). A form with bad input is
 * shown again with the reason, status 422, and changes nothing. Every page reads the business
 * of the session (`request.consoleSession`), and another business's id is a 404.
 */
import type { FastifyInstance } from 'fastify';
import type { ConsoleDeps } from './forms.ts';
import { assistantPages } from './sections/assistant.ts';
import { auditPages } from './sections/audit.ts';
import { authPages } from './sections/auth.ts';
import { calendarPages } from './sections/calendar.ts';
import { cataloguePages } from './sections/catalogue.ts';
import { channelPages } from './sections/channel.ts';
import { emailPages } from './sections/email.ts';
import { jobPages } from './sections/jobs.ts';
import { keyPages } from './sections/keys.ts';
import { leadPages } from './sections/leads.ts';
import { listingPages } from './sections/listings.ts';
import { mandatePages } from './sections/mandates.ts';
import { overviewPage } from './sections/overview.ts';
import { ownerPages } from './sections/owners.ts';
import { settingsPages } from './sections/settings.ts';
import { userPages } from './sections/users.ts';
import { viewingPages } from './sections/viewings.ts';

/** Registers every section of the console on the console's instance (plugin.ts). */
export async function consoleRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  for (const section of [
    authPages,
    overviewPage,
    viewingPages,
    keyPages,
    channelPages,
    emailPages,
    assistantPages,
    userPages,
    jobPages,
    auditPages,
    cataloguePages,
    leadPages,
    ownerPages,
    listingPages,
    mandatePages,
    calendarPages,
    settingsPages,
  ]) {
    await app.register(section, deps);
  }
}
