/** Matching rules (CONTRACT §7, spec §2.4): each criterion, near misses, the storage cap. */
import { describe, expect, it } from 'vitest';
import { searchEntryHasContent } from '../../src/domain/leads/rules.ts';
import {
  compileSearch,
  matchLead,
  missedCriteria,
  OP_ALQUILER,
  OP_TRASPASO,
  OP_VENTA,
  placeKey,
  type Listing,
} from '../../src/domain/leads/matching.ts';
import { toListing } from '../../src/services/leads/matching.ts';

/** A 2-bedroom flat for sale in central Madrid at 250,000 €; override any field. */
function flat(overrides: Partial<Listing> = {}): Listing {
  return {
    id: 1,
    ops: OP_VENTA,
    type: 'apartamento',
    subtype: 'piso',
    price: 250_000,
    priceRent: null,
    priceTransfer: null,
    size: 80,
    bedrooms: 2,
    bathrooms: 1,
    terraces: 0,
    terracesExact: true,
    terraceSize: null,
    features: new Set(['ascensor', 'exterior']),
    places: ['madrid', 'centro'],
    lat: 40.4168,
    lon: -3.7038,
    ...overrides,
  };
}

const missed = (entry: Record<string, unknown>, listing: Listing) => missedCriteria(compileSearch(entry), listing);

describe('each criterion', () => {
  it('operation: one of the wanted operations', () => {
    expect(missed({ operations: ['venta'] }, flat())).toEqual([]);
    expect(missed({ operations: ['alquiler'] }, flat())).toEqual(['operation']);
    expect(missed({ operations: ['alquiler', 'venta'] }, flat())).toEqual([]);
    expect(missed({ operations: ['alquiler'] }, flat({ ops: OP_VENTA | OP_ALQUILER, priceRent: 900 }))).toEqual([]);
  });

  it('type: one of the wanted property types', () => {
    expect(missed({ property_types: ['apartamento', 'casa'] }, flat())).toEqual([]);
    expect(missed({ property_types: ['casa'] }, flat())).toEqual(['type']);
    expect(missed({ property_types: ['casa'] }, flat({ type: null }))).toEqual(['type']);
  });

  it('subtypes: the criteria object of the listing’s type applies', () => {
    expect(missed({ apartamento: { subtypes: ['piso', 'atico'] } }, flat())).toEqual([]);
    expect(missed({ apartamento: { subtypes: ['atico'] } }, flat())).toEqual(['subtypes']);
    // Criteria for another type say nothing about this listing.
    expect(missed({ casa: { subtypes: ['chalet'] } }, flat())).toEqual([]);
  });

  it('sale price bounds apply to venta listings', () => {
    expect(missed({ operations: ['venta'], apartamento: { price_min: 200_000, price_max: 300_000 } }, flat())).toEqual([]);
    expect(missed({ operations: ['venta'], apartamento: { price_max: 200_000 } }, flat())).toEqual(['price_max']);
    expect(missed({ operations: ['venta'], apartamento: { price_min: 260_000 } }, flat())).toEqual(['price_min']);
    // Bounds are inclusive.
    expect(missed({ apartamento: { price_min: 250_000, price_max: 250_000 } }, flat())).toEqual([]);
  });

  it('rent bounds apply to alquiler listings, and to monthly rent only', () => {
    const rental = flat({ ops: OP_ALQUILER, price: null, priceRent: 900 });
    expect(missed({ operations: ['alquiler'], apartamento: { price_rent_max: 900 } }, rental)).toEqual([]);
    expect(missed({ operations: ['alquiler'], apartamento: { price_rent_max: 800 } }, rental)).toEqual(['price_rent_max']);
    expect(missed({ operations: ['alquiler'], apartamento: { price_rent_min: 1000 } }, rental)).toEqual(['price_rent_min']);
    // A sale price range says nothing about a rental.
    expect(missed({ operations: ['alquiler'], apartamento: { price_max: 100 } }, rental)).toEqual([]);
  });

  it('traspaso is bounded by price_min/price_max against the transfer price', () => {
    const transfer = flat({ type: 'local', ops: OP_TRASPASO, price: null, priceTransfer: 40_000 });
    expect(missed({ operations: ['traspaso'], local: { price_max: 50_000 } }, transfer)).toEqual([]);
    expect(missed({ operations: ['traspaso'], local: { price_max: 30_000 } }, transfer)).toEqual(['price_max']);
  });

  it('a listing offered for two wanted operations passes when one is within its bounds', () => {
    const both = flat({ ops: OP_VENTA | OP_ALQUILER, priceRent: 1200 });
    const entry = { operations: ['venta', 'alquiler'], apartamento: { price_max: 200_000, price_rent_max: 1500 } };
    expect(missed(entry, both)).toEqual([]);
    expect(missed({ ...entry, apartamento: { price_max: 200_000, price_rent_max: 1000 } }, both)).toEqual(['price_max']);
  });

  it('size_min and size_max (m²)', () => {
    expect(missed({ apartamento: { size_min: 70, size_max: 90 } }, flat())).toEqual([]);
    expect(missed({ apartamento: { size_min: 90 } }, flat())).toEqual(['size_min']);
    expect(missed({ apartamento: { size_max: 70 } }, flat())).toEqual(['size_max']);
  });

  it('bedrooms_min and bathrooms_min', () => {
    expect(missed({ apartamento: { bedrooms_min: 2, bathrooms_min: 1 } }, flat())).toEqual([]);
    expect(missed({ apartamento: { bedrooms_min: 3 } }, flat())).toEqual(['bedrooms_min']);
    expect(missed({ apartamento: { bathrooms_min: 2 } }, flat())).toEqual(['bathrooms_min']);
  });

  it('a bound on a value the listing does not state does not hold', () => {
    expect(missed({ apartamento: { bathrooms_min: 1 } }, flat({ bathrooms: null }))).toEqual(['bathrooms_min']);
    expect(missed({ apartamento: { price_max: 300_000 } }, flat({ price: null }))).toEqual(['price_max']);
  });

  it('num_terraces_min: the stored count; else the terraza feature (at least one); else none when features are listed', () => {
    expect(missed({ apartamento: { num_terraces_min: 1 } }, flat())).toEqual(['num_terraces_min']);
    expect(missed({ apartamento: { num_terraces_min: 1 } }, flat({ terraces: 1 }))).toEqual([]);
    expect(missed({ apartamento: { num_terraces_min: 2 } }, flat({ terraces: 1 }))).toEqual(['num_terraces_min']);
    // "At least one": enough for a minimum of 1, unknown (not judged) beyond.
    const featureOnly = flat({ terraces: 1, terracesExact: false });
    expect(missed({ apartamento: { num_terraces_min: 1 } }, featureOnly)).toEqual([]);
    expect(missed({ apartamento: { num_terraces_min: 2 } }, featureOnly)).toEqual([]);
    // Not stored at all: not judged.
    expect(missed({ apartamento: { num_terraces_min: 3 } }, flat({ terraces: null, terracesExact: false }))).toEqual([]);

    const withTerraza = toListing({ ...storedRow(), features: JSON.stringify([{ key: 'terraza', label: 'Terraza', value: true }]) });
    expect([withTerraza.terraces, withTerraza.terracesExact]).toEqual([1, false]);
    const stored = toListing({ ...storedRow(), specs: JSON.stringify({ num_terraces: 3 }) });
    expect([stored.terraces, stored.terracesExact]).toEqual([3, true]);
    const without = toListing({ ...storedRow(), features: JSON.stringify([{ key: 'ascensor', label: 'Ascensor', value: true }]) });
    expect([without.terraces, without.terracesExact]).toEqual([0, true]);
    expect(toListing(storedRow()).terraces).toBeNull();
  });

  it('size_terraces_min applies only where the terrace area is stored', () => {
    expect(missed({ apartamento: { size_terraces_min: 10 } }, flat())).toEqual([]);
    expect(missed({ apartamento: { size_terraces_min: 10 } }, flat({ terraceSize: 12 }))).toEqual([]);
    expect(missed({ apartamento: { size_terraces_min: 10 } }, flat({ terraceSize: 6 }))).toEqual(['size_terraces_min']);
  });

  it('features: every one named, by key or label, case- and accent-insensitive', () => {
    const listing = toListing({
      ...storedRow(),
      features: JSON.stringify([
        { key: 'aire_acondicionado', label: 'Aire acondicionado', value: true },
        { key: 'piscina', label: 'Piscina', value: false },
      ]),
    });
    expect(missed({ apartamento: { features: ['aire_acondicionado'] } }, listing)).toEqual([]);
    expect(missed({ apartamento: { features: ['Aire Acondicionado'] } }, listing)).toEqual([]);
    // A feature stored with value false is not there.
    expect(missed({ apartamento: { features: ['piscina'] } }, listing)).toEqual(['features']);
    expect(missed({ apartamento: { features: ['aire_acondicionado', 'garaje'] } }, listing)).toEqual(['features']);
  });

  it('location by name: city, province or district, case- and accent-insensitive', () => {
    const listing = toListing({ ...storedRow(), city: 'Madrid', province: 'Madrid', specs: JSON.stringify({ district: 'Chamberí' }) });
    expect(missed({ locations: [{ name: 'MADRID' }] }, listing)).toEqual([]);
    expect(missed({ locations: [{ name: 'chamberi' }] }, listing)).toEqual([]);
    expect(missed({ locations: [{ name: 'Zaragoza' }] }, listing)).toEqual(['location']);
    expect(missed({ locations: [{ name: 'Zaragoza' }, { name: 'Chamberí' }] }, listing)).toEqual([]);
  });

  it('location by map area: circle, rectangle, polygon, GeoJSON point', () => {
    const sol = flat({ lat: 40.4169, lon: -3.7035 });
    expect(missed({ locations: [{ type: 'circle', center: { lat: 40.4169, lng: -3.7035 }, radius: 300 }] }, sol)).toEqual([]);
    expect(missed({ locations: [{ type: 'circle', center: { lat: 40.45, lng: -3.7035 }, radius: 300 }] }, sol)).toEqual(['location']);
    expect(missed({ locations: [{ type: 'rectangle', bounds: { south: 40.41, west: -3.71, north: 40.42, east: -3.7 } }] }, sol)).toEqual(
      [],
    );
    const triangle = {
      type: 'polygon',
      coordinates: [
        { lat: 40.4, lng: -3.72 },
        { lat: 40.43, lng: -3.72 },
        { lat: 40.415, lng: -3.69 },
      ],
    };
    expect(missed({ locations: [triangle] }, sol)).toEqual([]);
    expect(missed({ locations: [{ geometry: { type: 'Point', coordinates: [-3.7035, 40.4169] }, radius: 50 }] }, sol)).toEqual([]);
    expect(
      missed({ locations: [{ type: 'circle', center: { lat: 40.4169, lng: -3.7035 }, radius: 300 }] }, flat({ lat: null, lon: null })),
    ).toEqual(['location']);
  });

  it('locations that are neither a name nor an area are ignored', () => {
    expect(missed({ locations: [{ foo: 'bar' }] }, flat())).toEqual([]);
  });
});

describe('near misses', () => {
  it('name the one criterion missed, in spec order, and stop at two', () => {
    const entry = { operations: ['venta'], property_types: ['apartamento'], apartamento: { price_max: 200_000, bedrooms_min: 3 } };
    expect(missed(entry, flat({ bedrooms: 3 }))).toEqual(['price_max']);
    expect(missed(entry, flat({ price: 150_000 }))).toEqual(['bedrooms_min']);
    expect(missed(entry, flat())).toEqual(['price_max', 'bedrooms_min']);
    expect(missed(entry, flat({ ops: OP_ALQUILER, type: 'casa' }))).toEqual(['operation', 'type']);
  });

  it('a listing for another operation within the price is a near miss on operation', () => {
    const rental = flat({ ops: OP_ALQUILER, price: null, priceRent: 700 });
    expect(missed({ operations: ['venta'], apartamento: { price_rent_max: 800 } }, rental)).toEqual(['operation']);
  });
});

describe('matchLead', () => {
  const listings = [
    flat({ id: 10 }),
    flat({ id: 11, bedrooms: 1 }),
    flat({ id: 12, bedrooms: 1, price: 900_000 }),
    flat({ id: 13, price: 300_000 }),
  ];
  const entry = { operations: ['venta'], apartamento: { bedrooms_min: 2, price_max: 280_000 } };

  it('stores matches and near misses with the entry index, in catalogue order', () => {
    const result = matchLead([{ internal_notes: 'solo notas' }, entry], listings, 100, searchEntryHasContent);
    expect(result.matches).toEqual([[10, 1]]);
    expect(result.nearMisses).toEqual([
      [11, 1, 'bedrooms_min'],
      [13, 1, 'price_max'],
    ]);
    expect(result.matchesTotal).toBe(1);
    expect(result.nearMissesTotal).toBe(2);
  });

  it('an entry without content matches nothing', () => {
    expect(matchLead([{}, { operations: [] }], listings, 100, searchEntryHasContent).matchesTotal).toBe(0);
  });

  it('keeps at most `limit` per entry and counts the rest', () => {
    const many = Array.from({ length: 50 }, (_, i) => flat({ id: i + 1 }));
    const result = matchLead([{ operations: ['venta'] }, { property_types: ['apartamento'] }], many, 5, searchEntryHasContent);
    expect(result.matches).toHaveLength(10);
    expect(result.matches.slice(0, 5).map(([id]) => id)).toEqual([1, 2, 3, 4, 5]);
    expect(result.matchesTotal).toBe(100);
  });
});

it('placeKey folds case, accents and separators', () => {
  expect(placeKey('  Chamberí ')).toBe('chamberi');
  expect(placeKey('aire_acondicionado')).toBe(placeKey('Aire Acondicionado'));
});

/** A stored property row as listMatchableProperties returns it. */
function storedRow() {
  return {
    id: 1,
    op_venta: 1,
    op_alquiler: 0,
    op_traspaso: 0,
    type: 'apartamento',
    subtype: 'piso',
    price: 250_000,
    price_rent: null,
    price_transfer: null,
    size_total: 80,
    bedrooms: 2,
    bathrooms: 1,
    lat: 40.4168,
    lon: -3.7038,
    pub_lat: 40.42,
    pub_lon: -3.7,
    city: 'Madrid',
    province: 'Madrid',
    features: null as string | null,
    specs: null as string | null,
  };
}
