/**
 * Words everywhere (issue 47, CONTRACT §23): every page of the console, in Spanish and in English,
 * shows no code of a vocabulary raw and no time outside the business's time zone.
 *
 * - **Every page**: the console's GET routes are read from the app itself (Fastify's route tree),
 *   so a page added later is walked too, or this test fails naming the route it has no example of
 *   (the examples and their data: test/helpers/console-pages.ts, shared with the widths test).
 * - **A code shown raw**: a word of the visible text (html-to-text: no markup, scripts, styles,
 *   link targets or images) that is a value of one of the console's vocabularies (labels.ts, the
 *   `*_LABEL` maps) and is not a word of that language's own messages (messages/es.json,
 *   en.json). So `searching_property`, `no_show`, `agencia-inmobiliaria`, `property.withdraw` or
 *   `buyer` fail in both languages; `disponible` fails on an English page, `scheduled` on a Spanish one.
 * - **Times**: the business keeps `America/Mexico_City`, neither UTC nor Madrid, so a time written
 *   in either is caught: each `<time datetime>` shows the date (and, when it shows one, the hour
 *   and minute) its instant has in that zone. No visible text holds an RFC 3339 instant or an ISO date.
 */
import { readFileSync } from 'node:fs';
import { convert } from 'html-to-text';
import { DateTime } from 'luxon';
import { beforeAll, describe, expect, it } from 'vitest';
import * as labels from '../../../src/http/console/labels.ts';
import { Browser } from '../../helpers/console.ts';
import { consoleRoutes, PAGES_OWNER, seedConsolePages, type PageExample } from '../../helpers/console-pages.ts';
import { REPO_ROOT } from '../../helpers/db.ts';
import { withApp } from '../../helpers/http.ts';

const ZONE = 'America/Mexico_City';
const LANGUAGES = { es: 'es-ES,es;q=0.9', en: 'en-GB,en;q=0.9' } as const;
type Language = keyof typeof LANGUAGES;

/**
 * Every value of every vocabulary the console has words for, but the listings' languages (`es`,
 * `en`, `de`…): `en` and `de` are also Spanish words of the listings' own titles.
 */
const CODES = new Set(
  Object.entries(labels)
    .filter(([name, value]) => name.endsWith('_LABEL') && name !== 'LISTING_LANGUAGE_LABEL' && typeof value === 'object' && value !== null)
    .flatMap(([, value]) => Object.keys(value as object)),
);

/** The words of a language's messages, lower-cased. */
function wordsOf(language: Language): Set<string> {
  const messages = JSON.parse(readFileSync(`${REPO_ROOT}/src/http/console/messages/${language}.json`, 'utf8')) as Record<string, string>;
  return new Set(
    Object.values(messages)
      .flatMap((text) => text.toLowerCase().split(/[^\p{L}\p{N}_.:-]+/u))
      .map((word) => word.replace(/^[.:-]+|[.:-]+$/g, '')),
  );
}
const WORDS = { es: wordsOf('es'), en: wordsOf('en') };

/** The codes a page's visible text shows raw (see the module's comment). */
function rawCodes(text: string, language: Language): string[] {
  return [
    ...new Set(
      text
        .split(/[^\p{L}\p{N}_.:-]+/u)
        .map((word) => word.replace(/^[.:-]+|[.:-]+$/g, ''))
        .filter((word) => CODES.has(word) && !WORDS[language].has(word)),
    ),
  ];
}

/** What a person sees of a page: its text, without markup, scripts, link targets or images. */
const visible = (html: string) =>
  // A space before each tag, so that the words of adjacent elements (a select's options) stay apart.
  convert(html.replace(/</g, ' <'), {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'script', format: 'skip' },
      { selector: 'style', format: 'skip' },
      // A code the page shows as one on purpose (a key's scope beside its words, for integrators).
      { selector: 'code', format: 'skip' },
      // What people wrote (a lead's notes), marked as text not to translate.
      { selector: '[translate="no"]', format: 'skip' },
    ],
  });

/** Each `<time datetime>` whose text does not read as its instant does in {@link ZONE}. */
function timesOutOfZone(html: string, language: Language): string[] {
  const wrong: string[] = [];
  for (const [, datetime, text] of html.matchAll(/<time[^>]*datetime="([^"]+)"[^>]*>([^<]*)<\/time>/g)) {
    // A local date (a viewing's day) is the business's already.
    if (!datetime.includes('T')) continue;
    const local = DateTime.fromISO(datetime, { zone: ZONE }).setLocale(language === 'es' ? 'es-ES' : 'en-GB');
    const shown = text.replace(/\s+/g, ' ');
    // A time shows its hour and minute (the day may be the page's heading); a date, its day.
    const hour = /\b(\d{1,2}):(\d{2})\b/.exec(shown);
    const right = hour
      ? `${Number(hour[1])}:${hour[2]}` === `${local.hour}:${local.toFormat('mm')}`
      : new RegExp(`\\b0?${local.day}\\b`).test(shown);
    if (!right) wrong.push(`${datetime} shown as "${shown}" (in ${ZONE}: ${local.toFormat('d LLL HH:mm')})`);
  }
  return wrong;
}

describe('words everywhere', () => {
  const t = withApp();
  let examples: Record<string, PageExample>;

  beforeAll(async () => {
    await t.db.updateTable('businesses').set({ timezone: ZONE }).where('id', '=', t.businessId).execute();
    examples = await seedConsolePages(t);
  });

  it('walks every console page it has an example of, and has one of every page', () => {
    const routes = consoleRoutes(t.app.printRoutes({ commonPrefix: false, method: 'GET' }));
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.filter((route) => !(route in examples))).toEqual([]);
  });

  for (const language of Object.keys(LANGUAGES) as Language[]) {
    it(`shows words, never codes, and the business's times, on every page in ${language}`, async () => {
      const as = (headers: Record<string, string>) => new Browser(t.app, headers);
      const browsers = { owner: as({ 'accept-language': LANGUAGES[language] }), nobody: as({ 'accept-language': LANGUAGES[language] }) };
      await browsers.owner.login(PAGES_OWNER);
      const faults: string[] = [];
      let walked = 0;
      for (const [route, example] of Object.entries(examples)) {
        if (example === 'not a page') continue;
        const response = await browsers[example.as].get(example.url);
        expect(response.statusCode, `${route}: ${example.url}`).toBe(200);
        walked += 1;
        const text = visible(response.body);
        for (const code of rawCodes(text, language))
          faults.push(
            `${route}: the code "${code}" in "${text.slice(Math.max(0, text.indexOf(code) - 60), text.indexOf(code) + 40).replace(/\s+/g, ' ')}"`,
          );
        for (const time of timesOutOfZone(response.body, language)) faults.push(`${route}: ${time}`);
        for (const [instant] of text.matchAll(/\b\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}\S*)?/g))
          faults.push(`${route}: "${instant}" written as a code`);
      }
      expect(walked).toBeGreaterThan(20);
      expect(faults).toEqual([]);
    });
  }
});
