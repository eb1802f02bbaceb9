/**
 * The published property object (spec §2.2, CONTRACT §5), privacy applied.
 *
 * Built once when a property is imported and stored as JSON, so a read only splices in the
 * id: the privacy rules run at write time and no request can skip them.
 *
 * - `public`: full address, exact lat/lon, postal code, `specs.building_name`;
 * - `approximate`: the approximate address only, lat/lon rounded to 2 decimals, postal code;
 * - `hidden`: no `address`, `lat`, `lon`, `postal_code` or `building_name` keys at all.
 */
import { subtypeLabel } from './terms.ts';
import { sanitizeDescription } from './html.ts';
import { plainText } from './html.ts';
import { buildPublishedTexts } from './languages.ts';
import type { ImageInput, PropertyFields, VideoInput } from './property-record.ts';

/** A stored image with its id. */
export type StoredImage = ImageInput & { id: number };

/** A stored video with its id. */
export type StoredVideo = VideoInput & { id: number };

/** Keys of imported specs that the API itself decides. */
const RESERVED_SPEC_KEYS = new Set(['price_calc', 'address_privacy', 'building_name']);

/**
 * The property object without `id` (the reader prepends it), as spec §2.2 orders fields.
 * Images: public ones, by `order`, `[]` when none. Videos: processed ones, `null` when none.
 */
export function buildPropertyDoc(p: PropertyFields, images: StoredImage[], videos: StoredVideo[]): Record<string, unknown> {
  const privacy = p.address_privacy;
  const specs: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(p.specs ? (JSON.parse(p.specs) as Record<string, unknown>) : {})) {
    if (!RESERVED_SPEC_KEYS.has(key)) specs[key] = value;
  }
  specs.price_calc = { price_alq: p.price_rent, price_trasp: p.price_transfer };
  specs.address_privacy = privacy;
  if (privacy === 'public') specs.building_name = p.building_name;

  const publicImages = images
    .filter((i) => i.public === 1)
    .sort((a, b) => a.sort_order - b.sort_order || a.id - b.id)
    .map((i) => ({ id: i.id, url: i.url, order: i.sort_order, is_primary: i.is_primary === 1, title: plainText(i.title) }));
  const processedVideos = videos
    .filter((v) => v.processed === 1)
    .sort((a, b) => a.sort_order - b.sort_order || a.id - b.id)
    .map((v) => ({
      id: v.id,
      title: plainText(v.title),
      order: v.sort_order,
      url: v.url,
      hls_url: v.hls_url,
      thumbnail_url: v.thumbnail_url,
      embed_url: v.embed_url,
    }));
  const features = p.features ? (JSON.parse(p.features) as unknown[]) : [];

  const doc: Record<string, unknown> = {
    operation: p.operation,
    type: p.type,
    subtype: subtypeLabel(p.subtype),
    title: plainText(p.title),
    price: p.price,
    size_total: p.size_total,
    bedrooms: p.bedrooms,
    bathrooms: p.bathrooms,
  };
  if (privacy !== 'hidden') doc.postal_code = p.postal_code;
  doc.description = sanitizeDescription(p.description);
  doc.images = publicImages;
  doc.videos = processedVideos.length ? processedVideos : null;
  doc.specs = specs;
  doc.features = features.length ? features : null;
  doc.status = p.status;
  if (privacy === 'public') doc.address = p.address;
  if (privacy === 'approximate') doc.address = p.address_approximate;
  doc.city = p.city;
  doc.province = p.province;
  doc.country = p.country;
  if (privacy !== 'hidden') {
    doc.lat = p.pub_lat;
    doc.lon = p.pub_lon;
  }
  doc.is_featured = p.is_featured === 1;
  doc.created_at = p.created_at;
  doc.updated_at = p.updated_at;
  return doc;
}

/** What `property_docs` keeps of a listing: the Property object without `id`, and the published texts of its languages. */
export interface PublishedDocs {
  /** JSON of {@link buildPropertyDoc}. */
  api_doc: string;
  /** JSON of domain/catalogue/languages.ts `buildPublishedTexts`; null when only Spanish is held. */
  lang_texts: string | null;
}

/** The published documents of a listing (see {@link PublishedDocs}). */
export function buildPublishedDocs(p: PropertyFields, images: StoredImage[], videos: StoredVideo[]): PublishedDocs {
  return { api_doc: JSON.stringify(buildPropertyDoc(p, images, videos)), lang_texts: buildPublishedTexts(p) };
}

/** `{"id":…, …doc}` as JSON text, from the stored doc without id. */
export function propertyJson(id: number, apiDoc: string): string {
  return `{"id":${id},${apiDoc.slice(1)}`;
}
