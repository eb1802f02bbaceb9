/**
 * The one-click links of a viewing notice's e-mail (CONTRACT §20), outside `/v1/ext`, without a
 * key, a cookie or a CSRF token (the token in the path is the credential, single-purpose: it
 * confirms or cancels one viewing, and says nothing about the lead):
 *
 * - `GET /v/<token>` answers a small page in the lead's language naming the viewing (listing,
 *   date and time in the business's time zone) with one button that posts it (a GET changes
 *   nothing: mail scanners follow links), or what became of it (confirmed, cancelled, moved, over);
 * - `POST /v/<token>` (any body up to 4 KiB, ignored) confirms or cancels the viewing as the
 *   lead's answer (services/viewings/answers.ts, `viewing.updated`) and says what happened; again,
 *   it changes nothing and answers the same.
 *
 * An unknown token is 404 `Not Found`, as any unknown path, and writes nothing. The token is never
 * logged: the request's log line names the route's pattern.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Db } from '../../db/database.ts';
import { useViewingLink, viewingLinkPage, type ViewingLinkView } from '../../services/viewings/answers.ts';
import { oneButtonPage, oneButtonRoutes, type OneButtonPage } from './unsubscribe.ts';

/** The route's path. */
export const VIEWING_LINK_ROUTE = '/v/:token';

function page(token: string, view: ViewingLinkView): OneButtonPage {
  return oneButtonPage(`/v/${token}`, view, view.words);
}

export const viewingLinkRoutes: FastifyPluginAsync<{ db: Db }> = async (app, { db }) => {
  oneButtonRoutes(app, VIEWING_LINK_ROUTE, {
    read: (token) => viewingLinkPage(db, token),
    act: (token) => useViewingLink(db, token),
    page,
  });
};
