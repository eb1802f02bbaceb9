/**
 * The fast path's own safety (http/fast-path.ts): what it cannot decide, including a failing
 * read, goes to the full path instead of ending the process; and once the app closes, every
 * request takes the full path (which tells keep-alive clients to go).
 */
import { createServer, type Server } from 'node:http';
import { request } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { FastPath } from '../../src/http/fast-path.ts';
import type { KeyVerifier } from '../../src/services/access/api-keys.ts';

let server: Server | null = null;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A server answering through `fast`, and `full` (with its count) whatever the fast path declines. */
async function serveThrough(fast: FastPath) {
  const taken = { full: 0 };
  server = createServer((req, res) => {
    if (fast.serve(req, res)) return;
    taken.full++;
    res.writeHead(500, { 'content-type': 'application/json' }).end('{"detail":"Internal Server Error"}');
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { base: `http://127.0.0.1:${port}`, taken };
}

const options = (keys: Partial<KeyVerifier>) => ({
  keys: keys as KeyVerifier,
  maxBytes: 1 << 20,
  log: null,
  leadVersion: () => 1,
  metrics: false,
  rateLimit: null,
});

it('hands a request whose key check throws to the full path, and the process goes on', async () => {
  const fast = new FastPath(
    options({
      cachedContext: () => {
        throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      },
    }),
  );
  const { base, taken } = await serveThrough(fast);
  for (let i = 0; i < 3; i++) {
    const response = await request(`${base}/v1/ext/me`, { headers: { 'x-api-key': 'AC_LIVE_abc.def' } });
    expect(response.statusCode).toBe(500);
    await response.body.dump();
  }
  expect(taken.full).toBe(3);
  expect(fast.hits).toBe(0);
});

it('answers nothing once closing', async () => {
  const context = {
    keyId: 'k',
    businessId: 1,
    businessName: 'Agencia',
    catalogueVersion: 1,
    scopes: ['properties:read' as const],
    origins: null,
  };
  const fast = new FastPath(options({ cachedContext: () => context }));
  const { base, taken } = await serveThrough(fast);
  const me = await request(`${base}/v1/ext/me`, { headers: { 'x-api-key': 'AC_LIVE_abc.def' } });
  expect(await me.body.json()).toEqual({
    status: 'ok',
    user: { company_name: 'Agencia', scopes: ['properties:read'], auth_method: 'api_key' },
  });
  expect(fast.hits).toBe(1);
  fast.close();
  const after = await request(`${base}/v1/ext/me`, { headers: { 'x-api-key': 'AC_LIVE_abc.def' } });
  await after.body.dump();
  expect([after.statusCode, taken.full, fast.hits]).toEqual([500, 1, 1]);
});
