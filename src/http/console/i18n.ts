/**
 * The console's words (issue 15): Spanish by default, English when the browser's
 * `Accept-Language` prefers it. Each language is one file, messages/es.json and
 * messages/en.json, of `key: text` with `{name}` placeholders, for translators to edit without
 * touching code. Templates call `t('key')` with the key written out, and label stored values
 * through the typed mappings of labels.ts (`label.leadStatus(s)`), never a key built from a value;
 * both files have every key (the type below and test/db/console.test.ts check it).
 */
import en from './messages/en.json' with { type: 'json' };
import es from './messages/es.json' with { type: 'json' };

export const LANGUAGES = ['es', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Every key the console's templates and routes use (the Spanish file has each). */
export type MessageKey = keyof typeof es;

// English must say everything Spanish says: a key missing from en.json does not compile.
const english: Record<MessageKey, string> = en;

const MESSAGES: Record<Language, Record<MessageKey, string>> = { es, en: english };

/**
 * The language of a request: the first of `es`/`en` in `Accept-Language` by quality (RFC 9110
 * §12.5.4), Spanish when neither is there.
 */
export function pickLanguage(acceptLanguage: string | undefined): Language {
  if (!acceptLanguage) return 'es';
  const ranked = acceptLanguage
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { primary: tag.split('-')[0], q: q === undefined ? 1 : Number(q), i };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return (ranked.find((entry) => (LANGUAGES as readonly string[]).includes(entry.primary))?.primary as Language) ?? 'es';
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
