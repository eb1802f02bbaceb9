/**
 * The public catalogue as a Kyero v3 feed (CONTRACT §15), written from the Property objects
 * `GET /properties` returns, so a portal gets exactly what the API publishes:
 *
 * - one `<property>` per operation Kyero can carry: `venta` as `price_freq` `sale` with `<id>` the
 *   property id, `alquiler` as `month` with `<id>` `<property id>-alquiler`; `traspaso` alone is left out;
 * - privacy as in §5: the Property object already holds only what its level publishes (`lat`/`lon`
 *   exact or rounded, `address` exact or approximate, none when hidden), and the feed adds nothing;
 * - `town`, `province` always (a listing without them cannot be on a portal and is left out);
 *   `desc/<lang>` the description as plain text in each language the listing holds (issue 46,
 *   CONTRACT §22: `es`, `en`, `fr`, `de`, `it`; a listing of Spanish only has `desc/es`); at most
 *   50 images, by order (those whose URL a portal can read as an image: `.jpg`, `.jpeg`, `.png`, `.gif`);
 * - `energy_rating`: `consumption` the energy certificate's rating, `X` for a certificate in
 *   process or an exempt building (domain/catalogue/listing-facts.ts); `emissions` the
 *   `specs.emissions_rating` a Kyero import kept; a listing imported before certificates existed
 *   gives its `specs.energy_rating` as it was;
 * - only characters XML 1.0 can carry, whatever a listing holds (domain/catalogue/text.ts), so one listing can
 *   never make the document ill-formed;
 * - every element within the Kyero v3 XSD's limits (spec/kyero-v3.xsd), which a test checks with xmllint.
 */
import { decodeHTML, escapeUTF8 } from 'entities';
import { LISTING_LANGUAGES, publishedTextsOf } from './languages.ts';
import { listingFacts } from './listing-facts.ts';
import { xmlText } from './text.ts';
/** A Property object as `GET /properties` publishes it (domain/catalogue/property-doc.ts), with its `id`. */
export type PublishedProperty = Record<string, unknown> & { id: number };

/** Kyero's English type word for a catalogue type and subtype key. */
const KYERO_TYPES: Record<string, string> = {
  apartamento: 'Apartment',
  'apartamento/atico': 'Penthouse',
  'apartamento/duplex': 'Duplex',
  'apartamento/triplex': 'Triplex',
  'apartamento/estudio': 'Studio',
  'apartamento/loft': 'Loft',
  'apartamento/piso': 'Flat',
  'apartamento/planta-baja': 'Ground Floor Apartment',
  casa: 'House',
  'casa/villa': 'Villa',
  'casa/chalet': 'Chalet',
  'casa/adosado': 'Townhouse',
  'casa/pareado': 'Semi-Detached House',
  'casa/casa-rural': 'Country House',
  'casa/finca': 'Finca',
  'casa/masia': 'Masia',
  'casa/bungalow': 'Bungalow',
  'casa/casa-de-pueblo': 'Village House',
  local: 'Commercial',
  'local/bajo-comercial': 'Commercial Ground Floor',
  nave: 'Warehouse',
  'nave/nave-logistica': 'Logistics Warehouse',
  almacenaje: 'Storage',
  oficina: 'Office',
  'oficina/despacho': 'Despacho',
  'oficina/oficina-diafana': 'Open Plan Office',
  terreno: 'Plot',
  'terreno/rustico': 'Rustic Land',
  'terreno/urbanizable': 'Urbanizable Land',
  'terreno/urbano': 'Solar',
  aparcamiento: 'Garage',
  'aparcamiento/plaza-moto': 'Motorbike Parking',
  edificio: 'Building',
  'edificio/edificio-residencial': 'Residential Building',
  'edificio/edificio-oficinas': 'Office Building',
};

/** The Spanish subtype labels the API publishes → their keys (domain/catalogue/terms.ts). */
export type SubtypeKeys = ReadonlyMap<string, string>;

/** Kyero's type word for a published type and subtype label. */
export function kyeroType(type: string | null, subtypeLabel: string | null, subtypeKeys: SubtypeKeys): string {
  const key = subtypeLabel === null ? undefined : subtypeKeys.get(subtypeLabel);
  return (type !== null && ((key !== undefined && KYERO_TYPES[`${type}/${key}`]) || KYERO_TYPES[type])) || 'Property';
}

/** Character data of the feed: only characters XML 1.0 can carry (one other makes the whole document ill-formed), escaped. */
const xml = (text: string) => escapeUTF8(xmlText(text));
const element = (name: string, value: string | number | null | undefined) =>
  value === null || value === undefined || value === '' ? '' : `<${name}>${xml(String(value))}</${name}>`;

/** A description as plain text: tags gone (paragraphs and breaks as line breaks), entities decoded. */
export function plainDescription(html: string | null): string {
  if (html === null) return '';
  return decodeHTML(
    html
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/(p|h[1-6]|li|blockquote)>/gi, '\n\n')
      .replace(/<[^>]*>/g, ''),
  )
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** `YYYY-MM-DD HH:MM:SS` (UTC) of an RFC 3339 instant. */
const kyeroDate = (rfc3339: string) => new Date(rfc3339).toISOString().slice(0, 19).replace('T', ' ');

/** An image URL a portal reads (the XSD's `imageUrlType`). */
const IMAGE_URL = /^(https?|ftp):\/\/.*\.(gif|jpe?g|png)$/i;

/** A Kyero energy mark (`energyRatingMarkType`: A to G, or X), or null. */
const mark = (v: unknown) => (typeof v === 'string' && /^[A-GX]$/.test(v) ? v : null);

/** The `<energy_rating>` of a listing's published specs, or '' when it states none. */
function energyRating(specs: Record<string, unknown>): string {
  const certificate = listingFacts(specs).energy_certificate;
  const legacy = (specs.energy_rating ?? null) as { consumption?: unknown; emissions?: unknown } | null;
  const consumption = certificate ? (certificate.status === 'available' ? certificate.rating : 'X') : mark(legacy?.consumption);
  const emissions = mark(specs.emissions_rating) ?? (certificate ? null : mark(legacy?.emissions));
  if (!consumption && !emissions) return '';
  return `<energy_rating>${element('consumption', consumption)}${element('emissions', emissions)}</energy_rating>`;
}

/**
 * The `<property>` elements of one published listing (none, one or two).
 * @param langTexts the listing's `property_docs.lang_texts` (domain/catalogue/languages.ts): its
 *   descriptions in every language held; null when it holds Spanish only.
 */
export function kyeroProperties(p: PublishedProperty, subtypeKeys: SubtypeKeys, langTexts: string | null = null): string {
  const city = typeof p.city === 'string' ? p.city.trim() : '';
  const province = typeof p.province === 'string' ? p.province.trim() : '';
  if (!city || !province) return '';
  const operations = typeof p.operation === 'string' ? p.operation.split(',') : [];
  const specs = (p.specs ?? {}) as Record<string, unknown>;
  const priceCalc = (specs.price_calc ?? {}) as { price_alq?: number | null };
  const offers: Array<[string, string, number | null]> = [];
  if (operations.includes('venta')) offers.push([String(p.id), 'sale', p.price as number | null]);
  if (operations.includes('alquiler')) offers.push([`${p.id}-alquiler`, 'month', priceCalc.price_alq ?? null]);
  if (offers.length === 0) return '';

  const flag = (v: unknown) => (v === true ? '1' : v === false ? '0' : null);
  const lat = typeof p.lat === 'number' ? p.lat : null;
  const lon = typeof p.lon === 'number' ? p.lon : null;
  const detail = typeof p.address === 'string' ? p.address.slice(0, 50) : null;
  const size = typeof p.size_total === 'number' ? Math.round(p.size_total) : null;
  const plot = typeof specs.plot_size === 'number' ? Math.round(specs.plot_size) : null;
  const images = ((p.images ?? []) as Array<{ url: string; order: number }>)
    .filter((i) => IMAGE_URL.test(i.url) && !/[\s<>]/.test(i.url))
    .slice(0, 50)
    .map((i, at) => `<image id="${at + 1}"><url>${xml(i.url)}</url></image>`)
    .join('');
  const features = ((p.features ?? []) as Array<{ label?: string | null; key: string }>)
    .slice(0, 50)
    .map((f) => element('feature', f.label ?? f.key))
    .join('');
  const texts = publishedTextsOf(p, langTexts);
  const descriptions = LISTING_LANGUAGES.map((lang) => element(lang, plainDescription(texts[lang]?.description ?? null))).join('');
  const common = [
    element('currency', 'EUR'),
    element('new_build', flag(specs.new_build)),
    element('type', kyeroType((p.type as string | null) ?? null, (p.subtype as string | null) ?? null, subtypeKeys)),
    element('town', city),
    element('province', province),
    element('country', typeof p.country === 'string' ? p.country.slice(0, 50) : null),
    lat !== null && lon !== null ? `<location><latitude>${lat}</latitude><longitude>${lon}</longitude></location>` : '',
    lat !== null && lon !== null ? element('location_detail', detail) : '',
    element('beds', (p.bedrooms as number | null) ?? null),
    element('baths', (p.bathrooms as number | null) ?? null),
    element('pool', flag(specs.pool)),
    size !== null || plot !== null ? `<surface_area>${element('built', size)}${element('plot', plot)}</surface_area>` : '',
    energyRating(specs),
    `<desc>${descriptions}</desc>`,
    features ? `<features>${features}</features>` : '',
    `<images>${images}</images>`,
  ].join('');
  const date = kyeroDate(String(p.updated_at));
  return offers
    .map(
      ([id, freq, price]) =>
        `<property><id>${xml(id)}</id><date>${date}</date><ref>${p.id}</ref><price>${price === null ? 'x' : Math.round(price)}</price>` +
        `<price_freq>${freq}</price_freq>${common}</property>\n`,
    )
    .join('');
}

/** The document's opening, up to the first property. */
export const KYERO_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<root><kyero><feed_version>3</feed_version></kyero>\n';
/** The document's end. */
export const KYERO_TAIL = '</root>\n';
