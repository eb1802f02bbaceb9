/**
 * The console's listing form (CONTRACT §14): numbers as people type them, the form's fields as
 * an import line over the stored one, and every stored listing read back as the line it came
 * from (domain/catalogue/property-record.ts `listingRecordOf`), so an edit changes only what the form says.
 */
import { describe, expect, it } from 'vitest';
import { listingRecordOf, normalizeImportRecord, type ListingRecord } from '../../src/domain/catalogue/property-record.ts';
import { recordFromForm, typedNumber } from '../../src/http/console/sections/listings.ts';
import { CATALOGUES, readCatalogue } from '../helpers/db.ts';

describe('typedNumber', () => {
  it.each([
    ['250000', 250000],
    ['250.000', 250000],
    ['1.250.000', 1250000],
    ['82,5', 82.5],
    ['82.5', 82.5],
    ['1.250,50', 1250.5],
    [' 185 000 € ', 185000],
    ['', null],
    ['   ', null],
  ])('reads %j as %j', (text, value) => {
    expect(typedNumber(text)).toBe(value);
  });

  it('keeps what is not a number as typed, for the check to refuse', () => {
    expect(typedNumber('mucho')).toBe('mucho');
    expect(typedNumber('12,5,3')).toBe('12,5,3');
  });
});

describe('recordFromForm', () => {
  const stored: ListingRecord = {
    external_ref: 'X-1',
    images: [{ url: 'https://img.example/a.jpg', order: 0, is_primary: true, title: null, public: true }],
    specs: { floor: '3' },
    features: [{ key: 'chimenea', label: 'Chimenea', value: true, isextra: true }],
    created_at: '2025-01-01T00:00:00+00:00',
  };

  it('turns the fields into an import line over the stored one: empty is null, boxes are lists and flags', () => {
    const record = recordFromForm(
      {
        title: ' Ático ',
        city: '',
        price: '300.000',
        bedrooms: '2',
        operation: ['venta', 'alquiler'],
        features: ['chimenea', 'piscina'],
        public: '1',
      },
      stored,
    );
    expect(record).toMatchObject({
      external_ref: null,
      title: 'Ático',
      city: null,
      price: 300000,
      bedrooms: 2,
      price_rent: null,
      operation: 'venta,alquiler',
      public: true,
      is_featured: false,
      images: stored.images,
      specs: stored.specs,
      created_at: stored.created_at,
      features: [
        { key: 'chimenea', label: 'Chimenea', value: true, isextra: true },
        { key: 'piscina', label: 'Piscina', value: true, isextra: true },
      ],
    });
  });

  it('drops every feature and operation left unticked', () => {
    expect(recordFromForm({}, stored)).toMatchObject({ features: null, operation: null, public: false });
  });
});

describe('listingRecordOf', () => {
  it('gives back, for every listing of the sample of the real catalogues, the line that stores the same listing', () => {
    const now = '2026-11-24T12:00:00+00:00';
    let checked = 0;
    for (const path of CATALOGUES) {
      for (const line of readCatalogue(path)) {
        const stored = normalizeImportRecord(line as ListingRecord, now);
        const again = normalizeImportRecord(listingRecordOf(stored.fields, stored.images, stored.videos), now);
        expect(again).toEqual(stored);
        checked++;
      }
    }
    expect(checked).toBe(608); // every line of the sample (test/fixtures/catalogues)
  });
});
