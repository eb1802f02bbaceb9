/**
 * Listing descriptions are HTML written by agencies and published to their websites, so
 * they pass an allowlist (CONTRACT §5): text formatting and links only; no scripts, event
 * handlers, `javascript:` URLs, iframes or inline styles. Titles (of listings, images and
 * videos) are plain text: they lose every tag.
 */
import { createRequire } from 'node:module';
import { decodeHTML } from 'entities';
import type SanitizeHtml from 'sanitize-html';

/**
 * sanitize-html (with postcss and htmlparser2, about a tenth of a second to load), required at
 * the first text cleaned: a process that cleans none (a worker sending messages) never loads it.
 */
let loaded: typeof SanitizeHtml | undefined;
const sanitizeHtml = (html: string, options: SanitizeHtml.IOptions) =>
  (loaded ??= createRequire(import.meta.url)('sanitize-html') as typeof SanitizeHtml)(html, options);

const OPTIONS: SanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'b', 'strong', 'i', 'em', 'u', 'ul', 'ol', 'li', 'h2', 'h3', 'h4', 'blockquote', 'a', 'span'],
  allowedAttributes: { a: ['href', 'title', 'rel', 'target'] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    // sanitize-html's simpleTransform('a', {rel: …}): the link's own attributes, this rel.
    a: (tagName: string, attribs: SanitizeHtml.Attributes) => ({ tagName, attribs: { ...attribs, rel: 'noopener noreferrer nofollow' } }),
  },
};

/** The published form of an imported description; null stays null. */
export function sanitizeDescription(html: string | null): string | null {
  return html === null ? null : sanitizeHtml(html, OPTIONS);
}

const NO_TAGS: SanitizeHtml.IOptions = { allowedTags: [], allowedAttributes: {}, disallowedTagsMode: 'discard' };

/**
 * The published form of a plain-text field (a title): tags removed, entities decoded, so
 * `Pisos &amp; Casas` reads `Pisos & Casas`. Decoding can reveal markup that was written as
 * entities (`&lt;img onerror=…&gt;`); that is removed in turn, until nothing changes, so the
 * result carries no tag and cleaning it again changes nothing. null stays null.
 */
export function plainText(text: string | null): string | null {
  if (text === null) return null;
  // Without `<` or `&` there is neither a tag nor an entity: most text of a catalogue.
  if (!MARKUP.test(text)) return text;
  let current = text;
  // Each round removes tags or one layer of entities; real titles settle in one or two.
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const next = decodeHTML(sanitizeHtml(current, NO_TAGS));
    if (next === current) return next;
    current = next;
  }
  // Entities nested deeper than any real title: without `<`, `>` and `&` nothing left can
  // become a tag, and cleaning again changes nothing.
  return current.replace(/[<>&]/g, '');
}

const MARKUP = /[<&]/;

/** Rounds of {@link plainText} before it gives up on decoding. */
const MAX_ROUNDS = 50;

/** The tags the website kit shows of a published description, without attributes (src/embed/catalogue.ts `ALLOWED`). */
const KIT: SanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'ul', 'ol', 'li', 'b', 'strong', 'i', 'em', 'h3', 'h4', 'h5', 'h6'],
  allowedAttributes: {},
  disallowedTagsMode: 'discard',
};

/**
 * A published description as the website kit shows it (CONTRACT §17): only the kit's tags, no
 * attribute; the text of any other tag is kept, scripts and styles dropped. null stays null.
 */
export function kitDescription(html: string | null): string | null {
  return html === null ? null : sanitizeHtml(html, KIT);
}
