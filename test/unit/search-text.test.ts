/** Search without case or accents (domain/search-text.ts, CONTRACT §23): the fold both engines compare. */
import { describe, expect, it } from 'vitest';
import { foldForSearch, leadSearchText, listingSearchText, searchTextOf } from '../../src/domain/search-text.ts';

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

  it("makes a listing's from its reference, each title it holds once, addresses, city and postal code", () => {
    const listing = {
      external_ref: 'ZGZ-01',
      title: 'Ático en el Tubo',
      titles: '{"es":"Ático en el Tubo","en":"Penthouse in El Tubo"}',
      address: 'Calle Estébanes 4',
      address_approximate: null,
      city: 'Zaragoza',
      postal_code: '50003',
    };
    expect(listingSearchText(listing)).toBe('zgz-01 atico en el tubo penthouse in el tubo calle estebanes 4 zaragoza 50003');
    expect(listingSearchText({ ...listing, titles: null, address: null })).toBe('zgz-01 atico en el tubo zaragoza 50003');
  });
});
