/**
 * Portal e-mails read as contacts (CONTRACT §19): which portal sent a message, even through a
 * forward, and what it says of the person: name, phone (E.164, Spanish when national), e-mail,
 * message and the listing's reference. Pure: the MIME reading is channels/email-message.ts's,
 * and what becomes of the contact is services/leads/email-intake.ts's.
 *
 * The parser is chosen by the original sender's domain (content.ts `originalOf`): idealista,
 * fotocasa, habitaclia and pisos.com each read their own wording first; the generic reader of
 * labelled text (labels.ts) fills in what they leave, and reads every other sender alone.
 */
import { normalizePhone } from '../phone.ts';
import { addressIn, originalOf, type EmailContent } from './content.ts';
import { fotocasa } from './fotocasa.ts';
import { habitaclia } from './habitaclia.ts';
import { idealista } from './idealista.ts';
import { labelledFields, merged, NO_FIELDS, type Fields } from './labels.ts';
import { pisosCom } from './pisos-com.ts';
import type { ParserName, PortalParser } from './portal.ts';
import { emailTrust, type EmailTrust } from './trust.ts';

export type { EmailContent } from './content.ts';
export type { ParserName } from './portal.ts';

/** The portals read by a parser of their own. */
export const PORTAL_PARSERS: readonly PortalParser[] = [idealista, fotocasa, habitaclia, pisosCom];

/** A lead's `source` for each parser (CONTRACT §19): the portal's name, `email` for the generic one. */
export const SOURCE_OF: Record<ParserName, string> = {
  idealista: 'idealista',
  fotocasa: 'fotocasa',
  habitaclia: 'habitaclia',
  'pisos.com': 'pisos.com',
  generic: 'email',
};

/** The longest name kept, characters (CONTRACT §8 `name`). */
const NAME_MAX = 200;
/** The longest message kept, characters (CONTRACT §8 strings). */
const MESSAGE_MAX = 10_000;

/** What a message says of the person who wrote through the portal. */
export interface PortalContact {
  parser: ParserName;
  /** The lead's `source`: {@link SOURCE_OF} the parser. */
  source: string;
  /** What was believed of it (trust.ts), when the agency's addresses were given; absent otherwise. */
  trust?: EmailTrust;
  /** The original sender's address (the portal's, also through a forward), lower-case. */
  sender: string | null;
  /** Whether it came forwarded (the sender read from the forward's quoted headers). */
  forwarded: boolean;
  /** The subject, without `Fwd:`/`RV:`-style prefixes. */
  subject: string;
  name: string | null;
  /** E.164; null when none is written or it is not a valid number. */
  phone: string | null;
  /** Lower-case. */
  email: string | null;
  message: string | null;
  /** The listing's reference as the ad writes it: the agency's `external_ref`, or inmo's id. */
  reference: string | null;
}

/** Forward and reply prefixes of a subject, in the clients' languages. */
const SUBJECT_PREFIX = /^\s*(?:(?:fwd?|fw|rv|re|tr|wg|i|enc|rif|reenv)\s*:\s*)+/i;

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** `text` without the characters of `chars` at its end; linear (a pattern `[…]+$` is tried at every position of a long run). */
function withoutTrailing(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1])) end--;
  return text.slice(0, end);
}

/** The fields as stored: one-line name within {@link NAME_MAX}, phone in E.164, address checked, message bounded, reference one word. */
function normalised(fields: Fields) {
  const name = fields.name === null ? '' : withoutTrailing(oneLine(fields.name), ',;:.');
  const phone = fields.phone === null ? null : normalizePhone(fields.phone.replace(/[^\d+() .-]/g, '').slice(0, 64));
  const email = fields.email === null ? null : addressIn(fields.email);
  const message = fields.message === null ? '' : fields.message.trim().slice(0, MESSAGE_MAX);
  const reference = fields.reference === null ? '' : withoutTrailing(/^[^\s,;()]+/.exec(fields.reference.trim())?.[0] ?? '', '.:');
  return {
    name: name === '' ? null : name.slice(0, NAME_MAX),
    phone,
    email,
    message: message === '' ? null : message,
    reference: reference === '' || reference.length > 64 ? null : reference,
  };
}

/** Which parser reads messages of `sender`: its portal's, else the generic one. */
export function parserFor(sender: string | null): PortalParser | null {
  const domain = sender?.split('@')[1] ?? '';
  return PORTAL_PARSERS.find((portal) => portal.sends(domain)) ?? null;
}

/** Whom a reading believes (trust.ts); plain data, so that a reading can run in another thread. */
export interface Belief {
  /** The agency's own addresses, lower-case: the message's trust is then decided (trust.ts `emailTrust`). */
  ownAddresses?: ReadonlySet<string>;
  /** false: read by the generic reader alone (a message already judged unverified). */
  believed?: boolean;
}

/**
 * Reads `content` (see the module's comment): each text of the message (text part, then HTML
 * part as text) cut at the portal's footer, read by the portal's own wording and then as
 * labelled text; the first text that names a field gives it.
 * @param belief with `ownAddresses`, a portal's parser reads the message only when trust.ts
 *   believes it (a verified portal, or a forward from the agency), else the generic reader alone,
 *   and `trust` says which; with `believed: false`, the generic reader alone. Not given: every
 *   sender is believed and `trust` is absent (the parsers' own tests).
 */
export function readPortalEmail(content: EmailContent, belief: Belief = {}): PortalContact {
  const original = originalOf(content);
  const trust = belief.ownAddresses ? emailTrust(content, original, belief.ownAddresses) : null;
  const portal = belief.believed === false || trust === 'unverified' ? null : parserFor(original.sender);
  let fields: Fields = { ...NO_FIELDS };
  for (const whole of original.bodies) {
    const cut = portal?.footer ? whole.split(portal.footer)[0] : whole;
    const read = portal ? merged(portal.read(cut, content.subject), labelledFields(cut)) : labelledFields(cut);
    fields = merged(fields, read);
  }
  const parser: ParserName = portal?.name ?? 'generic';
  return {
    parser,
    source: SOURCE_OF[parser],
    ...(trust === null ? {} : { trust }),
    sender: original.sender,
    forwarded: original.forwarded,
    subject: oneLine(content.subject.replace(SUBJECT_PREFIX, '')),
    ...normalised(fields),
  };
}
