/**
 * The page of an alert digest sent by WhatsApp (CONTRACT §21), outside `/v1/ext`, without a key
 * or a cookie: `GET /d/<token>` (the token in the path is the credential, single-purpose: it shows
 * one digest, and says nothing about the lead; services/leads/alert-pages.ts).
 *
 * The page, in the lead's language, names the agency and shows the digest's listings (at most
 * 5), each with its photo, title, price, size, rooms and city, a link to its page and a
 * "No me interesa" button that posts to the listing's one-click link (`POST /a/<token>`,
 * http/routes/alert-dismiss.ts; a GET of this page changes nothing, since link previews fetch
 * it). A listing that left the public catalogue since says it is no longer available. Served with
 * the console's stylesheet, no script, a strict Content-Security-Policy (photos from this server or
 * over https), not cached, not indexed, no referrer (the URL holds the token). An unknown token is
 * 404 `Not Found`, as any unknown path. The token is never logged: the request's log line names
 * the route's pattern.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Db } from '../../db/database.ts';
import { digestPageWords } from '../../domain/messaging/alert-page.ts';
import { InmoError } from '../../errors.ts';
import { readDigestPage, type DigestPage } from '../../services/leads/alert-pages.ts';
import { headers, pagePolicy } from './listing-page.ts';
import { escape } from './unsubscribe.ts';

/** The route's path. */
export const DIGEST_PAGE_ROUTE = '/d/:token';

/** The page's HTML, every value escaped. */
export function digestPageHtml(page: DigestPage): string {
  const words = digestPageWords(page.language, { businessName: page.businessName, listings: page.listings });
  const cards = page.listings.map((listing, i) => {
    const { title, facts } = words.listings[i];
    const heading = listing.url === null ? escape(title) : `<a href="${escape(listing.url)}">${escape(title)}</a>`;
    const photo = listing.photoUrl === null ? '' : `<img src="${escape(listing.photoUrl)}" alt="${escape(title)}" loading="lazy">`;
    const parts = [
      photo,
      listing.priceDropped ? `<p class="digest-drop">${escape(words.priceDrop)}</p>` : '',
      `<h2>${heading}</h2>`,
      listing.gone ? `<p class="hint">${escape(words.gone)}</p>` : facts ? `<p>${escape(facts)}</p>` : '',
      listing.dismissed ? `<p class="hint">${escape(words.dismissed)}</p>` : '',
      listing.url === null || listing.gone
        ? ''
        : `<p><a href="${escape(listing.url)}">${escape(words.view)}<span class="visually-hidden">: ${escape(title)}</span></a></p>`,
      listing.dismissAction === null
        ? ''
        : `<form method="post" action="${escape(listing.dismissAction)}"><button type="submit" class="secondary">${escape(words.notInterested)}<span class="visually-hidden">: ${escape(title)}</span></button></form>`,
    ];
    return `<li${listing.gone ? ' class="digest-gone"' : ''}><article>${parts.join('')}</article></li>`;
  });
  return (
    `<!doctype html><html lang="${words.lang}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(`${words.title} · ${page.businessName}`)}</title>` +
    `<link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml">` +
    `<link rel="stylesheet" href="/console/assets/console.css"></head>` +
    `<body class="digest-page"><header class="top"><span class="brand">${escape(page.businessName)}</span></header>` +
    `<main id="main"><h1>${escape(words.title)}</h1><p>${escape(words.intro)}</p>` +
    `<ul class="digest-listings">${cards.join('')}</ul></main>` +
    `<footer class="listing-foot"><p>${escape(words.offeredBy)}</p></footer></body></html>`
  );
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
      .send(digestPageHtml(page));
  });
};
