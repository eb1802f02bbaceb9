/**
 * idealista's v6 properties format (CONTRACT §22): every rule of the mapping of
 * domain/catalogue/idealista-feed.ts on listings as the API publishes them, each item validated
 * against the spec's own schemas (test/fixtures/spec/idealista-v6) with the draft-04 validator of
 * feeds/idealista-schema.ts; the copy of those schemas inmo ships is the spec's, byte for byte;
 * and every listing of the sample of the real catalogues is mapped to an item the schemas accept, or left out
 * with the reason its data gives.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  IDEALISTA_LEFT_OUT_REASONS,
  idealistaConservation,
  idealistaContact,
  idealistaCustomer,
  idealistaDescriptions,
  idealistaEnergyCertificate,
  idealistaFloor,
  idealistaHead,
  idealistaImages,
  idealistaLeftOutReason,
  idealistaProperty,
  idealistaStreet,
  IDEALISTA_TAIL,
  type IdealistaMapped,
} from '../../src/domain/catalogue/idealista-feed.ts';
import { PROPERTY_TYPES, SUBTYPES } from '../../src/domain/catalogue/terms.ts';
import { IDEALISTA_SCHEMAS_FOLDER, idealistaSchemas } from '../../src/feeds/idealista-schema.ts';
import { CATALOGUES, listing, readCatalogue } from '../helpers/db.ts';
import { published, publishedWithTexts, SPEC_IDEALISTA, specSchemas, SUBTYPE_KEYS } from '../helpers/idealista.ts';

/** A listing mapped and judged as the feed judges it: the item, or the reason it is left out. */
function judge(record: Record<string, unknown>, id = 1): { item: Record<string, any> } | { reason: string; field?: string } {
  const { p, langTexts } = publishedWithTexts(record, id);
  const mapped: IdealistaMapped = idealistaProperty(p, String(record.external_ref), SUBTYPE_KEYS, langTexts);
  if ('reason' in mapped) return { reason: mapped.reason };
  const schemas = specSchemas();
  let fault = schemas.property(mapped.item);
  if (fault?.path.startsWith('propertyFeatures')) fault = schemas.features(mapped.kind, mapped.item.propertyFeatures) ?? fault;
  if (fault) return idealistaLeftOutReason(fault, (p.specs as Record<string, unknown>).address_privacy);
  return { item: mapped.item };
}

const itemOf = (record: Record<string, unknown>, id = 1) => {
  const judged = judge(record, id);
  if (!('item' in judged)) throw new Error(`left out: ${JSON.stringify(judged)}`);
  return judged.item;
};

describe("idealista's schemas", () => {
  it('inmo ships the spec’s schemas, byte for byte', () => {
    const files = (folder: string) => [
      'rules.json',
      ...readdirSync(join(folder, 'properties'))
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => `properties/${f}`),
    ];
    expect(files(IDEALISTA_SCHEMAS_FOLDER)).toEqual(files(SPEC_IDEALISTA));
    for (const file of files(SPEC_IDEALISTA)) {
      expect(readFileSync(join(IDEALISTA_SCHEMAS_FOLDER, file), 'utf8'), file).toBe(readFileSync(join(SPEC_IDEALISTA, file), 'utf8'));
    }
  });

  it("accept idealista's own example, and name the field and rule of what breaks them", () => {
    const example = JSON.parse(readFileSync(join(SPEC_IDEALISTA, 'examples', 'properties.json'), 'utf8'));
    const schemas = idealistaSchemas();
    expect(schemas.customer(example)).toBeNull();
    const [first] = example.customerProperties;
    expect(schemas.property(first)).toBeNull();
    const { featuresBathroomNumber: _gone, ...features } = first.propertyFeatures;
    expect(schemas.features('homes', features)).toEqual({ path: 'propertyFeatures/featuresBathroomNumber', keyword: 'required' });
    expect(schemas.property({ ...first, propertyOperation: { ...first.propertyOperation, operationPrice: 0 } })).toEqual({
      path: 'propertyOperation/operationPrice',
      keyword: 'minimum',
    });
    expect(schemas.customer({ ...example, customerCode: 'ILC123' })).toEqual({ path: 'customerCode', keyword: 'pattern' });
  });
});

describe('a listing as a customerProperties item', () => {
  const flat = listing('REF-1', {
    address: 'Calle Mayor, 12, Madrid',
    postal_code: '28013',
    bedrooms: 3,
    bathrooms: 2,
    size_total: 95.6,
    price: 350000.4,
    description: '<p>Luminoso &amp; <b>exterior</b>.</p><p>Con ascensor.</p>',
    features: [
      { key: 'ascensor', label: 'Ascensor', value: true },
      { key: 'exterior', label: 'Exterior', value: true },
      { key: 'trastero', label: 'Trastero', value: false },
      { key: 'patio', label: 'Patio', value: true },
    ],
    specs: { floor: '3', condition: 'a-reformar', community_fees: 85.4, year_built: 1975 },
    images: [
      { url: 'https://img.example/b.jpg', order: 2, public: true, title: 'Salón' },
      { url: 'https://img.example/a.jpg', order: 1, public: true, title: 'livingRoom' },
      { url: 'https://img.example/hidden.jpg', order: 0, public: false },
      { url: 'https://img.example/c.jpg', order: 3, public: true, title: 'Mi foto favorita' },
    ],
  });

  it('carries the id, the reference, the operation and price, the full address, features and images of a public flat', () => {
    expect(itemOf(flat, 42)).toEqual({
      propertyCode: '42',
      propertyReference: 'REF-1',
      propertyVisibility: 'idealista',
      propertyOperation: { operationType: 'sale', operationPrice: 350000, operationPriceCommunity: 85 },
      propertyAddress: {
        addressVisibility: 'full',
        addressStreetName: 'Calle Mayor',
        addressStreetNumber: '12',
        addressFloor: '3',
        addressPostalCode: '28013',
        addressTown: 'Madrid',
        addressCountry: 'Spain',
        addressCoordinatesPrecision: 'exact',
        addressCoordinatesLatitude: 40.4165123,
        addressCoordinatesLongitude: -3.7055456,
      },
      propertyFeatures: {
        featuresType: 'flat',
        featuresAreaConstructed: 96,
        featuresBathroomNumber: 2,
        featuresBedroomNumber: 3,
        featuresBuiltYear: 1975,
        featuresConservation: 'toRestore',
        featuresLiftAvailable: true,
        featuresWindowsLocation: 'exterior',
        featuresStorage: false,
      },
      propertyDescriptions: [{ descriptionLanguage: 'spanish', descriptionText: 'Luminoso & exterior. Con ascensor.' }],
      propertyImages: [
        { imageOrder: 1, imageLabel: 'living', imageUrl: 'https://img.example/a.jpg' },
        { imageOrder: 2, imageLabel: 'living', imageUrl: 'https://img.example/b.jpg' },
        { imageOrder: 3, imageUrl: 'https://img.example/c.jpg' },
      ],
    });
  });

  it('publishes an approximate address as its zone: no street, the rounded position as moved, the postal code', () => {
    const item = itemOf({ ...flat, address_privacy: 'approximate', building_name: 'Torre Azul' });
    expect(item.propertyAddress).toEqual({
      addressVisibility: 'hidden',
      addressFloor: '3',
      addressPostalCode: '28013',
      addressTown: 'Madrid',
      addressCountry: 'Spain',
      addressCoordinatesPrecision: 'moved',
      addressCoordinatesLatitude: 40.42,
      addressCoordinatesLongitude: -3.71,
    });
    expect(JSON.stringify(item)).not.toMatch(/Mayor|Torre Azul|40\.4165|3\.7055/);
  });

  it('leaves out a hidden address, which publishes no street, postal code or position for idealista to place it by', () => {
    const record = { ...flat, address_privacy: 'hidden' };
    const mapped = idealistaProperty(published(record), 'REF-1', SUBTYPE_KEYS);
    expect('item' in mapped && mapped.item.propertyAddress).toEqual({
      addressVisibility: 'hidden',
      addressTown: 'Madrid',
      addressCountry: 'Spain',
    });
    expect(JSON.stringify(mapped)).not.toMatch(/Mayor|28013|40\.4|3\.7/);
    expect(judge(record)).toEqual({ reason: 'address_hidden' });
  });

  it.each([
    [
      'venta and alquiler: the sale',
      { operation: 'venta,alquiler', price: 300000, price_rent: 1200 },
      { operationType: 'sale', operationPrice: 300000 },
    ],
    [
      'alquiler: the monthly rent',
      { operation: 'alquiler', price: null, price_rent: 899.6 },
      { operationType: 'rent', operationPrice: 900 },
    ],
    [
      'venta without a price beside a priced alquiler: the rent',
      { operation: 'venta,alquiler', price: null, price_rent: 700 },
      { operationType: 'rent', operationPrice: 700 },
    ],
    [
      'a premises for rent and transfer: the transfer beside the rent',
      {
        type: 'local',
        subtype: 'local-comercial',
        bedrooms: null,
        operation: 'alquiler,traspaso',
        price: null,
        price_rent: 2000,
        price_transfer: 45000,
      },
      { operationType: 'rent', operationPrice: 2000, operationPriceTransfer: 45000 },
    ],
  ])('%s', (_name, overrides, operation) => {
    expect(itemOf(listing('OP', overrides)).propertyOperation).toEqual(operation);
  });

  it.each([
    ['offered only for transfer', { operation: 'traspaso', price: null, price_transfer: 50000 }, { reason: 'operation' }],
    ['for sale without a price', { price: null }, { reason: 'price' }],
    ['priced over idealista’s range', { price: 100_000_000 }, { reason: 'price' }],
    ['a home without bathrooms', { bathrooms: null }, { reason: 'bathrooms' }],
    ['a home with 0 bathrooms', { bathrooms: 0 }, { reason: 'bathrooms' }],
    ['a home without bedrooms', { bedrooms: null }, { reason: 'bedrooms' }],
    ['a home without its area', { size_total: null }, { reason: 'area' }],
    ['land without its area', { type: 'terreno', subtype: 'urbano', size_total: null }, { reason: 'area' }],
    ['a listing without a type', { type: null, subtype: null }, { reason: 'type' }],
    ['in a country idealista does not publish in', { country: 'Marruecos' }, { reason: 'country' }],
    [
      'approximate without a position or postal code',
      { address_privacy: 'approximate', lat: null, lon: null, postal_code: null },
      { reason: 'location' },
    ],
    ['with a town name longer than idealista takes', { city: 'M'.repeat(51) }, { reason: 'rules', field: 'addressTown' }],
  ])('leaves out a listing %s, with the reason', (_name, overrides, reason) => {
    expect(judge(listing('OUT', overrides))).toEqual(reason);
  });

  it('gives every reason words: each is one of the known ones', () => {
    expect([...IDEALISTA_LEFT_OUT_REASONS].sort()).toEqual(
      ['type', 'operation', 'price', 'area', 'bathrooms', 'bedrooms', 'address_hidden', 'location', 'country', 'rules'].sort(),
    );
  });

  it('maps every catalogue type and subtype to a feature type of the kind whose schema accepts it', () => {
    const complete = { size_total: 120, bedrooms: 2, bathrooms: 1, specs: { plot_size: 500 } };
    const types = new Map<string, string>();
    for (const type of PROPERTY_TYPES)
      types.set(type, itemOf(listing('T', { ...complete, type, subtype: null })).propertyFeatures.featuresType);
    for (const [key, { type }] of Object.entries(SUBTYPES))
      types.set(`${type}/${key}`, itemOf(listing('T', { ...complete, type, subtype: key })).propertyFeatures.featuresType);
    expect(Object.fromEntries(types)).toEqual({
      apartamento: 'flat',
      casa: 'house',
      local: 'premises',
      nave: 'premises_industrial',
      almacenaje: 'storage',
      oficina: 'office',
      terreno: 'land',
      aparcamiento: 'garage',
      edificio: 'building',
      'apartamento/piso': 'flat',
      'apartamento/atico': 'flat',
      'apartamento/duplex': 'flat',
      'apartamento/estudio': 'flat',
      'apartamento/loft': 'flat',
      'apartamento/apartamento': 'flat',
      'apartamento/planta-baja': 'flat',
      'apartamento/triplex': 'flat',
      'casa/chalet': 'house_independent',
      'casa/adosado': 'house_terraced',
      'casa/pareado': 'house_semidetached',
      'casa/casa-rural': 'rustic_rural',
      'casa/villa': 'house_independent',
      'casa/casa-de-pueblo': 'rustic_village',
      'casa/masia': 'rustic_masia',
      'casa/finca': 'rustic_house',
      'casa/bungalow': 'house',
      'local/local-comercial': 'premises_commercial',
      'local/bajo-comercial': 'premises_commercial',
      'nave/nave-industrial': 'premises_industrial',
      'nave/nave-logistica': 'premises_industrial',
      'almacenaje/trastero': 'storage',
      'oficina/despacho': 'office',
      'oficina/oficina-diafana': 'office',
      'terreno/urbano': 'land_urban',
      'terreno/urbanizable': 'land_countrybuildable',
      'terreno/rustico': 'land_countrynonbuildable',
      'aparcamiento/plaza-coche': 'garage',
      'aparcamiento/plaza-moto': 'garage',
      'edificio/edificio-residencial': 'building',
      'edificio/edificio-oficinas': 'building',
    });
  });

  it('marks penthouses, duplexes and studios, and a home with no bedroom as one room', () => {
    expect(itemOf(listing('A', { subtype: 'atico' })).propertyFeatures.featuresPenthouse).toBe(true);
    expect(itemOf(listing('D', { subtype: 'duplex' })).propertyFeatures.featuresDuplex).toBe(true);
    const studio = itemOf(listing('S', { subtype: 'estudio', bedrooms: 0 })).propertyFeatures;
    expect([studio.featuresStudio, studio.featuresRooms, studio.featuresBedroomNumber]).toEqual([true, 1, undefined]);
  });

  it('maps feature keys to the fields each kind has, and no other', () => {
    const features = [
      'ascensor',
      'aire_acondicionado',
      'calefaccion',
      'salida_humos',
      'alarma',
      'acceso_24h',
      'muelle_carga',
      'piscina',
      'jardin',
    ].map((key) => ({ key, label: key, value: true }));
    const of = (overrides: Record<string, unknown>) =>
      itemOf(listing('F', { features, bedrooms: null, bathrooms: null, ...overrides })).propertyFeatures;
    expect(of({ type: 'local', subtype: null })).toEqual({
      featuresType: 'premises',
      featuresAreaConstructed: 80,
      featuresConditionedAir: true,
      featuresHeating: true,
      featuresSmokeExtraction: true,
      featuresSecurityAlarm: true,
    });
    expect(of({ type: 'almacenaje', subtype: null })).toEqual({
      featuresType: 'storage',
      featuresAreaConstructed: 80,
      featuresAccess24h: true,
      featuresLoadingDock: true,
    });
    expect(of({ type: 'aparcamiento', subtype: null })).toEqual({
      featuresType: 'garage',
      featuresAreaConstructed: 80,
      featuresLiftAvailable: true,
      featuresSecurityAlarm: true,
    });
    // A lift is said of flats only among homes (features.json).
    const house = of({ type: 'casa', subtype: 'chalet', bedrooms: 3, bathrooms: 2 });
    expect([house.featuresLiftAvailable, house.featuresPool, house.featuresGarden, house.featuresConditionedAir]).toEqual([
      undefined,
      true,
      true,
      true,
    ]);
  });

  it('leaves out the optional facts idealista cannot take, keeping the listing', () => {
    const item = itemOf(listing('O', { specs: { community_fees: 12_000, year_built: 1500, plot_size: 0, floor: '99' } }));
    expect(item.propertyOperation).toEqual({ operationType: 'sale', operationPrice: 100000 });
    expect(item.propertyFeatures.featuresBuiltYear).toBeUndefined();
    expect(item.propertyFeatures.featuresAreaPlot).toBeUndefined();
    expect(item.propertyAddress.addressFloor).toBeUndefined();
  });

  it('leaves out a reference longer than idealista’s 50 characters (the code is what it matches by)', () => {
    expect(itemOf(listing('R'.repeat(51))).propertyReference).toBeUndefined();
    expect(itemOf(listing('R'.repeat(50))).propertyReference).toBe('R'.repeat(50));
  });
});

describe('the parts of an item', () => {
  it.each([
    ['3', '3'],
    [3, '3'],
    ['3º', '3'],
    ['0', 'bj'],
    ['Ground floor', 'bj'],
    ['ground', 'bj'],
    ['bajo', 'bj'],
    ['Planta baja', 'bj'],
    ['Mezzanine', 'en'],
    ['Entreplanta', 'en'],
    ['Semi-basement', 'ss'],
    ['semisótano', 'ss'],
    ['Basement', 'st'],
    ['Sótano', 'st'],
    ['Floor -1', '-1'],
    ['-2', '-2'],
    ['60', '60'],
    ['61', undefined],
    ['-3', undefined],
    ['ático', undefined],
    [null, undefined],
  ])('floor %j → %j', (floor, code) => {
    expect(idealistaFloor(floor)).toBe(code);
  });

  it('floors as the real catalogues write them (the sample keeps every spelling) all satisfy address.json’s pattern', () => {
    const floors = new Set(CATALOGUES.flatMap((file) => readCatalogue(file).map((r) => r.specs?.floor)));
    const mapped = [...floors].map(idealistaFloor).filter((f): f is string => f !== undefined);
    expect(mapped.length).toBeGreaterThan(30);
    for (const floor of mapped) expect(floor).toMatch(/^(-[1-2]|[1-9]|[1-5][0-9]|60|bj|en|ss|st)$/);
  });

  it('conditions: to restore, else good (new is for new developments only)', () => {
    expect(['a-reformar', 'buen-estado', 'obra-nueva', 'x', null].map(idealistaConservation)).toEqual([
      'toRestore',
      'good',
      'good',
      undefined,
      undefined,
    ]);
  });

  it.each([
    [
      { energy_certificate: { status: 'available', rating: 'B', consumption_kwh_m2_year: 85.3, emissions_kg_co2_m2_year: 17 } },
      { featuresEnergyCertificateRating: 'B', featuresEnergyCertificatePerformance: 85.3 },
    ],
    [
      { energy_certificate: { status: 'available', rating: null, consumption_kwh_m2_year: null } },
      { featuresEnergyCertificateRating: 'unknown' },
    ],
    [{ energy_certificate: { status: 'in_process', rating: null } }, { featuresEnergyCertificateRating: 'inProcess' }],
    [{ energy_certificate: { status: 'exempt', rating: null } }, { featuresEnergyCertificateRating: 'exempt' }],
    [{ energy_certificate: { status: 'available', rating: 'A', consumption_kwh_m2_year: 1200 } }, { featuresEnergyCertificateRating: 'A' }],
    [{ energy_rating: { consumption: 'C', emissions: 'D' } }, { featuresEnergyCertificateRating: 'C' }],
    [{ energy_rating: { consumption: 'X' } }, {}],
    [{}, {}],
  ])('energy certificate %j → %j', (specs, features) => {
    expect(idealistaEnergyCertificate(specs)).toEqual(features);
  });

  it('a listing written in several languages has a description in each, Spanish first', () => {
    const record = listing('L', {
      description: null,
      descriptions: { de: '<p>Helle Wohnung.</p><p>Mit Aufzug.</p>', en: '<p>Bright flat.</p>', es: '<p>Piso luminoso.</p>' },
      titles: { de: 'Wohnung', en: 'Flat' },
    });
    expect(itemOf(record).propertyDescriptions).toEqual([
      { descriptionLanguage: 'spanish', descriptionText: 'Piso luminoso.' },
      { descriptionLanguage: 'english', descriptionText: 'Bright flat.' },
      { descriptionLanguage: 'german', descriptionText: 'Helle Wohnung. Mit Aufzug.' },
    ]);
    // Without Spanish, the languages held.
    const foreign = itemOf(listing('F', { description: null, descriptions: { it: '<p>Appartamento.</p>', fr: '<p>Appartement.</p>' } }));
    expect(foreign.propertyDescriptions.map((d: { descriptionLanguage: string }) => d.descriptionLanguage)).toEqual(['french', 'italian']);
  });

  it('the facts of a listing given at the top level of its line reach idealista as they are stored', () => {
    const item = itemOf(
      listing('T', {
        energy_certificate: { status: 'available', rating: 'D', consumption_kwh_m2_year: 150.5, emissions_kg_co2_m2_year: 30 },
        floor: 'bj',
        community_fees: 60,
        year_built: 1990,
        condition: 'obra-nueva',
      }),
    );
    expect(item.propertyOperation.operationPriceCommunity).toBe(60);
    expect(item.propertyAddress.addressFloor).toBe('bj');
    expect(item.propertyFeatures).toMatchObject({
      featuresBuiltYear: 1990,
      featuresConservation: 'good',
      featuresEnergyCertificateRating: 'D',
      featuresEnergyCertificatePerformance: 150.5,
    });
  });

  it('an energy certificate reaches the features of a home, and the item stays valid', () => {
    const specs = { energy_certificate: { status: 'available', rating: 'E', consumption_kwh_m2_year: 190, emissions_kg_co2_m2_year: 40 } };
    const features = itemOf(listing('E', { specs })).propertyFeatures;
    expect([features.featuresEnergyCertificateRating, features.featuresEnergyCertificatePerformance]).toEqual(['E', 190]);
  });

  it('descriptions: one per language held, Spanish first, on one line, at most 4,000 characters', () => {
    const long = `<p>${'palabra '.repeat(800)}</p>`;
    const descriptions = idealistaDescriptions({ de: '<p>Hell.</p><p>Mit Aufzug.</p>', es: long, en: '<p>Bright</p>', it: '  ', fr: null });
    expect(descriptions.map((d) => d.descriptionLanguage)).toEqual(['spanish', 'english', 'german']);
    expect(descriptions[2].descriptionText).toBe('Hell. Mit Aufzug.');
    const spanish = descriptions[0].descriptionText;
    expect(Array.from(spanish).length).toBeLessThanOrEqual(4000);
    expect(spanish.endsWith('palabra…')).toBe(true);
    for (const d of descriptions) expect(d.descriptionText).toMatch(/^.{0,4000}$/u);
  });

  it('images: by order, numbered from 1, at most 200, labelled when the title is one of idealista’s', () => {
    const images = Array.from({ length: 210 }, (_, i) => ({
      url: `https://img.example/${i}.jpg`,
      title: ['Cocina', 'swimmingPool', 'Vistas al mar', null][i % 4],
    }));
    const mapped = idealistaImages(images);
    expect(mapped).toHaveLength(200);
    expect(mapped.slice(0, 4)).toEqual([
      { imageOrder: 1, imageLabel: 'kitchen', imageUrl: 'https://img.example/0.jpg' },
      { imageOrder: 2, imageLabel: 'pool', imageUrl: 'https://img.example/1.jpg' },
      { imageOrder: 3, imageUrl: 'https://img.example/2.jpg' },
      { imageOrder: 4, imageUrl: 'https://img.example/3.jpg' },
    ]);
  });

  it.each([
    ['Calle Mayor, 12, Madrid', { addressStreetName: 'Calle Mayor', addressStreetNumber: '12' }],
    ['Calle Mayor 12', { addressStreetName: 'Calle Mayor', addressStreetNumber: '12' }],
    ['Calle Mayor 1, 3ºB', { addressStreetName: 'Calle Mayor 1, 3ºB' }],
    ['Avenida Jota, 28013 Madrid', { addressStreetName: 'Avenida Jota' }],
    ['Lucero, Latina, Madrid', { addressStreetName: 'Lucero, Latina' }],
    ['Plaza Mayor, s/n, MADRID', { addressStreetName: 'Plaza Mayor', addressStreetNumber: 's/n' }],
  ])('street %j (in Madrid)', (address, street) => {
    expect(idealistaStreet(address, 'Madrid', 'Madrid')).toEqual(street);
  });

  it('a street in another town drops that town and its province', () => {
    expect(idealistaStreet('carretera de Huesca, 21, Zaragoza, Zaragoza', 'Zaragoza', 'Zaragoza')).toEqual({
      addressStreetName: 'carretera de Huesca',
      addressStreetNumber: '21',
    });
    expect(idealistaStreet('Calle Real 5, Alcalá de Henares, Madrid', 'Alcalá de Henares', 'Madrid')).toEqual({
      addressStreetName: 'Calle Real',
      addressStreetNumber: '5',
    });
  });

  it('the customer: its code and contact, no send date, and a document that parses', () => {
    const contact = idealistaContact({
      name: '  Inmobiliaria Sol y Mar, agencia de la Costa del Sol desde 1985, S.L.  ',
      email: 'hola@solymar.es',
    });
    expect(contact).toEqual({
      contactName: 'Inmobiliaria Sol y Mar, agencia de la Costa del Sol desde 19',
      contactEmail: 'hola@solymar.es',
    });
    const code = `ilc${'0a'.repeat(20)}`;
    const customer = idealistaCustomer(code, contact);
    const document = JSON.parse(`${idealistaHead(customer)}${JSON.stringify(itemOf(listing('X')))}${IDEALISTA_TAIL}`);
    expect(document).toMatchObject({ customerCountry: 'Spain', customerCode: code, customerContact: contact });
    expect(document.customerSendDate).toBeUndefined();
    expect(specSchemas().customer(document)).toBeNull();
  });
});

describe('every listing of the sample of the real catalogues', () => {
  it(
    'is mapped to an item the schemas accept, or left out for what its data lacks: a hidden address, or a home’s bathrooms',
    { timeout: 120_000 },
    () => {
      const latest = new Map<string, Record<string, any>>();
      for (const file of CATALOGUES) for (const r of readCatalogue(file)) latest.set(r.external_ref, r);
      const counts: Record<string, number> = {};
      let id = 0;
      let published = 0;
      for (const record of latest.values()) {
        const judged = judge(record, ++id);
        const expected = record.address_privacy === 'hidden' ? 'address_hidden' : !(record.bathrooms >= 1) ? 'bathrooms' : 'published';
        const got = 'item' in judged ? 'published' : judged.reason;
        expect(got, `${record.external_ref}: ${JSON.stringify(judged)}`).toBe(expected);
        counts[got] = (counts[got] ?? 0) + 1;
        if ('item' in judged) {
          published++;
          expect(judged.item.propertyReference).toBe(record.external_ref);
          if (record.address_privacy !== 'public') expect(judged.item.propertyAddress.addressStreetName).toBeUndefined();
        }
      }
      // Madrid's listings carry no bathrooms: only Zaragoza's reach idealista. The sample's 597 refs
      // (test/fixtures/catalogues, counted there with jq): 39 hidden, 309 without bathrooms, 249 published.
      expect(counts).toEqual({ published: 249, address_hidden: 39, bathrooms: 309 });
      expect(published).toBe(249);
    },
  );
});
