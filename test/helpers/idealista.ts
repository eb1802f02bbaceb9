/**
 * idealista's v6 format in tests (CONTRACT §22): the spec's own schemas (test/fixtures/spec/idealista-v6,
 * not the copy inmo ships) compiled with the same draft-04 validator, and a listing of the import
 * format turned into the Property object the API publishes, privacy applied, as the feed reads it.
 */
import { join } from 'node:path';
import { buildPublishedDocs, propertyJson } from '../../src/domain/catalogue/property-doc.ts';
import { normalizeImportRecord, type ListingRecord } from '../../src/domain/catalogue/property-record.ts';
import type { PublishedProperty } from '../../src/domain/catalogue/kyero-feed.ts';
import { SUBTYPES } from '../../src/domain/catalogue/terms.ts';
import { compileIdealistaSchemas, type IdealistaSchemas } from '../../src/feeds/idealista-schema.ts';
import { REPO_ROOT } from './db.ts';

/** idealista's v6 properties format as the spec holds it, with idealista's examples (test/fixtures/spec/README.md). */
export const SPEC_IDEALISTA = join(REPO_ROOT, 'test', 'fixtures', 'spec', 'idealista-v6');

let spec: IdealistaSchemas | null = null;

/** The spec's schemas, compiled once per test file. */
export function specSchemas(): IdealistaSchemas {
  spec ??= compileIdealistaSchemas(SPEC_IDEALISTA);
  return spec;
}

/** The Spanish subtype labels the API publishes → their keys. */
export const SUBTYPE_KEYS: ReadonlyMap<string, string> = new Map(Object.entries(SUBTYPES).map(([key, { label }]) => [label, key]));

/**
 * A listing of the import format as the API publishes it (`GET /properties/{id}`), with `id`, and
 * its published texts per language (`property_docs.lang_texts`, null when it holds Spanish only).
 */
export function publishedWithTexts(record: Record<string, unknown>, id = 1): { p: PublishedProperty; langTexts: string | null } {
  const { fields, images, videos } = normalizeImportRecord(record as unknown as ListingRecord, '2026-01-01T00:00:00+00:00');
  const docs = buildPublishedDocs(
    fields,
    images.map((image, at) => ({ ...image, id: at + 1 })),
    videos.map((video, at) => ({ ...video, id: at + 1 })),
  );
  return { p: JSON.parse(propertyJson(id, docs.api_doc)) as PublishedProperty, langTexts: docs.lang_texts };
}

/** A listing of the import format as the API publishes it, with `id`. */
export const published = (record: Record<string, unknown>, id = 1): PublishedProperty => publishedWithTexts(record, id).p;
