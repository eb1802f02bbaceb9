/**
 * The website kit served and pasted (issue 30, CONTRACT §17): `/embed/v1/inmo.js` and its
 * immutable copy under its hash, loadable from any site with its SRI, and `inmo embed snippet`,
 * which pastes the hashed copy with its integrity for an active publishable key only.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../../src/services/access/api-keys.ts';
import { inmo } from '../../helpers/cli.ts';
import { businessWithKey } from '../../helpers/db.ts';
import { withApp } from '../../helpers/http.ts';

const t = withApp();

/** `inmo embed snippet` for the test's business with `key` and any further arguments. */
const snippet = (key: string, ...args: string[]) =>
  inmo({ DATABASE_URL: t.url }, 'embed', 'snippet', '--business', String(t.businessId), '--key', key, ...args);

describe('/embed/v1/inmo.js', () => {
  it('serves the module for five minutes, and the same bytes under their hash for good, to any site', async () => {
    const current = await t.app.inject({ method: 'GET', url: '/embed/v1/inmo.js', headers: { origin: 'https://agencia.example' } });
    expect(current.statusCode).toBe(200);
    expect(current.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(current.headers['cache-control']).toBe('public, max-age=300');
    expect(current.headers['access-control-allow-origin']).toBe('*');
    const hash = createHash('sha256').update(current.rawPayload).digest('hex').slice(0, 16);
    expect(current.headers.etag).toBe(`"${hash}"`);

    const pinned = await t.app.inject({ method: 'GET', url: `/embed/v1/inmo.${hash}.js` });
    expect(pinned.statusCode).toBe(200);
    expect(pinned.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(pinned.rawPayload.equals(current.rawPayload)).toBe(true);

    expect((await t.app.inject({ method: 'GET', url: '/embed/v1/inmo.js', headers: { 'if-none-match': `"${hash}"` } })).statusCode).toBe(
      304,
    );
    for (const url of [`/embed/v1/inmo.${'0'.repeat(16)}.js`, '/embed/v1/other.js', '/embed/v1/inmo.js.map', '/embed/v2/inmo.js']) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
    }
  });
});

describe('inmo embed snippet', () => {
  it('pastes the hashed script with its integrity and the contact form, for an active publishable key of the business', async () => {
    const key = await createApiKey(t.db, {
      businessId: t.businessId,
      scopes: ['properties:read', 'leads:ingest'],
      origins: ['https://agencia.example'],
    });
    const run = await snippet(key.key, '--url', 'https://inmo.agencia.example/', '--json');
    expect(run.code).toBe(0);
    const html = run.json.html as string;
    const [, src, integrity] = /<script type="module" src="([^"]+)" integrity="([^"]+)" crossorigin="anonymous"><\/script>/.exec(html)!;
    expect(src).toMatch(/^https:\/\/inmo\.agencia\.example\/embed\/v1\/inmo\.[0-9a-f]{16}\.js$/);
    expect(html.split('\n')[1]).toBe(
      `<inmo-listings api="https://inmo.agencia.example/v1/ext" key="${key.key}" lang="es"></inmo-listings>`,
    );
    // The integrity is that of the bytes served under that name.
    const served = await t.app.inject({ method: 'GET', url: new URL(src).pathname });
    expect(integrity).toBe(`sha384-${createHash('sha384').update(served.rawPayload).digest('base64')}`);
    // A key that may only send leads: the contact form.
    const formOnly = await createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:ingest'], origins: ['https://agencia.example'] });
    const form = await snippet(formOnly.key, '--json');
    expect(form.json.html.split('\n')[1]).toBe(
      `<inmo-inquiry-form api="http://127.0.0.1:8080/v1/ext" key="${formOnly.key}" lang="es"></inmo-inquiry-form>`,
    );
  });

  it('refuses a secret key, another business’s key, a revoked one and a URL that is not http(s)', async () => {
    const secret = await createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:ingest'] });
    const other = await businessWithKey(t.db, 'Otra');
    const theirs = await createApiKey(t.db, { businessId: other.businessId, scopes: ['leads:ingest'], origins: ['https://otra.example'] });
    const revoked = await createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:ingest'], origins: ['https://agencia.example'] });
    await revokeApiKey(t.db, revoked.key_id, null);
    for (const key of [secret.key, theirs.key, revoked.key, 'AC_PUB_nonsense']) {
      const run = await snippet(key);
      expect([run.code, run.stderr]).toEqual([expect.any(Number), expect.stringContaining('--key must be an active publishable key')]);
      expect(run.code).not.toBe(0);
    }
    const good = await createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:ingest'], origins: ['https://agencia.example'] });
    const badUrl = await snippet(good.key, '--url', 'ftp://x');
    expect(badUrl.stderr).toContain('--url must be an http(s) URL');
  });
});
