/**
 * One-click unsubscribe (CONTRACT §19, RFC 8058), outside `/v1/ext`, without a key, a cookie or
 * a CSRF token (the token in the path is the credential, and RFC 8058's POST comes from a mail
 * client with none of them):
 *
 * - `POST /u/<token>` (a mail client sends `List-Unsubscribe=One-Click` as a form body; any body
 *   is read up to 4 KiB and ignored) records the opt-out (services/messaging/unsubscribe.ts) and
 *   answers 200 with a short page; again, it changes nothing and answers the same.
 * - `GET /u/<token>` answers a small page in the lead's language with one button that posts it
 *   (`views/one-button.eta`, an Eta template as the console's pages are; no script; the
 *   console's stylesheet, served by inmo; a CSP like the console's). A GET never
 *   unsubscribes: mail scanners follow links.
 *
 * An unknown token is 404 `Not Found`, as any unknown path, and writes nothing. The token is
 * never logged: the request's log line names the route's pattern.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Db } from '../../db/database.ts';
import { InmoError } from '../../errors.ts';
import { unsubscribe, unsubscribePage } from '../../services/messaging/unsubscribe.ts';

/** The route's path. */
export const UNSUBSCRIBE_ROUTE = '/u/:token';

/** Headers of the page: no framing, no foreign content, no referrer (the URL holds the token), no caching or indexing. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'none'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
};

/** What the page says, per e-mail language. `{business}` is filled in. */
const WORDS: Readonly<Record<string, { title: string; ask: string; button: string; done: string }>> = {
  es: {
    title: 'Darse de baja',
    ask: '¿Quieres dejar de recibir mensajes de {business}?',
    button: 'Darme de baja',
    done: 'Listo: no recibirás más mensajes de {business}.',
  },
  en: {
    title: 'Unsubscribe',
    ask: 'Do you want to stop receiving messages from {business}?',
    button: 'Unsubscribe',
    done: 'Done: you will not receive more messages from {business}.',
  },
  fr: {
    title: 'Se désabonner',
    ask: 'Voulez-vous ne plus recevoir de messages de {business} ?',
    button: 'Me désabonner',
    done: 'C’est fait : vous ne recevrez plus de messages de {business}.',
  },
  de: {
    title: 'Abmelden',
    ask: 'Möchten Sie keine Nachrichten mehr von {business} erhalten?',
    button: 'Abmelden',
    done: 'Erledigt: Sie erhalten keine Nachrichten mehr von {business}.',
  },
  it: {
    title: 'Annulla iscrizione',
    ask: 'Vuoi smettere di ricevere messaggi da {business}?',
    button: 'Annulla iscrizione',
    done: 'Fatto: non riceverai più messaggi da {business}.',
  },
};

/**
 * A one-button page of a link in an e-mail (this one, "No me interesa" of alerts, a viewing
 * notice's links): the question and its button posting to `action`, or what was done, rendered
 * by `views/one-button.eta`. `words` are plain text (the template escapes them).
 */
export interface OneButtonPage {
  action: string;
  language: string;
  done: boolean;
  words: { title: string; ask: string; button: string; done: string };
}

/** The one-button page of `view` posting to `action`, in `words` (see {@link OneButtonPage}). */
export function oneButtonPage(
  action: string,
  view: { language: string; done: boolean },
  words: { title: string; ask: string; button: string; done: string },
): OneButtonPage {
  return { action, language: view.language, done: view.done, words };
}

/** The page: the question and its button, or what was done. */
function page(token: string, view: { businessName: string; language: string; done: boolean }): OneButtonPage {
  const words = WORDS[view.language] ?? WORDS.es;
  const fill = (text: string) => text.replaceAll('{business}', view.businessName);
  return oneButtonPage(`/u/${token}`, view, {
    title: fill(words.title),
    ask: fill(words.ask),
    button: fill(words.button),
    done: fill(words.done),
  });
}

/** Answers 200 with a one-button page of a link in an e-mail (`views/one-button.eta`), with its headers. */
export function sendPage(reply: FastifyReply, page: OneButtonPage) {
  return reply
    .code(200)
    .headers(PAGE_HEADERS)
    .view('one-button.eta', { lang: page.language, title: page.words.title, icon: false, ...page });
}

/**
 * Registers the GET (shows the page) and POST (acts) of a one-button link of an e-mail on `route`
 * (`/x/:token`): whatever is posted is read up to 4 KiB and ignored; an unknown token (`read` or
 * `act` gives null) is 404 `Not Found`, as any unknown path. `app` renders the public pages'
 * templates (http/public-pages.ts).
 */
export function oneButtonRoutes<View>(
  app: FastifyInstance,
  route: string,
  handlers: {
    read(token: string): Promise<View | null>;
    act(token: string): Promise<View | null>;
    page(token: string, view: View): OneButtonPage;
  },
): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 4096 }, (_request, _body, done) => done(null, undefined));
  for (const [method, run] of [
    ['GET', handlers.read],
    ['POST', handlers.act],
  ] as const) {
    app.route<{ Params: { token: string } }>({
      method,
      url: route,
      schema: { hide: true },
      bodyLimit: 4096,
      handler: async (request, reply) => {
        const view = await run(request.params.token);
        if (!view) throw new InmoError('NOT_FOUND');
        return sendPage(reply, handlers.page(request.params.token, view));
      },
    });
  }
}

export const unsubscribeRoutes: FastifyPluginAsync<{ db: Db }> = async (app, { db }) => {
  // Whatever a mail client posts (RFC 8058: `List-Unsubscribe=One-Click`) is read and ignored.
  oneButtonRoutes(app, UNSUBSCRIBE_ROUTE, { read: (token) => unsubscribePage(db, token), act: (token) => unsubscribe(db, token), page });
};
