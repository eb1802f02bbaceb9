/** Search without case or accents (domain/search-text.ts, CONTRACT §23): the fold both engines compare. */
import { describe, expect, it } from 'vitest';
import { foldForSearch, leadSearchText, searchTextOf } from '../../src/domain/search-text.ts';

describe('foldForSearch', () => {
  it('drops case and the marks of Spanish, French, German and Italian letters, keeping the letters', () => {
    expect(foldForSearch('García CHAMBERÍ Logroño Ávila')).toBe('garcia chamberi logrono avila');
    expect(foldForSearch('Française Müller Perché Ça')).toBe('francaise muller perche ca');
    // Written decomposed (a letter and a combining accent), as some keyboards and pastes do: the same.
    expect(foldForSearch('Garci\u0301a')).toBe(foldForSearch('García'));
    expect(foldForSearch('İstanbul')).toBe('istanbul');
  });

  it('leaves digits, punctuation and the LIKE wildcards as they are', () => {
    expect(foldForSearch('REF-0042 50%_x')).toBe('ref-0042 50%_x');
  });
});

describe('searchTextOf', () => {
  it('folds the fields held, one space between them; null when none has text', () => {
    expect(searchTextOf(['Piso en Chamberí', null, ' ', 'Madrid'])).toBe('piso en chamberi madrid');
    expect(searchTextOf([null, undefined, ''])).toBeNull();
    expect(leadSearchText({ name: 'José Núñez', personal_email: 'JOSE@Correo.example', professional_email: null })).toBe(
      'jose nunez jose@correo.example',
    );
  });
});
