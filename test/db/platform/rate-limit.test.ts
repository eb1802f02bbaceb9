/** Rate limits (issue 6): per key on every route, per client IP on the POST endpoints; a throttled request stores nothing. */
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config.ts';
import { createApiKey } from '../../../src/services/access/api-keys.ts';
import { businessWithKey, snapshot } from '../../helpers/db.ts';
import { withApp, API_ONLY } from '../../helpers/http.ts';

let keyB: string;
const t = withApp({
  surfaces: API_ONLY,
  business: 'A',
  app: { rateLimits: { perKeyPerMinute: 5, postPerIpPerMinute: 3, publishablePostPerIpPerMinute: 2 } },
  seed: async ({ db }) => {
    keyB = (await businessWithKey(db, 'B')).key;
  },
});

const me = (key: string | undefined, ip = '203.0.113.1') =>
  t.app.inject({ method: 'GET', url: '/v1/ext/me', headers: key ? { 'x-api-key': key } : {}, remoteAddress: ip });

const ingest = (key: string, phone: string, ip: string) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/ext/leads/ingest',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    remoteAddress: ip,
    payload: JSON.stringify({ id: 'x', createdAt: 'x', source: 's', sourcePage: 'p', contact: { name: 'Ana', phone }, search: {} }),
  });

describe('per key', () => {
  it('counts down in RateLimit headers, then answers 429 with Retry-After and a detail; other keys are not affected', async () => {
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await me(t.key);
      expect(response.statusCode).toBe(200);
      expect(response.headers['ratelimit-limit']).toBe('5');
      expect(Number(response.headers['ratelimit-reset'])).toBeGreaterThan(0);
      remaining.push(String(response.headers['ratelimit-remaining']));
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    // Both header forms name the same key: the Authorization form is counted with it.
    const throttled = await t.app.inject({
      method: 'GET',
      url: '/v1/ext/me',
      headers: { authorization: `ApiKey ${t.key}` },
      remoteAddress: '198.51.100.7',
    });
    expect(throttled.statusCode).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect(throttled.json()).toEqual({ detail: expect.stringMatching(/^Too many requests: retry in \d+ s$/) });
    expect((await me(keyB)).statusCode).toBe(200);
  });

  it('made-up secrets with a real key id do not spend that key’s allowance', async () => {
    const { key, keyId } = await businessWithKey(t.db, 'E');
    for (let i = 0; i < 8; i++) expect((await me(`AC_LIVE_${keyId}.${String(i).repeat(43)}`, '192.0.2.77')).statusCode).not.toBe(200);
    expect((await me(key)).statusCode).toBe(200);
  });

  it('requests without a well-formed key are counted per client IP', async () => {
    for (let i = 0; i < 5; i++) expect((await me(undefined, '192.0.2.9')).statusCode).toBe(401);
    expect((await me('not-a-key', '192.0.2.9')).statusCode).toBe(429);
    expect((await me(undefined, '192.0.2.10')).statusCode).toBe(401);
  });
});

describe('per client IP on the POST endpoints', () => {
  it('refuses the fourth lead from one IP in a minute, stores nothing for it, and lets other IPs in', async () => {
    const { key } = await businessWithKey(t.db, 'C');
    for (let i = 0; i < 3; i++) expect((await ingest(key, `61200000${i}`, '198.51.100.20')).statusCode).toBe(200);
    const before = await snapshot(t.db);
    const refused = await ingest(key, '612000009', '198.51.100.20');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    // The refusal reports the per-IP limit, not the key's.
    expect([refused.headers['ratelimit-limit'], refused.headers['ratelimit-remaining']]).toEqual(['3', '0']);
    expect(refused.json().detail).toMatch(/^Too many requests/);
    expect(await snapshot(t.db)).toBe(before);
    expect((await ingest(key, '612000009', '198.51.100.21')).statusCode).toBe(200);
  });
});

describe('per client IP on the POST endpoints with a publishable key', () => {
  it('counts them apart and tighter: the third from one IP is refused while secret keys from it still pass', async () => {
    const { key: secret, businessId } = await businessWithKey(t.db, 'P');
    const { key: publishable } = await createApiKey(t.db, { businessId, scopes: ['leads:ingest'], origins: ['https://web.example'] });
    const form = (phone: string, ip: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/ext/leads/ingest',
        headers: { 'x-api-key': publishable, 'content-type': 'application/json', origin: 'https://web.example' },
        remoteAddress: ip,
        payload: JSON.stringify({ id: 'x', createdAt: 'x', source: 's', sourcePage: 'p', contact: { name: 'Ana', phone }, search: {} }),
      });
    for (let i = 0; i < 2; i++) expect((await form(`61400000${i}`, '198.51.100.30')).statusCode).toBe(200);
    const before = await snapshot(t.db);
    const refused = await form('614000009', '198.51.100.30');
    expect(refused.statusCode).toBe(429);
    expect([refused.headers['ratelimit-limit'], refused.headers['ratelimit-remaining']]).toEqual(['2', '0']);
    expect(await snapshot(t.db)).toBe(before);
    // The secret key's posts from the same address have their own, larger allowance.
    expect((await ingest(secret, '614000008', '198.51.100.30')).statusCode).toBe(200);
    expect((await form('614000007', '198.51.100.31')).statusCode).toBe(200);
  });
});

it('behind a trusted proxy, counts the client address the proxy forwards', async () => {
  const { key } = await businessWithKey(t.db, 'D');
  const proxied = await buildApp({
    surfaces: API_ONLY,
    db: t.db,
    trustProxy: ['127.0.0.1'],
    rateLimits: { perKeyPerMinute: 0, postPerIpPerMinute: 1, publishablePostPerIpPerMinute: 1 },
  });
  const send = (client: string, phone: string) =>
    proxied.inject({
      method: 'POST',
      url: '/v1/ext/leads/ingest',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-forwarded-for': client },
      remoteAddress: '127.0.0.1',
      payload: JSON.stringify({ id: 'x', createdAt: 'x', source: 's', sourcePage: 'p', contact: { name: 'Ana', phone }, search: {} }),
    });
  expect((await send('203.0.113.50', '613000001')).statusCode).toBe(200);
  expect((await send('203.0.113.50', '613000002')).statusCode).toBe(429);
  expect((await send('203.0.113.51', '613000003')).statusCode).toBe(200);
  await proxied.close();
  expect(loadConfig({ INMO_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
  expect(loadConfig({ INMO_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  expect(loadConfig({}).trustProxy).toBe(false);
});

it('is on by default in the configuration, with generous limits, and each limit can be turned off', () => {
  expect(loadConfig({}).rateLimits).toEqual({ perKeyPerMinute: 6000, postPerIpPerMinute: 300, publishablePostPerIpPerMinute: 20 });
  expect(
    loadConfig({ INMO_RATE_LIMIT_PER_KEY: '0', INMO_RATE_LIMIT_POST_PER_IP: '20', INMO_RATE_LIMIT_PUBLISHABLE_POST_PER_IP: '0' })
      .rateLimits,
  ).toEqual({
    perKeyPerMinute: 0,
    postPerIpPerMinute: 20,
    publishablePostPerIpPerMinute: 0,
  });
  expect(() => loadConfig({ INMO_RATE_LIMIT_PER_KEY: '-1' })).toThrow(/INMO_RATE_LIMIT_PER_KEY/);
});
