/**
 * Listings' public pages (migration 0037, CONTRACT §21): the token of each listing's page, and
 * what a page reads by its token. SQL only; the rules are in services/catalogue/listing-page.ts.
 */
import { mintToken } from '../../domain/capability-token.ts';
import type { Executor } from '../database.ts';

/**
 * A new page token: a capability token (domain/capability-token.ts, 43 base64url characters)
 * kept as it is, not hashed: the page's link is written again in every alert and on every sheet's
 * QR code. Pages made before issue 56 keep their 32 lower-case hex characters (migration 0037).
 */
export function newPageToken(): string {
  return mintToken().token;
}

/** Gives each of these new listings its page token (each id once; none that has one already). */
export async function insertPageTokens(db: Executor, propertyIds: readonly number[], at: string): Promise<void> {
  for (let i = 0; i < propertyIds.length; i += 500) {
    const rows = propertyIds.slice(i, i + 500).map((property_id) => ({ property_id, token: newPageToken(), created_at: at }));
    if (rows.length) await db.insertInto('property_pages').values(rows).execute();
  }
}

/**
 * The page token of listing `propertyId` of business `businessId`; one is made for a listing
 * that has none (a row written by other means than the catalogue's write path), and of two made
 * at once the first stored wins.
 * @returns undefined when the business has no such listing.
 */
export async function pageTokenOf(db: Executor, businessId: number, propertyId: number, at: string): Promise<string | undefined> {
  const read = () =>
    db
      .selectFrom('properties')
      .leftJoin('property_pages', 'property_pages.property_id', 'properties.id')
      .select(['properties.id', 'property_pages.token'])
      .where('properties.business_id', '=', businessId)
      .where('properties.id', '=', propertyId)
      .executeTakeFirst();
  const row = await read();
  if (row === undefined) return undefined;
  if (row.token !== null) return row.token;
  await db
    .insertInto('property_pages')
    .values({ property_id: propertyId, token: newPageToken(), created_at: at })
    .onConflict((oc) => oc.column('property_id').doNothing())
    .execute();
  return (await read())?.token ?? undefined;
}

/** The page tokens of these listings of the business, by listing id (a listing without one is left out). */
export async function pageTokensOf(db: Executor, businessId: number, propertyIds: readonly number[]): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  for (let i = 0; i < propertyIds.length; i += 500) {
    const rows = await db
      .selectFrom('property_pages')
      .innerJoin('properties', 'properties.id', 'property_pages.property_id')
      .select(['property_pages.property_id', 'property_pages.token'])
      .where('properties.business_id', '=', businessId)
      .where('property_pages.property_id', 'in', propertyIds.slice(i, i + 500))
      .execute();
    for (const row of rows) found.set(row.property_id, row.token);
  }
  return found;
}

/**
 * The listing whose page token is `token`, with what its page shows: whether it is in the
 * public catalogue now (`listed`), its published documents, its reference and the columns a
 * search is built from (domain/leads/portal-emails/search.ts), and its business's name.
 * @returns undefined for a token no listing has.
 */
export async function findListingOfPage(db: Executor, token: string) {
  return db
    .selectFrom('property_pages')
    .innerJoin('properties', 'properties.id', 'property_pages.property_id')
    .innerJoin('businesses', 'businesses.id', 'properties.business_id')
    .leftJoin('property_docs', 'property_docs.property_id', 'properties.id')
    .select([
      'properties.id',
      'properties.business_id',
      'businesses.name as business_name',
      'properties.listed',
      'properties.external_ref',
      'properties.operation',
      'properties.op_venta',
      'properties.op_alquiler',
      'properties.op_traspaso',
      'properties.type',
      'properties.city',
      'properties.price',
      'properties.price_rent',
      'properties.price_transfer',
      'property_docs.api_doc',
      'property_docs.lang_texts',
    ])
    .where('property_pages.token', '=', token)
    .executeTakeFirst();
}

/** Every stored width of the listing's photos (media/store.ts keys), with the URL the listing's image holds. */
export async function listingMediaObjects(
  db: Executor,
  businessId: number,
  propertyId: number,
): Promise<Array<{ key: string; url: string }>> {
  return db
    .selectFrom('media_objects')
    .select(['key', 'url'])
    .where('property_id', '=', propertyId)
    .where('business_id', '=', businessId)
    .orderBy('key')
    .execute();
}
