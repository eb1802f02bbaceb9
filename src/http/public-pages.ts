/**
 * The `pages` surface of the app (app.ts `Surface`): everything served outside /v1/ext whose
 * URL's token is the credential. Published portal feeds (CONTRACT §15), agents' calendars
 * (§20), the website kit's script (§17), one-click unsubscribe links (§19, RFC 8058), alerts'
 * "no me interesa" links and pages (§21), viewing notices' links (§20), mandates' links to sign (§24), and listings' public
 * pages and sheets with their inquiry form (§21).
 *
 * app.ts imports this module only when the surface is mounted, so that an app of the API
 * alone loads none of it (PDF, QR and calendar libraries included).
 */
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance } from 'fastify';
import type { ChangeWatch } from '../db/change-watch.ts';
import type { Db } from '../db/database.ts';
import { GroupCommit } from '../db/group-commit.ts';
import { inPackage } from '../package-root.ts';
import { calendarRoutes } from './calendar.ts';
import { embedDemoRoute, embedRoutes } from './embed.ts';
import { feedRoutes } from './feeds.ts';
import type { MediaOptions } from './media.ts';
import { alertDismissRoutes } from './routes/alert-dismiss.ts';
import { alertPageRoutes } from './routes/alert-page.ts';
import { listingPageRoutes } from './routes/listing-page.ts';
import { ownerReportRoutes } from './routes/owner-report.ts';
import type { ListingViews } from '../services/catalogue/listing-views.ts';
import { unsubscribeRoutes } from './routes/unsubscribe.ts';
import { viewingLinkRoutes } from './routes/viewing-link.ts';
import { mandateLinkRoutes } from './routes/mandate-link.ts';

/** What the public pages need from the app. */
export interface PublicPagesOptions {
  db: Db;
  /** The app's change watch: feeds are cached while the catalogue's version holds. */
  changes: ChangeWatch;
  media: MediaOptions;
  /** Where the listing pages' views are counted (services/catalogue/listing-views.ts). */
  listingViews: ListingViews;
  /** `INMO_PUBLIC_URL`, or null: links are then written from the configured origin rules (http/origin.ts). */
  publicUrl: string | null;
  /** Called after a listing page's inquiry has committed new jobs. */
  onJobsQueued: () => void;
  /** Inquiries a listing page accepts per client IP per minute (CONTRACT §8). */
  postsPerIpPerMinute: number;
  /** Whether templates are read again on every page (`NODE_ENV=development`), as the console's. */
  development?: boolean;
}

/**
 * The options of @fastify/view for the public pages: the Eta templates of `src/http/views/` with
 * their layout, escaped by default, as the console's (http/console/plugin.ts).
 * @param development whether templates are read again on every page.
 */
export function pageViewOptions(development: boolean) {
  return { engine: { eta: new Eta() }, root: inPackage('src', 'http', 'views'), layout: 'layout.eta', production: !development };
}

/** Registers the token-credential pages on `app`; closing the app waits for the page's writes. */
export async function publicPages(app: FastifyInstance, options: PublicPagesOptions): Promise<void> {
  const { db } = options;
  // Published portal feeds (CONTRACT §15): their URL's token is the credential.
  feedRoutes(app, db, options.changes);
  // Agents' calendars (CONTRACT §20): their URL's token is the credential.
  calendarRoutes(app, db, options.publicUrl);
  // The website kit's script (CONTRACT §17).
  embedRoutes(app);
  // The pages below are Eta templates of views/, rendered as the console renders its own
  // (http/console/plugin.ts: @fastify/view, a layout, every value escaped unless written `<%~`),
  // with a layout of their own: no script, no navigation.
  const pageWrites = new GroupCommit(db);
  app.addHook('onClose', () => pageWrites.settled());
  await app.register(async (pages) => {
    await pages.register(view, pageViewOptions(options.development ?? false));
    // The website kit's demo page over a publishable key (CONTRACT §17).
    embedDemoRoute(pages);
    // One-click unsubscribe links of e-mails (RFC 8058): the token is the credential (CONTRACT §19).
    await pages.register(unsubscribeRoutes, { db });
    // "No me interesa" links of alerts: the token is the credential (CONTRACT §21).
    await pages.register(alertDismissRoutes, { db });
    // The pages of alert digests sent by WhatsApp: the token is the credential (CONTRACT §21).
    await pages.register(alertPageRoutes, { db, mediaPublicUrl: options.media.publicUrl });
    // Viewing notices' confirm and cancel links (CONTRACT §20): the token is the credential.
    await pages.register(viewingLinkRoutes, { db });
    // Mandates' links to sign remotely (CONTRACT §24): the token is the credential.
    await pages.register(mandateLinkRoutes, { db });
    // Owners' reports (CONTRACT §24): the token is the credential.
    await pages.register(ownerReportRoutes, { db });
    // Listings' public pages and sheets, with their inquiry form: the token names the listing (CONTRACT §21).
    await pages.register(listingPageRoutes, {
      db,
      writes: pageWrites,
      media: options.media,
      listingViews: options.listingViews,
      publicUrl: options.publicUrl,
      onJobsQueued: options.onJobsQueued,
      postsPerIpPerMinute: options.postsPerIpPerMinute,
    });
  });
}
