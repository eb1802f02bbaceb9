/**
 * The words of an alert digest by WhatsApp (CONTRACT §21, domain/messaging/alert-page.ts): the
 * `property_alert` template's four parameters, never empty and on one line as WhatsApp requires,
 * and the page's words in the five languages.
 */
import { describe, expect, it } from 'vitest';
import { alertTemplateParameters, digestPageWords, pageLanguage } from '../../src/domain/messaging/alert-page.ts';

const LINK = 'https://inmo.example/d/QWxlcnQtcGFnZS1vZi10aGUtYnJvd3Nlci10ZXN0LTQ';

describe('the property_alert template', () => {
  it('takes the first name, the number of listings, the agency and the link, in that order', () => {
    expect(
      alertTemplateParameters('es', { leadName: '  Marta   Ruiz López ', count: 3, businessName: 'Inmobiliaria\nSol', link: LINK }),
    ).toEqual(['Marta', '3', 'Inmobiliaria Sol', LINK]);
  });

  it('names a lead without a name in its language, and never leaves a parameter empty', () => {
    expect(alertTemplateParameters('es', { leadName: null, count: 1, businessName: 'Sol', link: LINK })[0]).toBe('cliente');
    expect(alertTemplateParameters('en', { leadName: '   ', count: 1, businessName: 'Sol', link: LINK })[0]).toBe('customer');
    expect(alertTemplateParameters('de', { leadName: '\t', count: 1, businessName: 'Sol', link: LINK })[0]).toBe('Kunde');
    expect(alertTemplateParameters('xx', { leadName: null, count: 1, businessName: ' ', link: LINK })).toEqual(['cliente', '1', '-', LINK]);
    for (const parameter of alertTemplateParameters('fr', {
      leadName: 'Claire\t\tMartin',
      count: 5,
      businessName: 'A  \n  B',
      link: LINK,
    })) {
      expect(parameter).not.toMatch(/[\n\t]| {5}/);
      expect(parameter).not.toBe('');
    }
  });
});

describe('the digest page', () => {
  const listing = {
    title: null,
    price: 1200,
    monthly: true,
    size: 60,
    bedrooms: 1,
    city: 'Sevilla',
    priceDropped: false,
    photoUrl: null,
    url: null,
    dismissAction: null,
    dismissed: false,
    gone: false,
  };

  it('speaks the five languages, Spanish otherwise, and names an untitled listing by its city, no code', () => {
    expect(['es', 'en', 'fr', 'de', 'it', 'gb', null].map(pageLanguage)).toEqual(['es', 'en', 'fr', 'de', 'it', 'es', 'es']);
    const italian = digestPageWords('it', { businessName: 'Sol', listings: [listing] });
    expect(italian).toMatchObject({
      lang: 'it',
      title: 'Immobili per te',
      notInterested: 'Non mi interessa',
      offeredBy: 'Immobili offerti da Sol.',
    });
    expect(italian.listings).toEqual([
      { title: 'Immobile · Sevilla', facts: expect.stringMatching(/^1\.?200\s€\/mese · 60 m² · 1 camere · Sevilla$/) },
    ]);
    const gone = digestPageWords('de', { businessName: 'Sol', listings: [{ ...listing, title: 'Piso', gone: true }] });
    expect(gone.listings).toEqual([{ title: 'Piso', facts: '' }]);
    expect(gone.gone).toBe('Nicht mehr verfügbar.');
  });

  it('says after a price drop the price it dropped from, in the five languages (issue 57)', () => {
    const dropped = { ...listing, priceDropped: true, price: 1100, priceBefore: 1200 };
    const before = { es: 'antes', en: 'was', fr: 'avant', de: 'vorher', it: 'prima' };
    for (const [language, word] of Object.entries(before)) {
      const words = digestPageWords(language, { businessName: 'Sol', listings: [dropped] });
      expect(words.listings[0].facts).toMatch(new RegExp(`^1\\.?100\\s€/\\S+ \\(${word} 1\\.?200\\s€/\\S+\\) · 60 m²`));
    }
    expect(digestPageWords('es', { businessName: 'Sol', listings: [listing] }).listings[0].facts).not.toContain('antes');
  });
});
