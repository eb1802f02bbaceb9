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

/** Tags that start a new paragraph where they open and where they close. */
const BLOCKS = new Set([
  'p',
  'div',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'ul',
  'ol',
  'table',
  'tr',
  'section',
  'article',
  'header',
  'footer',
  'pre',
  'hr',
  'dl',
  'dt',
  'dd',
]);
/** Tags whose content is no text to read (sanitised descriptions hold none, older ones might). */
const SKIPPED = new Set(['script', 'style', 'template', 'noscript']);
/** A tag's name after its `<` (`/` for an end tag). */
const TAG_NAME = /(\/?)([A-Za-z][A-Za-z0-9]*)/y;
/** HTML's white space, collapsed to one space in running text. */
const HTML_SPACE = /[ \t\n\r\f]+/g;

/**
 * A description (HTML) as plain text, as a printed sheet shows it: paragraphs, headings and
 * lists on lines of their own (a blank line between paragraphs, `• ` before each list item),
 * `<br>` a line break, every other tag dropped with its attributes, comments and the content of
 * `script` and `style` left out, entities decoded, white space collapsed.
 *
 * One pass over the text, without recursion and without a parse tree: time and memory are
 * linear in its length whatever it holds, 14,000 nested `<b>` or a `<` that no `>` follows
 * (html-to-text walks a tree recursively: a description nested 14,000 deep overflowed the stack).
 */
export function descriptionText(html: string): string {
  const out: string[] = [];
  const text = (from: number, to: number) => {
    if (to > from) out.push(decodeHTML(html.slice(from, to)).replace(HTML_SPACE, ' '));
  };
  // The next `>` at or after a position, found once and kept: each character is searched once.
  let gt = -1;
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) break;
    if (html.startsWith('<!--', lt)) {
      text(i, lt);
      const close = html.indexOf('-->', lt + 4);
      i = close === -1 ? html.length : close + 3;
      continue;
    }
    TAG_NAME.lastIndex = lt + 1;
    const name = TAG_NAME.exec(html);
    if (gt !== -2 && gt <= lt) gt = html.indexOf('>', lt + 1);
    if (gt === -1) gt = -2;
    if (name === null || gt === -2) {
      // A `<` that starts no tag is text: kept with what follows.
      text(i, lt + 1);
      i = lt + 1;
      continue;
    }
    text(i, lt);
    i = gt + 1;
    const tag = name[2].toLowerCase();
    const closing = name[1] === '/';
    if (tag === 'br') out.push('\n');
    else if (tag === 'li' && !closing) out.push('\n• ');
    else if (BLOCKS.has(tag)) out.push('\n\n');
    else if (SKIPPED.has(tag) && !closing) {
      const end = new RegExp(`</${tag}\\b`, 'gi');
      end.lastIndex = i;
      const found = end.exec(html);
      i = found === null ? html.length : found.index;
    }
  }
  text(i, html.length);
  // Lines without the spaces around them; at most one blank line in a row; none at either end.
  const lines = out.join('').split('\n');
  const kept: string[] = [];
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed !== '' || (kept.length > 0 && kept[kept.length - 1] !== '')) kept.push(trimmed);
  }
  while (kept.length > 0 && kept[kept.length - 1] === '') kept.pop();
  return kept.join('\n');
}
