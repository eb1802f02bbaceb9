/**
 * A generator of realistic Spanish listings in the import format (shared/data/README.md),
 * for the demo catalogue and for benchmark catalogues of any size. Deterministic for a seed.
 *
 * Covers all nine property types with their subtypes, the three operations (and combined
 * ones), every rental type, every status and every address privacy level, with images
 * (some not public) and videos (some not processed).
 */
import { Faker, es } from '@faker-js/faker';
import type { ImportRecord } from '../schemas/import-record.ts';
import { SUBTYPES, type PropertyType } from '../domain/catalogue/terms.ts';

/** Rooms as a listing's text says them: `1 dormitorio y 1 baño.`, `Estudio diáfano con 1 baño.` */
function rooms(bedrooms: number, bathrooms: number): string {
  const baths = `${bathrooms} ${bathrooms === 1 ? 'baño' : 'baños'}`;
  if (bedrooms === 0) return `Estudio diáfano con ${baths}.`;
  return `${bedrooms} ${bedrooms === 1 ? 'dormitorio' : 'dormitorios'} y ${baths}.`;
}

interface City {
  name: string;
  province: string;
  lat: number;
  lon: number;
  postalPrefix: string;
  districts: string[];
  /** € per m² for sale in this city. */
  saleM2: number;
}

const CITIES: City[] = [
  {
    name: 'Madrid',
    province: 'Madrid',
    lat: 40.4168,
    lon: -3.7038,
    postalPrefix: '280',
    districts: ['Centro', 'Salamanca', 'Chamberí', 'Retiro', 'Arganzuela', 'Tetuán', 'Chamartín', 'Latina', 'Carabanchel'],
    saleM2: 4800,
  },
  {
    name: 'Barcelona',
    province: 'Barcelona',
    lat: 41.3874,
    lon: 2.1686,
    postalPrefix: '080',
    districts: ['Eixample', 'Gràcia', 'Sants-Montjuïc', 'Sant Martí', 'Les Corts', 'Horta-Guinardó'],
    saleM2: 4600,
  },
  {
    name: 'Valencia',
    province: 'Valencia',
    lat: 39.4699,
    lon: -0.3763,
    postalPrefix: '460',
    districts: ['Ciutat Vella', 'Ruzafa', 'Benimaclet', 'El Cabanyal', 'Campanar'],
    saleM2: 2500,
  },
  {
    name: 'Sevilla',
    province: 'Sevilla',
    lat: 37.3891,
    lon: -5.9845,
    postalPrefix: '410',
    districts: ['Triana', 'Nervión', 'Casco Antiguo', 'Los Remedios', 'Macarena'],
    saleM2: 2300,
  },
  {
    name: 'Zaragoza',
    province: 'Zaragoza',
    lat: 41.6488,
    lon: -0.8891,
    postalPrefix: '500',
    districts: ['Centro', 'Delicias', 'Actur', 'Universidad', 'Casco Histórico'],
    saleM2: 1900,
  },
  {
    name: 'Málaga',
    province: 'Málaga',
    lat: 36.7213,
    lon: -4.4214,
    postalPrefix: '290',
    districts: ['Centro', 'El Palo', 'Teatinos', 'Carretera de Cádiz', 'Pedregalejo'],
    saleM2: 3300,
  },
  {
    name: 'Bilbao',
    province: 'Bizkaia',
    lat: 43.263,
    lon: -2.935,
    postalPrefix: '480',
    districts: ['Abando', 'Indautxu', 'Deusto', 'Casco Viejo', 'Santutxu'],
    saleM2: 3200,
  },
  {
    name: 'A Coruña',
    province: 'A Coruña',
    lat: 43.3623,
    lon: -8.4115,
    postalPrefix: '150',
    districts: ['Ciudad Vieja', 'Riazor', 'Los Rosales', 'Monte Alto'],
    saleM2: 2200,
  },
  {
    name: 'Ávila',
    province: 'Ávila',
    lat: 40.6566,
    lon: -4.6818,
    postalPrefix: '050',
    districts: ['Centro', 'La Toledana', 'San Antonio'],
    saleM2: 1300,
  },
  {
    name: 'Palma',
    province: 'Illes Balears',
    lat: 39.5696,
    lon: 2.6502,
    postalPrefix: '070',
    districts: ['Centre', 'Santa Catalina', 'Portixol', 'Son Espanyolet'],
    saleM2: 4200,
  },
];

interface TypeProfile {
  type: PropertyType;
  weight: number;
  size: [number, number];
  /** Sale price multiplier of the city's € per m². */
  priceFactor: number;
  rooms: boolean;
  features: Array<[string, string]>;
  word: string;
}

const HOME_FEATURES: Array<[string, string]> = [
  ['ascensor', 'Ascensor'],
  ['terraza', 'Terraza'],
  ['aire_acondicionado', 'Aire acondicionado'],
  ['armarios_empotrados', 'Armarios empotrados'],
  ['garaje', 'Plaza de garaje'],
  ['trastero', 'Trastero'],
  ['piscina', 'Piscina'],
  ['jardin', 'Jardín'],
  ['exterior', 'Exterior'],
  ['calefaccion', 'Calefacción'],
];
const WORK_FEATURES: Array<[string, string]> = [
  ['aire_acondicionado', 'Aire acondicionado'],
  ['salida_humos', 'Salida de humos'],
  ['escaparate', 'Escaparate'],
  ['acceso_24h', 'Acceso 24 horas'],
  ['muelle_carga', 'Muelle de carga'],
  ['alarma', 'Alarma'],
  ['ascensor', 'Ascensor'],
];

const PROFILES: TypeProfile[] = [
  { type: 'apartamento', weight: 45, size: [30, 180], priceFactor: 1, rooms: true, features: HOME_FEATURES, word: 'Piso' },
  { type: 'casa', weight: 15, size: [90, 450], priceFactor: 0.85, rooms: true, features: HOME_FEATURES, word: 'Casa' },
  { type: 'local', weight: 10, size: [40, 600], priceFactor: 0.7, rooms: false, features: WORK_FEATURES, word: 'Local' },
  { type: 'oficina', weight: 7, size: [40, 900], priceFactor: 0.8, rooms: false, features: WORK_FEATURES, word: 'Oficina' },
  { type: 'nave', weight: 4, size: [300, 5000], priceFactor: 0.2, rooms: false, features: WORK_FEATURES, word: 'Nave' },
  {
    type: 'almacenaje',
    weight: 4,
    size: [4, 40],
    priceFactor: 0.35,
    rooms: false,
    features: [
      ['acceso_24h', 'Acceso 24 horas'],
      ['alarma', 'Alarma'],
    ],
    word: 'Trastero',
  },
  {
    type: 'terreno',
    weight: 5,
    size: [300, 20000],
    priceFactor: 0.06,
    rooms: false,
    features: [
      ['agua', 'Toma de agua'],
      ['luz', 'Toma de luz'],
    ],
    word: 'Terreno',
  },
  {
    type: 'aparcamiento',
    weight: 8,
    size: [10, 30],
    priceFactor: 0.5,
    rooms: false,
    features: [
      ['plaza_cubierta', 'Plaza cubierta'],
      ['puerta_automatica', 'Puerta automática'],
    ],
    word: 'Plaza de garaje',
  },
  {
    type: 'edificio',
    weight: 2,
    size: [600, 4000],
    priceFactor: 0.9,
    rooms: false,
    features: [
      ['ascensor', 'Ascensor'],
      ['garaje', 'Plaza de garaje'],
    ],
    word: 'Edificio',
  },
];

// The three conditions of the import format (domain/catalogue/listing-facts.ts); good condition twice as often.
const CONDITIONS = ['a-reformar', 'buen-estado', 'buen-estado', 'obra-nueva'];
const ADJECTIVES = ['luminoso', 'reformado', 'amplio', 'céntrico', 'tranquilo', 'exterior', 'con vistas', 'bien comunicado'];

/** A deterministic catalogue of `count` listings in the import format. */
export function* generateCatalogue(count: number, seed = 42, refPrefix = 'demo'): Generator<ImportRecord> {
  const faker = new Faker({ locale: [es] });
  faker.seed(seed);
  const subtypesOf = (type: PropertyType) =>
    Object.entries(SUBTYPES)
      .filter(([, s]) => s.type === type)
      .map(([k]) => k);
  const weighted = PROFILES.flatMap((p) => Array<TypeProfile>(p.weight).fill(p));
  const base = Date.parse('2026-01-01T00:00:00Z');

  for (let i = 0; i < count; i++) {
    const f = faker;
    const city = f.helpers.arrayElement(CITIES);
    const profile = f.helpers.arrayElement(weighted);
    const subtype = f.datatype.boolean(0.9) ? f.helpers.arrayElement(subtypesOf(profile.type)) : null;
    const size = Math.round(f.number.float({ min: profile.size[0], max: profile.size[1] }));

    const roll = f.number.float();
    let operations: string[];
    if (profile.type === 'local' || profile.type === 'oficina' || profile.type === 'nave') {
      operations = roll < 0.35 ? ['venta'] : roll < 0.65 ? ['alquiler'] : roll < 0.85 ? ['traspaso'] : ['venta', 'alquiler'];
    } else {
      operations = roll < 0.62 ? ['venta'] : roll < 0.92 ? ['alquiler'] : ['venta', 'alquiler'];
    }
    const sale = Math.round((size * city.saleM2 * profile.priceFactor * f.number.float({ min: 0.7, max: 1.4 })) / 1000) * 1000;
    const rent = Math.round((sale * f.number.float({ min: 0.0035, max: 0.0055 })) / 10) * 10;
    const transfer = Math.round((sale * f.number.float({ min: 0.05, max: 0.2 })) / 500) * 500;

    const district = f.helpers.arrayElement(city.districts);
    const street = `${f.location.street()}, ${f.number.int({ min: 1, max: 180 })}`;
    const privacyRoll = f.number.float();
    const privacy = privacyRoll < 0.4 ? 'public' : privacyRoll < 0.9 ? 'approximate' : 'hidden';
    const statusRoll = f.number.float();
    const status =
      statusRoll < 0.85
        ? 'disponible'
        : statusRoll < 0.92
          ? 'reservada'
          : statusRoll < 0.96
            ? operations[0] === 'alquiler'
              ? 'alquilada'
              : 'vendida'
            : 'retirada';
    const bedrooms = profile.rooms ? f.number.int({ min: profile.type === 'casa' ? 2 : 0, max: profile.type === 'casa' ? 6 : 4 }) : null;
    const bathrooms = profile.rooms ? Math.max(1, Math.min(4, Math.round((bedrooms ?? 1) / 1.6))) : null;
    const featureCount = f.number.int({ min: 0, max: Math.min(6, profile.features.length) });
    const features = f.helpers
      .arrayElements(profile.features, featureCount)
      .map(([key, label]) => ({ key, label, value: true, isextra: false }));
    const imageCount = f.number.int({ min: 0, max: 8 });
    const images = Array.from({ length: imageCount }, (_, n) => ({
      url: `https://images.inmo.example/${refPrefix}/${i}/${n}.webp`,
      order: n,
      is_primary: n === 0,
      title: f.helpers.arrayElement(['Salón', 'Cocina', 'Dormitorio', 'Baño', 'Fachada', 'Vistas', null]),
      public: f.datatype.boolean(0.9),
    }));
    const videos = f.datatype.boolean(0.1)
      ? [
          {
            title: 'Visita virtual',
            order: 0,
            url: `https://videos.inmo.example/${refPrefix}/${i}.mp4`,
            hls_url: `https://videos.inmo.example/${refPrefix}/${i}/index.m3u8`,
            thumbnail_url: `https://videos.inmo.example/${refPrefix}/${i}.jpg`,
            embed_url: `https://videos.inmo.example/embed/${refPrefix}-${i}`,
            processed: f.datatype.boolean(0.8),
          },
        ]
      : [];
    const updated = base + f.number.int({ min: 0, max: 320 * 86_400 }) * 1000;
    const created = updated - f.number.int({ min: 0, max: 400 * 86_400 }) * 1000;
    const label = subtype ? SUBTYPES[subtype].label : profile.word;
    const opWord = operations[0] === 'venta' ? 'en venta' : operations[0] === 'alquiler' ? 'en alquiler' : 'en traspaso';
    const adjective = f.helpers.arrayElement(ADJECTIVES);

    yield {
      external_ref: `${refPrefix}:${i + 1}`,
      public: f.datatype.boolean(0.95),
      status,
      operation: operations.join(','),
      rental_type: operations.includes('alquiler')
        ? f.helpers.weightedArrayElement([
            { weight: 80, value: 'anual' },
            { weight: 15, value: 'temporal' },
            { weight: 5, value: 'vacacional' },
          ])
        : null,
      type: profile.type,
      subtype,
      title: `${label} ${adjective} ${opWord} en ${district}, ${city.name}`,
      description:
        `<p>${label} ${adjective} de ${size} m² en ${district}.` +
        (bedrooms !== null ? ` ${rooms(bedrooms, bathrooms ?? 1)}` : '') +
        `</p><p>${f.helpers.arrayElement(['Cerca de transporte público y servicios.', 'Zona tranquila con comercios.', 'Ideal para inversión.', 'Disponible de inmediato.'])}</p>`,
      price: operations.includes('venta') ? sale : null,
      price_rent: operations.includes('alquiler') ? rent : null,
      price_transfer: operations.includes('traspaso') ? transfer : null,
      size_total: size,
      bedrooms,
      bathrooms,
      address: `${street}, ${city.name}`,
      address_approximate: `${district}, ${city.name}`,
      building_name: f.datatype.boolean(0.1) ? `Edificio ${f.person.lastName()}` : null,
      postal_code: `${city.postalPrefix}${String(f.number.int({ min: 1, max: 99 })).padStart(2, '0')}`,
      city: city.name,
      province: city.province,
      country: 'España',
      lat: Math.round((city.lat + f.number.float({ min: -0.06, max: 0.06 })) * 1e7) / 1e7,
      lon: Math.round((city.lon + f.number.float({ min: -0.08, max: 0.08 })) * 1e7) / 1e7,
      address_privacy: privacy,
      images,
      videos,
      features,
      specs: {
        condition: f.helpers.arrayElement(CONDITIONS),
        district,
        floor: profile.rooms ? String(f.number.int({ min: 0, max: 9 })) : null,
      },
      is_featured: f.datatype.boolean(0.05),
      created_at: new Date(created).toISOString(),
      updated_at: new Date(updated).toISOString(),
    };
  }
}
