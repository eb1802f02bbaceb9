/** GET /properties and GET /properties/{property_id} (spec §4.4, §4.5; CONTRACT §4, §5). */
import { isPersonView, type ListingViews } from '../../services/catalogue/listing-views.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { parseLocationsJson, parseMapArea, type MapArea } from '../../domain/catalogue/geo.ts';
import { cityKey } from '../../domain/catalogue/property-record.ts';
import type { PropertyQuery } from '../../domain/catalogue/property-query.ts';
import {
  ChangesPage,
  ChangesQuery,
  IfNoneMatchHeaders,
  NotModified,
  PropertyEnvelope,
  PropertyPage,
  PropertyParams,
  PropertyQuery as PropertyReadQuery,
  PlainError,
} from '../../schemas/api.ts';
import { listingLanguage } from '../../domain/catalogue/languages.ts';
import type { Schemas } from '../../schemas/index.ts';
import type { Limits } from '../../limits.ts';
import type { CatalogueReader } from '../../services/catalogue/published.ts';
import type { ValidationIssue } from '../../validation/validator.ts';
import { queryRefinement } from '../request-pipeline.ts';
import { InmoError, RequestValidationError } from '../../errors.ts';
import type { Db } from '../../db/database.ts';
import { changesPage, currentCatalogueVersion, decodeCursor } from '../../services/catalogue/changes.ts';
import { conditionalRoute, type RepresentationSink } from '../conditional.ts';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';

/**
 * The language a property read asks for (CONTRACT §22), told in `Content-Language`; null
 * without `lang`, when nothing about the answer changes.
 */
function askedLanguage(lang: string | undefined, reply: FastifyReply) {
  const language = listingLanguage(lang);
  if (language !== null) reply.header('content-language', language);
  return language;
}

const tooLong = (loc: ValidationIssue['loc'], input: unknown, max: number, actual: number): ValidationIssue => ({
  type: 'too_long',
  loc,
  msg: `List should have at most ${max} items after validation, not ${actual}`,
  input,
  ctx: { field_type: 'List', max_length: max, actual_length: actual },
});

/**
 * The map areas of a `locations` value (CONTRACT §4): text that is not a JSON array turns
 * the filter off, unrecognised entries are ignored; more areas or vertices than `limits`
 * allow are faults (CONTRACT §8).
 */
export function parseLocationsParam(text: string | undefined, limits: Limits, issues: ValidationIssue[]): MapArea[] {
  if (text === undefined) return [];
  const entries = parseLocationsJson(text);
  if (entries === null) return [];
  if (entries.length > limits.locations) {
    issues.push(tooLong(['query', 'locations'], text, limits.locations, entries.length));
    return [];
  }
  const areas: MapArea[] = [];
  entries.forEach((entry, i) => {
    const area = parseMapArea(entry);
    if (area?.kind === 'polygon' && area.ring.length > limits.polygonVertices) {
      issues.push(tooLong(['query', 'locations', i], text, limits.polygonVertices, area.ring.length));
    } else if (area) {
      areas.push(area);
    }
  });
  return areas;
}

function toPropertyQuery(q: Static<Schemas['PropertiesQuery']>, areas: MapArea[]): PropertyQuery {
  return {
    limit: q.limit ?? 100,
    offset: q.offset ?? 0,
    status: q.status,
    operation: q.operation,
    rental_type: q.rental_type,
    type: q.type,
    subtype: q.subtype,
    cityKey: q.city === undefined ? undefined : cityKey(q.city),
    areas,
    min_price: q.min_price,
    max_price: q.max_price,
    min_bedrooms: q.min_bedrooms,
    is_featured: q.is_featured,
    sort: q.sort,
  };
}

/** GET /properties and GET /properties/{property_id} (spec §4.4, §4.5). */
export const propertyRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  catalogue: CatalogueReader;
  schemas: Schemas;
  /** Where cached pages go to be answered again before Fastify (http/fast-path.ts); null: nowhere. */
  fastPath: RepresentationSink | null;
  /** Where the website kit's detail views are counted (a publishable key's reads, CONTRACT §24). */
  listingViews: ListingViews;
}> = async (app, { db, catalogue, schemas, fastPath, listingViews }) => {
  app.get(
    '/properties/changes',
    {
      config: { scope: 'properties:read' },
      schema: {
        operationId: 'listPropertyChanges',
        tags: ['properties'],
        summary: 'Changes to the public catalogue since a cursor',
        description:
          'Keeps a copy of the public catalogue in step with one cheap call. Without `cursor`, starts from the beginning: every listing public now appears once as `upsert`. Then pass `next_cursor` back: only listings written since come, as `upsert` (public now, with the Property object) or `delete` (left the public catalogue: sold, rented, withdrawn, not public, or absent from a full import; `property` null). Keep calling while `has_more` is true; after that, a call a minute is enough. Changes come in commit order; a listing changed twice between calls appears once, as it is now.',
        querystring: ChangesQuery,
        response: {
          200: ChangesPage,
        },
      },
    },
    async (request, reply) => {
      const { cursor, limit = 100 } = request.query;
      const businessId = request.apiKey!.businessId;
      const after = cursor === undefined ? null : decodeCursor(cursor, await currentCatalogueVersion(db, businessId));
      if (cursor !== undefined && after === null) {
        const error = 'unknown or malformed cursor: pass a next_cursor from this feed, or none to start again';
        throw new RequestValidationError([
          { type: 'value_error', loc: ['query', 'cursor'], msg: `Value error, ${error}`, input: cursor, ctx: { error: {} } },
        ]);
      }
      const body = await changesPage(db, businessId, after, limit);
      return reply.type('application/json; charset=utf-8').send(body as unknown as Static<typeof ChangesPage>);
    },
  );

  const conditional = conditionalRoute(fastPath);
  // The map areas of `locations` (CONTRACT §4): JSON a schema cannot check.
  const locations = queryRefinement((query, issues) =>
    parseLocationsParam((query as Static<Schemas['PropertiesQuery']>).locations, schemas.limits, issues),
  );
  app.get(
    '/properties',
    {
      ...conditional,
      config: { scope: 'properties:read', refineQuery: locations.refineQuery },
      schema: {
        operationId: 'listProperties',
        tags: ['properties'],
        summary: 'List public properties',
        description:
          'The public catalogue of the business: properties marked public that are `disponible` or `reservada`, newest update first unless `sort` is set.',
        querystring: schemas.PropertiesQuery,
        headers: IfNoneMatchHeaders,
        response: { 200: PropertyPage, 304: NotModified },
      },
    },
    async (request, reply) => {
      const key = request.apiKey!;
      const lang = askedLanguage(request.query.lang, reply);
      const body = await catalogue.listPage(
        key.businessId,
        key.catalogueVersion,
        toPropertyQuery(request.query, locations.of(request)),
        lang,
      );
      request.readVersion = { of: 'catalogue', version: key.catalogueVersion };
      // The page comes serialised (and cached) already: the bytes of a PropertyPage.
      return reply.type('application/json; charset=utf-8').send(body as unknown as Static<typeof PropertyPage>);
    },
  );

  app.get(
    '/properties/:property_id',
    {
      ...conditional,
      config: { scope: 'properties:read' },
      schema: {
        operationId: 'getProperty',
        tags: ['properties'],
        summary: 'Retrieve a property',
        querystring: PropertyReadQuery,
        params: PropertyParams,
        headers: IfNoneMatchHeaders,
        response: {
          200: PropertyEnvelope,
          304: NotModified,
          404: Type.Ref(PlainError.$id!, { description: 'Not existing, not public, or sold, rented or withdrawn.' }),
        },
      },
    },
    async (request, reply) => {
      const key = request.apiKey!;
      const lang = askedLanguage(request.query.lang, reply);
      const body = await catalogue.getJson(key.businessId, key.catalogueVersion, request.params.property_id, lang);
      if (body === undefined) throw new InmoError('PROPERTY_NOT_FOUND');
      request.readVersion = { of: 'catalogue', version: key.catalogueVersion };
      // A publishable key's read is a website's visitor seeing the listing (the kit's detail).
      if (key.origins !== null && isPersonView(request.method, request.headers)) listingViews.count(request.params.property_id, 'kit');
      return reply.type('application/json; charset=utf-8').send(body as unknown as Static<typeof PropertyEnvelope>);
    },
  );
};
