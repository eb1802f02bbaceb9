/**
 * The fast path of cached reads (http/fast-path.ts, issue 32): an exact repeat of a cached GET
 * is answered before Fastify with the very response the full path gives, and every rule of the
 * full path still holds for it (key, revocation, expiry, scope, origin, rate limit, catalogue
 * changes); anything it cannot decide goes to the full path.
 */
import { Writable } from 'node:stream';
import { brotliDecompressSync } from 'node:zlib';
import { request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { createApiKey, revokeApiKey } from '../../../src/services/access/api-keys.ts';
import { saveListing } from '../../../src/services/catalogue/listings.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { eraseLead } from '../../../src/services/leads/erasure.ts';
import { CLI } from '../../../src/services/access/audit.ts';
import { createDb } from '../../../src/db/database.ts';
import { businessWithKey, ENGINE, importRecords, listing, propertyId } from '../../helpers/db.ts';
import { post, withApp, API_ONLY } from '../../helpers/http.ts';

const SITE = 'https://www.inmobiliaria-test.es';
const lines: string[] = [];
const logs = new Writable({
  write(chunk, _encoding, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});

const t = withApp({
  surfaces: API_ONLY,
  listen: true,
  app: {
    logger: { level: 'info', stream: logs },
    rateLimits: { perKeyPerMinute: 1000, postPerIpPerMinute: 0, publishablePostPerIpPerMinute: 0 },
  },
  seed: async ({ db, businessId }) => {
    await importRecords(
      db,
      businessId,
      Array.from({ length: 30 }, (_, i) =>
        listing(`F-${i}`, {
          description: `<p>${'Ático con terraza y vistas. '.repeat(10)}</p>`,
          titles: { en: `Penthouse ${i}`, de: `Dachwohnung ${i}` },
        }),
      ),
    );
    for (let i = 0; i < 12; i++)
      await createLeadByHand(db, { businessId, phone: `+3461140${String(i).padStart(4, '0')}`, name: `Cliente ${i}` });
  },
});

/** GET over a real socket (no decompression), as a client sees it. */
async function fetchRaw(url: string, headers: Record<string, string>) {
  const response = await request(`${t.base}${url}`, { headers });
  return { status: response.statusCode, headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) };
}

type Raw = Awaited<ReturnType<typeof fetchRaw>>;

/**
 * Sends `url` again, asserts that the fast path answered it, and returns the answer. On
 * PostgreSQL the change stamp also moves when the app's notification connection comes up and
 * when a change's notification arrives (db/change-watch.ts), which a loaded machine can delay
 * past the requests before: a repeat then finds its entry stale, takes the full path once more
 * (which keeps it again), and is sent again, until the fast path answers (within 30 s). On
 * SQLite nothing moves the stamp in these tests: the first repeat must be the fast path's.
 */
async function fastRepeat(url: string, headers: Record<string, string>): Promise<Raw> {
  let answer!: Raw;
  const answeredFast = async () => {
    const hits = t.app.fastPath!.hits;
    answer = await fetchRaw(url, headers);
    return t.app.fastPath!.hits - hits;
  };
  const message = `${url} ${JSON.stringify(headers)}`;
  if (ENGINE === 'postgres') await expect.poll(answeredFast, { message }).toBe(1);
  else expect(await answeredFast(), message).toBe(1);
  return answer;
}

/** Headers that differ between any two responses, whichever path sent them. */
const PER_RESPONSE = ['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset', 'keep-alive', 'connection'];
const comparable = (headers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !PER_RESPONSE.includes(name)));

describe('the fast path', () => {
  it('answers an exact repeat with the full path’s response, header for header', async () => {
    const id = await propertyId(t.db, 'F-3');
    const urls = [
      '/properties?limit=20',
      '/properties?operation=venta&min_bedrooms=2&sort=price_asc&limit=5',
      `/properties/${id}`,
      // Asked for a language: the answer names it in Content-Language on both paths (CONTRACT §22).
      '/properties?limit=20&lang=gb',
      `/properties/${id}?lang=de`,
      '/me',
      // GET /leads is kept by the lead version, which only SQLite keeps (migration 0020).
      ...(ENGINE === 'sqlite' ? ['/leads?limit=100', '/leads?status=new&limit=5'] : []),
    ];
    const variants: Array<Record<string, string>> = [{}, { 'accept-encoding': 'br' }, { 'accept-encoding': 'gzip, deflate' }];
    for (const url of urls) {
      for (const extra of variants) {
        const headers = { 'x-api-key': t.key, ...extra };
        const full = await fetchRaw(url, headers);
        // A coding is made once, after the first answer that needs it: the next one may be the full path's too.
        await fetchRaw(url, headers);
        const fast = await fastRepeat(url, headers);
        expect(fast.status).toBe(full.status);
        expect(comparable(fast.headers)).toEqual(comparable(full.headers));
        expect(fast.body.equals(full.body)).toBe(true);
        expect(Number(fast.headers['ratelimit-remaining'])).toBeLessThan(Number(full.headers['ratelimit-remaining']));
        // And a conditional repeat: the same 304.
        if (full.headers.etag === undefined) continue;
        const conditional = { ...headers, 'if-none-match': String(full.headers.etag) };
        const notModified = await fastRepeat(url, conditional);
        expect(notModified.status).toBe(304);
        expect(notModified.body.length).toBe(0);
        expect(notModified.headers.etag).toBe(full.headers.etag);
        expect(notModified.headers['cache-control']).toBe('private, no-cache');
        expect(notModified.headers['content-type']).toBeUndefined();
        expect(notModified.headers['content-language']).toBe(full.headers['content-language']);
      }
    }
    const br = await fetchRaw('/properties?limit=20', { 'x-api-key': t.key, 'accept-encoding': 'br' });
    expect(JSON.parse(brotliDecompressSync(br.body).toString()).data).toHaveLength(20);
  });

  it('writes the request’s log line, without the key', async () => {
    await fetchRaw('/properties?limit=7', { 'x-api-key': t.key });
    await fetchRaw('/properties?limit=7', { 'x-api-key': t.key });
    lines.length = 0;
    await fastRepeat('/properties?limit=7', { 'x-api-key': t.key, 'x-request-id': 'fast-path-line-1' });
    await expect.poll(() => lines.length).toBeGreaterThan(0);
    const line = JSON.parse(lines.find((l) => l.includes('fast-path-line-1'))!);
    expect(line).toMatchObject({ reqId: 'fast-path-line-1', method: 'GET', route: '/v1/ext/properties', status: 200, msg: 'request' });
    expect(line.key_id).toBe(t.keyId);
    expect(lines.join('\n')).not.toContain(t.key.split('.')[1]);
  });

  it('refuses a key at once after its revocation, and never serves another business’s entry', async () => {
    const { key, key_id: keyId } = await createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read'] });
    for (let i = 0; i < 3; i++) expect((await fetchRaw('/properties?limit=3', { 'x-api-key': key })).status).toBe(200);
    await revokeApiKey(t.db, keyId, t.businessId);
    const refused = await fetchRaw('/properties?limit=3', { 'x-api-key': key });
    expect([refused.status, JSON.parse(refused.body.toString()).detail]).toEqual([401, 'API key has been revoked']);

    const other = await businessWithKey(t.db, 'Otra Agencia');
    const theirs = await fetchRaw('/properties?limit=3', { 'x-api-key': other.key });
    expect(JSON.parse(theirs.body.toString())).toEqual({ data: [], total: 0, limit: 3, offset: 0 });
  });

  it('refuses an expired key at its expiry', async () => {
    // Both paths read the time from Date.now(): the clock stands still until the test moves it.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const expiresAt = new Date(Date.now() + 10_000).toISOString();
      const { key } = await createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read'], expiresAt });
      for (let i = 0; i < 3; i++) expect((await fetchRaw('/me', { 'x-api-key': key })).status).toBe(200);
      // A millisecond before its expiry, still served (by the fast path now); at it, refused.
      vi.setSystemTime(Date.parse(expiresAt) - 1);
      expect((await fastRepeat('/me', { 'x-api-key': key })).status).toBe(200);
      vi.setSystemTime(Date.parse(expiresAt));
      const refused = await fetchRaw('/me', { 'x-api-key': key });
      expect([refused.status, JSON.parse(refused.body.toString()).detail]).toEqual([401, 'API key has expired']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('asks for the route’s scope (401), and sends a cross-site secret key to the full path’s refusal', async () => {
    await fetchRaw('/properties?limit=4', { 'x-api-key': t.key });
    await fetchRaw('/properties?limit=4', { 'x-api-key': t.key });
    const { key: leadsOnly } = await createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:read'] });
    await fetchRaw('/me', { 'x-api-key': leadsOnly });
    const lacking = await fetchRaw('/properties?limit=4', { 'x-api-key': leadsOnly });
    expect([lacking.status, JSON.parse(lacking.body.toString()).detail]).toEqual([
      401,
      'API key lacks the scope this operation requires: properties:read',
    ]);
    const crossSite = await fetchRaw('/properties?limit=4', { 'x-api-key': t.key, 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
  });

  it('gives a publishable key its listed origin’s CORS headers, and the full path’s refusal elsewhere', async () => {
    const { key } = await createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read', 'leads:ingest'], origins: [SITE] });
    const headers = { 'x-api-key': key, origin: SITE };
    const full = await fetchRaw('/properties?limit=2', headers);
    await fetchRaw('/properties?limit=2', headers);
    const fast = await fastRepeat('/properties?limit=2', headers);
    expect(comparable(fast.headers)).toEqual(comparable(full.headers));
    expect(fast.headers['access-control-allow-origin']).toBe(SITE);
    expect(fast.headers.vary).toBe('Origin, Accept-Encoding');
    const elsewhere = await fetchRaw('/properties?limit=2', { 'x-api-key': key, origin: 'https://evil.example' });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('shows a catalogue change at once', async () => {
    const id = await propertyId(t.db, 'F-5');
    const before = JSON.parse((await fetchRaw(`/properties/${id}`, { 'x-api-key': t.key })).body.toString());
    await fetchRaw(`/properties/${id}`, { 'x-api-key': t.key });
    await saveListing(t.db, t.businessId, id, { ...listing('F-5'), price: 345_678 }, null);
    const after = JSON.parse((await fetchRaw(`/properties/${id}`, { 'x-api-key': t.key })).body.toString());
    expect(before.data.price).not.toBe(345_678);
    expect(after.data.price).toBe(345_678);
  });

  it('shows every write to a lead at once, whoever makes it', async () => {
    const page = async () => JSON.parse((await fetchRaw('/leads?limit=100', { 'x-api-key': t.key })).body.toString());
    const ids = async () => (await page()).data.map((lead: { id: number }) => lead.id);
    await page();
    const before = await ids();
    // Through the API.
    const created = await post(t.app, '/leads/inquiries', t.key, { name: 'Lucía', type: 'demandante', phone_number_1: '+34611499001' });
    expect(created.status).toBe(200);
    expect(await ids()).toEqual([created.body.lead_id, ...before]);
    // Any statement at all.
    await t.db.updateTable('leads').set({ status: 'contacted' }).where('id', '=', created.body.lead_id).execute();
    expect((await page()).data[0].status).toBe('contacted');
    // An erasure.
    await eraseLead(t.db, created.body.lead_id, { businessId: t.businessId, actor: CLI });
    expect(await ids()).toEqual(before);
    // Another connection (another process), after this one has kept the page.
    await page();
    const other = createDb(t.url);
    try {
      await createLeadByHand(other, { businessId: t.businessId, phone: '+34611499002', name: 'Otro proceso' });
    } finally {
      await other.destroy();
    }
    expect((await page()).data[0].name).toBe('Otro proceso');
  });

  it('takes no HEAD, no request with a body, and no URL it has not seen answered', async () => {
    await fetchRaw('/properties?limit=9', { 'x-api-key': t.key });
    await fetchRaw('/properties?limit=9', { 'x-api-key': t.key });
    const hits = t.app.fastPath!.hits;
    const head = await request(`${t.base}/properties?limit=9`, { method: 'HEAD', headers: { 'x-api-key': t.key } });
    await head.body.dump();
    expect(head.statusCode).toBe(200);
    const invalid = await fetchRaw('/properties?limit=9&limit=x', { 'x-api-key': t.key });
    expect(invalid.status).toBe(422);
    expect(t.app.fastPath!.hits).toBe(hits);
  });
});

describe('the per-key rate limit', () => {
  const r = withApp({
    surfaces: API_ONLY,
    app: { rateLimits: { perKeyPerMinute: 4, postPerIpPerMinute: 0, publishablePostPerIpPerMinute: 0 } },
  });

  it('counts fast answers and full ones in one window', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await r.app.inject({ method: 'GET', url: '/v1/ext/me', headers: { 'x-api-key': r.key } });
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect(r.app.fastPath!.hits).toBeGreaterThanOrEqual(2);
  });
});

describe('closing', () => {
  it('hands every request to the full path, which tells keep-alive clients to go', async () => {
    const app = await buildApp({ surfaces: API_ONLY, db: t.db, pageCacheMb: 8 });
    const me = () => app.inject({ method: 'GET', url: '/v1/ext/me', headers: { 'x-api-key': t.key } });
    for (let i = 0; i < 3; i++) await me();
    const hits = app.fastPath!.hits;
    expect(hits).toBeGreaterThan(0);
    await app.close();
    const after = await me();
    expect(app.fastPath!.hits).toBe(hits);
    expect([after.statusCode, after.headers.connection]).toEqual([200, 'close']);
  });
});

describe('without the page cache', () => {
  it('has no fast path', async () => {
    const app = await buildApp({ surfaces: API_ONLY, db: t.db, pageCacheMb: 0 });
    expect(app.fastPath).toBeNull();
    await app.close();
  });
});
