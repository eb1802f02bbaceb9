/**
 * A Kyero v3 `<property>` → an import line (CONTRACT §15), rule by rule:
 *
 * - `external_ref` = `kyero:<id>`; `public`, `disponible`;
 * - `price_freq` `sale` → `venta` with `price`; `month` → `alquiler` (`anual`) with `price_rent`;
 *   `week` → `alquiler` (`temporal`) with the weekly price × 52 / 12 as `price_rent`; a price of
 *   `x` (on request) is no price; a currency other than EUR is refused (prices are in €);
 * - `type` → the catalogue's type and subtype (domain/catalogue/kyero-types.ts), or refused;
 * - `beds`, `baths` → `bedrooms`, `bathrooms`; `surface_area/built` → `size_total` (m²),
 *   `surface_area/plot` → `specs.plot_size`;
 * - `location/latitude|longitude` → `lat`/`lon` with `address_privacy` `approximate` and
 *   `address_approximate` = `location_detail, town`; `town` → `city`; `province`; `country`;
 * - `desc/<lang>` → `descriptions.<lang>` for every one of `es`, `en`, `fr`, `de`, `it`, and
 *   `titles.<lang>` the first sentence of each (120 characters at most); plain text becomes `<p>`
 *   paragraphs (issue 46, CONTRACT §22: the listing's default text is then the Spanish one, else
 *   the first held); a feed with none of those five but another language keeps that one's text
 *   as `title` and `description`;
 * - `energy_rating/consumption` → `energy_certificate`: a letter A to G is an `available`
 *   certificate with that rating, `X` (Kyero's mark for no letter) one `in_process`;
 *   `energy_rating/emissions`, the certificate's second letter, → `specs.emissions_rating`;
 * - `images/image` → `images` in `id` order, the first primary; `features/feature` → `features`
 *   (`key` a slug of the text, `label` the text); `new_build`, `pool`, `url` → `specs`;
 * - `date` (`YYYY-MM-DD HH:MM:SS`, read as UTC) → `updated_at`.
 */
import { escapeUTF8 } from 'entities';
import { placePortalType } from './kyero-types.ts';
import { LISTING_LANGUAGES } from './languages.ts';
import type { ListingRecord } from './property-record.ts';
import { importFault, type ImportFault, type ImportRule } from './import-faults.ts';

/** A `<property>` as read (feeds/kyero-read.ts): texts by path (the first of repeated elements), and the lists. */
export interface KyeroProperty {
  /** 1-based position of the property in the document. */
  position: number;
  /** `path → text`, trimmed (`id`, `price`, `surface_area/built`, `desc/en`…). */
  texts: Map<string, string>;
  /** Languages of `desc`, in document order. */
  descLanguages: string[];
  /** `features/feature` texts, in order. */
  features: string[];
  /** `images/image`: the `id` attribute and the `url`, in document order. */
  images: Array<{ id: string | null; url: string | null }>;
  /** The path of an element whose text was cut for being too long, if any. */
  overlong: string | null;
}

/** Longest title taken from a description, characters. */
const TITLE_MAX = 120;

/** A property placed, or refused with the reason (English, for the import's report). */
export type KyeroMapping = { ok: true; record: ListingRecord } | { ok: false; reason: string; fault: ImportFault };

/** The lower-case ASCII slug of a feature text: `Aire acondicionado` → `aire_acondicionado`. */
export function featureKey(text: string): string {
  // A feed repeats the same few hundred feature texts on every property.
  let key = featureKeys.get(text);
  if (key === undefined) {
    if (featureKeys.size >= FEATURE_KEYS_KEPT) featureKeys.clear();
    key = slug(text);
    featureKeys.set(text, key);
  }
  return key;
}

/** Feature texts' keys so far, at most {@link FEATURE_KEYS_KEPT}. */
const featureKeys = new Map<string, string>();
const FEATURE_KEYS_KEPT = 10_000;

function slug(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 100);
}

/** Whether a description is already HTML (a feed's CDATA often is). */
const looksLikeHtml = (text: string) => /<(p|br|ul|ol|li|b|strong|i|em|h[1-6]|div|span)\b[^>]*>/i.test(text);

/** A plain-text description as HTML: paragraphs split on blank lines, line breaks kept. */
export function paragraphs(text: string): string {
  if (looksLikeHtml(text)) return text;
  return text
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${escapeUTF8(p).replace(/\r?\n/g, '<br>')}</p>`)
    .join('');
}

/** The first sentence of a description, as a title: plain text, at most {@link TITLE_MAX} characters. */
export function titleOf(text: string): string | null {
  // Most feeds' descriptions are plain text: no tags to take out.
  const plain = (text.includes('<') ? text.replace(/<[^>]*>/g, ' ') : text).replace(/\s+/g, ' ').trim();
  if (!plain) return null;
  const sentence = /^.*?[.!?](?=\s|$)/.exec(plain)?.[0] ?? plain;
  if (sentence.length <= TITLE_MAX) return sentence;
  const cut = sentence.slice(0, TITLE_MAX - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), TITLE_MAX / 2)).trimEnd()}…`;
}

/** A number of the feed (`123`, `123.5`), or undefined when the text is not one. */
function number(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : undefined;
}

/** `1` → true, `0` → false, anything else (`''`, absent) → undefined. */
const flag = (text: string | undefined) => (text === '1' ? true : text === '0' ? false : undefined);

/** Maps one property, refusing what the import format cannot hold, with the reason. */
export function recordOfKyero(p: KyeroProperty): KyeroMapping {
  const t = (path: string) => p.texts.get(path);
  const refuse = (reason: string, field: string, rule: ImportRule, ctx?: Record<string, unknown>): KyeroMapping => ({
    ok: false,
    reason,
    fault: importFault(field, rule, ctx),
  });
  if (p.overlong)
    return refuse(
      `<${p.overlong}> is longer than ${p.overlong.startsWith('desc') ? 'a description' : 'any field'} can be`,
      p.overlong,
      'kyero_overlong',
    );
  const id = t('id');
  if (!id) return refuse('<id> is missing', 'id', 'kyero_id_missing');
  if (id.length > 50) return refuse('<id> is longer than 50 characters', 'id', 'kyero_id_long', { max: 50 });

  const currency = t('currency');
  if (currency && currency.toUpperCase() !== 'EUR')
    return refuse(`the price is in ${currency}: inmo keeps prices in euros`, 'currency', 'kyero_currency', { value: currency });
  const freq = t('price_freq');
  const priceText = t('price');
  const price = priceText === undefined || priceText.toLowerCase() === 'x' ? null : number(priceText);
  if (price === undefined)
    return refuse(`<price> ${JSON.stringify(priceText)} is not a number`, 'price', 'kyero_price', { value: priceText });
  const operation: Partial<ListingRecord> =
    freq === 'sale'
      ? { operation: 'venta', price }
      : freq === 'month'
        ? { operation: 'alquiler', rental_type: 'anual', price_rent: price }
        : freq === 'week'
          ? {
              operation: 'alquiler',
              rental_type: 'temporal',
              price_rent: price === null ? null : Math.round((price * 52 * 100) / 12) / 100,
            }
          : {};
  if (!operation.operation)
    return refuse(`<price_freq> ${JSON.stringify(freq ?? '')} is not sale, month or week`, 'price_freq', 'kyero_price_freq', {
      value: freq ?? '',
      expected: 'sale, month, week',
    });

  const typeText = t('type') ?? '';
  const placed = placePortalType(typeText);
  if (!placed)
    return refuse(`<type> ${JSON.stringify(typeText)} is not a property type inmo can place`, 'type', 'kyero_type', { value: typeText });

  const integer = (path: string) => {
    const n = number(t(path));
    return n === undefined || !Number.isInteger(n) || n < 0 ? null : n;
  };
  const lat = number(t('location/latitude'));
  const lon = number(t('location/longitude'));
  const hasPosition = lat !== undefined && lon !== undefined;
  const town = t('town') || null;
  const detail = t('location_detail') || null;

  const held = LISTING_LANGUAGES.filter((lang) => t(`desc/${lang}`));
  const other = held.length === 0 && p.descLanguages[0] !== undefined ? (t(`desc/${p.descLanguages[0]}`) ?? '') : '';
  const texts: Partial<ListingRecord> = held.length
    ? {
        titles: Object.fromEntries(held.map((lang) => [lang, titleOf(t(`desc/${lang}`)!)])),
        descriptions: Object.fromEntries(held.map((lang) => [lang, paragraphs(t(`desc/${lang}`)!)])),
      }
    : { title: titleOf(other), description: other ? paragraphs(other) : null };

  const specs: Record<string, unknown> = {};
  const plot = number(t('surface_area/plot'));
  if (plot !== undefined) specs.plot_size = plot;
  const consumption = t('energy_rating/consumption')?.toUpperCase();
  const emissions = t('energy_rating/emissions')?.toUpperCase();
  const certificate =
    consumption && /^[A-G]$/.test(consumption)
      ? { status: 'available', rating: consumption }
      : consumption === 'X'
        ? { status: 'in_process', rating: null }
        : null;
  if (emissions && /^[A-G]$/.test(emissions)) specs.emissions_rating = emissions;
  const newBuild = flag(t('new_build'));
  if (newBuild !== undefined) specs.new_build = newBuild;
  const pool = flag(t('pool'));
  if (pool !== undefined) specs.pool = pool;
  let urls: Record<string, string> | null = null;
  for (const [k, v] of p.texts) if (v && k.startsWith('url/')) (urls ??= {})[k.slice(4)] = v;
  if (urls) specs.url = urls;

  const date = t('date');
  const updated = date && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(date) ? `${date.replace(' ', 'T')}+00:00` : null;

  const images = p.images
    .filter((i): i is { id: string | null; url: string } => i.url !== null)
    .map((i, at) => ({ ...i, order: /^\d+$/.test(i.id ?? '') ? Number(i.id) : 1000 + at }))
    .sort((a, b) => a.order - b.order)
    .map((i, at) => ({ url: i.url, order: at, is_primary: at === 0, title: null, public: true }));
  const seen = new Set<string>();
  const features = p.features
    .map((label) => ({ key: featureKey(label), label: label.slice(0, 200), value: true, isextra: false }))
    .filter((f) => f.key !== '' && !seen.has(f.key) && seen.add(f.key));

  return {
    ok: true,
    record: {
      external_ref: `kyero:${id}`,
      public: true,
      status: 'disponible',
      ...operation,
      type: placed.type,
      subtype: placed.subtype,
      ...texts,
      size_total: number(t('surface_area/built')) ?? null,
      bedrooms: integer('beds'),
      bathrooms: integer('baths'),
      city: town,
      province: t('province') || null,
      country: t('country') || null,
      postal_code: t('postcode') || null,
      ...(hasPosition
        ? { lat, lon, address_privacy: 'approximate' as const, address_approximate: [detail, town].filter(Boolean).join(', ') || null }
        : { address_privacy: 'hidden' as const }),
      images,
      features: features.length ? features : null,
      specs: Object.keys(specs).length ? specs : null,
      ...(certificate ? { energy_certificate: certificate } : {}),
      ...(updated ? { updated_at: updated } : {}),
    },
  };
}
