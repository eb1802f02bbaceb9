/** Cross-cutting HTTP behaviour: request ids, unknown routes, wrong methods (CONTRACT §2). */
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { businessWithKey, freshDb } from '../../helpers/db.ts';
import { appOn, post, withApp, API_ONLY } from '../../helpers/http.ts';

const t = withApp({ surfaces: API_ONLY });

describe('HTTP', () => {
  it('puts an X-Request-Id on every response, echoing a sane incoming one', async () => {
    const fresh = await t.app.inject({ method: 'GET', url: '/v1/ext/me', headers: { 'x-api-key': t.key } });
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await t.app.inject({ method: 'GET', url: '/v1/ext/me', headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.statusCode).toBe(401);
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const insane = await t.app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'bad id\u0007<script>' } });
    expect(insane.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown route 404 Not Found', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/v1/ext/nothing-here' });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ detail: 'Not Found' });
  });

  it('answers a trailing slash 404, not 405', async () => {
    for (const url of ['/v1/ext/leads/', '/v1/ext/me/', '/v1/ext/properties/', '/v1/ext/properties/1/']) {
      const r = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': t.key } });
      expect(r.statusCode).toBe(404);
      expect(r.json()).toEqual({ detail: 'Not Found' });
    }
  });

  it('answers a body over 1 MiB 413 with a plain detail, and a URL it cannot decode 400', async () => {
    const big = await t.app.inject({
      method: 'POST',
      url: '/v1/ext/leads/inquiries',
      headers: { 'x-api-key': t.key, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ detail: 'Request body too large' });
    const bad = await t.app.inject({ method: 'GET', url: '/v1/ext/properties/%E0%A4%A', headers: { 'x-api-key': t.key } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ detail: 'Bad Request' });
    expect(bad.headers['x-request-id']).toBeTruthy();
  });

  it('answers an unexpected failure 500 Internal Server Error without internals', async () => {
    const { db: broken } = await freshDb();
    const { key: brokenKey } = await businessWithKey(broken);
    const brokenApp = await appOn(broken, API_ONLY);
    await broken.schema.dropTable('jobs').execute();
    const r = await post(brokenApp, '/leads/ingest', brokenKey, {
      id: 'x',
      createdAt: '2026-11-20T10:00:00Z',
      source: 's',
      sourcePage: 'p',
      contact: { name: 'A', phone: '+34612000001' },
      search: {},
    });
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ detail: 'Internal Server Error' });
    await brokenApp.close();
    await broken.destroy();
  });

  it('answers a wrong method 405 Method Not Allowed with Allow', async () => {
    for (const url of ['/v1/ext/properties', '/v1/ext/properties/5', '/v1/ext/leads', '/v1/ext/me']) {
      const r = await t.app.inject({ method: 'DELETE', url, headers: { 'x-api-key': t.key } });
      expect(r.statusCode).toBe(405);
      expect(r.json()).toEqual({ detail: 'Method Not Allowed' });
      expect(r.headers.allow).toContain('GET');
    }
  });
});

it('takes a locations query parameter up to its 64 KiB limit over real HTTP (no bare 431 from the header size)', async () => {
  const served = await buildApp({ surfaces: API_ONLY, db: t.db });
  const address = await served.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { key: largo } = await businessWithKey(t.db, 'Largo');
    const ring = (n: number) => ({
      type: 'polygon',
      coordinates: Array.from({ length: n }, (_, i) => ({ lat: 40 + Math.sin(i) / 100, lng: -3.7 + Math.cos(i) / 100 })),
    });
    const fits = JSON.stringify(Array.from({ length: 30 }, () => ring(40))).slice(0, 65_536);
    const query = (text: string) =>
      fetch(`${address}/v1/ext/properties?locations=${encodeURIComponent(text)}`, { headers: { 'x-api-key': largo } });
    const atLimit = await query(fits.padEnd(65_536, ' '));
    expect(atLimit.status).toBe(200);
    const over = await query(fits.padEnd(65_537, ' '));
    expect(over.status).toBe(422);
    expect((await over.json()).detail[0]).toMatchObject({ type: 'string_too_long', loc: ['query', 'locations'] });
  } finally {
    await served.close();
  }
});

it('serves only the surfaces it was built with (app.ts Surface): the API alone has no console, pages or docs', async () => {
  const served = { console: '/console/login', pages: '/embed/v1/inmo.js', docs: '/v1/ext/docs' };
  for (const url of Object.values(served)) {
    const r = await t.app.inject({ method: 'GET', url });
    expect(r.statusCode, url).toBe(404);
  }
  expect((await t.app.inject({ method: 'GET', url: '/v1/ext/me', headers: { 'x-api-key': t.key } })).statusCode).toBe(200);
  const whole = await buildApp({ db: t.db });
  try {
    for (const url of Object.values(served)) {
      const r = await whole.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBeLessThan(400);
    }
  } finally {
    await whole.close();
  }
});
