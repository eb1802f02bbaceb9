/** What a portal's parser is (CONTRACT §19): the senders it knows, and how it reads their messages. */
import type { Fields } from './labels.ts';

/** The parsers, by name: one per portal, and the generic one for labelled text. */
export type ParserName = 'idealista' | 'fotocasa' | 'habitaclia' | 'pisos.com' | 'generic';

export interface PortalParser {
  name: Exclude<ParserName, 'generic'>;
  /** Whether `domain` (an address's, lower-case) is one this portal sends its notifications from. */
  sends(domain: string): boolean;
  /** What the portal's own wording says of `body` (one of the message's texts); null fields where it says nothing. */
  read(body: string, subject: string): Fields;
  /**
   * Where the portal's footer begins in a body (its own phone and address follow): cut before it.
   * Anchored to a line's start with `^[ \t]*` under the `m` flag, never `^\s*`: `\s` crosses
   * line ends, and over many blank lines `^\s*` is tried at each and runs to the end of the run,
   * in time quadratic in the body's length (issue 55: 78 s for 128 KB of blank lines).
   */
  footer?: RegExp;
}

/** Whether `domain` is `base` or one of its subdomains. */
export const isDomainOf = (domain: string, base: string) => domain === base || domain.endsWith(`.${base}`);

/** The first group of `pattern` in `text`, trimmed; null when it does not match or is blank. */
export function first(pattern: RegExp, text: string): string | null {
  const value = pattern.exec(text)?.[1]?.trim();
  return value ? value : null;
}
