/** The listings a valuation compares a home with (CONTRACT §24, domain/owners/valuation.ts): SQL only, no rules. */
import { sql, type SqlBool } from 'kysely';
import type { Executor } from '../database.ts';

/** What a valuation reads of a listing it compares. */
export interface CandidateRow {
  id: number;
  external_ref: string;
  title: string | null;
  type: string | null;
  size_total: number | null;
  bedrooms: number | null;
  /** The operation's price (a sale's, or the monthly rent), €. */
  price: number | null;
  /** The recorded sale or rental price of a sold or let listing, €. */
  closed_price: number | null;
  status: string;
  postal_code: string | null;
  lat: number | null;
  lon: number | null;
}

/**
 * The business's listings of `type` with a price of `operation` (for sale or let now, or sold or
 * let at a recorded price) and a size within `[minSize, maxSize]` m², in `postalCode` or inside
 * `box` (latitudes and longitudes), at most `limit`.
 */
export async function listValuationCandidates(
  db: Executor,
  businessId: number,
  q: {
    type: string;
    operation: 'venta' | 'alquiler';
    minSize: number;
    maxSize: number;
    postalCode: string | null;
    box: { minLat: number; maxLat: number; minLon: number; maxLon: number } | null;
    limit: number;
  },
): Promise<CandidateRow[]> {
  const price = q.operation === 'venta' ? 'price' : 'price_rent';
  const closed = q.operation === 'venta' ? 'vendida' : 'alquilada';
  return db
    .selectFrom('properties')
    .select([
      'id',
      'external_ref',
      'title',
      'type',
      'size_total',
      'bedrooms',
      sql<number | null>`${sql.ref(price)}`.as('price'),
      'closed_price',
      'status',
      'postal_code',
      'lat',
      'lon',
    ])
    .where('business_id', '=', businessId)
    .where('type', '=', q.type)
    .where('size_total', '>=', q.minSize)
    .where('size_total', '<=', q.maxSize)
    .where((eb) =>
      eb.or([
        eb.and([eb('status', 'in', ['disponible', 'reservada']), eb(sql.ref(price), 'is not', null)]),
        eb.and([eb('status', '=', closed), eb('closed_price', 'is not', null)]),
      ]),
    )
    .where((eb) => {
      const near: Array<ReturnType<typeof eb.and>> = [];
      if (q.box)
        near.push(
          eb.and([
            eb('lat', '>=', q.box.minLat),
            eb('lat', '<=', q.box.maxLat),
            eb('lon', '>=', q.box.minLon),
            eb('lon', '<=', q.box.maxLon),
          ]),
        );
      if (q.postalCode !== null) near.push(eb.and([eb('postal_code', '=', q.postalCode)]));
      return near.length ? eb.or(near) : sql<SqlBool>`1 = 0`;
    })
    .limit(q.limit)
    .execute();
}
