/**
 * A listing in a person's words (CONTRACT §21): every lead-facing language has every word; no
 * vocabulary's code reaches the page; the location is only as precise as the published object;
 * and the sheet's text is what the PDF's standard fonts can write.
 */
import { describe, expect, it } from 'vitest';
import { LISTING_LANGUAGES } from '../../src/domain/catalogue/languages.ts';
import { CERTIFICATE_STATUSES, CONDITIONS } from '../../src/domain/catalogue/listing-facts.ts';
import { LISTING_WORDS, listingView } from '../../src/domain/catalogue/listing-words.ts';
import { buildPublishedDocs } from '../../src/domain/catalogue/property-doc.ts';
import { FEATURES, OPERATIONS, PROPERTY_TYPES } from '../../src/domain/catalogue/terms.ts';
import { winAnsi } from '../../src/services/catalogue/listing-sheet.ts';

/** The published object of a listing, as a console save or an import stores it. */
function published(overrides: Record<string, unknown>) {
  const fields = {
    external_ref: 'R-1',
    operation: 'venta',
    type: 'apartamento',
    subtype: 'piso',
    title: 'Piso en el centro',
    description: '<p>Bonito</p>',
    titles: null,
    descriptions: null,
    price: 250000,
    price_rent: null,
    price_transfer: null,
    size_total: 80,
    bedrooms: 2,
    bathrooms: 1,
    address: 'Calle Mayor 1',
    address_approximate: 'Centro',
    building_name: 'Torre',
    postal_code: '28013',
    city: 'Madrid',
    province: 'Madrid',
    country: 'España',
    pub_lat: 40.4165,
    pub_lon: -3.7055,
    address_privacy: 'public',
    status: 'disponible',
    public: 1,
    is_featured: 0,
    features: null,
    specs: null,
    created_at: '2026-01-01T00:00:00.000+00:00',
    updated_at: '2026-01-01T00:00:00.000+00:00',
    ...overrides,
  };
  return buildPublishedDocs(fields as never, [], []);
}

describe('the words of a listing page and sheet', () => {
  it.each(LISTING_LANGUAGES)('%s has every word, and words for every value of every vocabulary shown', (lang) => {
    const words = LISTING_WORDS[lang];
    for (const [key, value] of Object.entries(words)) if (typeof value === 'string') expect(value.trim(), key).not.toBe('');
    expect(Object.keys(words.types).sort()).toEqual([...PROPERTY_TYPES].sort());
    expect(Object.keys(words.operations).sort()).toEqual([...OPERATIONS].sort());
    expect(Object.keys(words.conditions).sort()).toEqual([...CONDITIONS].sort());
    expect(Object.keys(words.certificate).sort()).toEqual([...CERTIFICATE_STATUSES].sort());
    expect(Object.keys(words.features).sort()).toEqual(Object.keys(FEATURES).sort());
  });

  it('publishes the place as the privacy allows: the address, the approximate one, or the city alone', () => {
    const at = (address_privacy: string) => listingView(published({ address_privacy }).api_doc, null, 'en').location;
    expect(at('public')).toMatchObject({
      heading: 'Location',
      lines: ['Calle Mayor 1', '28013 Madrid'],
      map: { lat: 40.4165, lon: -3.7055, zoom: 17 },
    });
    expect(at('approximate')).toMatchObject({ heading: 'Approximate location', lines: ['Centro', '28013 Madrid'], map: { zoom: 14 } });
    expect(at('hidden')).toEqual({
      heading: 'Location',
      lines: ['Madrid'],
      note: 'The exact address is given when a viewing is arranged.',
      map: null,
    });
  });

  it('writes prices as in Spain, rents a month, in any language', () => {
    const both = listingView(published({ operation: 'venta,alquiler', price_rent: 1200 }).api_doc, null, 'de');
    expect(both.prices).toEqual(['250.000\u00a0€', '1200\u00a0€/Monat']);
    expect(both.kind).toBe('Wohnung · Zu verkaufen · Zu vermieten');
    const untitled = listingView(published({ title: null, description: null }).api_doc, null, 'it');
    expect(untitled.title).toBe('Appartamento a Madrid');
    expect(untitled.description).toBeNull();
  });

  it('writes for the standard PDF fonts: accents, the euro and quotes kept; other letters as their closest, or left out', () => {
    expect(winAnsi('Ático «luminoso» — 250.000 € · Straße, œuvre, “città”')).toBe('Ático «luminoso» — 250.000 € · Straße, œuvre, “città”');
    expect(winAnsi('CO₂ 12 m² 🏡 ﬁnca')).toBe('CO2 12 m²  finca');
  });
});
