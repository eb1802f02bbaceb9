/**
 * The public catalogue as idealista's v6 properties format (CONTRACT §22; `spec/idealista-v6/`),
 * written from the Property objects `GET /properties` returns, so idealista gets exactly what the
 * API publishes, privacy included (§5): one customer document, one `customerProperties` item per
 * public listing. Each mapping below names the schema it follows; docs/integrators.md lists them.
 *
 * - `propertyCode` the property id; `propertyReference` its `external_ref` (left out when longer
 *   than the 50 characters idealista takes: the code is what idealista matches by);
 * - `propertyOperation`: one operation per item, as idealista has one per property: `venta` as
 *   `sale` with the sale price, else `alquiler` as `rent` with the monthly rent (a premises' transfer
 *   price as `operationPriceTransfer` beside it); a listing offered only for `traspaso` is left out;
 *   prices in whole euros;
 * - `propertyAddress` as privacy allows: `public` → visibility `full`, the street (and number),
 *   the postal code, exact coordinates (`exact`); `approximate` → visibility `hidden`, the
 *   coordinates the API publishes (2 decimals) as `moved`, the postal code, never a street;
 *   `hidden` → no street, no postal code, no coordinates at all, which idealista's schema refuses:
 *   such a listing is left out, with that reason;
 * - `propertyFeatures`: the catalogue's type and subtype as idealista's feature type (which also
 *   picks the schema the features follow: homes, premises, offices, …), the areas, rooms and the
 *   feature keys that kind has a field for;
 * - `propertyDescriptions`: the description as plain text on one line (the schema's `^.{0,4000}$`
 *   admits no line break), at most 4,000 characters, per language held;
 * - `propertyImages`: public images by order, at most 200 (idealista's `imageOrder` range), with
 *   idealista's label when the image's title names one.
 *
 * What the schema still refuses (a home without bathrooms, an area out of range, …) is found by
 * validating each item (feeds/idealista-schema.ts) and told in words by {@link idealistaLeftOutReason}.
 */
import { plainDescription, type PublishedProperty, type SubtypeKeys } from './kyero-feed.ts';
import { publishedTextsOf, type ListingLanguage } from './languages.ts';
import { listingFacts, type EnergyCertificate } from './listing-facts.ts';

/** The kinds of property idealista describes, each by the schema of its `propertyFeatures` (`<kind>.json`). */
export const IDEALISTA_KINDS = ['homes', 'land', 'storage', 'garage', 'building', 'premises', 'offices'] as const;
export type IdealistaKind = (typeof IDEALISTA_KINDS)[number];

/**
 * Why a listing is left out of an idealista document (each has words in the console):
 * `type` no type; `operation` neither sale nor rent; `price` no price (or one out of range) for the
 * operation published; `area` no built area (a plot's for land) in range; `bathrooms`, `bedrooms`
 * a home without them; `address_hidden` a hidden address gives idealista nothing to place it by;
 * `location` neither a street with its town, a postal code nor coordinates; `country` a country
 * idealista does not publish in; `rules` any other rule of the schema (the field is named).
 */
export const IDEALISTA_LEFT_OUT_REASONS = [
  'type',
  'operation',
  'price',
  'area',
  'bathrooms',
  'bedrooms',
  'address_hidden',
  'location',
  'country',
  'rules',
] as const;
export type IdealistaLeftOutReason = (typeof IDEALISTA_LEFT_OUT_REASONS)[number];

/** A listing left out: its id and reference, the reason and, for `rules`, the idealista field whose rule it broke. */
export interface IdealistaLeftOut {
  id: number;
  ref: string;
  reason: IdealistaLeftOutReason;
  field?: string;
}

/** A `customerProperties` item: a JSON object of idealista's v6 format. */
export type IdealistaProperty = Record<string, unknown> & { propertyCode: string };

/** A listing mapped: the item and the kind of its features, or why it cannot be. */
export type IdealistaMapped = { item: IdealistaProperty; kind: IdealistaKind } | { reason: IdealistaLeftOutReason };

/** The country of the customer, and of a listing whose own is not given. */
export const IDEALISTA_COUNTRY = 'Spain';

/** A feature type of idealista, the kind whose schema holds it, and the flags that subtype sets. */
interface IdealistaType {
  kind: IdealistaKind;
  type: string;
  flags?: Readonly<Record<string, true>>;
}

/**
 * Catalogue type (and `type/subtype`) → idealista's `featuresType`, from the enums of homes.json
 * (Spain's rustic types as its description lists them), premises.json, offices.json,
 * storage.json, garage.json, building.json and land.json.
 */
const IDEALISTA_TYPES: Readonly<Record<string, IdealistaType>> = {
  apartamento: { kind: 'homes', type: 'flat' },
  'apartamento/atico': { kind: 'homes', type: 'flat', flags: { featuresPenthouse: true } },
  'apartamento/duplex': { kind: 'homes', type: 'flat', flags: { featuresDuplex: true } },
  'apartamento/estudio': { kind: 'homes', type: 'flat', flags: { featuresStudio: true } },
  casa: { kind: 'homes', type: 'house' },
  'casa/chalet': { kind: 'homes', type: 'house_independent' },
  'casa/villa': { kind: 'homes', type: 'house_independent' },
  'casa/adosado': { kind: 'homes', type: 'house_terraced' },
  'casa/pareado': { kind: 'homes', type: 'house_semidetached' },
  'casa/casa-rural': { kind: 'homes', type: 'rustic_rural' },
  'casa/masia': { kind: 'homes', type: 'rustic_masia' },
  'casa/finca': { kind: 'homes', type: 'rustic_house' },
  'casa/casa-de-pueblo': { kind: 'homes', type: 'rustic_village' },
  local: { kind: 'premises', type: 'premises' },
  'local/local-comercial': { kind: 'premises', type: 'premises_commercial' },
  'local/bajo-comercial': { kind: 'premises', type: 'premises_commercial' },
  nave: { kind: 'premises', type: 'premises_industrial' },
  almacenaje: { kind: 'storage', type: 'storage' },
  oficina: { kind: 'offices', type: 'office' },
  terreno: { kind: 'land', type: 'land' },
  'terreno/urbano': { kind: 'land', type: 'land_urban' },
  'terreno/urbanizable': { kind: 'land', type: 'land_countrybuildable' },
  'terreno/rustico': { kind: 'land', type: 'land_countrynonbuildable' },
  aparcamiento: { kind: 'garage', type: 'garage' },
  edificio: { kind: 'building', type: 'building' },
};

/** idealista's feature type for a published type and subtype label, or null when the listing has no type. */
export function idealistaType(type: string | null, subtypeLabel: string | null, subtypeKeys: SubtypeKeys): IdealistaType | null {
  if (type === null) return null;
  const key = subtypeLabel === null ? undefined : subtypeKeys.get(subtypeLabel);
  return (key !== undefined && IDEALISTA_TYPES[`${type}/${key}`]) || IDEALISTA_TYPES[type] || null;
}

/** The `windows location` field's value for the `exterior` feature. */
const WINDOWS = (exterior: boolean) => (exterior ? 'exterior' : 'interior');

/**
 * The catalogue's feature keys (domain/catalogue/terms.ts, and the demo's) → the field each kind's
 * schema has for it (features.json): a field name takes the feature's value as a boolean.
 */
const FEATURE_FIELDS: Readonly<Record<IdealistaKind, Readonly<Record<string, string | ((on: boolean) => [string, unknown])>>>> = {
  homes: {
    ascensor: 'featuresLiftAvailable',
    terraza: 'featuresTerrace',
    aire_acondicionado: 'featuresConditionedAir',
    armarios_empotrados: 'featuresWardrobes',
    garaje: 'featuresParkingAvailable',
    trastero: 'featuresStorage',
    piscina: 'featuresPool',
    jardin: 'featuresGarden',
    exterior: (on) => ['featuresWindowsLocation', WINDOWS(on)],
  },
  premises: {
    aire_acondicionado: 'featuresConditionedAir',
    trastero: 'featuresStorage',
    calefaccion: 'featuresHeating',
    salida_humos: 'featuresSmokeExtraction',
    alarma: 'featuresSecurityAlarm',
  },
  offices: {
    aire_acondicionado: 'featuresConditionedAir',
    trastero: 'featuresStorage',
    calefaccion: 'featuresHeating',
    alarma: 'featuresSecurityAlarm',
    exterior: (on) => ['featuresWindowsLocation', WINDOWS(on)],
  },
  storage: { acceso_24h: 'featuresAccess24h', muelle_carga: 'featuresLoadingDock' },
  garage: { ascensor: 'featuresLiftAvailable', alarma: 'featuresSecurityAlarm' },
  building: {},
  land: {},
};

/** A whole number within `[min, max]` of a number, or undefined (an optional fact idealista cannot take is not sent). */
function bounded(value: unknown, min: number, max: number): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const n = Math.round(value);
  return n >= min && n <= max ? n : undefined;
}

/** A required number, rounded, as it is: the schema judges its range (and names it when it fails). */
const whole = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? Math.round(value) : undefined);

/** Texts already folded: image titles, towns and countries repeat across a catalogue (bounded: cleared when full). */
const FOLDED = new Map<string, string>();

/** Lower case, without accents, spaces, hyphens or underscores: how free text is compared with a vocabulary. */
function folded(text: string): string {
  let result = FOLDED.get(text);
  if (result === undefined) {
    result = text
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[\s_-]+/g, '');
    if (FOLDED.size >= 10_000) FOLDED.clear();
    FOLDED.set(text, result);
  }
  return result;
}

/**
 * `specs.condition` (`obra-nueva`, `buen-estado`, `a-reformar`, CONTRACT §22) →
 * `featuresConservation`. `new` is idealista's for new developments only (features.json), which
 * this document does not carry: a new build is `good`.
 */
export function idealistaConservation(condition: unknown): 'good' | 'toRestore' | undefined {
  if (condition === 'a-reformar') return 'toRestore';
  if (condition === 'buen-estado' || condition === 'obra-nueva') return 'good';
  return undefined;
}

/** Words for floors below and at street level → idealista's `addressFloor` codes. */
const FLOOR_WORDS: Readonly<Record<string, string>> = {
  bj: 'bj',
  bajo: 'bj',
  plantabaja: 'bj',
  ground: 'bj',
  groundfloor: 'bj',
  en: 'en',
  entreplanta: 'en',
  entresuelo: 'en',
  mezzanine: 'en',
  ss: 'ss',
  semisotano: 'ss',
  semibasement: 'ss',
  st: 'st',
  sotano: 'st',
  basement: 'st',
};

/**
 * `specs.floor` (a number, or the words listings use: `3`, `3º`, `Floor -1`, `Ground floor`,
 * `bajo`, `Mezzanine`, `Semi-basement`, `Basement`) → idealista's `addressFloor`
 * (`^(-[1-2]|[1-9]|[1-5][0-9]|60|bj|en|ss|st)$`, address.json): 0 is `bj`. Undefined for anything else.
 */
export function idealistaFloor(floor: unknown): string | undefined {
  if (typeof floor !== 'string' && typeof floor !== 'number') return undefined;
  // Folded but for the minus sign: `Floor -1` is below the street.
  const text = String(floor)
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/\s+/g, '')
    .replace(/^(floor|planta)(?=-?\d)/, '');
  const number = /^(-?\d{1,2})(º|ª|o)?$/.exec(text);
  if (number) {
    const n = Number(number[1]);
    if (n === 0) return 'bj';
    return (n >= -2 && n <= -1) || (n >= 1 && n <= 60) ? String(n) : undefined;
  }
  return FLOOR_WORDS[folded(text)];
}

/** Letters of a Spanish energy rating. */
const RATING = /^[A-G]$/;

/**
 * The energy certificate as idealista's features (features.json): `featuresEnergyCertificateRating`
 * and `featuresEnergyCertificatePerformance` (kWh/m²·year, 1 to 999).
 *
 * From the listing's `specs.energy_certificate` (CONTRACT §22, domain/catalogue/listing-facts.ts:
 * `status` `available` with its `rating` A–G, `in_process` → `inProcess`, `exempt` → `exempt`;
 * `consumption_kwh_m2_year` → performance) when it holds one; else from a Kyero import's
 * `specs.energy_rating.consumption` letter. idealista's v6 has no field for emissions: they are
 * not sent.
 */
export function idealistaEnergyCertificate(specs: Record<string, unknown>): Record<string, unknown> {
  const certificate: EnergyCertificate | null = listingFacts(specs).energy_certificate;
  if (certificate) {
    const out: Record<string, unknown> = {};
    if (certificate.status === 'exempt') out.featuresEnergyCertificateRating = 'exempt';
    else if (certificate.status === 'in_process') out.featuresEnergyCertificateRating = 'inProcess';
    else
      out.featuresEnergyCertificateRating = certificate.rating !== null && RATING.test(certificate.rating) ? certificate.rating : 'unknown';
    const consumption = certificate.consumption_kwh_m2_year;
    if (certificate.status === 'available' && consumption !== null && consumption >= 1 && consumption <= 999)
      out.featuresEnergyCertificatePerformance = consumption;
    return out;
  }
  const kyero = (specs.energy_rating ?? null) as { consumption?: unknown } | null;
  if (kyero && typeof kyero.consumption === 'string' && RATING.test(kyero.consumption)) {
    return { featuresEnergyCertificateRating: kyero.consumption };
  }
  return {};
}

/** The five languages listings are written in (domain/catalogue/languages.ts) → idealista's `descriptionLanguage` (description.json). */
export const IDEALISTA_LANGUAGES = {
  es: 'spanish',
  en: 'english',
  fr: 'french',
  de: 'german',
  it: 'italian',
} as const satisfies Record<ListingLanguage, string>;

/** idealista's limit of a description, in characters (`stringTo4000`). */
const DESCRIPTION_MAX = 4000;

/**
 * A description (HTML) as idealista's `descriptionText`: plain text (domain/catalogue/kyero-feed.ts),
 * paragraphs and breaks joined by a space (the schema's `^.{0,4000}$` takes no line break), at
 * most 4,000 characters (cut at a word, with `…`). Empty: null.
 */
export function idealistaText(html: string | null): string | null {
  const text = plainDescription(html)
    .replace(/\s*[\n\r\u2028\u2029]+\s*/g, ' ')
    .trim();
  if (!text) return null;
  const characters = Array.from(text);
  if (characters.length <= DESCRIPTION_MAX) return text;
  const cut = characters.slice(0, DESCRIPTION_MAX - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > cut.length - 200 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * `propertyDescriptions`: one per language held, Spanish first, in the order of
 * {@link IDEALISTA_LANGUAGES}. `descriptions` maps a language to its HTML description.
 */
export function idealistaDescriptions(
  descriptions: Partial<Record<ListingLanguage, string | null>>,
): Array<{ descriptionLanguage: string; descriptionText: string }> {
  const out: Array<{ descriptionLanguage: string; descriptionText: string }> = [];
  for (const [language, name] of Object.entries(IDEALISTA_LANGUAGES) as Array<[ListingLanguage, string]>) {
    const text = idealistaText(descriptions[language] ?? null);
    if (text !== null) out.push({ descriptionLanguage: name, descriptionText: text });
  }
  return out;
}

/**
 * An image's title → idealista's `imageLabel` (images.json): the label itself, the names
 * idealista's own listings use (`livingRoom`, `swimmingPool`, …) and the Spanish words of the
 * console; compared without case, accents, spaces or underscores.
 */
const IMAGE_LABELS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries({
    appraisalplan: ['appraisalplan'],
    archive: ['archive', 'archivo'],
    atmosphere: ['atmosphere', 'ambiente'],
    balcony: ['balcony', 'balcon'],
    basement: ['basement', 'sotano'],
    bathroom: ['bathroom', 'bano', 'aseo'],
    bedroom: ['bedroom', 'dormitorio', 'habitacion'],
    buildingwork: ['buildingwork', 'obra'],
    cellar: ['cellar', 'bodega'],
    communalareas: ['communalareas', 'zonascomunes'],
    corridor: ['corridor', 'pasillo'],
    details: ['details', 'detalles', 'detalle'],
    dining_room: ['diningroom', 'comedor'],
    energycertificate: ['energycertificate', 'energycertification', 'certificadoenergetico'],
    facade: ['facade', 'fachada'],
    garage: ['garage', 'parkingspace', 'garaje', 'parking'],
    garden: ['garden', 'jardin'],
    gateway: ['gateway', 'entranceexit', 'portal'],
    hall: ['hall', 'recibidor', 'entrada', 'vestibulo'],
    kitchen: ['kitchen', 'cocina'],
    land: ['land', 'terreno', 'parcela'],
    lifts: ['lifts', 'lift', 'ascensor'],
    living: ['living', 'livingroom', 'salon'],
    loft: ['loft', 'buhardilla'],
    mates: ['mates'],
    meeting_room: ['meetingroom', 'saladereuniones'],
    office: ['office', 'oficina', 'despacho'],
    open_plan: ['openplan', 'diafano'],
    patio: ['patio'],
    penthouse: ['penthouse', 'atico'],
    plan: ['plan', 'plano'],
    pool: ['pool', 'swimmingpool', 'piscina'],
    porch: ['porch', 'porche'],
    pressphoto: ['pressphoto'],
    reception: ['reception', 'recepcion'],
    room: ['room', 'estancia'],
    shop_window: ['shopwindow', 'escaparate'],
    staircase: ['staircase', 'escalera'],
    storage: ['storage', 'storeroom', 'trastero'],
    storage_space: ['storagespace', 'almacen'],
    studio: ['studio', 'estudio'],
    surroundings: ['surroundings', 'alrededores', 'entorno'],
    terrace: ['terrace', 'terraza'],
    unknown: ['unknown'],
    views: ['views', 'vistas'],
    waitingroom: ['waitingroom', 'saladeespera'],
    walk_in_wardrobe: ['walkinwardrobe', 'vestidor'],
  }).flatMap(([label, names]) => names.map((name) => [name, label])),
);

/** idealista's `imageOrder` range ends at 200 (images.json). */
const IMAGES_MAX = 200;

/** `propertyImages`: the published images by order (the API's order), numbered from 1, at most 200, labelled where the title says what they show. */
export function idealistaImages(images: ReadonlyArray<{ url: string; title?: string | null }>): Array<Record<string, unknown>> {
  return images.slice(0, IMAGES_MAX).map((image, at) => {
    const label = typeof image.title === 'string' ? IMAGE_LABELS[folded(image.title)] : undefined;
    return { imageOrder: at + 1, ...(label ? { imageLabel: label } : {}), imageUrl: image.url };
  });
}

/** Country names and ISO codes → the `addressCountry` idealista knows (address.json). */
const COUNTRIES: Readonly<Record<string, string>> = {
  espana: 'Spain',
  spain: 'Spain',
  es: 'Spain',
  italia: 'Italy',
  italy: 'Italy',
  it: 'Italy',
  portugal: 'Portugal',
  pt: 'Portugal',
  andorra: 'Andorra',
  ad: 'Andorra',
  francia: 'France',
  france: 'France',
  fr: 'France',
  suiza: 'Switzerland',
  switzerland: 'Switzerland',
  ch: 'Switzerland',
  sanmarino: 'San Marino',
  sm: 'San Marino',
};

/** A listing's country as idealista names it: Spain when none is given, the text itself when idealista knows no such country (the schema then refuses it). */
export function idealistaCountry(country: unknown): string {
  if (typeof country !== 'string' || !country.trim()) return IDEALISTA_COUNTRY;
  return COUNTRIES[folded(country)] ?? country.trim();
}

/**
 * A published street address → `addressStreetName` (at most 200 characters) and
 * `addressStreetNumber`: the parts after the street that repeat the town or province, or start
 * with a postal code, are dropped; a number standing as the second part (`Calle Mayor, 12`) or
 * at the end of the first (`Calle Mayor 12`) is the street number.
 */
export function idealistaStreet(
  address: string,
  town: string | null,
  province: string | null,
): { addressStreetName: string; addressStreetNumber?: string } | null {
  const parts = address
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const place = new Set([town, province].filter((p): p is string => !!p).map(folded));
  while (parts.length > 1 && (place.has(folded(parts[parts.length - 1])) || /^\d{4,5}\b/.test(parts[parts.length - 1]))) parts.pop();
  if (parts.length === 0) return null;
  const NUMBER = /^(\d{1,4}[A-Za-z]?|s\/n)$/i;
  let number: string | undefined;
  if (parts.length >= 2 && NUMBER.test(parts[1])) number = parts.splice(1, 1)[0];
  else {
    const trailing = /^(.*\D)\s+(\d{1,4}[A-Za-z]?)$/.exec(parts[0]);
    if (trailing && parts.length === 1) {
      parts[0] = trailing[1].trim();
      number = trailing[2];
    }
  }
  const name = parts.join(', ').slice(0, 200);
  return number === undefined ? { addressStreetName: name } : { addressStreetName: name, addressStreetNumber: number };
}

/**
 * `propertyAddress` as the listing's privacy allows (CONTRACT §5, address.json). The Property
 * object already holds only what its level publishes; this adds nothing to it:
 * `public` → `full` with street, floor, postal code and exact coordinates; `approximate` →
 * `hidden` with the published (rounded) coordinates as `moved`, the floor and the postal code;
 * `hidden` → `hidden` with the town and country alone.
 */
export function idealistaAddress(p: PublishedProperty): Record<string, unknown> {
  const specs = (p.specs ?? {}) as Record<string, unknown>;
  const privacy = specs.address_privacy;
  const town = typeof p.city === 'string' && p.city.trim() ? p.city.trim() : null;
  const province = typeof p.province === 'string' ? p.province : null;
  const address: Record<string, unknown> = { addressVisibility: privacy === 'public' ? 'full' : 'hidden' };
  if (privacy === 'public' && typeof p.address === 'string') Object.assign(address, idealistaStreet(p.address, town, province));
  const floor = idealistaFloor(listingFacts(specs).floor);
  // The floor is published in `specs` at every level of privacy: it places no one without the street.
  if (floor !== undefined && privacy !== 'hidden') address.addressFloor = floor;
  if (typeof p.postal_code === 'string' && /^[0-9]{5}$/.test(p.postal_code.trim())) address.addressPostalCode = p.postal_code.trim();
  if (town !== null) address.addressTown = town;
  address.addressCountry = idealistaCountry(p.country);
  if (typeof p.lat === 'number' && typeof p.lon === 'number') {
    address.addressCoordinatesPrecision = privacy === 'public' ? 'exact' : 'moved';
    address.addressCoordinatesLatitude = p.lat;
    address.addressCoordinatesLongitude = p.lon;
  }
  return address;
}

/** The features a kind takes from the listing's feature list (`{key, value}`, value false meaning "has not"). */
function mappedFeatures(kind: IdealistaKind, type: string, features: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(features)) return out;
  for (const feature of features as Array<{ key?: unknown; value?: unknown }>) {
    if (typeof feature?.key !== 'string' || !Object.hasOwn(FEATURE_FIELDS[kind], feature.key)) continue;
    const field = FEATURE_FIELDS[kind][feature.key];
    const on = feature.value !== false;
    // features.json: a lift is said of flats only among homes.
    if (field === 'featuresLiftAvailable' && kind === 'homes' && type !== 'flat') continue;
    const [name, value] = typeof field === 'string' ? [field, on] : field(on);
    out[name] = value;
  }
  return out;
}

/** `propertyFeatures` of a listing of `kind` (each key only where that kind's schema has it). */
function idealistaFeatures(p: PublishedProperty, t: IdealistaType): Record<string, unknown> {
  const specs = (p.specs ?? {}) as Record<string, unknown>;
  const facts = listingFacts(specs);
  const features: Record<string, unknown> = { featuresType: t.type };
  const size = whole(p.size_total);
  const plot = bounded(specs.plot_size, 1, 99_999_999);
  const conservation = idealistaConservation(facts.condition);
  const builtYear = bounded(facts.year_built, 1700, 2100);
  const energy = idealistaEnergyCertificate(specs);
  const bathrooms = p.bathrooms;
  switch (t.kind) {
    case 'homes': {
      features.featuresAreaConstructed = size;
      if (plot !== undefined) features.featuresAreaPlot = plot;
      features.featuresBathroomNumber = whole(bathrooms);
      const bedrooms = whole(p.bedrooms);
      // A home without a bedroom is one room (homes.json takes rooms or bedrooms).
      if (bedrooms === 0) Object.assign(features, { featuresRooms: 1, ...(t.type === 'flat' ? { featuresStudio: true } : {}) });
      else features.featuresBedroomNumber = bedrooms;
      if (builtYear !== undefined) features.featuresBuiltYear = builtYear;
      if (conservation) features.featuresConservation = conservation;
      if (specs.pool === true) features.featuresPool = true;
      Object.assign(features, energy, t.flags);
      break;
    }
    case 'premises':
    case 'offices': {
      features.featuresAreaConstructed = size;
      const baths = bounded(bathrooms, 1, 99);
      if (baths !== undefined) features.featuresBathroomNumber = baths;
      if (t.kind === 'premises' && plot !== undefined) features.featuresAreaPlot = plot;
      if (t.kind === 'offices' && builtYear !== undefined) features.featuresBuiltYear = builtYear;
      if (conservation) features.featuresConservation = conservation;
      Object.assign(features, energy);
      break;
    }
    case 'building':
      features.featuresAreaConstructed = size;
      if (builtYear !== undefined) features.featuresBuiltYear = builtYear;
      if (conservation) features.featuresConservation = conservation;
      Object.assign(features, energy);
      break;
    case 'storage':
    case 'garage':
      features.featuresAreaConstructed = size;
      break;
    case 'land':
      // The plot is the land's area: its own spec, else the listing's size.
      features.featuresAreaPlot = plot ?? size;
      break;
  }
  Object.assign(features, mappedFeatures(t.kind, t.type, p.features));
  for (const key of Object.keys(features)) if (features[key] === undefined) delete features[key];
  return features;
}

/**
 * `propertyOperation`: `venta` → `sale` (price; `specs.community_fees` as `operationPriceCommunity`,
 * €/month, 1 to 9,999), else `alquiler` → `rent` (the monthly rent; a premises' transfer price as
 * `operationPriceTransfer`, operation.json). The first of them with a price; null when the listing
 * is offered for neither.
 */
export function idealistaOperation(p: PublishedProperty, kind: IdealistaKind): Record<string, unknown> | null {
  const operations = typeof p.operation === 'string' ? p.operation.split(',').map((o) => o.trim()) : [];
  const specs = (p.specs ?? {}) as Record<string, unknown>;
  const calc = (specs.price_calc ?? {}) as { price_alq?: number | null; price_trasp?: number | null };
  const sale = operations.includes('venta') ? { operationType: 'sale', operationPrice: whole(p.price) } : null;
  const rent = operations.includes('alquiler') ? { operationType: 'rent', operationPrice: whole(calc.price_alq) } : null;
  const chosen = [sale, rent].find((o) => o?.operationPrice !== undefined) ?? sale ?? rent;
  if (!chosen) return null;
  const operation: Record<string, unknown> = { ...chosen };
  if (operation.operationPrice === undefined) delete operation.operationPrice;
  if (chosen === sale) {
    const fees = bounded(listingFacts(specs).community_fees, 1, 9999);
    if (fees !== undefined) operation.operationPriceCommunity = fees;
  } else if (kind === 'premises' && operations.includes('traspaso')) {
    const transfer = bounded(calc.price_trasp, 1, 99_999_999);
    if (transfer !== undefined) operation.operationPriceTransfer = transfer;
  }
  return operation;
}

/**
 * One published listing as a `customerProperties` item, or the reason it cannot be one
 * (`type`, `operation`). The item is not validated here: feeds/idealista-schema.ts does that.
 * @param langTexts the listing's published texts per language (`property_docs.lang_texts`,
 *   domain/catalogue/languages.ts); null when it holds Spanish only (its Property object's description).
 */
export function idealistaProperty(
  p: PublishedProperty,
  externalRef: string,
  subtypeKeys: SubtypeKeys,
  langTexts: string | null = null,
): IdealistaMapped {
  const type = idealistaType((p.type as string | null) ?? null, (p.subtype as string | null) ?? null, subtypeKeys);
  if (!type) return { reason: 'type' };
  const operation = idealistaOperation(p, type.kind);
  if (!operation) return { reason: 'operation' };
  const item: IdealistaProperty = { propertyCode: String(p.id) };
  if (externalRef.length <= 50) item.propertyReference = externalRef;
  item.propertyVisibility = 'idealista';
  item.propertyOperation = operation;
  item.propertyAddress = idealistaAddress(p);
  item.propertyFeatures = idealistaFeatures(p, type);
  const held = publishedTextsOf({ title: p.title, description: p.description }, langTexts);
  const texts = idealistaDescriptions(Object.fromEntries(Object.entries(held).map(([lang, text]) => [lang, text?.description ?? null])));
  if (texts.length) item.propertyDescriptions = texts;
  const images = idealistaImages((p.images ?? []) as Array<{ url: string; title?: string | null }>);
  if (images.length) item.propertyImages = images;
  return { item, kind: type.kind };
}

/**
 * A fault idealista's schema found in an item (its path and keyword) → the reason shown for the
 * listing left out. Faults of the address's alternatives name what is missing: a hidden address
 * (`address_hidden`) or no place at all (`location`).
 */
export function idealistaLeftOutReason(
  fault: { path: string; keyword: string },
  privacy: unknown,
): { reason: IdealistaLeftOutReason; field?: string } {
  const parts = fault.path.split('/');
  const field = parts[parts.length - 1] || parts[0] || 'document';
  if (parts[0] === 'propertyAddress') {
    if (field === 'addressCountry') return { reason: 'country' };
    if (['required', 'anyOf', 'dependencies'].includes(fault.keyword))
      return { reason: privacy === 'hidden' ? 'address_hidden' : 'location' };
  }
  if (field === 'featuresAreaConstructed' || field === 'featuresAreaPlot') return { reason: 'area' };
  if (field === 'featuresBathroomNumber') return { reason: 'bathrooms' };
  if (field === 'featuresBedroomNumber' || field === 'featuresRooms') return { reason: 'bedrooms' };
  if (field === 'operationPrice') return { reason: 'price' };
  return { reason: 'rules', field };
}

/**
 * `customerContact` from the business's settings (contact.json): its name (at most 60
 * characters) and the e-mail address it answers at. idealista's phone fields are left out: the
 * business keeps no phone of its own.
 */
export function idealistaContact(business: { name: string; email: string | null }): Record<string, string> {
  const contact: Record<string, string> = { contactName: business.name.trim().slice(0, 60) };
  if (business.email) contact.contactEmail = business.email.trim();
  return contact;
}

/**
 * The customer part of the document (customer.json): country, code and contact. No
 * `customerSendDate`: one catalogue version must always give the same bytes (its ETag says so).
 */
export function idealistaCustomer(customerCode: string, contact: Record<string, string>): Record<string, unknown> {
  return { customerCountry: IDEALISTA_COUNTRY, customerCode, customerContact: contact };
}

/** The document's opening, up to the first item of `customerProperties`. */
export function idealistaHead(customer: Record<string, unknown>): string {
  return `${JSON.stringify(customer).slice(0, -1)},"customerProperties":[\n`;
}

/** The document's end. */
export const IDEALISTA_TAIL = '\n]}\n';
