/**
 * The console's language (issue 15): English when `Accept-Language` prefers it over Spanish by
 * quality, in any region, Spanish otherwise (src/http/console/i18n.ts).
 */
import { describe, expect, it } from 'vitest';
import { pickLanguage } from '../../src/http/console/i18n.ts';

describe("the console's language", () => {
  it.each([
    [undefined, 'es'],
    ['', 'es'],
    ['en', 'en'],
    ['es', 'es'],
    // As browsers send it: the region first, then the language, with falling qualities.
    ['en-GB,en;q=0.9,es;q=0.5', 'en'],
    ['es-ES,es;q=0.9,en;q=0.8', 'es'],
    ['de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7', 'en'],
    // Neither language: Spanish.
    ['fr-FR, de', 'es'],
    ['*', 'es'],
    ['fr, *;q=0.5', 'es'],
  ] as const)('%j is %s', (header, language) => {
    expect(pickLanguage(header)).toBe(language);
  });

  it('ranks by quality, whatever the order, and region tags count as their language', () => {
    expect(pickLanguage('en-GB;q=0.9, es;q=0.8')).toBe('en');
    expect(pickLanguage('es;q=0.8, en-GB;q=0.9')).toBe('en');
    expect(pickLanguage('en-GB;q=0.7, es-419;q=0.8')).toBe('es');
    expect(pickLanguage('pt-BR, en-AU;q=0.3, es-MX;q=0.2')).toBe('en');
    expect(pickLanguage('EN-gb;Q=0.9, es;q=0.8')).toBe('en');
  });

  it('takes the first of equal qualities, and never a language refused with q=0', () => {
    expect(pickLanguage('en, es')).toBe('en');
    expect(pickLanguage('es;q=0.5, en;q=0.5')).toBe('es');
    expect(pickLanguage('en;q=0, es;q=0.1')).toBe('es');
    expect(pickLanguage('en;q=0')).toBe('es');
    // A `*` does not lend its quality to a language the header ranks lower.
    expect(pickLanguage('es;q=0.4, *;q=0.9, en;q=0.5')).toBe('en');
  });
});
