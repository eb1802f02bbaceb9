/**
 * Text and URLs of a listing as they may be published (CONTRACT §5, §8, §15): what an agent
 * saves or a feed imports is cleaned once, when it is stored, so the API, the website kit and
 * the portal feeds all carry the same safe values.
 *
 * - Characters XML 1.0 cannot carry (C0 controls other than tab, line feed and carriage return;
 *   U+FFFE and U+FFFF) never reach a feed: one of them makes the whole Kyero document
 *   ill-formed and every portal refuses it.
 * - A lone UTF-16 surrogate becomes U+FFFD, as the API's request bodies have it
 *   (http/request-pipeline.ts): both engines then store the same valid UTF-8, and every
 *   published document carries a character rather than the escape `\udXXX`.
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

/** Any half of a UTF-16 surrogate pair, paired or not (a cheap test before {@link LONE_SURROGATE}). */
const SURROGATE_HALF = /[\uD800-\uDFFF]/;

/**
 * `text` as a listing stores it: {@link withoutControls}, and each lone surrogate replaced by
 * U+FFFD, as `String.prototype.toWellFormed` does. A lone surrogate (JSON's `"\ud800"` in an
 * import line, half of an emoji cut off) is no character: SQLite stored it as invalid UTF-8 and
 * `JSON.stringify` wrote it into the published documents as the escape `\ud800`, which the API
 * and the idealista feed then served as it was. Other text is returned as it is (the same string).
 */
export function storedText(text: string): string {
  const clean = withoutControls(text);
  return SURROGATE_HALF.test(clean) ? clean.replace(LONE_SURROGATE, '\uFFFD') : clean;
}

/**
 * Every string in a JSON value (object keys too) with {@link storedText} applied; other
 * values as they are. A value with nothing to clean is returned unchanged (the same object,
 * nothing copied: most listings have nothing to clean).
 */
export function cleanStrings<T>(value: T): T {
  return mapStrings(value, storedText);
}

/**
 * `value` with `change` applied to every string in it (object keys too), copying only the
 * arrays and objects in which something changed. `change` must return its argument when it
 * changes nothing.
 */
function mapStrings<T>(value: T, change: (text: string) => string): T {
  if (typeof value === 'string') return change(value) as T;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const changed = mapStrings(item, change);
      if (changed !== item) (copy ??= [...value])[i] = changed;
    }
    return (copy ?? value) as T;
  }
  let copy: Record<string, unknown> | null = null;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const item = record[key];
    const changed = mapStrings(item, change);
    const cleanKey = change(key);
    if (changed === item && cleanKey === key) continue;
    if (copy === null) copy = { ...record };
    if (cleanKey !== key) delete copy[key];
    copy[cleanKey] = changed;
  }
  return (copy ?? value) as T;
}

/** A host as published: letters, digits, dots, hyphens and underscores (a DNS name or IPv4), or a bracketed IPv6 address. */
const HOST = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+\])$/;

/**
 * The published form of a URL: absolute `http` or `https`, serialised as the WHATWG URL
 * standard does (host lower case, IDN as punycode, spaces, quotes and angle brackets
 * percent-encoded), with `'` percent-encoded as well (the standard leaves it in paths), so the
 * result cannot end an attribute quoted with `"` or `'`. Serialising it again changes nothing.
 * @returns null for anything else: a relative URL, another scheme (`javascript:`, `data:`…), a
 *   host that is no DNS name or IP address (`x"onerror="…`), credentials, or text that is no URL.
 */
export function publishedUrl(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // The standard lets a host hold `"`, `&`, `{`… (it percent-decodes `%22` into one): only a DNS
  // name (IDN already as punycode), an IPv4 address or a bracketed IPv6 one is a host here.
  if (!HOST.test(url.hostname)) return null;
  // Credentials in a published link would be shown to every visitor, and are no photo's.
  if (url.username !== '' || url.password !== '') return null;
  return url.href.replaceAll("'", '%27');
}
