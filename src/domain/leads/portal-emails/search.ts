/**
 * The search a portal's contact is given from the listing it wrote about (CONTRACT §19): the
 * listing's operation, type and city, and a price band of ±15 % around its price for that
 * operation, as one entry of `search_preferences` (spec §2.4).
 */

/** What the search is built from: the columns of a listing (table `properties`). */
export interface ListingForSearch {
  operation: string | null;
  op_venta: number;
  op_alquiler: number;
  op_traspaso: number;
  type: string | null;
  city: string | null;
  /** Sale price, €. */
  price: number | null;
  /** Monthly rent, €. */
  price_rent: number | null;
  /** Transfer price, €. */
  price_transfer: number | null;
}

/** How far the band reaches either side of the listing's price. */
export const PRICE_BAND = 0.15;

/** The listing's operation: its `operation`, else the first it is offered for (venta, alquiler, traspaso). */
function operationOf(listing: ListingForSearch): 'venta' | 'alquiler' | 'traspaso' | null {
  if (listing.operation === 'venta' || listing.operation === 'alquiler' || listing.operation === 'traspaso') return listing.operation;
  if (listing.op_venta) return 'venta';
  if (listing.op_alquiler) return 'alquiler';
  if (listing.op_traspaso) return 'traspaso';
  return null;
}

/**
 * One search entry for a person who asked about `listing`: `operations` and `property_types`
 * of one value each (when the listing states them), under the type the price band
 * (`price_min`/`price_max` for a sale or a transfer, `price_rent_min`/`price_rent_max` for a
 * rent; whole euros, the lower bound rounded down and the upper up, so the listing's own price
 * is always inside), and `locations: [{name: city}]`. Null when the listing states none of these.
 */
export function searchOfListing(listing: ListingForSearch): Record<string, unknown> | null {
  const operation = operationOf(listing);
  const entry: Record<string, unknown> = {};
  if (operation) entry.operations = [operation];
  if (listing.type) {
    entry.property_types = [listing.type];
    const price = operation === 'alquiler' ? listing.price_rent : operation === 'traspaso' ? listing.price_transfer : listing.price;
    if (operation && typeof price === 'number' && Number.isFinite(price) && price > 0) {
      const low = Math.floor(price * (1 - PRICE_BAND));
      const high = Math.ceil(price * (1 + PRICE_BAND));
      entry[listing.type] = operation === 'alquiler' ? { price_rent_min: low, price_rent_max: high } : { price_min: low, price_max: high };
    }
  }
  if (listing.city?.trim()) entry.locations = [{ name: listing.city.trim() }];
  return Object.keys(entry).length ? entry : null;
}
