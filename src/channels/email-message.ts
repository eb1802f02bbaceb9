/**
 * Reading a raw e-mail (RFC 5322, MIME) received from a portal or a forward (CONTRACT §19), with
 * mailparser: any charset (UTF-8, ISO-8859-1, Windows-1252… through iconv), quoted-printable and
 * base64, multipart alternatives; it gives the sender, the subject and the text and HTML parts
 * as text. What the parts say is domain/leads/portal-emails/'s to read.
 */
import { createHash } from 'node:crypto';
import type { EmailContent } from '../domain/leads/portal-emails/index.ts';

/** The longest `Message-ID` kept as a message's key; a longer one is replaced by the digest. */
const MESSAGE_ID_MAX = 512;

/**
 * The key a message is stored once by (CONTRACT §19): its `Message-ID` header as written
 * (`<…@…>`), read from the message's own headers only (those before the first blank line, folded
 * lines joined), else `sha256:` and the hex SHA-256 of its bytes. Reads nothing of the body.
 */
export function messageKeyOf(raw: Buffer): string {
  const id = headerValue(raw.subarray(0, headerEnd(raw)).toString('latin1'), 'message-id');
  if (id && id.length <= MESSAGE_ID_MAX && /^<[^<>\s]+>$/.test(id)) return id;
  return `sha256:${createHash('sha256').update(raw).digest('hex')}`;
}

/** The most message ids read from `In-Reply-To` and `References` together: a thread's newest are what matter. */
export const THREAD_IDS_MAX = 100;
/** The most recipients read from `To`, `Cc` and `Delivered-To`. */
const RECIPIENTS_MAX = 100;

/** What a message's own headers say of the conversation it belongs to (CONTRACT §25). */
export interface EmailThreading {
  /** The ids it answers: `In-Reply-To`'s, then `References`' newest first, each `<…@…>`, once each, at most {@link THREAD_IDS_MAX}. */
  answers: string[];
  /** The sender's address (`From`), lower-case; null when it names none. */
  from: string | null;
  /** The addresses it was sent to (`To`, `Cc`, `Delivered-To`), lower-case, once each. */
  recipients: string[];
}

/**
 * Reads the threading headers of a raw message (`In-Reply-To`, `References`, `From`, `To`, `Cc`,
 * `Delivered-To`) from its header block alone, with string operations only: time linear in the
 * block's length, whatever it holds (the message comes from anyone; issue 55). Reads nothing of
 * the body and decodes no encoded word: ids and addresses are ASCII.
 */
export function threadingOf(raw: Buffer): EmailThreading {
  const headers = raw.subarray(0, headerEnd(raw)).toString('latin1');
  const ids = [...messageIdsIn(headerValue(headers, 'in-reply-to') ?? '')];
  // References lists the thread oldest first: the newest are read first.
  ids.push(...messageIdsIn(headerValue(headers, 'references') ?? '').reverse());
  const answers = [...new Set(ids)].slice(0, THREAD_IDS_MAX);
  const fromAddresses = addressesIn(headerValue(headers, 'from') ?? '');
  const recipients = new Set<string>();
  for (const name of ['to', 'cc', 'delivered-to']) {
    for (const value of headerValues(headers, name)) for (const address of addressesIn(value)) recipients.add(address);
  }
  return {
    answers,
    // `"a@b" <c@d>`: the address in angle brackets, written last, is the sender's.
    from: fromAddresses.length ? fromAddresses[fromAddresses.length - 1] : null,
    recipients: [...recipients].slice(0, RECIPIENTS_MAX),
  };
}

/** The `<…@…>` ids written in a header's value, in order: one pass, each `>` closing the nearest `<` before it. */
function messageIdsIn(value: string): string[] {
  const ids: string[] = [];
  let open = -1;
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '<') open = i;
    else if (value[i] === '>' && open >= 0) {
      const id = value.slice(open, i + 1);
      if (id.length <= MESSAGE_ID_MAX && id.includes('@') && !/\s/.test(id)) ids.push(id);
      open = -1;
    }
  }
  return ids;
}

/** The plain addresses written in a header's value (split at what cannot be in one), lower-case. */
function addressesIn(value: string): string[] {
  return value
    .split(/[\s<>(),;:"']+/)
    .filter((token) => token.length <= 254 && /^[^@]+@[^@]+\.[^@]+$/.test(token))
    .map((token) => token.toLowerCase());
}

/**
 * The value of header `name` (lower-case) in a message's header block, folded lines joined,
 * blanks around it removed; undefined when absent. Read line by line with string operations
 * only, in time linear in the block's length whatever it holds (issue 55: a pattern with a lazy
 * `.*?` before optional trailing blanks took 35 s over a line padded with 160 KB of spaces).
 */
function headerValue(headers: string, name: string): string | undefined {
  return headerValues(headers, name)[0];
}

/** Every value of header `name` (lower-case) in a header block, in order, read as {@link headerValue} reads one. */
function headerValues(headers: string, name: string): string[] {
  const values: string[] = [];
  const lines = headers.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.length <= name.length || line.slice(0, name.length).toLowerCase() !== name) continue;
    let at = name.length;
    while (line[at] === ' ' || line[at] === '\t') at++;
    if (line[at] !== ':') continue;
    let value = line.slice(at + 1);
    while (i + 1 < lines.length && (lines[i + 1].startsWith(' ') || lines[i + 1].startsWith('\t'))) value += ` ${lines[++i]}`;
    values.push(value.trim());
  }
  return values;
}

/** Where a message's headers end: the offset of the first blank line, or the whole when none. */
function headerEnd(raw: Buffer): number {
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  const found = [crlf, lf].filter((i) => i >= 0);
  return found.length ? Math.min(...found) : Math.min(raw.length, 64 * 1024);
}

/**
 * The sender, subject and parts of a raw message, decoded to text.
 * @returns `{from, subject, text, html, authentication}`; a part the message lacks (or that is empty) is null, the
 *   subject `''`; `authentication` the `Authentication-Results` values, topmost first.
 * @throws Error only when the bytes cannot be read as a message at all (mailparser's own failure).
 */
export async function readEmail(raw: Buffer): Promise<EmailContent> {
  // Loaded at the first e-mail read: most processes never read one.
  const { simpleParser } = await import('mailparser');
  const mail = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true });
  const from = mail.from?.value.find((a) => a.address)?.address?.toLowerCase() ?? null;
  // What the receiving servers recorded of the sender's authentication (domain/leads/portal-emails/trust.ts).
  const results = mail.headers.get('authentication-results');
  return {
    from,
    subject: mail.subject ?? '',
    text: mail.text ? mail.text : null,
    html: typeof mail.html === 'string' && mail.html !== '' ? mail.html : null,
    authentication: (Array.isArray(results) ? results : results === undefined ? [] : [results]).filter((v) => typeof v === 'string'),
  };
}
