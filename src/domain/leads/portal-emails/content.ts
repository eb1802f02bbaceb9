/**
 * An e-mail as the portal parsers read it (CONTRACT §19): its sender, subject and bodies, with
 * the HTML part turned to text, and the original message found inside a forwarded one.
 *
 * Agencies forward portal e-mails from their mailbox, and forwarding rewrites the sender
 * (the envelope `From` becomes the agency's address). Gmail and Outlook then quote the original
 * headers at the top of the body: Gmail as `---------- Forwarded message ---------` (Spanish:
 * `Mensaje reenviado`) followed by `From:`/`De:`, `Date:`, `Subject:`/`Asunto:`, `To:`/`Para:`;
 * Outlook as a rule of underscores (text) or a `<hr>` (HTML) followed by `From:`/`De:`,
 * `Sent:`/`Enviado:`, `To:`/`Para:`, `Subject:`/`Asunto:`. {@link originalOf} finds that block and
 * returns the sender it names and the text after it.
 */
import { createRequire } from 'node:module';
import type { convert as Convert } from 'html-to-text';
import type * as Htmlparser2 from 'htmlparser2';

/** html-to-text (about a tenth of a second to load), required at the first HTML e-mail read: most processes read none. */
let convert: typeof Convert | undefined;
const loadConvert = (): typeof Convert =>
  (convert ??= (createRequire(import.meta.url)('html-to-text') as { convert: typeof Convert }).convert);
/** htmlparser2 (html-to-text's own parser), required with it. */
let htmlparser2: typeof Htmlparser2 | undefined;
const loadHtmlparser2 = (): typeof Htmlparser2 => (htmlparser2 ??= createRequire(import.meta.url)('htmlparser2') as typeof Htmlparser2);

/** What the MIME reader (channels/email-message.ts) gives: decoded text, whatever the charset and transfer encoding. */
export interface EmailContent {
  /** The envelope sender's address (`From`), lower-cased; null when none. */
  from: string | null;
  subject: string;
  /** The text/plain part, when there is one. */
  text: string | null;
  /** The text/html part, when there is one. */
  html: string | null;
  /** The message's own `Authentication-Results` values (RFC 8601), topmost first, unfolded; none: empty or absent (trust.ts). */
  authentication?: string[];
}

/**
 * The deepest nesting of elements html-to-text is given. htmlparser2 keeps its open elements in
 * an array it adds to at the front and searches at each closing tag, so parsing takes time
 * quadratic in the depth (200,000 nested `<div>`, 1 MB, took 37 s; issue 55); html-to-text then
 * walks the tree recursively (14,000 nested elements overflow the stack). Bounded at this depth,
 * the parse is linear; no real e-mail nests a hundred deep.
 */
export const HTML_MAX_DEPTH = 256;

/**
 * The longest HTML html-to-text is given, characters: it reads about a microsecond a character
 * (a flat 10 MiB document took over 10 s); a portal's notification is a few tens of KB. A longer
 * one is read from its tokens alone (linear, a tenth of that time).
 */
export const HTML_CONVERT_MAX = 1024 * 1024;

/**
 * Options of html-to-text: every table cell a block of its own, headings as written, no link
 * targets or images; its own limits as a second fence behind {@link HTML_MAX_DEPTH}.
 */
const HTML_TO_TEXT = {
  wordwrap: false as const,
  limits: { maxDepth: HTML_MAX_DEPTH, maxChildNodes: 10_000, maxInputLength: 16 * 1024 * 1024 },
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    ...['table', 'tr', 'td', 'th', 'thead', 'tbody'].map((selector) => ({ selector, format: 'block' })),
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
  ],
};

/** Elements htmlparser2 never keeps open (its own list), and those whose text is not shown. */
const VOID_ELEMENTS = new Set(
  'area base basefont br col command embed frame hr img input isindex keygen link meta param source track wbr'.split(' '),
);
const HIDDEN_ELEMENTS = new Set(['script', 'style', 'head', 'title']);
/** The elements whose opening closes open ones first, as htmlparser2 (10.1, Parser.js `openImpliesClose`) closes them. */
const P = ['p'];
const FORM = ['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'];
const IMPLIED_CLOSES = new Map<string, ReadonlySet<string>>(
  Object.entries({
    tr: ['tr', 'th', 'td'],
    th: ['th'],
    td: ['thead', 'th', 'td'],
    body: ['head', 'link', 'script'],
    li: ['li'],
    option: ['option'],
    optgroup: ['optgroup', 'option'],
    dd: ['dd', 'dt'],
    dt: ['dd', 'dt'],
    rt: ['rt', 'rp'],
    rp: ['rt', 'rp'],
    tbody: ['thead', 'tbody'],
    tfoot: ['thead', 'tbody'],
    ...Object.fromEntries(['select', 'input', 'output', 'button', 'datalist', 'textarea'].map((name) => [name, FORM])),
    ...Object.fromEntries(
      'p h1 h2 h3 h4 h5 h6 address article aside blockquote details div dl fieldset figcaption figure footer form header hr main nav ol pre section table ul'
        .split(' ')
        .map((name) => [name, P]),
    ),
  }).map(([name, closed]) => [name, new Set(closed)]),
);
/** Elements that begin a line of the text read from tokens. */
const BLOCK_ELEMENTS = new Set(
  'address article aside blockquote br dd div dl dt footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section table tbody td tfoot th thead tr ul'.split(
    ' ',
  ),
);

/**
 * One pass of htmlparser2's tokenizer over `html` (linear in its length): whether its elements
 * nest deeper than `max` (counted as htmlparser2 keeps them open, or more: an element closed by
 * implication still counts), and its text, a line for each block, entities decoded.
 */
export function scanHtml(html: string, max = HTML_MAX_DEPTH): { deeper: boolean; text: string } {
  const { Tokenizer } = loadHtmlparser2();
  const open: string[] = [];
  const parts: string[] = [];
  let deeper = false;
  let hidden = 0;
  let name = '';
  const nameOf = (start: number, end: number) => html.slice(start, end).toLowerCase();
  const noop = () => undefined;
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onopentagname(start, end) {
        name = nameOf(start, end);
        if (BLOCK_ELEMENTS.has(name)) parts.push('\n');
        const closes = IMPLIED_CLOSES.get(name);
        while (closes && !deeper && open.length > 0 && closes.has(open.at(-1)!)) open.pop();
        if (VOID_ELEMENTS.has(name)) return;
        if (HIDDEN_ELEMENTS.has(name)) hidden++;
        // Past the bound the depth is not followed further: the answer is known.
        if (!deeper) {
          open.push(name);
          if (open.length > max) deeper = true;
        }
      },
      onclosetag(start, end) {
        const closed = nameOf(start, end);
        if (BLOCK_ELEMENTS.has(closed)) parts.push('\n');
        if (HIDDEN_ELEMENTS.has(closed) && hidden > 0) hidden--;
        if (deeper) return;
        // At most `max` entries to search.
        const at = open.lastIndexOf(closed);
        if (at >= 0) open.length = at;
      },
      ontext(start, end) {
        if (hidden === 0) parts.push(html.slice(start, end));
      },
      ontextentity(codepoint) {
        if (hidden === 0) parts.push(String.fromCodePoint(codepoint));
      },
      onattribdata: noop,
      onattribentity: noop,
      onattribend: noop,
      onattribname: noop,
      oncdata: noop,
      oncomment: noop,
      ondeclaration: noop,
      onend: noop,
      onopentagend: noop,
      onprocessinginstruction: noop,
      onselfclosingtag() {
        // htmlparser2 closes `<x/>` at once inside SVG and MathML only.
        if (!deeper && open.at(-1) === name && (open.includes('svg') || open.includes('math'))) open.pop();
      },
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  const lines = parts
    .join('')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim());
  return {
    deeper,
    text: lines
      .filter((line, i) => line !== '' || (i > 0 && lines[i - 1] !== ''))
      .join('\n')
      .trim(),
  };
}

/**
 * The text a person sees of an HTML body: blocks on lines of their own, entities decoded, no
 * markup (html-to-text). HTML nesting deeper than {@link HTML_MAX_DEPTH}, or longer than
 * {@link HTML_CONVERT_MAX}, is not given to it: its text is then read from the tokens alone, in
 * linear time.
 */
export function htmlToText(html: string): string {
  const scanned = scanHtml(html);
  return scanned.deeper || html.length > HTML_CONVERT_MAX ? scanned.text : loadConvert()(html, HTML_TO_TEXT);
}

/**
 * How much of each text the parsers read, characters: a portal's notification is a few KB, its
 * contact at the top (also when forwarded: the forward's quoted headers come first). Beyond it,
 * reading 10 MiB of lines built to be slow took most of the reading's deadline for nothing.
 */
export const BODY_READ_MAX = 512 * 1024;

/** The texts to read, best first: the text part, then the HTML part as text (distinct, not blank), each its first {@link BODY_READ_MAX} characters. */
export function bodiesOf(content: EmailContent): string[] {
  const bodies: string[] = [];
  for (const body of [content.text, content.html === null ? null : htmlToText(content.html)]) {
    const clean = body === null ? '' : normaliseText(body.slice(0, BODY_READ_MAX));
    if (clean.trim() !== '' && !bodies.includes(clean)) bodies.push(clean);
  }
  return bodies;
}

/**
 * Line ends made `\n` (Unicode's line and paragraph separators too: no line of a text read then
 * holds a character a pattern's `.` stops at), non-breaking and zero-width spaces made plain,
 * Gmail's `*bold*` and quoting `> ` kept as written.
 */
export function normaliseText(text: string): string {
  return text
    .replace(/\r\n?|[\u2028\u2029]/g, '\n')
    .replace(/[\u00a0\u2007\u202f]/g, ' ')
    .replace(/[\u200b-\u200d\ufeff]/g, '');
}

const LOCAL_CHARACTER = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]$/;
const ALNUM = /^[A-Za-z0-9]$/;
const DOMAIN_CHARACTER = /^[A-Za-z0-9.-]$/;

/**
 * The domain of an address that starts at `from` in `text` (after its `@`): labels of letters,
 * digits and inner hyphens, at least two, as long as they go; null when there is none.
 */
function domainAt(text: string, from: number): string | null {
  let end = from;
  while (end < text.length && DOMAIN_CHARACTER.test(text[end])) end++;
  const labels = text.slice(from, end).split('.');
  const valid = (label: string) => ALNUM.test(label[0] ?? '') && ALNUM.test(label[label.length - 1]);
  if (labels.length < 2 || !valid(labels[0])) return null;
  const kept = [labels[0]];
  for (const label of labels.slice(1)) {
    if (!ALNUM.test(label[0] ?? '')) break;
    // A label ending in hyphens ends the domain at its last letter or digit.
    let last = label.length;
    while (!ALNUM.test(label[last - 1])) last--;
    kept.push(label.slice(0, last));
    if (last < label.length) break;
  }
  return kept.length < 2 ? null : kept.join('.');
}

/**
 * An e-mail address in a line of text (`Name <a@b.es>`, `a@b.es`, `[mailto:a@b.es]`), lower-cased;
 * null when none. The first `@` with a local part before it and a domain after it gives the
 * address; found by scanning, in time linear in the text's length (issue 55: the pattern it
 * replaces was tried at every position of a long word and took quadratic time).
 */
export function addressIn(text: string): string | null {
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > 0 && LOCAL_CHARACTER.test(text[start - 1])) start--;
    if (start === at) continue;
    const domain = domainAt(text, at + 1);
    if (domain !== null) return `${text.slice(start, at)}@${domain}`.toLowerCase();
  }
  return null;
}

/** Lines that open a forwarded message's quoted headers, as Gmail, Outlook, Apple Mail and Thunderbird write them. */
const FORWARD_MARKERS = [
  /^-{3,}\s*(?:Forwarded message|Mensaje reenviado|Missatge reenviat|Message transféré|Messaggio inoltrato|Weitergeleitete Nachricht)\s*-{3,}$/i,
  /^-{3,}\s*(?:Original Message|Mensaje original|Message d'origine|Messaggio originale)\s*-{3,}$/i,
  /^_{10,}$/,
  /^(?:Begin forwarded message|Inicio del mensaje reenviado):?$/i,
  /^-{3,}\s*(?:Forwarded Message|Mensaje reenviado)\s*-{3,}$/i,
];

/** A quoted header line of a forward: its name (lower-case, in any of the clients' languages) and value. */
const QUOTED_HEADER =
  /^\s*\*?(From|De|Von|Da|Date|Fecha|Sent|Enviado|Enviat|Envoyé|Gesendet|Inviato|To|Para|Per|À|An|A|Cc|Subject|Asunto|Assumpte|Objet|Betreff|Oggetto|Reply-To|Responder a)\s*:\*?\s*(.*)$/i;

const SENDER_HEADERS = new Set(['from', 'de', 'von', 'da']);

/** The message as received, or the forwarded one inside it. */
export interface OriginalMessage {
  /** The original sender's address: the one a forward quotes, else the envelope's. */
  sender: string | null;
  /** Whether the sender was read from a forward's quoted headers. */
  forwarded: boolean;
  /** The texts to read (see {@link bodiesOf}), each cut to what follows the forward's quoted headers. */
  bodies: string[];
}

/** Removes one level of `> ` quoting from every line, when every non-blank line has it. */
function unquote(lines: string[]): string[] {
  const filled = lines.filter((line) => line.trim() !== '');
  if (filled.length === 0 || !filled.every((line) => /^\s*>/.test(line))) return lines;
  return lines.map((line) => line.replace(/^\s*> ?/, ''));
}

/**
 * Where a forward's quoted headers are in `text`: the sender they name and the text after them;
 * null when the text holds no forward.
 */
function forwardIn(text: string): { sender: string | null; rest: string } | null {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    const line = lines[i].replace(/^\s*(?:>\s*)*/, '').trim();
    const marked = FORWARD_MARKERS.some((marker) => marker.test(line));
    const header = QUOTED_HEADER.exec(line);
    // A forward opens with a marker line, or (Outlook's HTML, Apple Mail) straight with its `From:`.
    if (!marked && !(header && SENDER_HEADERS.has(header[1].toLowerCase()) && addressIn(header[2]) !== null)) continue;
    let j = marked ? i + 1 : i;
    while (j < lines.length && lines[j].trim() === '') j++;
    let sender: string | null = null;
    let headers = 0;
    for (; j < lines.length; j++) {
      const quoted = QUOTED_HEADER.exec(lines[j].replace(/^\s*(?:>\s*)*/, ''));
      if (!quoted) break;
      headers++;
      if (SENDER_HEADERS.has(quoted[1].toLowerCase()) && sender === null) sender = addressIn(quoted[2]);
    }
    if (headers < 2) continue;
    return { sender, rest: unquote(lines.slice(j)).join('\n') };
  }
  return null;
}

/**
 * The original message of `content`: when a body quotes a forward's headers, the sender they
 * name and the text after them (each body cut the same way); otherwise the envelope sender and
 * the whole bodies.
 */
export function originalOf(content: EmailContent): OriginalMessage {
  const bodies = bodiesOf(content);
  const forwards = bodies.map(forwardIn);
  const found = forwards.find((f) => f !== null);
  if (!found) return { sender: content.from, forwarded: false, bodies };
  return {
    sender: found.sender ?? content.from,
    forwarded: true,
    bodies: bodies.map((body, i) => forwards[i]?.rest ?? body),
  };
}

/** The most links read of one HTML part, and the longest link kept, characters. */
export const HREFS_MAX = 200;
const HREF_MAX = 2048;

/**
 * The targets of the HTML part's links (`<a href>`, entities decoded), in order, at most
 * {@link HREFS_MAX}, each its first 2,048 characters: html-to-text drops them (`ignoreHref`),
 * and a portal may give the person's address only as a `mailto:` link, or the listing only as a
 * link to its page. One pass of htmlparser2's tokenizer: linear in the HTML's length.
 */
export function hrefsIn(html: string): string[] {
  const { Tokenizer } = loadHtmlparser2();
  const hrefs: string[] = [];
  let tag = '';
  let attribute = '';
  let value = '';
  const noop = () => undefined;
  const add = (text: string) => {
    if (attribute === 'href' && value.length < HREF_MAX) value += text.slice(0, HREF_MAX - value.length);
  };
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onopentagname(start, end) {
        tag = html.slice(start, end).toLowerCase();
      },
      onattribname(start, end) {
        attribute = tag === 'a' && hrefs.length < HREFS_MAX ? html.slice(start, end).toLowerCase() : '';
        value = '';
      },
      onattribdata(start, end) {
        add(html.slice(start, Math.min(end, start + HREF_MAX)));
      },
      onattribentity(codepoint) {
        add(String.fromCodePoint(codepoint));
      },
      onattribend() {
        if (attribute === 'href' && value.trim() !== '') hrefs.push(value.trim());
        attribute = '';
      },
      onclosetag: noop,
      ontext: noop,
      ontextentity: noop,
      oncdata: noop,
      oncomment: noop,
      ondeclaration: noop,
      onend: noop,
      onopentagend: noop,
      onprocessinginstruction: noop,
      onselfclosingtag: noop,
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  return hrefs;
}
