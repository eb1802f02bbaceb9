/** The OpenAPI document: served, version 1.0.0, OpenAPI 3.1, and the committed copy matches the code. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH, renderOpenApi } from '../../../scripts/write-openapi.ts';
import { freshDb } from '../../helpers/db.ts';
import { appOn } from '../../helpers/http.ts';

describe('OpenAPI document', () => {
  it('is committed exactly as the code generates it (run `npm run openapi` after a schema change)', async () => {
    expect(readFileSync(OPENAPI_PATH, 'utf8')).toBe(await renderOpenApi());
  });

  it('is served without a key at /v1/ext/openapi.json, with every operation of the spec', async () => {
    const { db } = await freshDb();
    const app = await appOn(db);
    const response = await app.inject({ method: 'GET', url: '/v1/ext/openapi.json' });
    expect(response.statusCode).toBe(200);
    const doc = response.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.servers).toEqual([{ url: '/v1/ext' }]);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/events',
      '/leads',
      '/leads/ingest',
      '/leads/inquiries',
      '/leads/{lead_id}',
      '/leads/{lead_id}/export',
      '/leads/{lead_id}/matches',
      '/me',
      '/properties',
      '/properties/changes',
      '/properties/{property_id}',
      '/valuations',
      '/viewings',
      '/viewings/availability',
    ]);
    expect(doc.paths['/leads/inquiries'].post.requestBody.required).toBe(true);
    // POST /viewings answers 201, takes Idempotency-Key, and documents the taken slot's 409 (CONTRACT §20).
    const booking = doc.paths['/viewings'].post;
    expect(Object.keys(booking.responses).sort()).toEqual(['201', '400', '401', '403', '404', '409', '413', '422', '429', '500']);
    expect(booking.parameters).toContainEqual(expect.objectContaining({ in: 'header', name: 'idempotency-key', required: false }));
    expect(Object.keys(booking.responses['201'].headers)).toEqual(['Idempotent-Replayed']);
    for (const path of ['/leads/inquiries', '/leads/ingest']) {
      expect(Object.keys(doc.paths[path].post.responses).sort(), path).toEqual([
        '200',
        '400',
        '401',
        '403',
        '409',
        '413',
        '422',
        '429',
        '500',
      ]);
    }
    // Both POSTs take Idempotency-Key and tell the lead's outcome (CONTRACT §13).
    for (const path of ['/leads/inquiries', '/leads/ingest']) {
      const post = doc.paths[path].post;
      expect(post.parameters).toContainEqual(expect.objectContaining({ in: 'header', name: 'idempotency-key', required: false }));
      expect(Object.keys(post.responses['200'].headers).sort()).toEqual(['Idempotent-Replayed', 'Inmo-Lead-Outcome']);
    }
    const listParams = doc.paths['/properties'].get.parameters
      .filter((p: { in: string }) => p.in === 'query')
      .map((p: { name: string }) => p.name)
      .sort();
    expect(listParams).toEqual(
      [
        'city',
        'is_featured',
        // CONTRACT §22: the language of titles and descriptions.
        'lang',
        'limit',
        'locations',
        'max_price',
        'min_bedrooms',
        'min_price',
        'offset',
        'operation',
        'rental_type',
        'sort',
        'status',
        'subtype',
        'type',
      ].sort(),
    );
    for (const path of Object.values(doc.paths) as Array<Record<string, { responses: Record<string, unknown> }>>) {
      for (const op of Object.values(path)) {
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '401', '422', '429', '500']));
        // A success: 200, or 201 for what creates (POST /viewings).
        expect(Object.keys(op.responses).filter((status) => status === '200' || status === '201')).toHaveLength(1);
      }
    }
    const docs = await app.inject({ method: 'GET', url: '/v1/ext/docs' });
    expect([200, 302]).toContain(docs.statusCode);
    await app.close();
    await db.destroy();
  });
});
