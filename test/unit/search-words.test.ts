/**
 * The words of a console search (issue 57, CONTRACT §25; domain/search-text.ts `searchWords`):
 * folded as the stored search text is, split at white space and commas, at most 8.
 */
import { describe, expect, it } from 'vitest';
import { SEARCH_WORDS_MAX, searchWords } from '../../src/domain/search-text.ts';

describe('searchWords', () => {
  it('folds case and accents and splits at white space and commas', () => {
    expect(searchWords('  Ático\tCHAMBERÍ, luminoso ')).toEqual(['atico', 'chamberi', 'luminoso']);
    expect(searchWords('García López')).toEqual(['garcia', 'lopez']);
  });

  it('leaves out repeated words and words inside another word typed', () => {
    expect(searchWords('atico atico ático')).toEqual(['atico']);
    expect(searchWords('ama salamanca en chamberi')).toEqual(['salamanca', 'en', 'chamberi']);
  });

  it(`keeps the first ${SEARCH_WORDS_MAX} words`, () => {
    const words = Array.from({ length: 12 }, (_, i) => `w${String.fromCharCode(97 + i)}x`);
    expect(searchWords(words.join(' '))).toEqual(words.slice(0, SEARCH_WORDS_MAX));
  });

  it('reads blank text as no words, commas alone as one word, NUL removed', () => {
    expect(searchWords('   ')).toEqual([]);
    expect(searchWords(',')).toEqual([',']);
    expect(searchWords('Ma\u0000drid')).toEqual(['madrid']);
    expect(searchWords('50% _todo_')).toEqual(['50%', '_todo_']);
  });
});
