/**
 * Search that ignores case and accents (issue 47, CONTRACT §23): "Garcia" finds García,
 * "chamberi" Chamberí, "LOGRONO" Logroño, on both engines alike.
 *
 * Neither engine folds accents by itself (SQLite's `lower` and `LIKE` know ASCII only; an
 * engine function per row is far too slow at 200,000 listings), so each searchable row keeps its
 * text folded once, when it is written, in a `search_text` column, and a search folds what was
 * typed the same way and matches it with `LIKE '%…%'` (or, for listings, an index of its
 * trigrams: db/repositories/properties.ts).
 */

import { heldTexts } from './catalogue/languages.ts';

/** The most characters of typed search text that a search reads (the console's search boxes hold no more). */
export const SEARCH_TEXT_MAX = 200;

/** Half of a UTF-16 surrogate pair without its other half (in `u` mode a pair is one code point). */
const LONE_SURROGATE = /[\ud800-\udfff]/gu;

/**
 * Text typed into a search (or a filter matched exactly) as both engines can compare it: U+0000
 * removed (PostgreSQL refuses it in a parameter, SQLite's FTS5 reads it as the phrase's end:
 * both a 500 before) and a lone surrogate made U+FFFD, as stored text has them (docs/security.md).
 */
export function comparableText(text: string): string {
  const wellFormed = /[\ud800-\udfff]/.test(text) ? text.replace(LONE_SURROGATE, '\ufffd') : text;
  return wellFormed.includes('\u0000') ? wellFormed.replaceAll('\u0000', '') : wellFormed;
}

/**
 * What a search reads of typed text: {@link comparableText}, its first {@link SEARCH_TEXT_MAX}
 * characters (never half a surrogate pair), trimmed. A LIKE pattern of it then stays far below
 * SQLite's 50,000 bytes (a longer one was "LIKE or GLOB pattern too complex", a 500), and no search
 * costs more than one of that length.
 */
export function searchedText(text: string): string {
  const comparable = comparableText(text);
  if (comparable.length <= SEARCH_TEXT_MAX) return comparable.trim();
  const head = comparable.slice(0, SEARCH_TEXT_MAX);
  return (/[\ud800-\udbff]$/.test(head) ? head.slice(0, -1) : head).trim();
}

/** Combining marks: what NFD splits off a letter (the acute of á, the tilde of ñ, the cedilla of ç). */
const MARKS = /\p{M}+/gu;

/**
 * `text` as search compares it: lower case, decomposed (NFD), without combining marks.
 * "Ávila" → "avila", "García" → "garcia", "Logroño" → "logrono".
 */
export function foldForSearch(text: string): string {
  return text.toLowerCase().normalize('NFD').replace(MARKS, '');
}

/**
 * A row's `search_text`: its searchable fields folded, one space between them; null when none
 * has text. (The fields' order does not matter: a search matches inside any of them.)
 */
export function searchTextOf(fields: ReadonlyArray<string | null | undefined>): string | null {
  const held = fields.filter((f): f is string => typeof f === 'string' && f.trim() !== '');
  return held.length === 0 ? null : foldForSearch(held.join(' '));
}

/** A lead's `search_text`: its name and e-mail addresses (the phone is searched by its digits). */
export function leadSearchText(lead: {
  name?: string | null;
  personal_email?: string | null;
  professional_email?: string | null;
}): string | null {
  return searchTextOf([lead.name, lead.personal_email, lead.professional_email]);
}

/** The stored columns of a listing that its console search reads (CONTRACT §14: reference, title, address, city). */
export interface ListingSearchFields {
  external_ref: string;
  title: string | null;
  /** JSON of every language's title, or null (domain/catalogue/languages.ts). */
  titles: string | null;
  address: string | null;
  address_approximate: string | null;
  city: string | null;
  postal_code: string | null;
}

/**
 * A listing's `search_text` (migration 0033): its reference, its title in every language it
 * holds, its address, approximate address, city and postal code.
 */
export function listingSearchText(listing: ListingSearchFields): string | null {
  const titles = new Set([listing.title, ...Object.values(heldTexts(listing.title, listing.titles))]);
  return searchTextOf([listing.external_ref, ...titles, listing.address, listing.address_approximate, listing.city, listing.postal_code]);
}

/**
 * The most words of a search that are read (issue 57): the first 8 kept by {@link searchWords};
 * one more word could only narrow a search that 8 words already narrow, and each costs one more
 * condition.
 */
export const SEARCH_WORDS_MAX = 8;

/** What separates the words of a search: white space and commas ("atico, chamberi"). */
const WORD_BREAK = /[\s,]+/u;

/**
 * The words of typed search text, folded as `search_text` is ({@link foldForSearch}), each of
 * which a row must hold somewhere in its `search_text` for a search to find it, in any order
 * (issue 57, CONTRACT §25: "atico chamberi" and "chamberi atico" both find "Ático luminoso en
 * Chamberí"). Read from {@link searchedText} (200 characters, no NUL), split at white space and
 * commas; a repeated word, and a word inside another word typed ("en" beside "chamberi" is
 * not, "ama" beside "salamanca" is), are left out, as they narrow nothing; then the first
 * {@link SEARCH_WORDS_MAX} are kept. Text of commas alone is one word, itself.
 * @returns the words, in the order typed; none for blank text.
 */
export function searchWords(text: string): string[] {
  const folded = foldForSearch(searchedText(text));
  if (folded === '') return [];
  const split = folded.split(WORD_BREAK).filter((word) => word !== '');
  const distinct = split.length === 0 ? [folded] : [...new Set(split)];
  return distinct.filter((word) => !distinct.some((other) => other !== word && other.includes(word))).slice(0, SEARCH_WORDS_MAX);
}
