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

// Every way a key can be wrong, on every route: test/security.test.ts.

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

  it('keeps last_used_at, written only by requests that succeed', async () => {
    const key = await createApiKey(db, { businessId, scopes: ['properties:read'] });
    const before = await db.selectFrom('api_keys').select('last_used_at').where('key_id', '=', key.key_id).executeTakeFirstOrThrow();
    expect(before.last_used_at).toBeNull();
    expect((await get(app, '/properties?limit=0', key.key)).status).toBe(422);
    expect((await get(app, '/leads', key.key)).status).toBe(401);
    const unused = await db.selectFrom('api_keys').select('last_used_at').where('key_id', '=', key.key_id).executeTakeFirstOrThrow();
    expect(unused.last_used_at).toBeNull();
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
