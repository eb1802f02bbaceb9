/**
 * The published catalogue (spec §4.4, §4.5): pages in the API's shape.
 *
 * `total` needs a COUNT over every matching row, the one cost of a list request that grows
 * with the catalogue. Counts, and optionally whole page bodies, are cached per process, keyed
 * by business, catalogue version (bumped in the same transaction as every catalogue change,
 * and read with the API key on every request) and query, so a cached value is never stale.
 */
import { LRUCache } from 'lru-cache';
import { isRowId, type Db } from '../../db/database.ts';
import * as repo from '../../db/repositories/properties.ts';
import type { ScanPlan } from '../../db/repositories/properties.ts';
import { propertyJson } from '../../domain/catalogue/property-doc.ts';
import { docInLanguage, type ListingLanguage } from '../../domain/catalogue/languages.ts';
import { filterKey, type PropertyQuery } from '../../domain/catalogue/property-query.ts';
import { areaTest } from '../../domain/catalogue/geo.ts';

/** Longest a page of map areas tests positions before it gives way to other requests, ms. */
const SLICE_MS = 10;

/** Cost of a row found through a filter's index relative to a row visited along the order's index. */
const FILTER_ROW_COST = 4;

/** The query without filters: its count is the whole published catalogue. */
const UNFILTERED: PropertyQuery = { limit: 0, offset: 0, areas: [] };
const UNFILTERED_KEY = filterKey(UNFILTERED);

/** A published Property object in `lang`, or as stored when no language is asked for (CONTRACT §22). */
const inLanguage = (doc: string, langTexts: string | null, lang: ListingLanguage | null) =>
  lang === null ? doc : docInLanguage(doc, langTexts, lang);

/** Reads of the published catalogue for one process. */
export class CatalogueReader {
  private readonly counts: LRUCache<string, number> | null;
  private readonly pages: LRUCache<string, Buffer> | null;

  /**
   * @param countCacheSize entries of the count cache; 0 turns it off.
   * @param pageCacheBytes bytes of page bodies kept; 0 turns it off.
   */
  constructor(
    private readonly db: Db,
    countCacheSize: number,
    pageCacheBytes = 0,
  ) {
    this.counts = countCacheSize > 0 ? new LRUCache({ max: countCacheSize }) : null;
    this.pages =
      pageCacheBytes > 0 ? new LRUCache({ maxSize: pageCacheBytes, sizeCalculation: (body: Buffer) => Math.max(1, body.length) }) : null;
  }

  /**
   * One page as UTF-8 JSON: `{"data":[…],"total":n,"limit":n,"offset":n}` (CONTRACT §1).
   * Built as text from the stored documents, which are already privacy-filtered JSON, and
   * kept encoded in the page cache under the catalogue version, so a change is seen at once.
   * @param lang the language of titles and descriptions (CONTRACT §22); none: each listing's
   *   default text, the stored document as it is.
   */
  async listPage(businessId: number, catalogueVersion: number, q: PropertyQuery, lang: ListingLanguage | null = null): Promise<Buffer> {
    const filters = filterKey(q);
    const key = this.pages && `${businessId}:${catalogueVersion}:${q.sort ?? ''}:${q.limit}:${q.offset}:${lang ?? ''}:${filters}`;
    const cached = key && this.pages!.get(key);
    if (cached) return cached;
    let total: number;
    let data = '';
    if (q.areas.some((area) => area.kind === 'polygon')) {
      ({ total, data } = await this.pageInAreas(businessId, catalogueVersion, q, filters, lang));
    } else {
      total = await this.total(businessId, catalogueVersion, q, filters);
      if (total > q.offset) {
        const rows = await repo.listPublished(this.db, businessId, q, await this.plan(businessId, catalogueVersion, q, total));
        data = rows.map((r) => inLanguage(propertyJson(r.id, r.api_doc), r.lang_texts, lang)).join(',');
      }
    }
    const body = Buffer.from(`{"data":[${data}],"total":${total},"limit":${q.limit},"offset":${q.offset}}`);
    if (key) this.pages!.set(key, body);
    return body;
  }

  /**
   * A page of a query with a polygon among its map areas (CONTRACT §4). SQL finds the rows in
   * the areas' bounding boxes (one index, a short statement); each is then tested here against
   * the areas, with the same arithmetic as the SQL filter (domain/catalogue/geo.ts), giving way to other
   * requests every {@link SLICE_MS} so that no query holds the event loop. Testing 1,000-vertex
   * polygons in SQL made a statement of a megabyte, tested row by row, and stalled the process.
   */
  private async pageInAreas(businessId: number, catalogueVersion: number, q: PropertyQuery, filters: string, lang: ListingLanguage | null) {
    const candidates = await repo.listAreaCandidates(this.db, businessId, q);
    const tests = q.areas.map(areaTest);
    const kept: number[] = [];
    let slice = performance.now();
    for (const row of candidates) {
      if (performance.now() - slice > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
      const { pub_lat: lat, pub_lon: lon } = row;
      if (lat !== null && lon !== null && tests.some((inside) => inside(lat, lon))) kept.push(row.id);
    }
    this.counts?.set(`${businessId}:${catalogueVersion}:${filters}`, kept.length);
    const page = kept.slice(q.offset, q.offset + q.limit);
    const docs = await repo.publishedDocsById(this.db, businessId, page);
    const data = page
      .filter((id) => docs.has(id))
      .map((id) => inLanguage(propertyJson(id, docs.get(id)!.api_doc), docs.get(id)!.lang_texts, lang))
      .join(',');
    return { total: kept.length, data };
  }

  /**
   * Walking the order's index visits about `listed / total` rows per row returned, so
   * `listed × (offset + limit) / total` in all; using a filter's index reads and sorts all
   * `total` matches, at about {@link FILTER_ROW_COST} times the cost per row (measured on the
   * 200k benchmark catalogue: range scan, table lookup and sort). The cheaper one wins.
   */
  private async plan(businessId: number, catalogueVersion: number, q: PropertyQuery, total: number): Promise<ScanPlan> {
    const listed = await this.total(businessId, catalogueVersion, UNFILTERED, UNFILTERED_KEY);
    const orderScanRows = (listed * (q.offset + q.limit)) / total;
    return orderScanRows <= FILTER_ROW_COST * total ? 'order-index' : 'planner';
  }

  /**
   * `{"data": Property}` as UTF-8 JSON (spec §4.5), or undefined when the property does not
   * exist for the API. Kept in the page cache under the catalogue version, like pages; a
   * missing id is not kept, so ids that name nothing cannot fill the cache.
   * @param lang as for {@link listPage}.
   */
  async getJson(
    businessId: number,
    catalogueVersion: number,
    id: number,
    lang: ListingLanguage | null = null,
  ): Promise<Buffer | undefined> {
    if (!isRowId(id)) return undefined;
    const key = this.pages && `property:${businessId}:${catalogueVersion}:${id}:${lang ?? ''}`;
    const cached = key && this.pages!.get(key);
    if (cached) return cached;
    const row = await repo.findPublished(this.db, businessId, id);
    if (!row) return undefined;
    const body = Buffer.from(`{"data":${inLanguage(propertyJson(row.id, row.api_doc), row.lang_texts, lang)}}`);
    if (key) this.pages!.set(key, body);
    return body;
  }

  /** @param filters `filterKey(q)`, computed once by the caller. */
  private async total(businessId: number, catalogueVersion: number, q: PropertyQuery, filters: string): Promise<number> {
    if (!this.counts) return repo.countPublished(this.db, businessId, q);
    const key = `${businessId}:${catalogueVersion}:${filters}`;
    const cached = this.counts.get(key);
    if (cached !== undefined) return cached;
    const total = await repo.countPublished(this.db, businessId, q);
    this.counts.set(key, total);
    return total;
  }
}
