/**
 * The page of an alert digest sent by WhatsApp (CONTRACT §21), outside `/v1/ext`, without a key
 * or a cookie: `GET /d/<token>` (the token in the path is the credential, single-purpose: it shows
 * one digest, and says nothing about the lead; services/leads/alert-pages.ts).
 *
 * The page, in the lead's language, names the agency and shows the digest's listings (at most
 * 5), each with its photo, title, price, size, rooms and city, a link to its page and a
 * "No me interesa" button that posts to the listing's one-click link (`POST /a/<token>`,
 * http/routes/alert-dismiss.ts; a GET of this page changes nothing, since link previews fetch
 * it). A listing that left the public catalogue since says it is no longer available. Written by
 * the Eta template `views/digest.eta` (http/public-pages.ts), served with the console's
 * stylesheet, no script, a strict Content-Security-Policy (photos from this server or over
 * https), not cached, not indexed, no referrer (the URL holds the token). An unknown token is 404
 * `Not Found`, as any unknown path. The token is never logged: the request's log line names the
 * route's pattern.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Db } from '../../db/database.ts';
import { digestPageWords } from '../../domain/messaging/alert-page.ts';
import { InmoError } from '../../errors.ts';
import { readDigestPage, type DigestPage } from '../../services/leads/alert-pages.ts';
import { headers, pagePolicy } from './listing-page.ts';

/** The route's path. */
export const DIGEST_PAGE_ROUTE = '/d/:token';

/** One listing of the page as `views/digest.eta` shows it: its words beside what it links to. */
interface DigestCard {
  title: string;
  facts: string;
  photoUrl: string | null;
  url: string | null;
  dismissAction: string | null;
  gone: boolean;
  dismissed: boolean;
  priceDropped: boolean;
}

/** What `views/digest.eta` and the layout are given: the page's words and its listings, plain text (the templates escape). */
export function digestPageView(page: DigestPage) {
  const words = digestPageWords(page.language, { businessName: page.businessName, listings: page.listings });
  const cards = page.listings.map((listing, i): DigestCard => ({
    title: words.listings[i].title,
    facts: words.listings[i].facts,
    photoUrl: listing.photoUrl,
    url: listing.url,
    dismissAction: listing.dismissAction,
    gone: listing.gone,
    dismissed: listing.dismissed,
    priceDropped: listing.priceDropped,
  }));
  return {
    lang: words.lang,
    title: `${words.title} · ${page.businessName}`,
    icon: true,
    bodyClass: 'digest-page',
    businessName: page.businessName,
    words,
    cards,
  };
}

/** Registers `GET /d/:token` (see the module's comment). @param mediaPublicUrl the media's public base (`INMO_MEDIA_PUBLIC_URL`), or null. */
export const alertPageRoutes: FastifyPluginAsync<{ db: Db; mediaPublicUrl: string | null }> = async (app, { db, mediaPublicUrl }) => {
  const policy = pagePolicy(mediaPublicUrl);
  app.get<{ Params: { token: string } }>(DIGEST_PAGE_ROUTE, { schema: { hide: true } }, async (request, reply) => {
    const page = await readDigestPage(db, request.params.token);
    if (page === null) throw new InmoError('NOT_FOUND');
    return reply
      .code(200)
      .headers({ 'content-type': 'text/html; charset=utf-8', ...headers(policy) })
      .view('digest.eta', digestPageView(page));
  });
};
