/**
 * Listings in five languages (issue 46, CONTRACT §22): a listing's title and description in
 * Spanish, English, French, German and Italian, the languages of the spec's `preferred_language`.
 *
 * How they are kept, from the import line to the published texts:
 *
 * - The import format's `title` and `description` are the Spanish ones; `titles` and
 *   `descriptions` are objects keyed by `es`, `en`, `fr`, `de`, `it` (`titles.es` is another
 *   spelling of `title`; both given and different is a rejected line).
 * - Stored (domain/catalogue/property-record.ts): the `title` and `description` columns hold the
 *   listing's default text, the Spanish one, or else the first held in the order above; the
 *   `titles` and `descriptions` columns hold JSON of every language held (Spanish included) when
 *   a language other than Spanish is held, and are null otherwise (a listing of Spanish only is
 *   stored exactly as before languages existed).
 * - Published (`property_docs.lang_texts`): `{"<lang>": {"title", "description"}}` of every
 *   language held, titles as plain text and descriptions through the allowlist
 *   (domain/catalogue/html.ts), null when only Spanish is held. The Property object itself
 *   (`api_doc`) carries the default text, so that without `lang` nothing changes.
 */
import { plainText, sanitizeDescription } from './html.ts';

/** The languages a listing's text is kept in, in the order the default text is chosen. */
export const LISTING_LANGUAGES = ['es', 'en', 'fr', 'de', 'it'] as const;
export type ListingLanguage = (typeof LISTING_LANGUAGES)[number];

/** Every spelling of a language `lang` accepts (CONTRACT §22: the spec's `gb` and `ge` are `en` and `de`). */
export const LANGUAGE_PARAMS = ['es', 'en', 'fr', 'de', 'it', 'gb', 'ge'] as const;

/**
 * The listing language a `lang` value or a lead's `preferred_language` names: `es`, `en`, `fr`,
 * `de`, `it`, and the spec's `gb` (English) and `ge` (German); any case. Null for anything else.
 */
export function listingLanguage(code: string | null | undefined): ListingLanguage | null {
  if (typeof code !== 'string') return null;
  const lower = code.trim().toLowerCase();
  if (lower === 'gb') return 'en';
  if (lower === 'ge') return 'de';
  return (LISTING_LANGUAGES as readonly string[]).includes(lower) ? (lower as ListingLanguage) : null;
}

/** Texts by language; a language not held is absent. */
export type TextsByLanguage = Partial<Record<ListingLanguage, string>>;

/** A listing's published text in one language: either may be null when only the other is held. */
export interface PublishedText {
  /** Plain text. */
  title: string | null;
  /** HTML through the allowlist. */
  description: string | null;
}

/** The published texts of every language held, keyed by language, in {@link LISTING_LANGUAGES} order. */
export type PublishedTexts = Partial<Record<ListingLanguage, PublishedText>>;

/**
 * The texts a stored listing holds of one field, by language: its `titles` (or `descriptions`)
 * column, or, when that is null, its `title` (or `description`) column as the Spanish text.
 * Empty texts are not held.
 */
export function heldTexts(single: string | null, json: string | null): TextsByLanguage {
  if (json !== null) return JSON.parse(json) as TextsByLanguage;
  return single ? { es: single } : {};
}

/** The stored columns that hold a listing's texts (domain/catalogue/property-record.ts `PropertyFields`). */
export interface StoredTexts {
  title: string | null;
  description: string | null;
  /** JSON, or null when no language but Spanish is held. */
  titles: string | null;
  descriptions: string | null;
}

/**
 * The published texts of a stored listing (`property_docs.lang_texts`), as JSON: every language
 * held, the title as plain text and the description through the allowlist; null when the listing
 * holds no language but Spanish (its Property object's text is then all there is).
 */
export function buildPublishedTexts(p: StoredTexts): string | null {
  if (p.titles === null && p.descriptions === null) return null;
  const titles = heldTexts(p.title, p.titles);
  const descriptions = heldTexts(p.description, p.descriptions);
  const texts: PublishedTexts = {};
  for (const lang of LISTING_LANGUAGES) {
    const title = titles[lang] ?? null;
    const description = descriptions[lang] ?? null;
    if (title === null && description === null) continue;
    texts[lang] = { title: plainText(title), description: sanitizeDescription(description) };
  }
  return JSON.stringify(texts);
}

/**
 * A published Property object (JSON text, with or without its `id`) in language `lang`: its
 * `title` and `description` replaced by that language's where the listing holds them, each on
 * its own; the default text stays for what is not held. Fields keep their order, so the object
 * differs from the default one only in those two values.
 * @param langTexts the listing's `property_docs.lang_texts` (null: only Spanish is held).
 * @returns `doc` itself when nothing is replaced.
 */
export function docInLanguage(doc: string, langTexts: string | null, lang: ListingLanguage): string {
  if (langTexts === null) return doc;
  const text = (JSON.parse(langTexts) as PublishedTexts)[lang];
  if (text === undefined) return doc;
  const object = JSON.parse(doc) as Record<string, unknown>;
  if (text.title !== null) object.title = text.title;
  if (text.description !== null) object.description = text.description;
  return JSON.stringify(object);
}

/**
 * Every language a published listing holds, with its published title and description: what a
 * portal feed writes per language (Kyero's `desc/<lang>`, idealista's `propertyDescriptions`).
 * A listing without `lang_texts` holds Spanish only: its Property object's title and
 * description, when it has either.
 * @param doc the Property object (parsed), for a listing of Spanish only.
 * @param langTexts `property_docs.lang_texts`.
 */
export function publishedTextsOf(doc: Record<string, unknown>, langTexts: string | null): PublishedTexts {
  if (langTexts !== null) return JSON.parse(langTexts) as PublishedTexts;
  const title = typeof doc.title === 'string' && doc.title !== '' ? doc.title : null;
  const description = typeof doc.description === 'string' && doc.description !== '' ? doc.description : null;
  return title === null && description === null ? {} : { es: { title, description } };
}

/**
 * The languages of {@link LISTING_LANGUAGES} a stored listing lacks a title or a description in:
 * what the console marks as missing.
 */
export function missingLanguages(p: StoredTexts): ListingLanguage[] {
  const titles = heldTexts(p.title, p.titles);
  const descriptions = heldTexts(p.description, p.descriptions);
  return LISTING_LANGUAGES.filter((lang) => !titles[lang] || !descriptions[lang]);
}

/**
 * How far a listing's text is written in one language: both, only one of them, or none
 * (`unwritten` for Spanish, `untranslated` for the others). What the console's editor tabs and the
 * listing's page mark.
 */
export type LanguageState = 'written' | 'no_title' | 'no_description' | 'unwritten' | 'untranslated';

/** The state of language `lang` from its title and description as the form holds them. */
export function languageState(lang: ListingLanguage, title: string, description: string): LanguageState {
  const hasTitle = title.trim() !== '';
  const hasDescription = description.trim() !== '';
  if (hasTitle && hasDescription) return 'written';
  if (hasTitle) return 'no_description';
  if (hasDescription) return 'no_title';
  return lang === 'es' ? 'unwritten' : 'untranslated';
}
