/**
 * The filters of GET /properties once parsed (spec §4.4, CONTRACT §4), and which price each
 * operation selects.
 */
import type { MapArea } from './geo.ts';
import type { Operation, PropertyType } from './terms.ts';

export type PriceSort = 'price_asc' | 'price_desc';

/** Parsed, validated query of GET /properties. Prices in €, sizes in m². */
export interface PropertyQuery {
  limit: number;
  offset: number;
  status?: string;
  operation?: Operation;
  rental_type?: 'temporal' | 'anual';
  type?: PropertyType;
  subtype?: string;
  /** Already Unicode lower-cased (see cityKey). */
  cityKey?: string;
  /** Empty: the map filter is off. */
  areas: MapArea[];
  min_price?: number;
  max_price?: number;
  min_bedrooms?: number;
  is_featured?: boolean;
  sort?: PriceSort;
}

/** Stored column holding the price an operation uses; with no operation, the first non-null price. */
export type PriceColumn = 'price' | 'price_rent' | 'price_transfer' | 'price_any';

/** CONTRACT §4: sale price for venta, rent for alquiler, transfer price for traspaso. */
export function priceColumnFor(operation: Operation | undefined): PriceColumn {
  switch (operation) {
    case 'venta':
      return 'price';
    case 'alquiler':
      return 'price_rent';
    case 'traspaso':
      return 'price_transfer';
    default:
      return 'price_any';
  }
}

/** A key naming the rows a query selects, ignoring paging: what `total` depends on. */
export function filterKey(q: PropertyQuery): string {
  const { limit: _limit, offset: _offset, sort: _sort, ...filters } = q;
  return JSON.stringify(filters);
}
