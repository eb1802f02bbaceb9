/** Cross-cutting HTTP behaviour: request ids, unknown routes, wrong methods (CONTRACT §2). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../src/db/database.ts';
import { appOn, businessWithKey, freshDb } from './helpers.ts';

let db: Db;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  ({ db } = await freshDb());
  ({ key } = await businessWithKey(db));
  app = await appOn(db);
});
afterAll(async () => {
  await app.close();
  await db.destroy();
});

describe('HTTP', () => {
  it('puts an X-Request-Id on every response, echoing a sane incoming one', async () => {
    const fresh = await app.inject({ method: 'GET', url: '/v1/ext/me', headers: { 'x-api-key': key } });
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await app.inject({ method: 'GET', url: '/v1/ext/me', headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.statusCode).toBe(401);
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const insane = await app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'bad id\u0007<script>' } });
    expect(insane.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown route 404 Not Found', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/ext/nothing-here' });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ detail: 'Not Found' });
  });

  it('answers a wrong method 405 Method Not Allowed with Allow', async () => {
    for (const url of ['/v1/ext/properties', '/v1/ext/properties/5', '/v1/ext/leads', '/v1/ext/me']) {
      const r = await app.inject({ method: 'DELETE', url, headers: { 'x-api-key': key } });
      expect(r.statusCode).toBe(405);
      expect(r.json()).toEqual({ detail: 'Method Not Allowed' });
      expect(r.headers.allow).toContain('GET');
    }
  });
});
