/**
 * What inmo believes of a portal e-mail (issue 55, CONTRACT §19; docs/security.md "Portal
 * e-mails are believed from their senders only"). Anyone can write `From: noreply@idealista.com`,
 * or paste a forward block naming idealista, so a message's words alone make no portal's
 * contact. A message is believed when the mail server that received it recorded that its
 * sender's domain authenticated (RFC 8601 `Authentication-Results`):
 *
 * - `portal`: not a forward, sent from a portal's domain (idealista, fotocasa, habitaclia,
 *   pisos.com: the parsers' own domains), and DKIM passed with `header.d` that portal's domain
 *   (aligned with the `From`: the same domain or a parent of it), or DMARC passed for it;
 * - `agency`: sent (a forward, or its own website's form) from one of the agency's own addresses
 *   (its console users' e-mails, its e-mail settings' from and reply-to addresses), and DKIM
 *   (aligned) or DMARC passed for that address's domain;
 * - `unverified`: anything else, a message without results among them. It is still read, by the
 *   generic reader only (never a portal's parser), and the lead it makes is marked: no automatic
 *   e-mail goes to the address it gave (services/leads/intake.ts `InquiryOrigin.verified`).
 *
 * Only the topmost `Authentication-Results` header is read: the receiving server writes its own
 * above every header the message came with, and removes any that claims to be its own (RFC 8601
 * §5), so whatever a sender wrote lies below it and is not read. This holds only where the server
 * that receives the agency's mail records its results (Gmail, Microsoft 365 and servers with
 * OpenDKIM/OpenDMARC or Rspamd do): behind one that records none, the topmost header is whatever
 * the sender wrote. The webhook's URL is the agency's mail pipe: whoever holds it is believed as
 * that server is. `ARC-Authentication-Results` are not read: what an intermediary recorded is
 * worth only what its seal is, and checking seals needs a DKIM verifier inmo does not carry; a
 * notification relayed by a third party is believed as a forward from the agency's own address
 * or not at all.
 *
 * Pure: the headers are mailparser's (channels/email-message.ts), each value unfolded.
 */
import type { EmailContent } from './content.ts';
import { PORTAL_PARSERS } from './parsers.ts';

/** What inmo believes of a message (see the module's comment); stored as `inbound_emails.trust` (migration 0045). */
export type EmailTrust = 'portal' | 'agency' | 'unverified';

/** The longest `Authentication-Results` value read, characters; a longer one is not read (unverified). */
export const AUTH_RESULTS_MAX = 8 * 1024;

/** One result of an `Authentication-Results` header: `dkim=pass header.d=idealista.com` → `{method: 'dkim', result: 'pass', props: {'header.d': 'idealista.com'}}`. */
export interface AuthResult {
  /** Lower-case, without a version (`dkim/1` → `dkim`). */
  method: string;
  /** Lower-case. */
  result: string;
  /** `ptype.property` → value (lower-case keys; values as written, unquoted). */
  props: Record<string, string>;
}

/** An `Authentication-Results` value read: the server that wrote it and its results. */
export interface AuthResults {
  authservId: string;
  results: AuthResult[];
}

/**
 * Reads one `Authentication-Results` value (RFC 8601 §2.2, the header's name removed, folded
 * lines joined): comments dropped, quoted strings kept whole, `;` between the server's id and each
 * result. One pass over the characters: linear in the value's length.
 * @returns null for a value beyond {@link AUTH_RESULTS_MAX} or without a server id.
 */
export function parseAuthResults(value: string): AuthResults | null {
  if (value.length > AUTH_RESULTS_MAX) return null;
  // Segments split at top-level `;`; each a list of words (a quoted string one word; `=` and `.` kept in words).
  const segments: string[][] = [[]];
  let word = '';
  let depth = 0;
  let quoted = false;
  const endWord = () => {
    if (word !== '') segments[segments.length - 1].push(word);
    word = '';
  };
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (quoted) {
      if (c === '\\' && i + 1 < value.length) word += value[++i];
      else if (c === '"') quoted = false;
      else word += c;
    } else if (depth > 0) {
      if (c === '\\') i++;
      else if (c === '(') depth++;
      else if (c === ')') depth--;
    } else if (c === '(') {
      endWord();
      depth = 1;
    } else if (c === '"') quoted = true;
    else if (c === ';') {
      endWord();
      segments.push([]);
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\n') endWord();
    else word += c;
  }
  endWord();
  const authservId = segments[0][0]?.toLowerCase();
  if (!authservId) return null;
  const results: AuthResult[] = [];
  for (const words of segments.slice(1)) {
    // Spaces around `=` and `.` are allowed (CFWS): join the words again at them.
    const pairs = joinedPairs(words);
    const head = pairs[0];
    if (!head || !head.includes('=')) continue;
    const [method, result] = splitOnce(head);
    if (method === 'none') continue;
    const props: Record<string, string> = {};
    for (const pair of pairs.slice(1)) {
      if (!pair.includes('=')) continue;
      const [key, propValue] = splitOnce(pair);
      props[key.toLowerCase()] = propValue;
    }
    results.push({ method: method.toLowerCase().split('/')[0], result: result.toLowerCase(), props });
  }
  return { authservId, results };
}

/** `a=b` → `['a', 'b']`. */
function splitOnce(pair: string): [string, string] {
  const at = pair.indexOf('=');
  return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
}

/** Words joined where `=` or `.` stood apart from them (`header.d = x` → `header.d=x`). */
function joinedPairs(words: string[]): string[] {
  const out: string[] = [];
  for (const w of words) {
    const last = out.length - 1;
    if (last >= 0 && (w.startsWith('=') || w.startsWith('.') || out[last].endsWith('=') || out[last].endsWith('.'))) out[last] += w;
    else out.push(w);
  }
  return out;
}

/** The domain of an address or of an `@domain` value, lower-case; null when none. */
function domainOf(address: string | null | undefined): string | null {
  if (!address) return null;
  const at = address.lastIndexOf('@');
  const domain = (at >= 0 ? address.slice(at + 1) : address).trim().toLowerCase().replace(/\.$/, '');
  // A domain of at least two labels: never a bare top-level domain.
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain) ? domain : null;
}

/** Whether `domain` is `base` or one of its subdomains. */
const within = (domain: string, base: string) => domain === base || domain.endsWith(`.${base}`);

/**
 * The domains whose authentication passed, as the results say: DKIM's `header.d` (else the
 * domain of `header.i`) and DMARC's `header.from`, for results `pass` only.
 */
export function passedDomains(results: AuthResults | null): string[] {
  if (!results) return [];
  const domains: string[] = [];
  for (const { method, result, props } of results.results) {
    if (result !== 'pass') continue;
    const domain =
      method === 'dkim'
        ? (domainOf(props['header.d']) ?? domainOf(props['header.i']))
        : method === 'dmarc'
          ? domainOf(props['header.from'])
          : null;
    if (domain) domains.push(domain);
  }
  return domains;
}

/** The topmost `Authentication-Results` value of the message (the receiving server's), read; null when none. */
export function topmostAuthResults(content: Pick<EmailContent, 'authentication'>): AuthResults | null {
  const topmost = content.authentication?.[0];
  return topmost === undefined ? null : parseAuthResults(topmost);
}

/**
 * What inmo believes of a message (see the module's comment).
 * @param content the message as read (its envelope `From` and its `Authentication-Results` values, topmost first).
 * @param original the sender the message names and whether it came as a forward (content.ts `originalOf`).
 * @param ownAddresses the agency's own addresses, lower-case.
 */
export function emailTrust(
  content: Pick<EmailContent, 'from' | 'authentication'>,
  original: { sender: string | null; forwarded: boolean },
  ownAddresses: ReadonlySet<string>,
): EmailTrust {
  const fromDomain = domainOf(content.from);
  if (content.from === null || fromDomain === null) return 'unverified';
  // The `From` domain authenticated: a passing domain it is, or lies under (relaxed alignment).
  const passed = passedDomains(topmostAuthResults(content)).filter((domain) => within(fromDomain, domain));
  if (passed.length === 0) return 'unverified';
  if (ownAddresses.has(content.from.toLowerCase())) return 'agency';
  if (original.forwarded) return 'unverified';
  const portal = PORTAL_PARSERS.find((p) => p.sends(fromDomain));
  return portal && passed.some((domain) => portal.sends(domain)) ? 'portal' : 'unverified';
}
