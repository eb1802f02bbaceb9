/**
 * Listings in five languages (issue 46, CONTRACT §22), from the import line to the published
 * texts (domain/catalogue/languages.ts, domain/catalogue/property-record.ts): `title` and
 * `description` are the Spanish ones, `titles` and `descriptions` hold every language; the
 * default text is the Spanish one, else the first held; a line of Spanish only is stored as
 * before; a stored listing reads back as the line that stores it again.
 */
import { describe, expect, it } from 'vitest';
import {
  buildPublishedTexts,
  docInLanguage,
  listingLanguage,
  missingLanguages,
  publishedTextsOf,
} from '../../src/domain/catalogue/languages.ts';
import { listingRecordOf, normalizeImportRecord, type ListingRecord } from '../../src/domain/catalogue/property-record.ts';
import { parseImportLine } from '../../src/services/catalogue/import/line.ts';

const NOW = '2026-11-24T10:00:00.000+00:00';
const fieldsOf = (record: ListingRecord) => normalizeImportRecord(record, NOW).fields;
const rejection = (extra: Record<string, unknown>) => parseImportLine(JSON.stringify({ external_ref: 'L-1', ...extra }), NOW);

describe('listingLanguage', () => {
  it.each([
    ['es', 'es'],
    ['en', 'en'],
    ['fr', 'fr'],
    ['de', 'de'],
    ['it', 'it'],
    ['gb', 'en'],
    ['ge', 'de'],
    ['EN', 'en'],
    [' De ', 'de'],
  ])('reads %j as %j', (code, lang) => expect(listingLanguage(code)).toBe(lang));

  it.each(['pt', 'ca', 'eng', 'en-GB', '', 'x'])('knows no language %j', (code) => expect(listingLanguage(code)).toBeNull());
});

describe('texts by language in the import line', () => {
  it('stores a line of Spanish only exactly as before: no titles or descriptions columns', () => {
    const fields = fieldsOf({ external_ref: 'L', title: 'Piso <b>luminoso</b>', description: '<p>Bonito</p>' });
    expect(fields).toMatchObject({ title: 'Piso luminoso', description: '<p>Bonito</p>', titles: null, descriptions: null });
    expect(fieldsOf({ external_ref: 'L', title: 'Piso', titles: { es: 'Piso' } })).toMatchObject({ title: 'Piso', titles: null });
    expect(fieldsOf({ external_ref: 'L', titles: { es: 'Piso' }, descriptions: { es: '<p>Sí</p>' } })).toMatchObject({
      title: 'Piso',
      description: '<p>Sí</p>',
      titles: null,
      descriptions: null,
    });
  });

  it('keeps every language held, the Spanish text the default', () => {
    const fields = fieldsOf({
      external_ref: 'L',
      title: 'Ático con vistas',
      titles: { en: 'Penthouse with views', de: 'Penthouse mit <i>Blick</i>', fr: '  ' },
      description: '<p>Ático</p>',
      descriptions: { de: '<p>Penthouse</p>', it: '' },
    });
    expect(fields.title).toBe('Ático con vistas');
    expect(fields.description).toBe('<p>Ático</p>');
    expect(JSON.parse(fields.titles!)).toEqual({ es: 'Ático con vistas', en: 'Penthouse with views', de: 'Penthouse mit Blick' });
    expect(JSON.parse(fields.descriptions!)).toEqual({ es: '<p>Ático</p>', de: '<p>Penthouse</p>' });
  });

  it('takes the first language held as the default when there is no Spanish text', () => {
    const fields = fieldsOf({ external_ref: 'L', titles: { it: 'Attico', de: 'Penthouse' }, descriptions: { fr: '<p>Attique</p>' } });
    expect(fields).toMatchObject({ title: 'Penthouse', description: '<p>Attique</p>' });
    expect(Object.keys(JSON.parse(fields.titles!))).toEqual(['de', 'it']);
  });

  it('rejects a language inmo does not keep, and a Spanish text given twice differently', () => {
    expect(rejection({ titles: { pt: 'Cobertura' } })).toEqual({
      ok: false,
      reason: 'titles: "pt" is not one of es, en, fr, de, it',
      faults: [{ field: 'titles', rule: 'language', ctx: { value: 'pt', expected: 'es, en, fr, de, it' } }],
    });
    expect(rejection({ descriptions: { en: 'x', gb: 'y' } })).toEqual({
      ok: false,
      reason: 'descriptions: "gb" is not one of es, en, fr, de, it',
      faults: [{ field: 'descriptions', rule: 'language', ctx: { value: 'gb', expected: 'es, en, fr, de, it' } }],
    });
    expect(rejection({ title: 'Piso', titles: { es: 'Otro piso', en: 'Flat' } })).toEqual({
      ok: false,
      reason: 'titles.es: differs from title; give the Spanish title once',
      faults: [{ field: 'titles.es', rule: 'language_twice', ctx: { other: 'title' } }],
    });
    expect(rejection({ titles: { en: 12 } })).toEqual({
      ok: false,
      reason: 'titles.en: Input should be a valid string',
      faults: [{ field: 'titles.en', rule: 'string_type' }],
    });
    expect(rejection({ descriptions: { de: 'x'.repeat(100_001) } })).toMatchObject({
      ok: false,
      reason: /^descriptions\.de: String should have at most/,
    });
  });

  it('reads a stored listing back as the line that stores it again', () => {
    const lines: ListingRecord[] = [
      { external_ref: 'A', title: 'Piso', description: '<p>Sí</p>' },
      { external_ref: 'B', title: 'Piso', titles: { en: 'Flat', it: 'Appartamento' }, descriptions: { de: '<p>Wohnung</p>' } },
      { external_ref: 'C', titles: { fr: 'Appartement' }, description: '<p>Piso</p>', descriptions: { en: '<p>Flat</p>' } },
    ];
    for (const line of lines) {
      const { fields, images, videos } = normalizeImportRecord(line, NOW);
      const again = normalizeImportRecord(listingRecordOf(fields, images, videos), NOW);
      expect(again.fields).toEqual(fields);
    }
    const b = normalizeImportRecord(lines[1], NOW).fields;
    expect(listingRecordOf(b, [], [])).toMatchObject({ title: 'Piso', titles: { es: 'Piso', en: 'Flat', it: 'Appartamento' } });
    const c = normalizeImportRecord(lines[2], NOW).fields;
    // No Spanish title: the stored default is French, and the line's `title` is none.
    expect(c.title).toBe('Appartement');
    expect(listingRecordOf(c, [], []).title).toBeNull();
  });
});

describe('published texts', () => {
  const fields = fieldsOf({
    external_ref: 'L',
    title: 'Piso',
    titles: { en: 'Flat<script>x</script>' },
    description: '<p>Sí</p>',
    descriptions: { de: '<p onclick="x()">Ja</p><script>alert(1)</script>' },
  });
  const texts = buildPublishedTexts(fields)!;

  it('holds every language, titles as plain text and descriptions through the allowlist', () => {
    expect(JSON.parse(texts)).toEqual({
      es: { title: 'Piso', description: '<p>Sí</p>' },
      en: { title: 'Flat', description: null },
      de: { title: null, description: '<p>Ja</p>' },
    });
    expect(buildPublishedTexts(fieldsOf({ external_ref: 'L', title: 'Piso', description: '<p>x</p>' }))).toBeNull();
  });

  it('puts a language into a Property object field by field, keeping the order and the rest', () => {
    const doc = JSON.stringify({ id: 1, title: 'Piso', price: 100000.5, description: '<p>Sí</p>', specs: { a: [1, 2.25] } });
    expect(docInLanguage(doc, texts, 'en')).toBe(doc.replace('"title":"Piso"', '"title":"Flat"'));
    expect(docInLanguage(doc, texts, 'de')).toBe(doc.replace('"description":"<p>Sí</p>"', '"description":"<p>Ja</p>"'));
    expect(docInLanguage(doc, texts, 'fr')).toBe(doc);
    expect(docInLanguage(doc, null, 'en')).toBe(doc);
  });

  it('gives a feed every language held, or the Spanish text of a listing without languages', () => {
    expect(Object.keys(publishedTextsOf({}, texts))).toEqual(['es', 'en', 'de']);
    expect(publishedTextsOf({ title: 'Piso', description: null }, null)).toEqual({ es: { title: 'Piso', description: null } });
    expect(publishedTextsOf({ title: '', description: null }, null)).toEqual({});
  });

  it('marks the languages that lack a title or a description', () => {
    expect(missingLanguages(fields)).toEqual(['en', 'fr', 'de', 'it']);
    expect(missingLanguages(fieldsOf({ external_ref: 'L', title: 'Piso', description: '<p>x</p>' }))).toEqual(['en', 'fr', 'de', 'it']);
    expect(missingLanguages(fieldsOf({ external_ref: 'L', title: 'Piso' }))).toEqual(['es', 'en', 'fr', 'de', 'it']);
  });
});
