/**
 * Portal e-mails for the e-mail benchmarks (bench/email-inbound.ts, bench/email-pull.ts): the
 * real fixtures of test/fixtures/email/ that name a contact (the four portals, the two forwards
 * and the generic one), each message a copy of one of them in turn with its own phone number,
 * e-mail address and `Message-ID`, so that each makes a new lead. The copies change bytes in
 * place: a digit for a digit, a character for a character (inside base64 parts, in the decoded
 * text), so every line keeps its length and encoding. The first copy of each fixture is read
 * back with inmo's own parsers to check it names the new contact.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEmail } from '../src/channels/email-message.ts';
import { readPortalEmail } from '../src/domain/leads/portal-emails/index.ts';

/** The fixtures copied, in turn. */
const FIXTURES = [
  'idealista.eml',
  'fotocasa.eml',
  'habitaclia.eml',
  'pisos-com.eml',
  'gmail-forward-idealista.eml',
  'outlook-forward-fotocasa.eml',
  'unseen-format.eml',
];

interface Template {
  raw: string;
  /** The contact's national number (9 digits) and address, as the parsers read them. */
  digits: string;
  email: string;
}

/** Copy `i`'s national number: the fixture's first three digits, then `i` in six. */
const phoneOf = (digits: string, i: number) => digits.slice(0, 3) + String(i).padStart(6, '0');

/** Copy `i`'s address: the fixture's, its local part's last six characters made `i` in six digits. */
function emailOf(email: string, i: number): string {
  const at = email.indexOf('@');
  return email.slice(0, at - 6) + String(i).padStart(6, '0') + email.slice(at);
}

/** `text` with the phone written with any spaces, dots or dashes between its digits given new digits, and the address replaced. */
function replaceContact(text: string, template: Template, i: number): string {
  const phone = phoneOf(template.digits, i);
  const written = new RegExp(template.digits.split('').join('[ .-]?'), 'g');
  let digit = 0;
  return text
    .replace(written, (match) => {
      digit = 0;
      return match.replace(/\d/g, () => phone[digit++]);
    })
    .replaceAll(template.email, emailOf(template.email, i));
}

/** Copy `i` of a template (see the module's comment); `run` keeps `Message-ID`s of different runs apart. */
function copy(template: Template, i: number, run: string): Buffer {
  // Latin-1 maps each byte to one character and back: the bytes of other charsets survive.
  let raw = template.raw.replace(/^Message-ID:[ \t]*<[^@>]*@([^>]+)>/im, `Message-ID: <bench-${run}-${i}@$1>`);
  raw = raw.replace(
    /(Content-Transfer-Encoding:[ \t]*base64\r\n(?:[^\r\n]+\r\n)*\r\n)([A-Za-z0-9+/=\r\n]+)/gi,
    (_whole, head: string, body: string) => {
      const decoded = replaceContact(Buffer.from(body.replace(/\r\n/g, ''), 'base64').toString('latin1'), template, i);
      const encoded = Buffer.from(decoded, 'latin1').toString('base64');
      return head + (encoded.match(/.{1,76}/g) ?? []).join('\r\n') + '\r\n';
    },
  );
  return Buffer.from(replaceContact(raw, template, i), 'latin1');
}

/**
 * `count` portal e-mails, copies of the fixtures in turn (see the module's comment).
 * @param root the repository's root.
 * @param run a word of the `Message-ID`s (a run's copies differ from another's).
 * @throws Error when a copy does not read as its new contact.
 */
export async function portalEmails(root: string, count: number, run: string): Promise<Buffer[]> {
  const templates: Template[] = [];
  for (const name of FIXTURES) {
    const bytes = readFileSync(join(root, 'test', 'fixtures', 'email', name));
    const contact = readPortalEmail(await readEmail(bytes));
    if (!contact.phone?.startsWith('+34') || !contact.email) throw new Error(`${name} names no Spanish phone and e-mail address`);
    templates.push({ raw: bytes.toString('latin1'), digits: contact.phone.slice(3), email: contact.email });
  }
  const messages = Array.from({ length: count }, (_, i) => copy(templates[i % templates.length], i, run));
  for (let i = 0; i < Math.min(count, templates.length); i++) {
    const read = readPortalEmail(await readEmail(messages[i]));
    const template = templates[i % templates.length];
    const expected = { phone: `+34${phoneOf(template.digits, i)}`, email: emailOf(template.email, i) };
    if (read.phone !== expected.phone || read.email !== expected.email)
      throw new Error(`copy ${i} of ${FIXTURES[i]} reads as ${read.phone} ${read.email}, not ${expected.phone} ${expected.email}`);
  }
  return messages;
}
