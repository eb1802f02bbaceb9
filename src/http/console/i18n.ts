/**
 * The console's words (issue 15): Spanish by default, English when the browser's
 * `Accept-Language` prefers it. Each language is one file, messages/es.json and
 * messages/en.json, of `key: text` with `{name}` placeholders, for translators to edit without
 * touching code. Templates call `t('key')` with the key written out, and label stored values
 * through the typed mappings of labels.ts (`label.leadStatus(s)`), never a key built from a value;
 * both files have every key (the type below and test/db/console/console.test.ts check it).
 */
import { negotiate } from '@fastify/accept-negotiator';
import en from './messages/en.json' with { type: 'json' };
import es from './messages/es.json' with { type: 'json' };

export const LANGUAGES = ['es', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Every key the console's templates and routes use (the Spanish file has each). */
export type MessageKey = keyof typeof es;

// English must say everything Spanish says: a key missing from en.json does not compile.
const english: Record<MessageKey, string> = en;

const MESSAGES: Record<Language, Record<MessageKey, string>> = { es, en: english };

/** The console's language a language tag names (`en-GB` is English), if any. */
function languageOf(tag: string): Language | undefined {
  const primary = tag.split('-')[0];
  return (LANGUAGES as readonly string[]).includes(primary) ? (primary as Language) : undefined;
}

/**
 * The language of a request: of the ranges of `Accept-Language` that name Spanish or English in
 * any region, the one of highest quality (RFC 9110 §12.5.4), the first among equals, as
 * @fastify/accept-negotiator ranks them; Spanish when none does (`*` names none).
 */
export function pickLanguage(acceptLanguage: string | undefined): Language {
  if (!acceptLanguage) return 'es';
  // The negotiator reads the qualities and chooses among the values it is offered, the earlier
  // among equals: it is offered each range's own tag (`en-gb` too), in the header's order. Tags and
  // `q` are case-insensitive; a range naming neither language (`fr`, `*`) is left out, as a `*`
  // would lend its quality to the first tag offered.
  const tagOf = (range: string) => range.split(';')[0].trim();
  const ranges = acceptLanguage
    .toLowerCase()
    .split(',')
    .filter((range) => languageOf(tagOf(range)) !== undefined);
  const chosen = negotiate(ranges.join(','), ranges.map(tagOf));
  return (chosen === null ? undefined : languageOf(chosen)) ?? 'es';
}

/** A translator: `t('key')`, with `{name}` placeholders filled from `values`. */
export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

export function translator(language: Language): Translate {
  const messages = MESSAGES[language];
  return (key, values) => {
    const text = messages[key];
    return values ? text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole)) : text;
  };
}

/** Both languages' dictionaries (tests check they have the same keys). */
export const DICTIONARIES = MESSAGES;
