/** Authentication of every route (spec §5, CONTRACT §3). */
import { describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../../src/services/access/api-keys.ts';
import { snapshot } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';

const t = withApp();

// Every way a key can be wrong, on every route: test/db/platform/security.test.ts.

describe('key lifecycle', () => {
  it('refuses a revoked key', async () => {
    const key = await createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read'] });
    expect((await get(t.app, '/me', key.key)).status).toBe(200);
    // Scoped to another business (as the console scopes it), the key is not found and still works.
    expect(await revokeApiKey(t.db, key.key_id, t.businessId + 1000)).toBeUndefined();
    expect((await get(t.app, '/me', key.key)).status).toBe(200);
    await revokeApiKey(t.db, key.key_id, null);
    const r = await get(t.app, '/me', key.key);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ detail: 'API key has been revoked' });
  });

  it('refuses an expired key and accepts one not yet expired', async () => {
    const expired = await createApiKey(t.db, {
      businessId: t.businessId,
      scopes: ['properties:read'],
      expiresAt: '2020-01-01T00:00:00.000+00:00',
    });
    expect((await get(t.app, '/me', expired.key)).body).toEqual({ detail: 'API key has expired' });
    const valid = await createApiKey(t.db, {
      businessId: t.businessId,
      scopes: ['properties:read'],
      expiresAt: '2999-01-01T00:00:00.000+00:00',
    });
    expect((await get(t.app, '/me', valid.key)).status).toBe(200);
  });

  it('stores only the key id and a hash: the secret is nowhere in the database', async () => {
    const key = await createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read'] });
    const secret = key.key.split('.')[1];
    expect(await snapshot(t.db)).not.toContain(secret);
    expect(key.key).toMatch(/^AC_LIVE_[A-Za-z0-9]{16}\.[A-Za-z0-9]{43}$/);
  });

  it('keeps last_used_at, written only by requests that succeed', async () => {
    const key = await createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read'] });
    const before = await t.db.selectFrom('api_keys').select('last_used_at').where('key_id', '=', key.key_id).executeTakeFirstOrThrow();
    expect(before.last_used_at).toBeNull();
    expect((await get(t.app, '/properties?limit=0', key.key)).status).toBe(422);
    expect((await get(t.app, '/leads', key.key)).status).toBe(401);
    const unused = await t.db.selectFrom('api_keys').select('last_used_at').where('key_id', '=', key.key_id).executeTakeFirstOrThrow();
    expect(unused.last_used_at).toBeNull();
    await get(t.app, '/me', key.key);
    const after = await t.db.selectFrom('api_keys').select('last_used_at').where('key_id', '=', key.key_id).executeTakeFirstOrThrow();
    expect(after.last_used_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
  });

  it('a refused key changes nothing', async () => {
    const before = await snapshot(t.db);
    await get(t.app, '/properties', `AC_LIVE_${t.keyId}.${'b'.repeat(43)}`);
    await get(t.app, '/leads', 'garbage');
    expect(await snapshot(t.db)).toBe(before);
  });
});

describe('GET /me', () => {
  it('tells the business and the scopes of the key', async () => {
    const r = await get(t.app, '/me', t.key);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: 'ok',
      user: {
        company_name: 'Inmobiliaria Test',
        scopes: ['properties:read', 'leads:read', 'leads:ingest', 'events:read', 'leads:erase', 'viewings:write', 'leads:write'],
        auth_method: 'api_key',
      },
    });
  });
});
