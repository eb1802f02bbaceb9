/**
 * An e-mail as the portal parsers read it (CONTRACT §19): its sender, subject and bodies, with
 * the HTML part turned to text, and the original message found inside a forwarded one.
 *
 * Agencies forward portal notifications from their mailbox, and forwarding rewrites the sender
 * (the envelope `From` becomes the agency's address). Gmail and Outlook then quote the original
 * headers at the top of the body: Gmail as `---------- Forwarded message ---------` (Spanish:
 * `Mensaje reenviado`) followed by `From:`/`De:`, `Date:`, `Subject:`/`Asunto:`, `To:`/`Para:`;
 * Outlook as a rule of underscores (text) or a `<hr>` (HTML) followed by `From:`/`De:`,
 * `Sent:`/`Enviado:`, `To:`/`Para:`, `Subject:`/`Asunto:`. {@link originalOf} finds that block and
 * returns the sender it names and the text after it.
 */
import { createRequire } from 'node:module';
import type { convert as Convert } from 'html-to-text';

/** html-to-text (about a tenth of a second to load), required at the first HTML e-mail read: most processes read none. */
let convert: typeof Convert | undefined;
const loadConvert = (): typeof Convert =>
  (convert ??= (createRequire(import.meta.url)('html-to-text') as { convert: typeof Convert }).convert);

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

/** Selectors of html-to-text: every table cell a block of its own, headings as written, no link targets or images. */
const HTML_TO_TEXT = {
  wordwrap: false as const,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    ...['table', 'tr', 'td', 'th', 'thead', 'tbody'].map((selector) => ({ selector, format: 'block' })),
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
  ],
};

/** The text a person sees of an HTML body: blocks on lines of their own, entities decoded, no markup. */
export function htmlToText(html: string): string {
  return loadConvert()(html, HTML_TO_TEXT);
}

/** The texts to read, best first: the text part, then the HTML part as text (distinct, not blank). */
export function bodiesOf(content: EmailContent): string[] {
  const bodies: string[] = [];
  for (const body of [content.text, content.html === null ? null : htmlToText(content.html)]) {
    const clean = body === null ? '' : normaliseText(body);
    if (clean.trim() !== '' && !bodies.includes(clean)) bodies.push(clean);
  }
  return bodies;
}

/** Line ends made `\n`, non-breaking and zero-width spaces made plain, Gmail's `*bold*` and quoting `> ` kept as written. */
export function normaliseText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u00a0\u2007\u202f]/g, ' ')
    .replace(/[\u200b-\u200d\ufeff]/g, '');
}

/** An e-mail address in a line of text (`Name <a@b.es>`, `a@b.es`, `[mailto:a@b.es]`), lower-cased; null when none. */
export function addressIn(text: string): string | null {
  const match =
    /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+/.exec(text);
  return match ? match[0].toLowerCase() : null;
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
