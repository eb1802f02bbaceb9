/**
 * Where a portal e-mail names the listing it is about (CONTRACT §19, issue 57 item 1), beyond a
 * `Referencia: X` line: a sentence or brackets (`tu referencia: demo:37`, `le interesa tu
 * anuncio con referencia FTC-2002`, `(Ref: demo:23)`), the subject (`Nuevo contacto para tu
 * anuncio FTC-2002`), a link to the listing's page on inmo (`/l/<token>`, CONTRACT §21) or on
 * the agency's website (the `listing_url` template, `{id}` or `{ref}`, CONTRACT §10), and every
 * word of the text that could be a reference (for services/leads/email-intake.ts to look up
 * among the business's own, in one bounded query). And the person's address where a portal
 * gives it only as a `mailto:` link, or in a sentence.
 *
 * Pure and linear: every text is read line by line, each pattern anchored on a keyword and with
 * no two quantifiers over the same characters next to each other (issue 55).
 */

/** A listing as a message may name it: a reference as written (`external_ref`, or inmo's id), inmo's id from a website link, or a page token. */
export type ListingCandidate = { ref: string } | { id: number } | { page: string };

/** The most candidates kept of one message (each costs the service a lookup). */
export const CANDIDATES_MAX = 24;
/** The most words of one message looked up among the business's references (in one query). */
export const WORDS_MAX = 200;
/** The longest reference read, characters (as the labelled one, index.ts). */
const REFERENCE_MAX = 64;

/**
 * A keyword that names a listing, then an optional `.`, blanks, an optional `:`/`#`/`º` and
 * blanks, then the reference (a letter or digit, then letters, digits and `._:/-`). Each blank
 * run is followed by a character it cannot hold, so a run is tried once from each keyword.
 */
const KEYWORD_REFERENCE = /\b(referencia|reference|ref|anuncio|inmueble)\b\.?[ \t]*(?:[:#º°][ \t]*)?([A-Za-z0-9][A-Za-z0-9._:/-]*)/gi;
/** Keywords whose following word is a reference only when it is not a bare number (`anuncio 2 dormitorios`, portals' own codes). */
const LOOSE_KEYWORDS = new Set(['anuncio', 'inmueble']);
const HAS_DIGIT = /\d/;
const BARE_NUMBER = /^\d+$/;

/** `value` without the characters of `chars` at its end (a sentence's `.`, a label's `:`); linear. */
function trimEnd(value: string, chars: string): string {
  let end = value.length;
  while (end > 0 && chars.includes(value[end - 1])) end--;
  return value.slice(0, end);
}

/** A reference as kept: trailing punctuation removed; null when empty, too long or without a digit. */
function referenceOf(word: string): string | null {
  const value = trimEnd(word, '.:/-_');
  return value !== '' && value.length <= REFERENCE_MAX && HAS_DIGIT.test(value) ? value : null;
}

/**
 * The references `text` names after a keyword (`referencia`, `ref`, `reference`, `anuncio`,
 * `inmueble`, any case), in order: each with a digit; after `anuncio` or `inmueble`, not a bare
 * number. Line by line; linear in the text's length.
 */
export function keywordReferences(text: string): string[] {
  const found: string[] = [];
  for (const line of text.split('\n')) {
    if (line.length < 4) continue;
    KEYWORD_REFERENCE.lastIndex = 0;
    for (let match = KEYWORD_REFERENCE.exec(line); match !== null; match = KEYWORD_REFERENCE.exec(line)) {
      const reference = referenceOf(match[2]);
      if (reference === null) continue;
      if (LOOSE_KEYWORDS.has(match[1].toLowerCase()) && BARE_NUMBER.test(reference)) continue;
      found.push(reference);
    }
  }
  return found;
}

/** What separates words: blanks, brackets, quotes and list punctuation. */
const WORD_BREAK = /[\s()[\]{}<>,;"'«»“”‘’|]+/;

/**
 * The words of `texts` that could be a reference (a digit in them, at most 64 characters,
 * trailing punctuation removed), distinct, in order, at most {@link WORDS_MAX}.
 */
export function referenceWords(texts: readonly string[]): string[] {
  const words = new Set<string>();
  for (const text of texts) {
    for (const line of text.split('\n')) {
      for (const word of line.split(WORD_BREAK)) {
        const reference = word.length > REFERENCE_MAX + 8 || word.includes('@') ? null : referenceOf(word);
        if (reference !== null) words.add(reference);
        if (words.size >= WORDS_MAX) return [...words];
      }
    }
  }
  return [...words];
}

/** The http(s) links written in `text`, in order (each ending at a blank, a bracket or a quote). */
export function linksInText(text: string): string[] {
  const links: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('http')) continue;
    for (const word of line.split(WORD_BREAK)) {
      const at = word.search(/https?:\/\//i);
      if (at >= 0) links.push(word.slice(at));
    }
  }
  return links;
}

/**
 * A page token at the start of the text, whole (not followed by another of its characters): 43
 * base64url characters as made since issue 56 (domain/capability-token.ts), or 32 lowercase hex
 * characters as made before (migration 0037).
 */
const PAGE_TOKEN = /^(?:[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])|[0-9a-f]{32}(?![0-9A-Za-z]))/;

/** A link without its scheme, lower-cased host, for comparing with a template. */
function withoutScheme(url: string): string {
  const at = url.indexOf('://');
  return at < 0 ? url : url.slice(at + 3);
}

/**
 * The listing a link names, or null: a page on inmo (`…/l/<token>`, any host: the token is the
 * listing's own, random), or a page of the agency's website as its `listing_url` template
 * (`https://agency.example/inmueble/{id}` or `…/{ref}`, CONTRACT §10) writes it: the text in the
 * place of `{id}` (a whole number) or `{ref}` (URL-decoded) up to what follows it in the template,
 * or up to a `/`, `?` or `#`.
 */
export function candidateOfLink(link: string, template: string | null | undefined): ListingCandidate | null {
  const page = link.indexOf('/l/');
  if (page >= 0) {
    const token = PAGE_TOKEN.exec(link.slice(page + 3, page + 3 + 44))?.[0];
    if (token) return { page: token };
  }
  if (!template) return null;
  const placeholder = /\{(id|ref)\}/.exec(template);
  if (!placeholder) return null;
  const prefix = withoutScheme(template.slice(0, placeholder.index)).toLowerCase();
  const rest = template.slice(placeholder.index + placeholder[0].length);
  const suffix = rest.split('{')[0];
  const url = withoutScheme(link);
  if (prefix === '' || !url.toLowerCase().startsWith(prefix)) return null;
  const tail = url.slice(prefix.length);
  let end = suffix === '' ? -1 : tail.indexOf(suffix);
  if (end < 0) end = tail.search(/[/?#]|$/);
  const value = tail.slice(0, end);
  if (placeholder[1] === 'id') return /^[1-9]\d{0,9}$/.test(value) ? { id: Number(value) } : null;
  let ref: string;
  try {
    ref = decodeURIComponent(value);
  } catch {
    return null;
  }
  return ref !== '' && ref.length <= REFERENCE_MAX ? { ref } : null;
}

/** Local parts of addresses that no person answers at (a portal's or a mailer's own). */
const NO_REPLY =
  /^(?:no-?reply|do-?not-?reply|noresponder|no-?responder|mailer-daemon|postmaster|notificaciones|notifications|avisos|solicitudes|bounces?)\b/i;

/** Whether `address` can be the person's: not a no-reply one, not of `excludedDomains`, not one of `excluded`. */
export function isPersonAddress(address: string, excluded: ReadonlySet<string>, excludedDomain: (domain: string) => boolean): boolean {
  const [local, domain = ''] = address.split('@');
  return !excluded.has(address) && !NO_REPLY.test(local) && !excludedDomain(domain);
}

/** The address of a `mailto:` link (its first recipient, URL-decoded, lower-case), or null. */
export function addressOfMailto(href: string): string | null {
  if (!/^\s*mailto:/i.test(href)) return null;
  const target = href.trim().slice('mailto:'.length).split('?')[0].split(',')[0];
  let decoded: string;
  try {
    decoded = decodeURIComponent(target);
  } catch {
    decoded = target;
  }
  const address = decoded.trim().toLowerCase();
  // Bounded before the pattern is tried: its two runs over the domain backtrack on a long one.
  return address.length <= 254 && /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(address) ? address : null;
}
