/**
 * Publishable keys for browser forms (CONTRACT §13): `AC_PUB_` keys bound to origins, CORS
 * preflights and headers, and secret keys that never get CORS headers nor work from a page.
 * tests/publishable.browser.test.ts does the same in Chromium across two local origins.
 */
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/services/access/api-keys.ts';
import { snapshot } from '../../helpers/db.ts';
import { get, post, withApp } from '../../helpers/http.ts';

const SITE = 'https://agencia.example';
const t = withApp({ each: true });

const publishable = (origins = [SITE]) =>
  createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read', 'leads:ingest'], origins });
const lead = (phone: string) => ({ name: 'Eva', type: 'buyer', phone_number_1: phone });
const preflight = (origin: string, path = '/v1/ext/leads/inquiries') =>
  t.app.inject({
    method: 'OPTIONS',
    url: path,
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'x-api-key,content-type,idempotency-key',
    },
  });

/** What a caller sees of an answer: status, body bytes, and the headers that are not per request. */
async function seen(path: string, key: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await t.app.inject({
    method: 'POST',
    url: `/v1/ext${path}`,
    headers: { 'content-type': 'application/json', 'x-api-key': key, origin: SITE, ...headers },
    payload: JSON.stringify(body),
  });
  const varying = new Set(['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset', 'content-length']);
  const kept = Object.entries(response.headers).filter(([name]) => !varying.has(name));
  return { status: response.statusCode, body: response.body, headers: Object.fromEntries(kept) };
}

const ingestBody = (phone: string, budget = '900') => ({
  id: 'x',
  createdAt: '2026-11-26T10:00:00Z',
  source: 'web',
  sourcePage: 'https://agencia.example/alquiler/12',
  contact: { name: 'Eva', phone },
  search: { budget, freeText: 'También me interesa este.' },
});

describe('a publishable key tells nothing of who is already a client (CONTRACT §13, §22)', () => {
  it('answers an inquiry for a known phone byte for byte as for a new one, and keeps it as an interaction', async () => {
    const { key } = await publishable();
    const first = await seen('/leads/inquiries', key, lead('+34611500101'));
    const known = await seen('/leads/inquiries', key, { ...lead('+34611500101'), notes: 'También me interesa este.' });
    const fresh = await seen('/leads/inquiries', key, lead('+34611500102'));
    expect(first).toEqual({
      status: 200,
      body: JSON.stringify({ status: 'ok', authenticated_as: 'Inmobiliaria Test' }),
      headers: expect.any(Object),
    });
    expect(known).toEqual(first);
    expect(fresh).toEqual(first);
    expect(first.headers['inmo-lead-outcome']).toBeUndefined();

    const [lead1] = await t.db.selectFrom('leads').selectAll().where('phone_number_1', '=', '+34611500101').execute();
    const interactions = await t.db.selectFrom('lead_interactions').selectAll().execute();
    expect(interactions).toEqual([expect.objectContaining({ lead_id: lead1.id, channel: 'inquiry', source: null })]);
    expect(interactions[0].note).toContain('También me interesa este.');
    // The lead itself did not change.
    expect(lead1.updated_at).toBe(lead1.created_at);
    const events = await t.db.selectFrom('events').select(['type', 'data']).orderBy('id').execute();
    expect(events.map((e) => e.type)).toEqual(['lead.created', 'lead.contacted_again', 'lead.created']);
    expect(JSON.parse(events[1].data)).toEqual({ id: lead1.id, source: 'inquiry' });
  });

  it('answers an ingest for a known phone as for a new one, replays without the outcome, and keeps it once', async () => {
    const { key } = await publishable();
    const first = await seen('/leads/ingest', key, ingestBody('+34611500201'));
    const known = await seen('/leads/ingest', key, ingestBody('+34611500201', '700-800'), { 'idempotency-key': 'form-7' });
    const replay = await seen('/leads/ingest', key, ingestBody('+34611500201', '700-800'), { 'idempotency-key': 'form-7' });
    expect(known).toEqual(first);
    expect(replay).toEqual({ ...first, headers: { ...first.headers, 'idempotent-replayed': 'true' } });
    const interactions = await t.db.selectFrom('lead_interactions').select(['channel', 'source', 'note']).execute();
    expect(interactions).toEqual([{ channel: 'ingest', source: 'web', note: expect.stringContaining('700') }]);
    // The consent a request that comes again carries is recorded with the known lead (CONTRACT §22).
    const consent = { marketing: false, whatsapp: true, text: 'Acepto WhatsApp', version: 'v2' };
    await seen('/leads/ingest', key, { ...ingestBody('+34611500201', '800'), consent });
    const [lead] = await t.db.selectFrom('leads').select('id').where('phone_number_1', '=', '+34611500201').execute();
    expect(await t.db.selectFrom('lead_consents').select(['lead_id', 'marketing', 'whatsapp', 'version', 'source_page']).execute()).toEqual(
      [{ lead_id: lead.id, marketing: 0, whatsapp: 1, version: 'v2', source_page: 'https://agencia.example/alquiler/12' }],
    );
  });

  it('leaves a secret key the spec’s answers: 409 for a known named phone, kept as an interaction once per Idempotency-Key', async () => {
    await post(t.app, '/leads/inquiries', t.key, lead('+34611500301'));
    const leadsBefore = JSON.stringify(await t.db.selectFrom('leads').selectAll().execute());
    for (let i = 0; i < 2; i++) {
      const again = await post(
        t.app,
        '/leads/inquiries',
        t.key,
        { ...lead('+34611500301'), source: 'idealista' },
        { 'idempotency-key': 'retry-1' },
      );
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ detail: 'A lead with this phone number already exists' });
      expect(again.headers['inmo-lead-outcome']).toBeUndefined();
      expect(again.headers['idempotent-replayed']).toBe(i === 0 ? undefined : 'true');
    }
    expect(JSON.stringify(await t.db.selectFrom('leads').selectAll().execute())).toBe(leadsBefore);
    expect(await t.db.selectFrom('lead_interactions').select(['channel', 'source']).execute()).toEqual([
      { channel: 'inquiry', source: 'idealista' },
    ]);
    const ingest = await post(t.app, '/leads/ingest', t.key, ingestBody('+34611500301'));
    expect([ingest.status, ingest.headers['inmo-lead-outcome']]).toEqual([200, 'unchanged']);
    expect(await t.db.selectFrom('lead_interactions').select('id').execute()).toHaveLength(2);
  });
});

describe('publishable keys', () => {
  it('are AC_PUB_ keys, limited to properties:read, leads:ingest and viewings:write, bound to well-formed origins', async () => {
    const key = await publishable([SITE, 'http://localhost:8080', SITE]);
    expect(key.key).toMatch(/^AC_PUB_[A-Za-z0-9]{16}\.[A-Za-z0-9]{43}$/);
    expect(key).toMatchObject({ kind: 'publishable', origins: [SITE, 'http://localhost:8080'] });
    await expect(createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:read'], origins: [SITE] })).rejects.toThrow(
      'A publishable key may only have the scopes properties:read, leads:ingest and viewings:write',
    );
    for (const origin of ['agencia.example', 'https://agencia.example/form', 'ftp://agencia.example', 'https://agencia.example?x=1'])
      await expect(publishable([origin]), origin).rejects.toMatchObject({ code: 'KEY_ORIGIN_INVALID' });
    await expect(publishable([])).rejects.toMatchObject({ code: 'KEY_ORIGIN_INVALID' });
  });

  it('work from a listed origin, with its CORS headers, and the Idempotency-Key a form retries with', async () => {
    const { key } = await publishable();
    const first = await post(t.app, '/leads/inquiries', key, lead('+34611500001'), { origin: SITE, 'idempotency-key': 'form-1' });
    expect(first.status).toBe(200);
    expect(first.headers['access-control-allow-origin']).toBe(SITE);
    expect(String(first.headers['access-control-expose-headers'])).toContain('Inmo-Lead-Outcome');
    expect(String(first.headers.vary)).toContain('Origin');
    const retry = await post(t.app, '/leads/inquiries', key, lead('+34611500001'), { origin: SITE, 'idempotency-key': 'form-1' });
    expect([retry.status, retry.headers['idempotent-replayed'], retry.body]).toEqual([200, 'true', first.body]);
    const page = await get(t.app, '/properties', key, { origin: SITE });
    expect([page.status, page.headers['access-control-allow-origin']]).toEqual([200, SITE]);
    // A conditional GET varies on the origin and on the coding both: a shared cache must not mix them.
    expect(String(page.headers.vary).split(/,\s*/)).toEqual(expect.arrayContaining(['Origin', 'Accept-Encoding']));
  });

  it('are refused with 403 without an Origin, or from another one, and change nothing; they cannot read leads', async () => {
    const { key } = await publishable();
    const before = await snapshot(t.db);
    for (const headers of [{}, { origin: 'https://evil.example' }, { origin: `${SITE}:8443` }] as Array<Record<string, string>>) {
      const refused = await post(t.app, '/leads/inquiries', key, lead('+34611500002'), headers);
      expect([refused.status, refused.body]).toEqual([
        403,
        { detail: 'This publishable key may be used only from the web origins it was created for' },
      ]);
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    }
    expect(await snapshot(t.db)).toBe(before);
    const leads = await get(t.app, '/leads', key, { origin: SITE });
    expect([leads.status, leads.body.detail]).toEqual([401, 'API key lacks the scope this operation requires: leads:read']);
  });

  it('take a browser’s same-origin GET, which has no Origin, as coming from this server’s own origin', async () => {
    // inject's requests come to host localhost:80: a page of inmo itself (its /embed/demo).
    const own = await publishable(['http://localhost']);
    const sameOrigin = { 'sec-fetch-site': 'same-origin' };
    const page = await get(t.app, '/properties', own.key, sameOrigin);
    expect([page.status, page.headers['access-control-allow-origin']]).toEqual([200, undefined]);
    // Another origin's key, or no browser's word for it: refused as before.
    const theirs = await publishable([SITE]);
    expect((await get(t.app, '/properties', theirs.key, sameOrigin)).status).toBe(403);
    expect((await get(t.app, '/properties', own.key)).status).toBe(403);
    expect((await get(t.app, '/properties', own.key, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
  });

  it('answer a listed origin’s preflight with 204 and what a form needs; nothing for another origin', async () => {
    await publishable();
    const ok = await preflight(SITE);
    expect(ok.statusCode).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe(SITE);
    expect(String(ok.headers['access-control-allow-methods'])).toContain('POST');
    const allowed = String(ok.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['x-api-key', 'content-type', 'idempotency-key']));
    const other = await preflight('https://evil.example');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    // A key created since is heard at once.
    await publishable(['https://otra.example']);
    expect((await preflight('https://otra.example')).headers['access-control-allow-origin']).toBe('https://otra.example');
  });

  it('are not secret keys: the other prefix with the same id is an invalid key', async () => {
    const { key } = await publishable();
    const swapped = key.replace('AC_PUB_', 'AC_LIVE_');
    const refused = await post(t.app, '/leads/inquiries', swapped, lead('+34611500003'), { origin: SITE });
    expect([refused.status, refused.body.detail]).toEqual([401, 'Invalid API key']);
    const secret = t.key.replace('AC_LIVE_', 'AC_PUB_');
    expect((await get(t.app, '/properties', secret, { origin: SITE })).body.detail).toBe('Invalid API key');
  });
});

describe('secret keys', () => {
  it('never get CORS headers, even from a listed origin', async () => {
    await publishable();
    const answer = await post(t.app, '/leads/inquiries', t.key, lead('+34611500010'), { origin: SITE });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('are refused, changing nothing, when a browser says the request comes from another site', async () => {
    const before = await snapshot(t.db);
    for (const site of ['cross-site', 'same-site']) {
      const refused = await post(t.app, '/leads/inquiries', t.key, lead('+34611500011'), { origin: SITE, 'sec-fetch-site': site });
      expect([refused.status, refused.body.detail]).toEqual([
        403,
        'A secret key must not be used from a web page: create a publishable key (AC_PUB_) for browser forms',
      ]);
    }
    expect(await snapshot(t.db)).toBe(before);
    // The API's own docs page (same origin) and servers (no header) are unaffected.
    expect((await get(t.app, '/me', t.key, { 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });
});
