/** Authentication of every route (spec §5, CONTRACT §3). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../src/db/database.ts';
import { createApiKey, revokeApiKey } from '../src/services/api-keys.ts';
import { appOn, businessWithKey, freshDb, get, snapshot } from './helpers.ts';

let db: Db;
let app: FastifyInstance;
let businessId: number;
let fullKey: string;
let fullKeyId: string;

const ROUTES: Array<[string, string | null]> = [
  ['/properties', 'properties:read'],
  ['/properties/1', 'properties:read'],
  ['/leads', 'leads:read'],
  ['/me', null],
];

beforeAll(async () => {
  ({ db } = await freshDb());
  const biz = await businessWithKey(db);
  businessId = biz.businessId;
  fullKey = biz.key;
  fullKeyId = biz.keyId;
  app = await appOn(db);
});
afterAll(async () => {
  await app.close();
  await db.destroy();
});

describe.each(ROUTES)('%s', (route, scope) => {
  it('refuses a missing key with 401, WWW-Authenticate and a fixed message', async () => {
    const r = await get(app, route);
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('ApiKey');
    expect(r.body).toEqual({ detail: 'Missing API key: send it in the X-Api-Key header' });
  });

  it.each(['nonsense', 'AC_LIVE_short.secret', 'AC_TEST_abcdefghijklmnop.' + 'a'.repeat(43), 'AC_LIVE_abcdefghijklmnop' + 'a'.repeat(43)])(
    'refuses the malformed key %s',
    async (bad) => {
      const r = await get(app, route, bad);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ detail: 'Malformed API key' });
    },
  );

  it('gives an unknown key id and a wrong secret the same answer', async () => {
    const unknown = await get(app, route, `AC_LIVE_${'Z'.repeat(16)}.${'a'.repeat(43)}`);
    const wrongSecret = await get(app, route, `AC_LIVE_${fullKeyId}.${'b'.repeat(43)}`);
    expect(unknown.status).toBe(401);
    expect(wrongSecret.status).toBe(401);
    expect(unknown.body).toEqual(wrongSecret.body);
    expect(unknown.body).toEqual({ detail: 'Invalid API key' });
  });

  it('accepts the key in X-Api-Key and in Authorization: ApiKey (any case)', async () => {
    expect((await get(app, route, fullKey)).status).not.toBe(401);
    const viaAuthorization = await get(app, route, undefined, { authorization: `apikey ${fullKey}` });
    expect(viaAuthorization.status).not.toBe(401);
    const bearer = await get(app, route, undefined, { authorization: `Bearer ${fullKey}` });
    expect(bearer.status).toBe(401);
  });

  it('refuses a key without the scope the route needs', async () => {
    if (scope === null) {
      const none = await createApiKey(db, { businessId, scopes: ['leads:ingest'] });
      expect((await get(app, route, none.key)).status).toBe(200);
      return;
    }
    const others = (['properties:read', 'leads:read', 'leads:ingest'] as const).filter((s) => s !== scope);
    const key = await createApiKey(db, { businessId, scopes: [...others] });
    const r = await get(app, route, key.key);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ detail: 'API key lacks the scope this operation requires' });
  });
});

describe('key lifecycle', () => {
  it('refuses a revoked key', async () => {
    const key = await createApiKey(db, { businessId, scopes: ['properties:read'] });
    expect((await get(app, '/me', key.key)).status).toBe(200);
    await revokeApiKey(db, key.key_id);
    const r = await get(app, '/me', key.key);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ detail: 'API key has been revoked' });
  });

  it('refuses an expired key and accepts one not yet expired', async () => {
    const expired = await createApiKey(db, { businessId, scopes: ['properties:read'], expiresAt: '2020-01-01T00:00:00.000+00:00' });
    expect((await get(app, '/me', expired.key)).body).toEqual({ detail: 'API key has expired' });
    const valid = await createApiKey(db, { businessId, scopes: ['properties:read'], expiresAt: '2999-01-01T00:00:00.000+00:00' });
    expect((await get(app, '/me', valid.key)).status).toBe(200);
  });

  it('stores only the key id and a hash: the secret is nowhere in the database', async () => {
    const key = await createApiKey(db, { businessId, scopes: ['properties:read'] });
    const secret = key.key.split('.')[1];
    expect(await snapshot(db)).not.toContain(secret);
    expect(key.key).toMatch(/^AC_LIVE_[A-Za-z0-9]{16}\.[A-Za-z0-9]{43}$/);
  });

  it('keeps last_used_at', async () => {
    const key = await createApiKey(db, { businessId, scopes: ['properties:read'] });
    const before = await db.selectFrom('api_keys').select('last_used_at').where('key_id', '=', key.key_id).executeTakeFirstOrThrow();
    expect(before.last_used_at).toBeNull();
    await get(app, '/me', key.key);
    const after = await db.selectFrom('api_keys').select('last_used_at').where('key_id', '=', key.key_id).executeTakeFirstOrThrow();
    expect(after.last_used_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
  });

  it('a refused key changes nothing', async () => {
    const before = await snapshot(db);
    await get(app, '/properties', `AC_LIVE_${fullKeyId}.${'b'.repeat(43)}`);
    await get(app, '/leads', 'garbage');
    expect(await snapshot(db)).toBe(before);
  });
});

describe('GET /me', () => {
  it('tells the business and the scopes of the key', async () => {
    const r = await get(app, '/me', fullKey);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: 'ok',
      user: { company_name: 'Inmobiliaria Test', scopes: ['properties:read', 'leads:read', 'leads:ingest'], auth_method: 'api_key' },
    });
  });
});
