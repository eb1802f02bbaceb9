/**
 * A listing's "Vista pública" on its console page (CONTRACT §14, §23): the Property object
 * `GET /properties/{id}` publishes, laid out as the website kit shows it (src/embed/catalogue.ts):
 * its card in `<inmo-listings>` (first photo, title, price, city · size · bedrooms) and its page
 * in `<inmo-property>` (photos, prices, size and rooms, features, description, where it is as
 * precisely as the API publishes it). Rendered here, server-side, by views/_kit-preview.eta with
 * the kit's look (console.css `.kit`); the words are the console's, in the reader's language.
 */
import { kitDescription } from '../../domain/catalogue/html.ts';
import { photoSources } from '../../media/photo-widths.ts';
import type { Translate } from './i18n.ts';

/** The fields of the published Property object the kit shows (CONTRACT §5). */
interface Published {
  id: number;
  operation?: string | null;
  title?: string | null;
  price?: number | null;
  size_total?: number | null;
  bedrooms?: number | null;
  bathrooms?: number | null;
  city?: string | null;
  province?: string | null;
  address?: string | null;
  description?: string | null;
  images?: Array<{ url: string; is_primary?: boolean; title?: string | null }> | null;
  features?: Array<{ label?: string | null }> | null;
  specs?: { price_calc?: { price_alq?: number | null; price_trasp?: number | null }; address_privacy?: string } | null;
}

/** A photo as the kit shows it: `src`, and `srcset` where inmo stores it in several widths. */
export interface KitPhoto {
  src: string;
  srcset: string | null;
  alt: string;
}

/** What views/_kit-preview.eta draws. */
export interface KitPreview {
  title: string;
  card: { photo: KitPhoto | null; price: string; facts: string };
  photos: KitPhoto[];
  prices: string;
  facts: string;
  features: string[];
  /** The description's HTML, kept to the kit's tags with no attribute (safe to insert as it is). */
  descriptionHtml: string | null;
  place: string | null;
  placeApproximate: boolean;
}

/** A photo's `src` and `srcset`, as the kit's `picture` makes them: only the widths stored of it. */
function photo(url: string, alt: string): KitPhoto {
  return { ...photoSources(url), alt };
}

/**
 * The kit's view of a published listing.
 * @param published the Property object of `GET /properties/{id}` (its `data`).
 * @param lang the console's language (money as `es-ES`, or `en-GB`).
 */
export function kitPreview(published: Record<string, unknown>, lang: string, t: Translate): KitPreview {
  const p = published as unknown as Published;
  const money = new Intl.NumberFormat(lang === 'en' ? 'en-GB' : 'es-ES', { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 });
  const price = p.price ?? null;
  const rent = p.specs?.price_calc?.price_alq ?? null;
  const transfer = p.specs?.price_calc?.price_trasp ?? null;
  const perMonth = (n: number) => `${money.format(n)}${t('per_month')}`;
  const transferOf = (n: number) => `${t('kit_transfer')}: ${money.format(n)}`;
  // The card's one price: the sale price, else the rent, else the transfer (the kit's `priceOf`).
  const cardPrice =
    price !== null && p.operation !== 'alquiler'
      ? money.format(price)
      : rent !== null
        ? perMonth(rent)
        : transfer !== null
          ? transferOf(transfer)
          : price !== null
            ? money.format(price)
            : '';
  const title = p.title ?? `#${p.id}`;
  const images = p.images ?? [];
  const first = images.find((i) => i.is_primary) ?? images[0];
  const primary = Math.max(
    0,
    images.findIndex((i) => i.is_primary),
  );
  const bedrooms = p.bedrooms ?? null;
  const bathrooms = p.bathrooms ?? null;
  const size = p.size_total ?? null;
  const place = [p.address, p.city, p.province].filter(Boolean).join(', ');
  return {
    title,
    card: {
      photo: first ? photo(first.url, '') : null,
      price: cardPrice,
      facts: [
        p.city ?? null,
        size !== null ? `${size} m²` : null,
        bedrooms !== null ? t(bedrooms === 1 ? 'kit_bedroom' : 'kit_bedrooms', { n: bedrooms }) : null,
      ]
        .filter(Boolean)
        .join(' · '),
    },
    // From the primary one, as the kit's gallery starts.
    photos: [...images.slice(primary), ...images.slice(0, primary)].map((i) => photo(i.url, i.title ?? title)),
    prices: [
      price !== null ? money.format(price) : null,
      rent !== null ? perMonth(rent) : null,
      transfer !== null ? transferOf(transfer) : null,
    ]
      .filter(Boolean)
      .join(' · '),
    facts: [
      size !== null ? `${size} m²` : null,
      bedrooms !== null ? t(bedrooms === 1 ? 'kit_bedroom' : 'kit_bedrooms', { n: bedrooms }) : null,
      bathrooms !== null ? t(bathrooms === 1 ? 'kit_bathroom' : 'kit_bathrooms', { n: bathrooms }) : null,
    ]
      .filter(Boolean)
      .join(' · '),
    features: (p.features ?? []).map((f) => f.label ?? '').filter((label) => label !== ''),
    descriptionHtml: kitDescription(p.description ?? null),
    place: place === '' ? null : place,
    placeApproximate: p.specs?.address_privacy === 'approximate',
  };
}
