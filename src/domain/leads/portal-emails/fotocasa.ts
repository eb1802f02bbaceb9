/**
 * fotocasa's contact notification (CONTRACT §19), as reconstructed from public descriptions
 * (test/fixtures/email/README.md): sent from `…@messaging.fotocasa.es`, an HTML part only,
 * ISO-8859-1. The person is named in a sentence (`A <strong>Jordi Puig</strong> le interesa tu
 * anuncio`), the message is a quoted paragraph, and the contact is labelled `E-mail:` and
 * `Mi teléfono:` below it; the ad's block carries `Referencia: …`.
 */
import { NO_FIELDS, type Fields } from './labels.ts';
import { isDomainOf, type PortalParser } from './portal.ts';

/** What follows the person's name on its line. */
const INTERESTED = /\sle interesa (?:tu|su) anuncio/i;
const OPENING = new Set(['“', '"', '«']);
const CLOSING = /[”"»]/g;

/**
 * The name in the first line reading `A <name> le interesa tu anuncio` (or `su anuncio`): 1 to
 * 120 characters. Line by line, each line read once (linear in the body's length).
 */
function nameIn(body: string): string | null {
  for (const line of body.split('\n')) {
    const text = line.trimStart();
    if (!/^A\s/i.test(text)) continue;
    const at = text.search(INTERESTED);
    const name = at < 0 ? '' : text.slice(2, at).trim();
    if (name.length >= 1 && name.length <= 120) return name;
  }
  return null;
}

/**
 * The person's message: the first paragraph opening a line with a quotation mark (`“`, `"`,
 * `«`) whose closing mark (`”`, `"`, `»`, the first one after it) ends a line, 2 to 5,000
 * characters between them, over lines if need be. Each stretch of the body is scanned once for
 * a closing mark: linear in its length.
 */
function quotedParagraph(body: string): string | null {
  let close = -1;
  let closeEndsLine = false;
  for (let start = 0; start < body.length;) {
    const end = body.indexOf('\n', start);
    const lineEnd = end < 0 ? body.length : end;
    let at = start;
    while (at < lineEnd && body[at].trim() === '') at++;
    if (at < lineEnd && OPENING.has(body[at])) {
      // The first closing mark after the opening one (found once for every opening before it).
      if (close <= at) {
        CLOSING.lastIndex = at + 1;
        close = CLOSING.exec(body)?.index ?? body.length;
        const after = body.indexOf('\n', close);
        closeEndsLine = close < body.length && body.slice(close + 1, after < 0 ? body.length : after).trim() === '';
      }
      const length = close - at - 1;
      if (length >= 2 && length <= 5000 && closeEndsLine) return body.slice(at + 1, close).trim() || null;
    }
    start = lineEnd + 1;
  }
  return null;
}

export const fotocasa: PortalParser = {
  name: 'fotocasa',
  sends: (domain) => isDomainOf(domain, 'fotocasa.es'),
  read(body: string): Fields {
    return {
      ...NO_FIELDS,
      name: nameIn(body),
      message: quotedParagraph(body),
    };
  },
  footer: /^[ \t]*(?:Este mensaje se ha enviado desde|fotocasa\.es[ \t]*[-–]|Si no quieres recibir)/im,
};
