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
import { addressIn, hrefsIn, originalOf, type EmailContent } from './content.ts';
import { labelledFields, merged, NO_FIELDS, type Fields } from './labels.ts';
import { PORTAL_PARSERS } from './parsers.ts';
import type { ParserName, PortalParser } from './portal.ts';
import {
  addressOfMailto,
  candidateOfLink,
  CANDIDATES_MAX,
  isPersonAddress,
  keywordReferences,
  linksInText,
  referenceWords,
  type ListingCandidate,
} from './references.ts';
import { emailTrust, type EmailTrust } from './trust.ts';

export type { EmailContent } from './content.ts';
export type { ParserName } from './portal.ts';
export type { ListingCandidate } from './references.ts';

export { PORTAL_PARSERS } from './parsers.ts';

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
  /**
   * Every way the message names a listing, best first, at most 24 (references.ts): `reference`,
   * references after a keyword in the texts (`tu referencia: demo:37`, `(Ref: demo:23)`, `anuncio
   * con referencia FTC-2002`) and in the subject, then links to the listing's page on inmo or
   * on the agency's website (`listing_url`). The first the business holds is the listing.
   */
  candidates: ListingCandidate[];
  /** Words of the subject and texts that could be a reference, in order, at most 200: looked up among the business's `external_ref`s when no candidate names a listing. */
  words: string[];
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
  /** The business's `listing_url` template (`{id}` or `{ref}`, CONTRACT §10): links to its website name a listing. */
  listingUrl?: string | null;
}

/** Whether `domain` is a portal's (its notifications' addresses are never the person's). */
const isPortalDomain = (domain: string) => PORTAL_PARSERS.some((portal) => portal.sends(domain));

/** The key of a candidate, to keep each once. */
const keyOf = (candidate: ListingCandidate) =>
  'ref' in candidate ? `r:${candidate.ref}` : 'id' in candidate ? `i:${candidate.id}` : `p:${candidate.page}`;

/** {@link PortalContact.candidates} of a message (see there), distinct, at most {@link CANDIDATES_MAX}. */
function candidatesOf(
  reference: string | null,
  bodies: readonly string[],
  subject: string,
  links: readonly string[],
  template?: string | null,
) {
  const found = new Map<string, ListingCandidate>();
  const add = (candidate: ListingCandidate | null) => {
    if (candidate !== null && found.size < CANDIDATES_MAX && !found.has(keyOf(candidate))) found.set(keyOf(candidate), candidate);
  };
  if (reference !== null) add({ ref: reference });
  for (const body of bodies) for (const ref of keywordReferences(body)) add({ ref });
  for (const ref of keywordReferences(subject)) add({ ref });
  for (const link of links) add(candidateOfLink(link, template));
  return [...found.values()];
}

/**
 * The person's address where no label gives it: the first `mailto:` link, else the first address
 * written in a line of the texts, that is not the sender's, the envelope's, the agency's own, a
 * portal's or a no-reply one.
 */
function personAddressOf(hrefs: readonly string[], bodies: readonly string[], excluded: ReadonlySet<string>): string | null {
  const person = (address: string | null) => address !== null && isPersonAddress(address, excluded, isPortalDomain);
  for (const href of hrefs) {
    const address = addressOfMailto(href);
    if (person(address)) return address;
  }
  for (const body of bodies) {
    for (const line of body.split('\n')) {
      if (!line.includes('@')) continue;
      const address = addressIn(line);
      if (person(address)) return address;
    }
  }
  return null;
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
  const subject = oneLine(content.subject.replace(SUBJECT_PREFIX, ''));
  const found = normalised(fields);
  const hrefs = content.html === null ? [] : hrefsIn(content.html);
  const links = [...hrefs, ...original.bodies.flatMap(linksInText)];
  const excluded = new Set([original.sender, content.from, ...(belief.ownAddresses ?? [])].filter((a): a is string => Boolean(a)));
  return {
    parser,
    source: SOURCE_OF[parser],
    ...(trust === null ? {} : { trust }),
    sender: original.sender,
    forwarded: original.forwarded,
    subject,
    ...found,
    email: found.email ?? personAddressOf(hrefs, original.bodies, excluded),
    candidates: candidatesOf(found.reference, original.bodies, subject, links, belief.listingUrl),
    words: referenceWords([subject, ...original.bodies]),
  };
}
