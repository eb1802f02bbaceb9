/**
 * "No me interesa" on a listing of an alert (CONTRACT §21), outside `/v1/ext`, without a key, a
 * cookie or a CSRF token (the token in the path is the credential, single-purpose: one listing
 * for one lead, and says nothing about the lead):
 *
 * - `GET /a/<token>` answers a small page in the lead's language naming the listing, with one
 *   button that posts it (a GET changes nothing: mail scanners follow links);
 * - `POST /a/<token>` (any body up to 4 KiB, ignored) excludes the listing from that lead's alerts
 *   for good and records it as an interaction of the lead (services/leads/alerts.ts); again, it
 *   changes nothing and answers the same.
 *
 * An unknown token is 404 `Not Found`, as any unknown path, and writes nothing. The token is never
 * logged: the request's log line names the route's pattern.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Db } from '../../db/database.ts';
import { dismissListing, dismissPage } from '../../services/leads/alerts.ts';
import { oneButtonPage, oneButtonRoutes, type OneButtonPage } from './unsubscribe.ts';

/** The route's path. */
export const DISMISS_ROUTE = '/a/:token';

/** What the page says, per e-mail language. `{title}` is the listing's title. */
const WORDS: Readonly<Record<string, { title: string; ask: string; button: string; done: string; untitled: string }>> = {
  es: {
    title: 'No me interesa',
    ask: '¿No te interesa «{title}»? No volveremos a enviártelo.',
    button: 'No me interesa',
    done: 'Hecho: no volveremos a enviarte «{title}».',
    untitled: 'este inmueble',
  },
  en: {
    title: 'Not interested',
    ask: 'Not interested in “{title}”? We will not send it to you again.',
    button: 'Not interested',
    done: 'Done: we will not send you “{title}” again.',
    untitled: 'this property',
  },
  fr: {
    title: 'Ça ne m’intéresse pas',
    ask: '« {title} » ne vous intéresse pas ? Nous ne vous l’enverrons plus.',
    button: 'Ça ne m’intéresse pas',
    done: 'C’est fait : nous ne vous enverrons plus « {title} ».',
    untitled: 'ce bien',
  },
  de: {
    title: 'Kein Interesse',
    ask: 'Kein Interesse an „{title}“? Wir senden es Ihnen nicht mehr.',
    button: 'Kein Interesse',
    done: 'Erledigt: Wir senden Ihnen „{title}“ nicht mehr.',
    untitled: 'diese Immobilie',
  },
  it: {
    title: 'Non mi interessa',
    ask: '«{title}» non ti interessa? Non te lo invieremo più.',
    button: 'Non mi interessa',
    done: 'Fatto: non ti invieremo più «{title}».',
    untitled: 'questo immobile',
  },
};

function page(token: string, view: { title: string | null; language: string; done: boolean }): OneButtonPage {
  const words = WORDS[view.language] ?? WORDS.es;
  const fill = (text: string) => text.replaceAll('{title}', view.title?.trim() || words.untitled);
  return oneButtonPage(`/a/${token}`, view, { title: words.title, ask: fill(words.ask), button: words.button, done: fill(words.done) });
}

export const alertDismissRoutes: FastifyPluginAsync<{ db: Db }> = async (app, { db }) => {
  oneButtonRoutes(app, DISMISS_ROUTE, { read: (token) => dismissPage(db, token), act: (token) => dismissListing(db, token), page });
};
