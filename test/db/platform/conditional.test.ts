/**
 * Conditional and compressed reads (CONTRACT §13; http/conditional.ts): strong ETags,
 * If-None-Match → 304, Cache-Control, br/gzip over 1 KB, on the four GETs that return data.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { noneMatch } from '../../../src/http/conditional.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { businessWithKey, importRecords, listing } from '../../helpers/db.ts';
import { post, withApp, API_ONLY } from '../../helpers/http.ts';

let leadId: number;

const t = withApp({
  surfaces: API_ONLY,
  seed: async ({ db, businessId }) => {
    await importRecords(
      db,
      businessId,
      Array.from({ length: 12 }, (_, i) => listing(`C-${i}`, { description: `<p>${'Piso luminoso y reformado. '.repeat(8)}</p>` })),
    );
    leadId = (await createLeadByHand(db, { businessId, phone: '+34611300001', name: 'Ana' })).id;
  },
});

const raw = (url: string, headers: Record<string, string> = {}, key: string | null = t.key) =>
  t.app.inject({ method: 'GET', url: `/v1/ext${url}`, headers: key ? { 'x-api-key': key, ...headers } : headers });

const PATHS = () => ['/properties', `/properties/${1}`, '/leads', `/leads/${leadId}`];

describe('conditional GETs', () => {
  it.each([0, 1, 2, 3])('path %i sends a strong ETag and Cache-Control, and 304 with no body for If-None-Match', async (i) => {
    const url = PATHS()[i];
    const first = await raw(url);
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(String(first.headers.vary).split(', ')).toContain('Accept-Encoding');
    const again = await raw(url);
    expect(again.headers.etag).toBe(first.headers.etag);
    const notModified = await raw(url, { 'if-none-match': first.headers.etag as string });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
    expect(notModified.headers.etag).toBe(first.headers.etag);
    expect(notModified.headers['cache-control']).toBe('private, no-cache');
    for (const header of ['*', `"other", W/${first.headers.etag}`, `"x",${first.headers.etag}`])
      expect((await raw(url, { 'if-none-match': header })).statusCode, header).toBe(304);
    for (const header of ['"other"', 'garbage', first.headers.etag!.toString().slice(1, -1)])
      expect((await raw(url, { 'if-none-match': header })).statusCode, header).toBe(200);
  });

  it('still needs a valid key for a 304', async () => {
    const { headers } = await raw('/properties');
    const refused = await raw('/properties', { 'if-none-match': headers.etag as string }, null);
    expect([refused.statusCode, refused.json()]).toEqual([401, { detail: 'Missing API key: send it in the X-Api-Key header' }]);
    const otherBusiness = await businessWithKey(t.db, 'Otra');
    const theirs = await raw('/properties', { 'if-none-match': headers.etag as string }, otherBusiness.key);
    expect(theirs.statusCode).toBe(200);
  });

  it('changes the ETag when the catalogue or a lead changes', async () => {
    const page = await raw('/properties');
    const one = await raw('/properties/1');
    await importRecords(t.db, t.businessId, [listing('C-0', { title: 'Nuevo título', updated_at: '2026-02-01T10:00:00+00:00' })]);
    for (const [url, before] of [
      ['/properties', page],
      ['/properties/1', one],
    ] as const) {
      const after = await raw(url, { 'if-none-match': before.headers.etag as string });
      expect(after.statusCode, url).toBe(200);
      expect(after.headers.etag).not.toBe(before.headers.etag);
    }
    const { businessId, key } = await businessWithKey(t.db, 'Leads cambian');
    await createLeadByHand(t.db, { businessId, phone: '+34611300009' });
    const list = await raw('/leads', {}, key);
    const id = list.json().data[0].id;
    const single = await raw(`/leads/${id}`, {}, key);
    expect((await post(t.app, '/leads/inquiries', key, { name: 'Con nombre', type: 'buyer', phone_number_1: '+34611300009' })).status).toBe(
      200,
    );
    expect((await raw('/leads', { 'if-none-match': list.headers.etag as string }, key)).statusCode).toBe(200);
    expect((await raw(`/leads/${id}`, { 'if-none-match': single.headers.etag as string }, key)).statusCode).toBe(200);
  });

  it('leaves errors alone: no ETag on a 404 or a 422', async () => {
    const missing = await raw('/properties/999999');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers.etag).toBeUndefined();
    expect((await raw('/leads?limit=0')).headers.etag).toBeUndefined();
  });
});

describe('compression', () => {
  it.each([
    ['br', brotliDecompressSync],
    ['gzip', gunzipSync],
  ] as const)('sends %s when accepted, with the same content and a tag of its own that revalidates', async (coding, decode) => {
    const plain = await raw('/properties');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(1024);
    for (let i = 0; i < 2; i++) {
      const packed = await raw('/properties', { 'accept-encoding': coding });
      expect(packed.headers['content-encoding']).toBe(coding);
      expect(packed.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
      expect(decode(packed.rawPayload).toString()).toBe(plain.body);
      expect(packed.headers.etag).toBe(`${(plain.headers.etag as string).slice(0, -1)}-${coding}"`);
      expect(Number(packed.headers['content-length'])).toBe(packed.rawPayload.length);
    }
    const tag = (await raw('/properties', { 'accept-encoding': coding })).headers.etag as string;
    // Either tag names the content, whatever coding is asked for next.
    expect((await raw('/properties', { 'if-none-match': tag })).statusCode).toBe(304);
    expect((await raw('/properties', { 'if-none-match': plain.headers.etag as string, 'accept-encoding': coding })).statusCode).toBe(304);
  });

  it('prefers br, honours q-values, and sends small bodies as they are', async () => {
    expect((await raw('/properties', { 'accept-encoding': 'gzip, deflate, br' })).headers['content-encoding']).toBe('br');
    expect((await raw('/properties', { 'accept-encoding': 'br;q=0.1, gzip;q=0.9' })).headers['content-encoding']).toBe('gzip');
    expect((await raw('/properties', { 'accept-encoding': 'identity' })).headers['content-encoding']).toBeUndefined();
    const small = await raw(`/leads/${leadId}`, { 'accept-encoding': 'br, gzip' });
    expect(small.rawPayload.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json().id).toBe(leadId);
  });

  it('compresses the API’s other large responses too, through @fastify/compress', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/v1/ext/openapi.json', headers: { 'accept-encoding': 'gzip' } });
    expect(doc.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(doc.rawPayload).toString()).openapi).toBe('3.1.0');
    const plain = await t.app.inject({ method: 'GET', url: '/v1/ext/openapi.json' });
    expect(plain.headers['content-encoding']).toBeUndefined();
  });

  it('reads If-None-Match lists as RFC 9110 says', () => {
    expect(noneMatch('*', 'abc')).toBe(true);
    expect(noneMatch(' W/"abc" ', 'abc')).toBe(true);
    expect(noneMatch('"zzz", "abc-gzip"', 'abc')).toBe(true);
    expect(noneMatch('"abc-deflate"', 'abc')).toBe(false);
    expect(noneMatch('abc', 'abc')).toBe(false);
    expect(noneMatch('"ab"', 'abc')).toBe(false);
  });
});
