/**
 * Text and URLs of a listing as they may be published (CONTRACT §5, §8, §15): what an agent
 * saves or a feed imports is cleaned once, when it is stored, so the API, the website kit and
 * the portal feeds all carry the same safe values.
 *
 * - Characters XML 1.0 cannot carry (C0 controls other than tab, line feed and carriage return;
 *   U+FFFE and U+FFFF) never reach a feed: one of them makes the whole Kyero document
 *   ill-formed and every portal refuses it.
 * - A published URL is an absolute `http` or `https` URL in the WHATWG serialisation, with
 *   every character that could end an HTML attribute percent-encoded, so a partner may put it
 *   in a `src`, `href` or `iframe` attribute quoted either way.
 */

/** Characters XML 1.0 cannot carry (its `Char` production), lone surrogates aside (see {@link xmlText}). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
// eslint-disable-next-line no-control-regex -- as above
const HAS_NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/**
 * `text` without the characters XML 1.0 cannot carry: C0 controls (tab, line feed and carriage
 * return kept), U+FFFE and U+FFFF. Other text is returned as it is (the same string).
 */
export function withoutControls(text: string): string {
  return HAS_NOT_XML.test(text) ? text.replace(NOT_XML, '') : text;
}

/** A half of a UTF-16 surrogate pair without its other half (in `u` mode a pair is one code point). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/gu;

/**
 * `text` as XML 1.0 character data may carry it: {@link withoutControls}, and a lone surrogate
 * replaced by U+FFFD. For writers of XML, whatever the text's origin (a listing stored before
 * listings were cleaned still reaches the feed well-formed).
 */
export function xmlText(text: string): string {
  return withoutControls(text).replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * Every string in a JSON value (object keys too) with {@link withoutControls} applied; other
 * values as they are. A value with nothing to clean is returned unchanged (the same object).
 */
export function cleanStrings<T>(value: T): T {
  if (typeof value === 'string') return withoutControls(value) as T;
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item: unknown) => {
      const cleaned = cleanStrings(item);
      if (cleaned !== item) changed = true;
      return cleaned;
    });
    return (changed ? items : value) as T;
  }
  if (typeof value === 'object' && value !== null) {
    let changed = false;
    const entries = Object.entries(value).map(([key, item]) => {
      const cleanKey = withoutControls(key);
      const cleaned = cleanStrings(item as unknown);
      if (cleanKey !== key || cleaned !== item) changed = true;
      return [cleanKey, cleaned] as const;
    });
    return (changed ? Object.fromEntries(entries) : value) as T;
  }
  return value;
}

/**
 * The published form of a URL: absolute `http` or `https`, serialised as the WHATWG URL
 * standard does (host lower case, IDN as punycode, spaces, quotes and angle brackets
 * percent-encoded), with `'` percent-encoded as well (the standard leaves it in paths), so the
 * result cannot end an attribute quoted with `"` or `'`. Serialising it again changes nothing.
 * @returns null for anything else: a relative URL, another scheme (`javascript:`, `data:`…),
 *   or text that is no URL.
 */
export function publishedUrl(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return url.href.replaceAll("'", '%27');
}
