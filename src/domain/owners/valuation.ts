/**
 * A valuation from comparables ("informe de valoración", CONTRACT §24, issue 58 item 5), pure:
 * which listings compare with a home, how each is adjusted, and the suggested range.
 *
 * - **Comparables**: listings of the same type and operation, with a price, whose size is within
 *   ±{@link SIZE_SPREAD} of the home's, in the same postal code or within {@link RADIUS_M} metres
 *   (great-circle distance); the home itself left out; the {@link MAX_COMPARABLES} nearest kept.
 * - **Price per m²** of each: its price (a sale's or the monthly rent, €) over its size (m²); a
 *   sold or let listing's recorded price when it has one (a real transaction), else its asking price.
 * - **Adjustment for size**: larger homes fetch less per m², so a comparable's price per m² is
 *   scaled by (its size / the home's size)^{@link SIZE_ELASTICITY}: one 20 % larger is raised 2.8 %,
 *   one 20 % smaller lowered 3.3 %. Nothing else is adjusted: the report shows each figure.
 * - **Suggested range**: the interquartile range (25th to 75th percentile, linear interpolation) of
 *   the adjusted prices per m², times the home's size, rounded (to 1,000 € for a sale, 10 € for a
 *   rent); the median likewise. Fewer than {@link MIN_COMPARABLES} comparables give no range.
 */

/** How far a comparable's size may be from the home's: ±25 %. */
export const SIZE_SPREAD = 0.25;
/** How far a comparable may be when not in the same postal code, metres. */
export const RADIUS_M = 1000;
/** The most comparables kept, the nearest first. */
export const MAX_COMPARABLES = 30;
/** The fewest comparables a range is given from. */
export const MIN_COMPARABLES = 3;
/** The exponent of the size adjustment (price per m² ∝ size^−0.15). */
export const SIZE_ELASTICITY = 0.15;

/** The home valued. */
export interface ValuedHome {
  /** The catalogue's property type (`apartamento`, `casa`, …). */
  type: string;
  operation: 'venta' | 'alquiler';
  /** m². */
  size: number;
  bedrooms: number | null;
  postal_code: string | null;
  lat: number | null;
  lon: number | null;
  /** The listing valued, left out of its own comparables; null for a home not listed. */
  id: number | null;
}

/** A listing that may compare. */
export interface Candidate {
  id: number;
  external_ref: string;
  title: string | null;
  type: string;
  /** m². */
  size: number;
  bedrooms: number | null;
  /** €: the sale price or the monthly rent of the operation valued. */
  price: number;
  /** Whether `price` is a recorded sale or rental, not an asking price. */
  closed: boolean;
  postal_code: string | null;
  lat: number | null;
  lon: number | null;
}

/** A comparable as the report shows it. */
export interface Comparable extends Candidate {
  /** Metres from the home, or null when either has no position (then it shares the postal code). */
  distance_m: number | null;
  /** €/m², as listed (or recorded). */
  price_m2: number;
  /** The size adjustment, a fraction (0.028 is +2.8 %). */
  adjustment: number;
  /** €/m² after it. */
  adjusted_m2: number;
}

/** A valuation: the comparables, nearest first, and the suggested range (null with too few). */
export interface Valuation {
  comparables: Comparable[];
  range: { low: number; median: number; high: number; low_m2: number; median_m2: number; high_m2: number } | null;
}

const EARTH_RADIUS_M = 6_371_008.8;

/** Great-circle distance between two positions (haversine), metres. */
export function distanceM(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The box of latitudes and longitudes holding every point within {@link RADIUS_M} of `at` (a first, indexable filter). */
export function searchBox(at: { lat: number; lon: number }): { minLat: number; maxLat: number; minLon: number; maxLon: number } {
  const dLat = (RADIUS_M / EARTH_RADIUS_M) * (180 / Math.PI);
  const dLon = dLat / Math.max(0.01, Math.cos((at.lat * Math.PI) / 180));
  return { minLat: at.lat - dLat, maxLat: at.lat + dLat, minLon: at.lon - dLon, maxLon: at.lon + dLon };
}

/** The sizes a comparable may have, m². */
export const sizeBounds = (size: number) => ({ min: size * (1 - SIZE_SPREAD), max: size * (1 + SIZE_SPREAD) });

/** The `q` quantile (0–1) of sorted `values`, by linear interpolation between the nearest ranks. */
export function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (at - below);
}

/**
 * Values `home` from `candidates` (see the module's comment). Candidates of another type, with
 * no price or size, outside the size band, or neither in the postal code nor within the radius
 * are left out.
 */
export function valuate(home: ValuedHome, candidates: readonly Candidate[]): Valuation {
  const bounds = sizeBounds(home.size);
  const here = home.lat !== null && home.lon !== null ? { lat: home.lat, lon: home.lon } : null;
  const postal = home.postal_code?.trim() || null;
  const kept: Comparable[] = [];
  for (const c of candidates) {
    if (c.id === home.id || c.type !== home.type || !(c.size > 0) || !(c.price > 0)) continue;
    if (c.size < bounds.min || c.size > bounds.max) continue;
    const distance = here && c.lat !== null && c.lon !== null ? distanceM(here, { lat: c.lat, lon: c.lon }) : null;
    const samePostal = postal !== null && c.postal_code?.trim() === postal;
    if (!samePostal && (distance === null || distance > RADIUS_M)) continue;
    const priceM2 = c.price / c.size;
    const factor = (c.size / home.size) ** SIZE_ELASTICITY;
    kept.push({ ...c, distance_m: distance, price_m2: priceM2, adjustment: factor - 1, adjusted_m2: priceM2 * factor });
  }
  kept.sort((a, b) => (a.distance_m ?? Infinity) - (b.distance_m ?? Infinity) || a.id - b.id);
  const comparables = kept.slice(0, MAX_COMPARABLES);
  if (comparables.length < MIN_COMPARABLES) return { comparables, range: null };
  const sorted = comparables.map((c) => c.adjusted_m2).sort((a, b) => a - b);
  const step = home.operation === 'venta' ? 1000 : 10;
  const euros = (m2: number) => Math.round((m2 * home.size) / step) * step;
  const [low, median, high] = [0.25, 0.5, 0.75].map((q) => quantile(sorted, q));
  return {
    comparables,
    range: { low: euros(low), median: euros(median), high: euros(high), low_m2: low, median_m2: median, high_m2: high },
  };
}
