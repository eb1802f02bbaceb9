/**
 * The catalogue changes feed (CONTRACT §13 `GET /properties/changes`).
 *
 * Every listing carries the catalogue version of the import that last wrote it (migration
 * 0010), and versions commit in order per business, so the feed is the business's listings
 * in (version, id) order after the cursor: a listing public now is an `upsert` with its
 * Property object, any other (sold, rented, withdrawn, not public) a `delete`. A client that
 * applies every page in order holds exactly the public catalogue once `has_more` is false;
 * a listing changed twice between two polls appears once, as it is now.
 *
 * The cursor is opaque to clients: `base64url("v1.<version>.<id>")` of the last change read.
 */
import { isRowId, type Db } from '../../db/database.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import { listChanges } from '../../db/repositories/properties.ts';
import { propertyJson } from '../../domain/catalogue/property-doc.ts';

/** Where a feed starts: before every listing. */
const START = { seq: -1, id: 0 };

export function encodeCursor(at: { seq: number; id: number }): string {
  return Buffer.from(`v1.${at.seq}.${at.id}`).toString('base64url');
}

/**
 * Reads a cursor. @returns its position, or null when it is malformed or names a version the
 * business has not reached (not one this service gave out).
 */
export function decodeCursor(cursor: string, catalogueVersion: number): { seq: number; id: number } | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return null;
  const match = /^v1\.(-1|\d{1,10})\.(\d{1,10})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!match) return null;
  const seq = Number(match[1]);
  const id = Number(match[2]);
  if (seq > catalogueVersion || (seq === -1 && id !== 0) || (id !== 0 && !isRowId(id))) return null;
  return { seq, id };
}

/**
 * One page of the feed as UTF-8 JSON: `{"data": [{"id", "change", "property", "changed_at"}],
 * "next_cursor", "has_more"}` (CONTRACT §13).
 * @param after the position after which to read (from {@link decodeCursor}), or null for the start.
 * @param limit changes per page, 1–500.
 */
export async function changesPage(db: Db, businessId: number, after: { seq: number; id: number } | null, limit: number): Promise<string> {
  const from = after ?? START;
  const rows = await listChanges(db, businessId, from, limit + 1);
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const data = page.map((r) =>
    r.listed === 1 && r.api_doc !== null
      ? `{"id":${r.id},"change":"upsert","property":${propertyJson(r.id, r.api_doc)},"changed_at":${JSON.stringify(r.imported_at)}}`
      : `{"id":${r.id},"change":"delete","property":null,"changed_at":${JSON.stringify(r.imported_at)}}`,
  );
  const last = page.at(-1);
  const next = last ? { seq: last.change_seq, id: last.id } : from;
  return `{"data":[${data.join(',')}],"next_cursor":"${encodeCursor(next)}","has_more":${hasMore}}`;
}

/** The business's catalogue version now (a cursor may not name a later one). */
export async function currentCatalogueVersion(db: Db, businessId: number): Promise<number> {
  return (await findBusiness(db, businessId))?.catalogue_version ?? 0;
}
