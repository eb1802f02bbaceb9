/**
 * Import lines → the stored form of a property (shared/data/README.md, "Import format").
 *
 * The checks of the TypeBox schema come first (types, enumerations, bounds); the rules a
 * schema cannot say come here: operations joined by commas, coordinates given in pairs,
 * timestamps with an offset. Defaults lean to privacy: a line that does not say `public`
 * is not published, one that does not say `address_privacy` hides the address, an image
 * that does not say `public` is not shown, a video that does not say `processed` is not shown.
 */
import { LISTED_STATUSES, OPERATIONS, type AddressPrivacy } from './terms.ts';
import { plainText } from './html.ts';
import { LISTING_LANGUAGES, type ListingLanguage, type TextsByLanguage } from './languages.ts';
import { factsInSpecs, FACT_KEYS, type FactKey } from './listing-facts.ts';
import { cleanStrings, publishedUrl } from './text.ts';
import { importFault, type ImportFault } from './import-faults.ts';
import { parseRfc3339 } from '../time.ts';

/**
 * One line of an import file as the schema has checked it (schemas/import-record.ts): types,
 * enumerations and bounds hold; the rules below do not yet. The schema's type is checked
 * against this one where lines are normalized (services/catalogue/import/line.ts).
 */
export interface ListingRecord {
  external_ref: string;
  public?: boolean | null;
  status?: string | null;
  operation?: string | null;
  rental_type?: string | null;
  type?: string | null;
  subtype?: string | null;
  /** The Spanish title (domain/catalogue/languages.ts). */
  title?: string | null;
  /** The Spanish description, HTML. */
  description?: string | null;
  /** Titles by language (`es`, `en`, `fr`, `de`, `it`); `es` is `title` again. */
  titles?: Partial<Record<string, string | null>> | null;
  /** Descriptions by language, HTML; `es` is `description` again. */
  descriptions?: Partial<Record<string, string | null>> | null;
  /** Sale price, €. */
  price?: number | null;
  /** Monthly rent, €. */
  price_rent?: number | null;
  /** Transfer price, €. */
  price_transfer?: number | null;
  /** m². */
  size_total?: number | null;
  bedrooms?: number | null;
  bathrooms?: number | null;
  address?: string | null;
  address_approximate?: string | null;
  building_name?: string | null;
  postal_code?: string | null;
  city?: string | null;
  province?: string | null;
  country?: string | null;
  /** Decimal degrees. */
  lat?: number | null;
  lon?: number | null;
  address_privacy?: AddressPrivacy | null;
  images?: Array<{
    url: string;
    order?: number | null;
    is_primary?: boolean | null;
    title?: string | null;
    public?: boolean | null;
  }> | null;
  videos?: Array<{
    title?: string | null;
    order?: number | null;
    url?: string | null;
    hls_url?: string | null;
    thumbnail_url?: string | null;
    embed_url?: string | null;
    processed?: boolean | null;
  }> | null;
  features?: Array<{ key: string; label?: string | null; value?: unknown; isextra?: boolean | null }> | null;
  specs?: Record<string, unknown> | null;
  /** The facts of domain/catalogue/listing-facts.ts, which are stored in `specs`. */
  energy_certificate?: {
    status: string;
    rating?: string | null;
    consumption_kwh_m2_year?: number | null;
    emissions_kg_co2_m2_year?: number | null;
  } | null;
  /** A text or a whole number (domain/catalogue/listing-facts.ts checks which). */
  floor?: unknown;
  /** € a month. */
  community_fees?: number | null;
  year_built?: number | null;
  condition?: string | null;
  is_featured?: boolean | null;
  /** RFC 3339 with an offset. */
  created_at?: string | null;
  updated_at?: string | null;
}

/** An image as stored (before it has an id): what an import line decides of it. Flags are 0/1. */
export interface ImageInput {
  url: string;
  sort_order: number;
  is_primary: number;
  title: string | null;
  public: number;
}

/** A video as stored (before it has an id): what an import line decides of it. `processed` is 0/1. */
export interface VideoInput {
  title: string | null;
  sort_order: number;
  url: string | null;
  hls_url: string | null;
  thumbnail_url: string | null;
  embed_url: string | null;
  processed: number;
}

/**
 * The columns of a property that an import line decides (all but the ids, `change_seq` and
 * `imported_at`); db/types.ts checks that the properties table holds exactly these. Prices in
 * €, sizes in m², positions in decimal degrees, flags 0/1, times RFC 3339.
 */
export interface PropertyFields {
  external_ref: string;
  public: number;
  status: string;
  operation: string | null;
  op_venta: number;
  op_alquiler: number;
  op_traspaso: number;
  rental_type: string | null;
  type: string | null;
  subtype: string | null;
  /** The default title: the Spanish one, else the first held (domain/catalogue/languages.ts). */
  title: string | null;
  /** The default description, HTML: the Spanish one, else the first held. */
  description: string | null;
  /** JSON of the titles of every language held, when one other than Spanish is; else null. */
  titles: string | null;
  /** JSON of the descriptions of every language held, when one other than Spanish is; else null. */
  descriptions: string | null;
  price: number | null;
  price_rent: number | null;
  price_transfer: number | null;
  /** First of price, price_rent, price_transfer that is not null (CONTRACT §4). */
  price_any: number | null;
  size_total: number | null;
  bedrooms: number | null;
  bathrooms: number | null;
  address: string | null;
  address_approximate: string | null;
  building_name: string | null;
  postal_code: string | null;
  city: string | null;
  city_key: string | null;
  province: string | null;
  country: string | null;
  lat: number | null;
  lon: number | null;
  address_privacy: AddressPrivacy;
  /** The position the API publishes: exact, or rounded to 2 decimals (CONTRACT §4, §5). */
  pub_lat: number | null;
  pub_lon: number | null;
  /** JSON. */
  features: string | null;
  /** JSON. */
  specs: string | null;
  is_featured: number;
  created_at: string;
  updated_at: string;
  listed: number;
}

/** A property ready to store: its columns, images and videos. */
export interface NormalizedProperty {
  fields: PropertyFields;
  images: ImageInput[];
  videos: VideoInput[];
  /** The owner an import line names (domain/catalogue/import-owner.ts): null unlinks; absent leaves it. Never published. */
  owner?: ImportOwner | null;
}

/** The owner an import line names (CONTRACT §24): a lead by id, or by its phone in E.164. */
export type ImportOwner = { leadId: number } | { phone: string };

/** A line that breaks a rule of the import format; the message says which, in English, and `fault` in parts any language can word. */
export class ImportRuleError extends Error {
  constructor(
    message: string,
    readonly fault: ImportFault,
  ) {
    super(message);
  }
}

/** Case-insensitive key of a city name: Unicode lower case of its NFC form (CONTRACT §4). */
export function cityKey(city: string): string {
  return city.normalize('NFC').toLowerCase();
}

/** Rounds a coordinate to 2 decimals (about 1 km), as approximate addresses publish it. */
export function roundCoordinate(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Parses `venta,alquiler`-style operations into their canonical comma-joined form. */
export function parseOperations(text: string): string[] {
  const ops = [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  for (const op of ops) {
    if (!(OPERATIONS as readonly string[]).includes(op)) {
      throw new ImportRuleError(
        `operation: ${JSON.stringify(op)} is not one of venta, alquiler, traspaso`,
        importFault('operation', 'choice', { value: op, expected: OPERATIONS.join(', ') }),
      );
    }
  }
  return ops;
}

const emptyToNull = (s: string | null | undefined): string | null => (s === undefined || s === null || s.trim() === '' ? null : s);
const flag = (b: boolean | null | undefined, fallback: boolean) => ((b ?? fallback) ? 1 : 0);

/**
 * A URL of a listing as published (CONTRACT §8): absolute `http` or `https` only, since
 * partner sites put them in `src`, `href` and `iframe` attributes, where `javascript:` or
 * `data:` would run; stored in its normalised, percent-encoded form (domain/catalogue/text.ts
 * `publishedUrl`), which no quote can break out of. Null stays null.
 * @throws ImportRuleError naming the field for any other URL.
 */
function webUrl<T extends string | null>(field: string, value: T): T {
  if (value === null) return value;
  const url = publishedUrl(value);
  if (url === null) throw new ImportRuleError(`${field}: must be an http or https URL`, importFault(field, 'url'));
  return url as T;
}

/** A plain-text field as stored: no markup (domain/catalogue/html.ts `plainText`), empty as null. */
const plain = (text: string | null | undefined): string | null => emptyToNull(plainText(text ?? null));

/** Whether a key of `specs` names a URL (`url`, `tour_url`…): its strings are published as links. */
const URL_KEY = /(^|_)url$/i;

/**
 * The stored form of a listing's open `specs`: strings under a key naming a URL must be
 * {@link webUrl}s, other strings lose their markup ({@link plainText}); numbers, flags and
 * nulls stay. Nested objects and arrays are walked (Kyero's `url` is one per language).
 * @throws ImportRuleError naming the path of a URL that is not http or https.
 */
function cleanSpecs(value: unknown, path: string, isUrl: boolean): unknown {
  if (typeof value === 'string') return isUrl ? webUrl(path, value) : plainText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    value.forEach((item: unknown, i) => {
      const cleaned = cleanSpecs(item, `${path}[${i}]`, isUrl);
      if (cleaned !== item) (copy ??= [...value])[i] = cleaned;
    });
    return copy ?? value;
  }
  // Copied only where something changed: most listings' specs have nothing to clean.
  let copy: Record<string, unknown> | null = null;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const cleaned = cleanSpecs(record[key], `${path}.${key}`, isUrl || URL_KEY.test(key));
    if (cleaned !== record[key]) (copy ??= { ...record })[key] = cleaned;
  }
  return copy ?? value;
}

/** A field kept in several languages: `title` (plain text) or `description` (HTML, sanitised when published). */
type TextField = 'title' | 'description';

/**
 * The stored form of a field kept in several languages (domain/catalogue/languages.ts): the
 * default text (the Spanish one, else the first held) and, when a language other than Spanish
 * is held, the JSON of every language held. A line with only `title` (or `description`) is
 * stored exactly as before languages existed. Empty texts are not held.
 * @throws ImportRuleError for a language that is not one of es, en, fr, de, it, and for a
 *   Spanish text given both as `title` and `titles.es` (or the descriptions) that differ.
 */
function textsByLanguage(
  field: TextField,
  single: string | null | undefined,
  byLanguage: Partial<Record<string, string | null>> | null | undefined,
): { single: string | null; json: string | null } {
  const clean = field === 'title' ? plainText : (text: string | null) => text;
  const given = clean(single ?? null);
  if (!byLanguage) return { single: given, json: null };
  for (const lang of Object.keys(byLanguage)) {
    if (!(LISTING_LANGUAGES as readonly string[]).includes(lang)) {
      throw new ImportRuleError(
        `${field}s: ${JSON.stringify(lang)} is not one of ${LISTING_LANGUAGES.join(', ')}`,
        importFault(`${field}s`, 'language', { value: lang, expected: LISTING_LANGUAGES.join(', ') }),
      );
    }
  }
  const held: TextsByLanguage = {};
  for (const lang of LISTING_LANGUAGES) {
    const text = clean(byLanguage[lang] ?? null);
    if (lang === 'es' && given !== null && given.trim() !== '') {
      if (text !== null && text.trim() !== '' && text !== given) {
        throw new ImportRuleError(
          `${field}s.es: differs from ${field}; give the Spanish ${field} once`,
          importFault(`${field}s.es`, 'language_twice', { other: field }),
        );
      }
      held.es = given;
    } else if (text !== null && text.trim() !== '') held[lang] = text;
  }
  const others = LISTING_LANGUAGES.filter((lang) => lang !== 'es' && held[lang] !== undefined);
  if (others.length === 0) return { single: held.es ?? given, json: null };
  return { single: held.es ?? held[others[0]]!, json: JSON.stringify(held) };
}

/** The import line's `titles` or `descriptions` of a stored field: every language held, or null for Spanish only. */
function byLanguageOf(json: string | null): Partial<Record<ListingLanguage, string>> | null {
  return json === null ? null : (JSON.parse(json) as TextsByLanguage);
}

/**
 * Builds the stored form of a validated import line.
 * @param now canonical timestamp used when the line carries no dates.
 * @throws ImportRuleError when a rule beyond the schema is broken.
 */
export function normalizeImportRecord(given: ListingRecord, now: string): NormalizedProperty {
  // C0 controls never reach a feed (CONTRACT §15): removed from every string of the line first.
  const record = cleanStrings(given);
  const operations = record.operation ? parseOperations(record.operation) : [];
  if ((record.lat == null) !== (record.lon == null)) {
    throw new ImportRuleError('lat and lon must be given together', importFault('lat', 'latlon'));
  }
  const timestamp = (name: 'created_at' | 'updated_at') => {
    const text = record[name];
    if (text === undefined || text === null) return null;
    const parsed = parseRfc3339(text);
    if (parsed === null)
      throw new ImportRuleError(
        `${name}: ${JSON.stringify(text)} is not an RFC 3339 timestamp with an offset`,
        importFault(name, 'timestamp', { value: text }),
      );
    return parsed;
  };
  const updatedAt = timestamp('updated_at') ?? now;
  const createdAt = timestamp('created_at') ?? updatedAt;

  const privacy: AddressPrivacy = record.address_privacy ?? 'hidden';
  const status = record.status ?? 'disponible';
  const isPublic = record.public ?? false;
  const city = plain(record.city);
  const lat = record.lat ?? null;
  const lon = record.lon ?? null;
  const exact = privacy === 'public';
  const price = record.price ?? null;
  const priceRent = record.price_rent ?? null;
  const priceTransfer = record.price_transfer ?? null;

  const images: ImageInput[] = (record.images ?? []).map((img, i) => ({
    url: webUrl(`images[${i}].url`, img.url),
    sort_order: img.order ?? i,
    is_primary: flag(img.is_primary, false),
    title: plainText(img.title ?? null),
    public: flag(img.public, false),
  }));
  const videos: VideoInput[] = (record.videos ?? []).map((v, i) => ({
    title: plainText(v.title ?? null),
    sort_order: v.order ?? i,
    url: webUrl(`videos[${i}].url`, v.url ?? null),
    hls_url: webUrl(`videos[${i}].hls_url`, v.hls_url ?? null),
    thumbnail_url: webUrl(`videos[${i}].thumbnail_url`, v.thumbnail_url ?? null),
    embed_url: webUrl(`videos[${i}].embed_url`, v.embed_url ?? null),
    processed: flag(v.processed, false),
  }));
  const title = textsByLanguage('title', record.title, record.titles);
  const description = textsByLanguage('description', record.description, record.descriptions);
  const topFacts: Partial<Record<FactKey, unknown>> = {};
  for (const key of FACT_KEYS) topFacts[key] = record[key];
  const facts = factsInSpecs(topFacts, record.specs, now);
  if (!facts.ok) throw new ImportRuleError(facts.reason, facts.fault);

  const features = record.features?.length
    ? JSON.stringify(
        record.features.map((f, i) => {
          const key = plainText(f.key)!;
          if (!key.trim())
            throw new ImportRuleError(
              `features[${i}].key: must hold text, not only markup`,
              importFault(`features[${i}].key`, 'markup_only'),
            );
          const value = typeof f.value === 'string' ? plainText(f.value) : (f.value ?? null);
          return { key, label: plain(f.label) ?? key, value, isextra: f.isextra ?? false };
        }),
      )
    : null;

  return {
    fields: {
      external_ref: record.external_ref,
      public: isPublic ? 1 : 0,
      status,
      operation: operations.length ? operations.join(',') : null,
      op_venta: operations.includes('venta') ? 1 : 0,
      op_alquiler: operations.includes('alquiler') ? 1 : 0,
      op_traspaso: operations.includes('traspaso') ? 1 : 0,
      rental_type: record.rental_type ?? null,
      type: record.type ?? null,
      subtype: plain(record.subtype)?.trim().toLowerCase() ?? null,
      title: title.single,
      description: description.single,
      titles: title.json,
      descriptions: description.json,
      price,
      price_rent: priceRent,
      price_transfer: priceTransfer,
      price_any: price ?? priceRent ?? priceTransfer,
      size_total: record.size_total ?? null,
      bedrooms: record.bedrooms ?? null,
      bathrooms: record.bathrooms ?? null,
      address: plain(record.address),
      address_approximate: plain(record.address_approximate),
      building_name: plain(record.building_name),
      postal_code: plain(record.postal_code),
      city,
      city_key: city === null ? null : cityKey(city),
      province: plain(record.province),
      country: plain(record.country),
      lat,
      lon,
      address_privacy: privacy,
      pub_lat: lat === null ? null : exact ? lat : roundCoordinate(lat),
      pub_lon: lon === null ? null : exact ? lon : roundCoordinate(lon),
      features,
      specs: facts.specs && Object.keys(facts.specs).length ? JSON.stringify(cleanSpecs(facts.specs, 'specs', false)) : null,
      is_featured: flag(record.is_featured, false),
      created_at: createdAt,
      updated_at: updatedAt,
      listed: isPublic && (LISTED_STATUSES as readonly string[]).includes(status) ? 1 : 0,
    },
    images,
    videos,
  };
}

/**
 * The import line of a stored listing: what {@link normalizeImportRecord} turns back into the
 * same fields, images and videos (a console edit starts from it, changes what the form says,
 * and is written as an import line would be). Inverse of normalizeImportRecord for every
 * stored listing; `price_any`, `city_key`, `pub_*`, the `op_*` flags and `listed` are derived.
 */
export function listingRecordOf(fields: PropertyFields, images: ImageInput[], videos: VideoInput[]): ListingRecord {
  const bool = (n: number) => n === 1;
  return {
    external_ref: fields.external_ref,
    public: bool(fields.public),
    status: fields.status,
    operation: fields.operation,
    rental_type: fields.rental_type,
    type: fields.type,
    subtype: fields.subtype,
    // Of several languages, the Spanish text is `titles.es` again (null when not held).
    title: fields.titles === null ? fields.title : (byLanguageOf(fields.titles)!.es ?? null),
    description: fields.descriptions === null ? fields.description : (byLanguageOf(fields.descriptions)!.es ?? null),
    titles: byLanguageOf(fields.titles),
    descriptions: byLanguageOf(fields.descriptions),
    price: fields.price,
    price_rent: fields.price_rent,
    price_transfer: fields.price_transfer,
    size_total: fields.size_total,
    bedrooms: fields.bedrooms,
    bathrooms: fields.bathrooms,
    address: fields.address,
    address_approximate: fields.address_approximate,
    building_name: fields.building_name,
    postal_code: fields.postal_code,
    city: fields.city,
    province: fields.province,
    country: fields.country,
    lat: fields.lat,
    lon: fields.lon,
    address_privacy: fields.address_privacy,
    images: images.map((i) => ({
      url: i.url,
      order: i.sort_order,
      is_primary: bool(i.is_primary),
      title: i.title,
      public: bool(i.public),
    })),
    videos: videos.map((v) => ({
      title: v.title,
      order: v.sort_order,
      url: v.url,
      hls_url: v.hls_url,
      thumbnail_url: v.thumbnail_url,
      embed_url: v.embed_url,
      processed: bool(v.processed),
    })),
    features: fields.features === null ? null : (JSON.parse(fields.features) as ListingRecord['features']),
    specs: fields.specs === null ? null : (JSON.parse(fields.specs) as Record<string, unknown>),
    is_featured: bool(fields.is_featured),
    created_at: fields.created_at,
    updated_at: fields.updated_at,
  };
}
