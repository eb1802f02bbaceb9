/**
 * The console over HTTP (issue 15, CONTRACT §12), on this process's engine: sessions, roles,
 * tenancy and CSRF shared by every console route, login that says nothing of which half was
 * wrong and is rate limited, keys made in the console working against /v1/ext, the leads
 * list and page, and the languages. The browser journeys are in console.browser.test.ts.
 */
import type { FastifyInstance } from 'fastify';
import { Browser, PASSWORD, userWithPassword } from '../../helpers/console.ts';
import { createUser } from '../../../src/services/access/console-users.ts';
import { mkdtempSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { outboundPolicy } from '../../../src/config.ts';
import { derivedKey } from '../../../src/secrets.ts';
import { DICTIONARIES } from '../../../src/http/console/i18n.ts';
import { LOGIN_PER_ACCOUNT, LOGIN_PER_IP } from '../../../src/http/console/page.ts';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { createApiKey } from '../../../src/services/access/api-keys.ts';
import { SCOPES } from '../../../src/domain/access/api-key.ts';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { startFakeGraph } from '../../helpers/fake-graph.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { importRecords, listing, snapshot } from '../../helpers/db.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { get, post, withApp } from '../../helpers/http.ts';
import { READER_THREAD_MIN_BYTES } from '../../../src/services/catalogue/import/reader-thread.ts';

const PAGES = [
  '/console',
  '/console/keys',
  '/console/leads',
  '/console/leads/1',
  '/console/keys/abc/revoke',
  '/console/leads/1/erase',
  '/console/audit',
  '/console/catalogue',
  '/console/catalogue/imports/1',
  '/console/channel',
  '/console/properties',
  '/console/properties/new',
  '/console/properties/1',
  '/console/calendar',
  '/console/properties/1/close?status=vendida',
];
const FORMS = [
  '/console/keys',
  '/console/keys/abc/revoke',
  '/console/catalogue',
  '/console/leads/1/reply',
  '/console/leads/1/handoff',
  '/console/leads/1/resume',
  '/console/leads/1/erase',
  '/console/properties',
  '/console/properties/1',
  '/console/properties/1/status',
  '/console/properties/1/public',
  '/console/properties/1/featured',
  '/console/properties/1/action',
  '/console/properties/bulk',
  '/console/properties/1/images',
  '/console/properties/1/images/1',
  '/console/catalogue/feeds',
  '/console/catalogue/feeds/1/revoke',
  '/console/catalogue/sources',
  '/console/catalogue/sources/1/run',
  '/console/catalogue/sources/1/remove',
  '/console/catalogue/sources/1/confirm',
  '/console/catalogue/sources/1/discard',
  '/console/calendar',
  '/console/calendar/revoke',
];

describe('the console', () => {
  const t = withApp({
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'owner@uno.example', 'owner');
      await userWithPassword(db, businessId, 'agent@uno.example', 'agent');
      const other = await insertBusiness(db, 'Agencia Dos', nowRfc3339());
      await userWithPassword(db, other.id, 'owner@dos.example', 'owner');
      await createLeadByHand(db, { businessId, phone: '+34600000001', name: 'Lucía Uno' });
      await createLeadByHand(db, { businessId: other.id, phone: '+34600000002', name: 'Pedro Dos' });
      await createApiKey(db, { businessId: other.id, scopes: ['leads:read'], label: 'de la otra agencia' });
    },
  });

  it('sends every page and form to the login without a session, and changes nothing', async () => {
    const before = await snapshot(t.db);
    const browser = new Browser(t.app);
    for (const url of PAGES) {
      const response = await browser.get(url);
      expect(response.statusCode, url).toBe(303);
      expect(response.headers.location).toBe(`/console/login?next=${encodeURIComponent(url)}`);
    }
    for (const url of FORMS) {
      const response = await browser.request('POST', url, { name: 'x', scopes: 'leads:read' });
      expect(response.statusCode, url).toBe(303);
      expect(response.headers.location).toBe('/console/login');
    }
    expect(await snapshot(t.db)).toBe(before);
  });

  it('logs in, and a wrong password and an unknown email get the same answer', async () => {
    const wrong = await new Browser(t.app).login('owner@uno.example', 'not-the-password');
    const unknown = await new Browser(t.app).login('nobody@uno.example');
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    const strip = (html: string) => html.replace(/value="[^"]*"/g, '');
    expect(strip(wrong.body)).toBe(strip(unknown.body));
    expect(wrong.body).toContain('Correo o contraseña incorrectos.');

    const browser = new Browser(t.app);
    const ok = await browser.login('OWNER@uno.example');
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe('/console');
    const cookie = (ok.cookies as Array<{ name: string; httpOnly?: boolean; sameSite?: string; path?: string }>).find(
      (c) => c.name === 'inmo_session',
    );
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/console' });
    const overview = await browser.get('/console');
    expect(overview.statusCode).toBe(200);
    expect(overview.body).toContain('owner@uno.example');
    expect(overview.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('returns to the page asked for, and never to another site', async () => {
    const browser = new Browser(t.app);
    const page = await browser.get('/console/login?next=%2Fconsole%2Fleads');
    const next = /name="next" value="([^"]+)"/.exec(page.body)![1];
    expect(next).toBe('/console/leads');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)![1];
    const back = await browser.request('POST', '/console/login', { _csrf: token, email: 'agent@uno.example', password: PASSWORD, next });
    expect(back.headers.location).toBe('/console/leads');
    const evil = await new Browser(t.app).submit('/console/login', '/console/login', {
      email: 'agent@uno.example',
      password: PASSWORD,
      next: '//evil.example/console',
    });
    expect(evil.headers.location).toBe('/console');
  });

  it('refuses a form without its CSRF token with 403, and changes nothing', async () => {
    const browser = new Browser(t.app);
    await browser.login('owner@uno.example');
    const before = await snapshot(t.db);
    const missing = await browser.request('POST', '/console/keys', { name: 'sin token', scopes: 'leads:read' });
    expect(missing.statusCode).toBe(403);
    const forged = await browser.request('POST', '/console/keys', { _csrf: 'forged-token', name: 'falso', scopes: 'leads:read' });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('Formulario caducado');
    const logout = await browser.request('POST', '/console/logout', {});
    expect(logout.statusCode).toBe(403);
    const lead = await t.db.selectFrom('leads').select('id').where('name', '=', 'Lucía Uno').executeTakeFirstOrThrow();
    for (const url of [
      ...FORMS.filter((f) => !f.startsWith('/console/leads/')),
      ...['reply', 'handoff', 'resume', 'send'].map((a) => `/console/leads/${lead.id}/${a}`),
    ]) {
      expect((await browser.request('POST', url, { text: 'hola' })).statusCode, url).toBe(403);
    }
    const login = await new Browser(t.app).request('POST', '/console/login', { email: 'owner@uno.example', password: PASSWORD });
    expect(login.statusCode).toBe(403);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('binds a CSRF token to its session: a token from before logging in, or another user’s, is refused; login renews the secret', async () => {
    const a = new Browser(t.app);
    const anonymous = await a.token('/console/login');
    const anonymousSecret = a.cookie('inmo_csrf')!;
    expect((await a.login('owner@uno.example')).statusCode).toBe(303);
    expect(a.cookie('inmo_csrf')).toBeUndefined();
    const own = await a.token('/console/users');
    expect(a.cookie('inmo_csrf')).not.toBe(anonymousSecret);
    const ownSecret = a.cookie('inmo_csrf')!;
    const b = new Browser(t.app);
    await b.login('owner@dos.example');
    const theirs = await b.token('/console/users');
    const before = await snapshot(t.db);

    a.setCookie('inmo_csrf', anonymousSecret);
    const stale = await a.request('POST', '/console/users', { _csrf: anonymous, email: 'antes@uno.example', role: 'agent' });
    expect(stale.statusCode).toBe(403);

    a.setCookie('inmo_csrf', b.cookie('inmo_csrf')!);
    const foreign = await a.request('POST', '/console/users', { _csrf: theirs, email: 'ajeno@uno.example', role: 'agent' });
    expect(foreign.statusCode).toBe(403);
    expect(await snapshot(t.db)).toBe(before);

    a.setCookie('inmo_csrf', ownSecret);
    const created = await a.request('POST', '/console/users', { _csrf: own, email: 'propio@uno.example', role: 'agent' });
    expect(created.statusCode).toBe(201);
  });

  it('an agent gets 403 on owner pages and forms, and sees leads', async () => {
    const browser = new Browser(t.app);
    await browser.login('agent@uno.example');
    const before = await snapshot(t.db);
    expect((await browser.get('/console/keys')).statusCode).toBe(403);
    const token = await browser.token('/console/leads');
    expect((await browser.request('POST', '/console/keys', { _csrf: token, scopes: 'leads:read' })).statusCode).toBe(403);
    expect(await snapshot(t.db)).toBe(before);
    const leads = await browser.get('/console/leads');
    expect(leads.statusCode).toBe(200);
    expect(leads.body).toContain('Lucía Uno');
    expect(leads.body).not.toContain('Pedro Dos');
    expect(leads.body).not.toContain('href="/console/keys"');
  });

  it("answers another business's ids exactly like missing ones: 404", async () => {
    const browser = new Browser(t.app);
    await browser.login('owner@uno.example');
    const theirs = await t.db.selectFrom('leads').select('id').where('name', '=', 'Pedro Dos').executeTakeFirstOrThrow();
    const theirKey = await t.db.selectFrom('api_keys').select('key_id').where('label', '=', 'de la otra agencia').executeTakeFirstOrThrow();
    const before = await snapshot(t.db);
    const missingLead = await browser.get('/console/leads/999999');
    const otherLead = await browser.get(`/console/leads/${theirs.id}`);
    expect(otherLead.statusCode).toBe(404);
    expect(missingLead.statusCode).toBe(404);
    expect(otherLead.body.replace(/value="[^"]*"/g, '')).toBe(missingLead.body.replace(/value="[^"]*"/g, ''));
    expect((await browser.get(`/console/keys/${theirKey.key_id}/revoke`)).statusCode).toBe(404);
    const token = await browser.token('/console/keys');
    expect((await browser.request('POST', `/console/keys/${theirKey.key_id}/revoke`, { _csrf: token })).statusCode).toBe(404);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('creates a key shown once that works against /v1/ext/me, and revokes it after confirmation', async () => {
    const browser = new Browser(t.app);
    await browser.login('owner@uno.example');
    const created = await browser.submit('/console/keys', '/console/keys', {
      name: 'Web de la agencia',
      scopes: ['leads:read', 'properties:read'],
    });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const key = /value="(AC_LIVE_[^"]+)"/.exec(created.body)![1];
    const me = await get(t.app, '/me', key);
    expect(me.status).toBe(200);
    expect(me.body.user.scopes.sort()).toEqual(['leads:read', 'properties:read']);
    const list = await browser.get('/console/keys');
    const keyId = key.slice('AC_LIVE_'.length).split('.')[0];
    expect(list.body).toContain(keyId);
    expect(list.body).not.toContain(key);
    const confirm = await browser.get(`/console/keys/${keyId}/revoke`);
    expect(confirm.statusCode).toBe(200);
    expect((await get(t.app, '/me', key)).status).toBe(200);
    const revoked = await browser.submit(`/console/keys/${keyId}/revoke`, `/console/keys/${keyId}/revoke`, {});
    expect(revoked.statusCode).toBe(303);
    const refused = await get(t.app, '/me', key);
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe('API key has been revoked');
  });

  it('creates a publishable key for a site form, bound to its origins (CONTRACT §13)', async () => {
    const browser = new Browser(t.app);
    await browser.login('owner@uno.example');
    const site = 'https://www.agencia-uno.example';
    const created = await browser.submit('/console/keys', '/console/keys', {
      name: 'Formulario de la web',
      scopes: ['leads:ingest', 'properties:read'],
      kind: 'publishable',
      origins: `${site}\r\n\r\n  http://localhost:8080 \r\n`,
    });
    expect(created.statusCode).toBe(201);
    const key = /value="(AC_PUB_[^"]+)"/.exec(created.body)![1];
    expect(created.body).toContain(`${site}, http://localhost:8080`);
    // From a listed origin it works, with CORS; without one it is refused.
    const fromSite = await get(t.app, '/properties', key, { origin: site });
    expect([fromSite.status, fromSite.headers['access-control-allow-origin']]).toEqual([200, site]);
    expect((await get(t.app, '/properties', key)).status).toBe(403);
    const list = await browser.get('/console/keys');
    expect(list.body).toContain(`publicable: ${site}, http://localhost:8080`);
    expect(list.body).not.toContain('undefined');
  });

  it('refuses a publishable key with a secret scope or no valid origin, and origins on a secret key, creating nothing', async () => {
    const browser = new Browser(t.app);
    await browser.login('owner@uno.example');
    const before = await snapshot(t.db);
    const cases: Array<[Record<string, string | string[]>, string]> = [
      [
        { scopes: ['leads:ingest', 'leads:read'], kind: 'publishable', origins: 'https://a.example' },
        'Una clave publicable solo puede leer el catálogo y enviar leads.',
      ],
      [{ scopes: 'leads:ingest', kind: 'publishable', origins: '' }, 'Indica al menos un origen válido'],
      [{ scopes: 'leads:ingest', kind: 'publishable', origins: 'https://a.example\nwww.b.example' }, 'Indica al menos un origen válido'],
      [{ scopes: 'leads:ingest', kind: 'publishable', origins: 'https://a.example/formulario' }, 'Indica al menos un origen válido'],
      [{ scopes: 'leads:read', origins: 'https://a.example' }, 'Los orígenes solo valen para una clave publicable.'],
      [{ scopes: 'leads:read', kind: 'shared' }, 'Elige el tipo de clave.'],
    ];
    for (const [form, reason] of cases) {
      const refused = await browser.submit('/console/keys', '/console/keys', form);
      expect(refused.statusCode, JSON.stringify(form)).toBe(422);
      expect(refused.body).toContain(reason);
    }
    // The form comes back as it was sent.
    const kept = await browser.submit('/console/keys', '/console/keys', { scopes: 'leads:ingest', kind: 'publishable', origins: 'nope' });
    expect(kept.body).toContain('value="publishable" checked');
    expect(kept.body).toContain('>nope</textarea>');
    expect(await snapshot(t.db)).toBe(before);
  });

  it('shows a bad key form again with the reason, and creates nothing', async () => {
    const browser = new Browser(t.app);
    await browser.login('owner@uno.example');
    const before = await snapshot(t.db);
    const noScope = await browser.submit('/console/keys', '/console/keys', { name: 'sin permisos' });
    expect(noScope.statusCode).toBe(422);
    expect(noScope.body).toContain('Elige al menos un permiso.');
    expect(noScope.body).toContain('value="sin permisos"');
    const unknownScope = await browser.submit('/console/keys', '/console/keys', { scopes: ['leads:read', 'admin'] });
    expect(unknownScope.statusCode).toBe(422);
    const past = await browser.submit('/console/keys', '/console/keys', { scopes: 'leads:read', expires_on: '2020-01-01' });
    expect(past.statusCode).toBe(422);
    expect(past.body).toContain('La caducidad debe ser una fecha futura.');
    expect(await snapshot(t.db)).toBe(before);
  });

  it('reads every form by its schema: a malformed field is refused with its reason, 422, and nothing changes (schemas/console-forms.ts)', async () => {
    const owner = new Browser(t.app);
    await owner.login('owner@uno.example');
    const before = await snapshot(t.db);
    const refusals: Array<[string, string, Record<string, string | string[]>, string]> = [
      ['/console/keys', '/console/keys', { name: 'n'.repeat(101), scopes: ['leads:read'] }, 'El nombre no puede pasar de 100 caracteres.'],
      ['/console/keys', '/console/keys', { name: 'web', scopes: ['leads:read', 'leads:delete'] }, 'Elige al menos un permiso'],
      ['/console/keys', '/console/keys', { name: 'web', scopes: ['leads:read'], kind: 'master' }, 'Elige el tipo de clave.'],
      ['/console/users', '/console/users', { email: `${'a'.repeat(250)}@uno.example`, role: 'agent' }, 'Escribe un correo válido'],
      ['/console/users', '/console/users', { email: 'nuevo@uno.example', role: 'x'.repeat(21) }, 'Elige propietario o agente.'],
      ['/console/jobs', '/console/follow-ups', { type: 'propietario', every_days: 'sesenta' }, 'El periodo debe ser un número entero'],
      ['/console/jobs', '/console/follow-ups', { type: 'propietario', every_days: '3651' }, 'El periodo debe ser un número entero'],
      [
        '/console/channel',
        '/console/channel',
        { phone_number_id: '1'.repeat(65), template: 't', access_token: 'tok' },
        'Un campo es más largo de lo admitido',
      ],
    ];
    for (const [page, action, form, reason] of refusals) {
      const answer = await owner.submit(page, action, form);
      expect(answer.statusCode, `${action} ${JSON.stringify(form).slice(0, 80)}`).toBe(422);
      expect(answer.body).toContain(reason);
    }
    expect(await snapshot(t.db)).toBe(before);
  });

  it('ends an expired session: the next page is the login, saying so', async () => {
    const browser = new Browser(t.app);
    await browser.login('agent@uno.example');
    expect((await browser.get('/console/leads')).statusCode).toBe(200);
    await t.db.updateTable('console_sessions').set({ expires_at: '2020-01-01T00:00:00Z' }).execute();
    const ended = await browser.get('/console/leads');
    expect(ended.statusCode).toBe(303);
    expect(ended.headers.location).toBe('/console/login?next=%2Fconsole%2Fleads&ended=1');
    expect((await browser.get(ended.headers.location as string)).body).toContain('Tu sesión ha terminado.');
  });

  it('logs out: the session no longer opens a page', async () => {
    const browser = new Browser(t.app);
    await browser.login('agent@uno.example');
    const session = browser.cookie('inmo_session')!;
    const out = await browser.submit('/console', '/console/logout', {});
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/console/login?out=1');
    const replay = await t.app.inject({ method: 'GET', url: '/console', headers: { cookie: `inmo_session=${session}` } });
    expect(replay.statusCode).toBe(303);
  });

  it('filters and searches the leads of the business', async () => {
    const browser = new Browser(t.app);
    await browser.login('agent@uno.example');
    expect((await browser.get('/console/leads?q=luc')).body).toContain('Lucía Uno');
    expect((await browser.get('/console/leads?q=600000001')).body).toContain('Lucía Uno');
    expect((await browser.get('/console/leads?q=600000002')).body).toContain('Ningún lead coincide.');
    expect((await browser.get('/console/leads?status=closed')).body).toContain('Ningún lead coincide.');
    expect((await browser.get('/console/leads?status=new&source=manual')).body).toContain('Lucía Uno');
    expect((await browser.get('/console/leads?from=2099-01-01')).body).toContain('Ningún lead coincide.');
    expect((await browser.get('/console/leads?q=%25')).body).toContain('Ningún lead coincide.');
  });

  it('sets a password through its link once; a mismatch or a weak one is shown again and changes nothing', async () => {
    const { set_password_url } = await createUser(t.db, { businessId: t.businessId, email: 'nueva@uno.example', role: 'agent' });
    const browser = new Browser(t.app);
    const form = await browser.get(set_password_url);
    expect(form.statusCode).toBe(200);
    expect(form.headers['referrer-policy']).toBe('no-referrer');
    expect(form.body).toContain('nueva@uno.example');
    const before = await snapshot(t.db);
    const mismatch = await browser.submit(set_password_url, set_password_url, { password: PASSWORD, password_confirm: `${PASSWORD}x` });
    expect(mismatch.statusCode).toBe(422);
    expect(mismatch.body).toContain('Las dos contraseñas no coinciden.');
    const weak = await browser.submit(set_password_url, set_password_url, { password: 'qwerty123456', password_confirm: 'qwerty123456' });
    expect(weak.statusCode).toBe(422);
    expect(weak.body).toContain('Esa contraseña es de las más usadas');
    expect(await snapshot(t.db)).toBe(before);
    const done = await browser.submit(set_password_url, set_password_url, { password: PASSWORD, password_confirm: PASSWORD });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/console/login?set=1');
    expect((await browser.get(set_password_url)).statusCode).toBe(404);
    expect((await browser.login('nueva@uno.example')).statusCode).toBe(303);
  });

  describe('multipart bodies (issue 25: uploads only where a file is taken, after the checks)', () => {
    let folder: string;
    const savedTmp = process.env.TMPDIR;
    beforeEach(() => {
      // Uploads go to the temp folder: one of this test's own, to see what lands in it.
      folder = mkdtempSync(join(tmpdir(), 'inmo-console-tmp-'));
      process.env.TMPDIR = folder;
    });
    afterEach(() => {
      process.env.TMPDIR = savedTmp;
      if (savedTmp === undefined) delete process.env.TMPDIR;
    });
    const multipart = (megabytes: number) => {
      const boundary = '----inmo-big';
      const head = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.ndjson"\r\ncontent-type: application/x-ndjson\r\n\r\n`;
      const body = Buffer.concat([Buffer.from(head), Buffer.alloc(megabytes * 1024 * 1024, 'x'), Buffer.from(`\r\n--${boundary}--\r\n`)]);
      return { body, type: `multipart/form-data; boundary=${boundary}` };
    };

    it('a file posted to a form that takes none, or without a session or a CSRF token, is never written anywhere', async () => {
      const { body, type } = multipart(5);
      const owner = new Browser(t.app);
      await owner.login('owner@uno.example');
      const before = await snapshot(t.db);
      for (const url of ['/console/login', '/console/logout', '/console/set-password/not-a-link', '/console/catalogue', '/console/keys']) {
        const response = await t.app.inject({ method: 'POST', url, headers: { 'content-type': type }, payload: body });
        expect([303, 403, 404], url).toContain(response.statusCode);
      }
      const noToken = await owner.upload('/console/catalogue', {}, { field: 'file', name: 'a.ndjson', content: 'x'.repeat(1024 * 1024) });
      expect(noToken.statusCode).toBe(403);
      expect(readdirSync(folder)).toEqual([]);
      expect(await snapshot(t.db)).toBe(before);
    });

    it('an upload aborted half way leaves nothing behind', async () => {
      const owner = new Browser(t.app);
      await owner.login('owner@uno.example');
      const token = await owner.token('/console/catalogue');
      const origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = new URL(origin);
      const { body, type } = multipart(8);
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST /console/catalogue?_csrf=${encodeURIComponent(token)} HTTP/1.1\r\nhost: 127.0.0.1\r\n` +
          `cookie: inmo_session=${owner.cookie('inmo_session')}; inmo_csrf=${owner.cookie('inmo_csrf')}\r\n` +
          `content-type: ${type}\r\ncontent-length: ${body.length}\r\n\r\n`,
      );
      socket.write(body.subarray(0, 2 * 1024 * 1024));
      // The file has started to land in the temp folder; then the client goes away.
      await expect.poll(() => readdirSync(folder).length).toBe(1);
      socket.destroy();
      await expect.poll(() => readdirSync(folder)).toEqual([]);
    }, 60_000);
  });

  it('imports an uploaded catalogue in the background and reports each rejected line with its number', async () => {
    const browser = new Browser(t.app);
    await browser.login('owner@uno.example');
    const token = await browser.token('/console/catalogue');
    const lines = [JSON.stringify(listing('UP-1')), '{"external_ref": "UP-2", "status": "vendido"', JSON.stringify(listing('UP-3'))];
    const response = await browser.upload(
      '/console/catalogue',
      { _csrf: token },
      { field: 'file', name: 'madrid.ndjson', content: lines.join('\n') },
    );
    expect(response.statusCode).toBe(303);
    const page = response.headers.location as string;
    expect(page).toMatch(/^\/console\/catalogue\/imports\/\d+$/);
    let report = '';
    await expect
      .poll(async () => {
        report = (await browser.get(page)).body;
        return report.includes('terminada');
      })
      .toBe(true);
    expect(report).toContain('madrid.ndjson');
    expect(report).toMatch(/<td>2<\/td><td>[^<]+<\/td>/);
    expect(
      await t.db.selectFrom('properties').select('external_ref').where('external_ref', 'like', 'UP-%').orderBy('external_ref').execute(),
    ).toEqual([{ external_ref: 'UP-1' }, { external_ref: 'UP-3' }]);
    const catalogue = await browser.get('/console/catalogue');
    expect(catalogue.body).toContain('madrid.ndjson');
    // Another business's import is a 404, like a missing one.
    const other = new Browser(t.app);
    await other.login('owner@dos.example');
    expect((await other.get(page)).statusCode).toBe(404);
  }, 60_000);

  it("says each rejected line's faults in the console's language: the field's label, its name in the file, what is wrong", async () => {
    const lines = [
      '{"external_ref": "W-1",',
      JSON.stringify(listing('W-2', { price: -5 })),
      JSON.stringify(listing('W-3', { specs: { energy_certificate: { status: 'available', rating: 'Z' } } })),
      JSON.stringify(listing('W-4', { titles: { pt: 'Cobertura' } })),
      JSON.stringify(listing('W-5')),
    ];
    const report = async (browser: Browser) => {
      const response = await browser.upload(
        '/console/catalogue',
        { _csrf: await browser.token('/console/catalogue') },
        { field: 'file', name: 'faults.ndjson', content: lines.join('\n') },
      );
      const page = response.headers.location as string;
      let body = '';
      await expect.poll(async () => (body = (await browser.get(page)).body).includes('<tbody>')).toBe(true);
      return [...body.matchAll(/<tr><td>(\d+)<\/td><td>\s*([\s\S]*?)<\/td><\/tr>/g)].map(([, line, words]) => [Number(line), words.trim()]);
    };
    const spanish = new Browser(t.app);
    await spanish.login('owner@uno.example');
    expect(await report(spanish)).toEqual([
      [1, 'La línea no es JSON válido.'],
      [2, 'Precio de venta (€) · <code>price</code>: No puede ser menor que 0.'],
      [3, 'Calificación energética (letra) · <code>specs.energy_certificate.rating</code>: Elige una de las opciones.'],
      [4, '<code>titles</code>: «pt» no es uno de los idiomas que se guardan (es, en, fr, de, it).'],
    ]);
    const english = new Browser(t.app, { 'accept-language': 'en-GB,en;q=0.9' });
    await english.login('owner@uno.example');
    expect(await report(english)).toEqual([
      [1, 'The line is not valid JSON.'],
      [2, 'Sale price (€) · <code>price</code>: It cannot be less than 0.'],
      [3, 'Energy rating (letter) · <code>specs.energy_certificate.rating</code>: Choose one of the options.'],
      [4, '<code>titles</code>: “pt” is not one of the languages kept (es, en, fr, de, it).'],
    ]);
    // The rejected lines are kept with their faults, and the CLI's reason in English beside them.
    const [run] = await t.db.selectFrom('catalogue_imports').select('rejected').where('file_name', '=', 'faults.ndjson').limit(1).execute();
    expect(JSON.parse(run.rejected!)[1]).toEqual({
      line: 2,
      reason: 'price: Input should be greater than or equal to 0',
      faults: [{ field: 'price', rule: 'greater_than_equal', ctx: { ge: 0 } }],
    });
  }, 60_000);

  it("imports an upload of a reader thread's size on the import thread, with its rejected line and its progress", async () => {
    const browser = new Browser(t.app);
    await browser.login('owner@uno.example');
    const lines = Array.from({ length: 2500 }, (_, i) => JSON.stringify(listing(`BIG-${i}`)));
    lines[1234] = '{"external_ref": "BIG-BAD"';
    // A ref an earlier batch had: the last one wins, counted as repeated (kept in import_refs on the thread).
    lines[2000] = JSON.stringify(listing('BIG-3', { price: 123456 }));
    const content = lines.join('\n');
    expect(Buffer.byteLength(content)).toBeGreaterThan(READER_THREAD_MIN_BYTES);
    const response = await browser.upload(
      '/console/catalogue',
      { _csrf: await browser.token('/console/catalogue') },
      { field: 'file', name: 'big.ndjson', content },
    );
    expect(response.statusCode).toBe(303);
    const id = Number((response.headers.location as string).split('/').pop());
    const done = async () => t.db.selectFrom('catalogue_imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    await expect.poll(async () => (await done()).state).toBe('done');
    expect(await done()).toMatchObject({
      created: 2498,
      updated: 1,
      repeated: 1,
      lines_done: 2500,
      bytes_done: Buffer.byteLength(content),
    });
    expect(await t.db.selectFrom('properties').select('price').where('external_ref', '=', 'BIG-3').executeTakeFirst()).toEqual({
      price: 123456,
    });
    expect(await t.db.selectFrom('import_refs').select('run').execute()).toEqual([]);
    expect(JSON.parse((await done()).rejected!)).toEqual([
      { line: 1235, reason: expect.any(String), faults: [{ field: null, rule: 'json_invalid' }] },
    ]);
    expect((await get(t.app, '/properties?limit=1', t.key)).body.total).toBeGreaterThanOrEqual(2498);
  }, 120_000);

  it('an upload of a document with nothing but a BOM and white space fails saying it is empty, and imports nothing (issue 41)', async () => {
    const browser = new Browser(t.app);
    await browser.login('owner@uno.example');
    const properties = await t.db.selectFrom('properties').selectAll().orderBy('id').execute();
    const response = await browser.upload(
      '/console/catalogue',
      { _csrf: await browser.token('/console/catalogue') },
      { field: 'file', name: 'empty.ndjson', content: '\uFEFF\n \r\n' },
    );
    expect(response.statusCode).toBe(303);
    const id = Number((response.headers.location as string).split('/').pop());
    const run = async () => t.db.selectFrom('catalogue_imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    await expect.poll(async () => ['done', 'failed'].includes((await run()).state)).toBe(true);
    expect(await run()).toMatchObject({ state: 'failed', error: expect.stringContaining('The document is empty') });
    expect((await browser.get(response.headers.location as string)).body).toContain('The document is empty');
    expect(await t.db.selectFrom('properties').selectAll().orderBy('id').execute()).toEqual(properties);
  }, 60_000);

  it('refuses an upload without its CSRF token, or from an agent, and imports nothing', async () => {
    const owner = new Browser(t.app);
    await owner.login('owner@uno.example');
    const agent = new Browser(t.app);
    await agent.login('agent@uno.example');
    const before = await snapshot(t.db);
    const file = { field: 'file', name: 'x.ndjson', content: JSON.stringify(listing('NOPE-1')) };
    expect((await owner.upload('/console/catalogue', {}, file)).statusCode).toBe(403);
    const token = await agent.token('/console/catalogue');
    expect((await agent.upload('/console/catalogue', { _csrf: token }, file)).statusCode).toBe(403);
    const empty = await owner.upload('/console/catalogue', { _csrf: await owner.token('/console/catalogue') }, { ...file, content: '' });
    expect(empty.statusCode).toBe(422);
    expect(await snapshot(t.db)).toBe(before);
  });

  it('lets an agent reply inside the WhatsApp window, hand over and resume; outside it, says why and sends nothing', async () => {
    const { db, businessId } = t;
    const channel = await connectChannel(
      db,
      { businessId, provider: 'whatsapp-cloud', phoneNumberId: '5550001', tokenEnv: 'TEST_WA_TOKEN', template: 'bienvenida' },
      { TEST_WA_TOKEN: 'token-used-only-in-tests' },
    );
    expect(channel).toBeTruthy();
    const lead = await createLeadByHand(db, { businessId, phone: '+34600000077', name: 'Rosa Escribe' });
    const now = Date.now();
    const at = (ms: number) => new Date(ms).toISOString();
    await db
      .insertInto('conversations')
      .values({
        lead_id: lead.id,
        business_id: businessId,
        state: 'assistant',
        window_open_until: at(now + 3600_000),
        last_message_at: at(now),
        updated_at: at(now),
      })
      .execute();
    const browser = new Browser(t.app);
    await browser.login('agent@uno.example');
    const page = `/console/leads/${lead.id}`;
    const handoff = await browser.submit(page, `${page}/handoff`, {});
    expect(handoff.statusCode).toBe(303);
    expect((await db.selectFrom('conversations').select('state').where('lead_id', '=', lead.id).executeTakeFirstOrThrow()).state).toBe(
      'waiting_for_agent',
    );
    const reply = await browser.submit(page, `${page}/reply`, { text: 'Hola Rosa, ¿te viene bien el jueves?' });
    expect(reply.statusCode).toBe(303);
    const sent = await db.selectFrom('messages').select(['body', 'author']).where('lead_id', '=', lead.id).execute();
    expect(sent).toEqual([{ body: 'Hola Rosa, ¿te viene bien el jueves?', author: 'agent' }]);
    expect((await browser.get(page)).body).toContain('Hola Rosa, ¿te viene bien el jueves?');
    const resume = await browser.submit(page, `${page}/resume`, {});
    expect(resume.statusCode).toBe(303);
    expect((await db.selectFrom('conversations').select('state').where('lead_id', '=', lead.id).executeTakeFirstOrThrow()).state).toBe(
      'assistant',
    );

    await db
      .updateTable('conversations')
      .set({ window_open_until: at(now - 60_000) })
      .where('lead_id', '=', lead.id)
      .execute();
    const closed = await browser.get(page);
    expect(closed.body).toContain('La ventana de 24 horas de WhatsApp está cerrada');
    expect(closed.body).not.toContain(`action="${page}/reply"`);
    const other = new Browser(t.app);
    await other.login('owner@dos.example');
    const before = await snapshot(db);
    const late = await browser.submit(page, `${page}/reply`, { text: 'demasiado tarde' });
    expect(late.statusCode).toBe(409);
    expect(late.body).toContain('La ventana de 24 horas está cerrada');
    expect(await snapshot(db)).toBe(before);
    // Another business's owner cannot act on it.
    expect((await other.submit('/console/leads', `${page}/handoff`, {})).statusCode).toBe(404);
    expect(await snapshot(db)).toBe(before);
  });

  it('connects WhatsApp from a form: the token and app secret are write-only, the page shows the webhook, a test template goes out', async () => {
    const graph = await startFakeGraph();
    try {
      // A business with no channel yet (an earlier test connected one).
      await t.db.deleteFrom('channels').where('business_id', '=', t.businessId).execute();
      const owner = new Browser(t.app);
      await owner.login('owner@uno.example');
      const before = await snapshot(t.db);
      const base = {
        phone_number_id: '34911000111',
        template: 'bienvenida',
        languages: 'gb=en_GB',
        listing_url: '',
        base_url: graph.baseUrl,
      };
      const noToken = await owner.submit('/console/channel', '/console/channel', { ...base, access_token: '', app_secret: '' });
      expect(noToken.statusCode).toBe(422);
      expect(noToken.body).toContain('Pega el token de acceso');
      const badLanguages = await owner.submit('/console/channel', '/console/channel', {
        ...base,
        access_token: 'tok',
        languages: 'english',
      });
      expect(badLanguages.statusCode).toBe(422);
      expect(await snapshot(t.db)).toBe(before);

      const saved = await owner.submit('/console/channel', '/console/channel', {
        ...base,
        access_token: 'EAAG-token-de-prueba',
        app_secret: 'secreto-de-la-app',
      });
      expect(saved.statusCode).toBe(303);
      const page = await owner.get('/console/channel?saved=1');
      expect(page.body).toContain('Canal guardado.');
      expect(page.body).toMatch(/<code>http:\/\/localhost(:80)?\/webhooks\/whatsapp<\/code>/);
      const verifyToken = /id="verify-token">([^<]+)</.exec(page.body)![1];
      expect(verifyToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(page.body).not.toContain('EAAG-token-de-prueba');
      expect(page.body).not.toContain('secreto-de-la-app');
      const row = await t.db.selectFrom('channels').selectAll().where('business_id', '=', t.businessId).executeTakeFirstOrThrow();
      expect(row.access_token).not.toContain('EAAG');
      expect(JSON.parse(row.languages)).toMatchObject({ gb: 'en_GB', es: 'es' });
      // Meta's handshake takes the token the page shows.
      const handshake = await t.app.inject({
        url: `/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=1234`,
      });
      expect(handshake.body).toBe('1234');

      // Changed without a token: the stored one stays, and the test send uses it.
      const changed = await owner.submit('/console/channel', '/console/channel', {
        ...base,
        template: 'hola_v2',
        access_token: '',
        app_secret: '',
      });
      expect(changed.statusCode).toBe(303);
      const test = await owner.submit('/console/channel', '/console/channel/test', { test_phone: '612 34 56 78' });
      expect(test.statusCode).toBe(200);
      expect(test.body).toContain('Plantilla enviada a +34612345678');
      expect(graph.requests).toHaveLength(1);
      expect(graph.requests[0].authorization).toBe('Bearer EAAG-token-de-prueba');
      expect(graph.requests[0].body).toMatchObject({ to: '+34612345678', type: 'template', template: { name: 'hola_v2' } });
      const badPhone = await owner.submit('/console/channel', '/console/channel/test', { test_phone: '12' });
      expect(badPhone.statusCode).toBe(422);
      expect(graph.requests).toHaveLength(1);

      // The stored token never goes to another address: a new origin needs the token again,
      // plain http and hosts other than Meta's are refused, and nothing is stored.
      const kept = await snapshot(t.db);
      const elsewhere = `http://127.0.0.2:${new URL(graph.baseUrl).port}/v21.0`;
      const moved = await owner.submit('/console/channel', '/console/channel', { ...base, base_url: elsewhere, access_token: '' });
      expect(moved.statusCode).toBe(422);
      expect(moved.body).toContain('Vuelve a escribir el token de acceso');
      // A server whose operator allows no private destinations (the suite's default allows them).
      const strict = await buildApp({ db: t.db, outbound: outboundPolicy({}) });
      try {
        for (const url of ['http://graph.facebook.com/v21.0', 'https://attacker.example/v21.0', graph.baseUrl]) {
          const refused = await owner
            .on(strict)
            .submit('/console/channel', '/console/channel', { ...base, base_url: url, access_token: 'nuevo' });
          expect(refused.statusCode, url).toBe(422);
          expect(refused.body, url).toContain('graph.facebook.com');
        }
      } finally {
        await strict.close();
      }
      expect(await snapshot(t.db)).toBe(kept);
      const retest = await owner.submit('/console/channel', '/console/channel/test', { test_phone: '612 34 56 78' });
      expect(retest.statusCode).toBe(200);
      expect(graph.requests.map((r) => r.authorization)).toEqual(['Bearer EAAG-token-de-prueba', 'Bearer EAAG-token-de-prueba']);
      // A host the operator names is allowed, over https, with its token.
      const naming = await buildApp({ db: t.db, outbound: outboundPolicy({ INMO_CHANNEL_HOSTS: 'Graph.example.eu, other.example' }) });
      try {
        const named = await owner.on(naming).submit('/console/channel', '/console/channel', {
          ...base,
          base_url: 'https://graph.example.eu/v21.0',
          access_token: 'EAAG-otro',
        });
        expect(named.statusCode).toBe(303);
      } finally {
        await naming.close();
      }

      // An agent may not see or change it; another business may not take the number.
      const agent = new Browser(t.app);
      await agent.login('agent@uno.example');
      expect((await agent.get('/console/channel')).statusCode).toBe(403);
      const other = new Browser(t.app);
      await other.login('owner@dos.example');
      const taken = await other.submit('/console/channel', '/console/channel', { ...base, access_token: 'otro' });
      expect(taken.statusCode).toBe(409);
      expect(taken.body).toContain('Ese número ya está conectado a otro espacio de trabajo.');
    } finally {
      await graph.close();
    }
  });

  it('lists failed jobs to owners, retries one, and sets follow-up periods', async () => {
    const lead = await t.db.selectFrom('leads').select(['id', 'business_id']).where('name', '=', 'Lucía Uno').executeTakeFirstOrThrow();
    const theirLead = await t.db
      .selectFrom('leads')
      .select(['id', 'business_id'])
      .where('name', '=', 'Pedro Dos')
      .executeTakeFirstOrThrow();
    const failed = (leadRow: { id: number; business_id: number }) =>
      t.db
        .insertInto('jobs')
        .values({
          business_id: leadRow.business_id,
          lead_id: leadRow.id,
          kind: 'match_lead',
          state: 'failed',
          attempts: 5,
          run_at: '2026-11-01T00:00:00Z',
          last_error: 'database is locked',
          created_at: '2026-11-01T00:00:00Z',
          updated_at: '2026-11-01T00:00:00Z',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    const ours = await failed(lead);
    const theirs = await failed(theirLead);
    const owner = new Browser(t.app);
    await owner.login('owner@uno.example');
    const page = await owner.get('/console/jobs');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('database is locked');
    expect(page.body).toContain(`/console/jobs/${ours.id}/retry`);
    expect(page.body).not.toContain(`/console/jobs/${theirs.id}/retry`);
    const before = await snapshot(t.db);
    expect((await owner.submit('/console/jobs', `/console/jobs/${theirs.id}/retry`, {})).statusCode).toBe(404);
    expect(await snapshot(t.db)).toBe(before);
    expect((await owner.submit('/console/jobs', `/console/jobs/${ours.id}/retry`, {})).statusCode).toBe(303);
    expect(await t.db.selectFrom('jobs').select(['state', 'attempts']).where('id', '=', ours.id).executeTakeFirstOrThrow()).toEqual({
      state: 'pending',
      attempts: 0,
    });
    const again = await owner.submit('/console/jobs', `/console/jobs/${ours.id}/retry`, {});
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('Esa tarea ya no está fallida');

    const period = await owner.submit('/console/jobs', '/console/follow-ups', { type: 'propietario', every_days: '60' });
    expect(period.statusCode).toBe(303);
    expect((await owner.get('/console/jobs')).body).toMatch(/<dt>Propietario<\/dt><dd>cada 60 días<\/dd>/);
    const bad = await owner.submit('/console/jobs', '/console/follow-ups', { type: 'propietario', every_days: '0' });
    expect(bad.statusCode).toBe(422);
    const agent = new Browser(t.app);
    await agent.login('agent@uno.example');
    expect((await agent.get('/console/jobs')).statusCode).toBe(403);
  });

  it('lets an owner invite a user with a one-time link, and disable them, ending their session', async () => {
    const owner = new Browser(t.app);
    await owner.login('owner@uno.example');
    const invited = await owner.submit('/console/users', '/console/users', { email: 'Nuevo.Agente@uno.example', role: 'agent' });
    expect(invited.statusCode).toBe(201);
    expect(invited.headers['cache-control']).toBe('no-store');
    const link = new URL(/id="new-link" readonly value="([^"]+)"/.exec(invited.body)![1]);
    expect(link.pathname).toMatch(/^\/console\/set-password\/[A-Za-z0-9_-]{43}$/);
    const before = await snapshot(t.db);
    expect((await owner.submit('/console/users', '/console/users', { email: 'nuevo.agente@uno.example', role: 'agent' })).statusCode).toBe(
      409,
    );
    expect((await owner.submit('/console/users', '/console/users', { email: 'no-es-un-correo', role: 'agent' })).statusCode).toBe(422);
    expect((await owner.submit('/console/users', '/console/users', { email: 'x@uno.example', role: 'admin' })).statusCode).toBe(422);
    expect(await snapshot(t.db)).toBe(before);

    const agent = new Browser(t.app);
    await agent.submit(link.pathname, link.pathname, { password: PASSWORD, password_confirm: PASSWORD });
    expect((await agent.login('nuevo.agente@uno.example')).statusCode).toBe(303);
    expect((await agent.get('/console/leads')).statusCode).toBe(200);
    expect((await agent.get('/console/users')).statusCode).toBe(403);

    const id = (await t.db.selectFrom('users').select('id').where('email', '=', 'nuevo.agente@uno.example').executeTakeFirstOrThrow()).id;
    const self = (await t.db.selectFrom('users').select('id').where('email', '=', 'owner@uno.example').executeTakeFirstOrThrow()).id;
    const theirs = (await t.db.selectFrom('users').select('id').where('email', '=', 'owner@dos.example').executeTakeFirstOrThrow()).id;
    expect((await owner.submit('/console/users', `/console/users/${theirs}/disable`, {})).statusCode).toBe(404);
    const selfDisable = await owner.submit('/console/users', `/console/users/${self}/disable`, {});
    expect(selfDisable.statusCode).toBe(409);
    expect(selfDisable.body).toContain('No puedes desactivar tu propia cuenta');
    expect((await owner.submit('/console/users', `/console/users/${id}/disable`, {})).statusCode).toBe(303);
    expect((await agent.get('/console/leads')).statusCode).toBe(303);
    expect((await owner.get('/console/users')).body).toMatch(/nuevo\.agente@uno\.example<\/td>\s*<td>agente<\/td>\s*<td>desactivado/);
  });

  it("shows a lead's matches as cards with the cover image, never a private one", async () => {
    await importRecords(t.db, t.businessId, [
      listing('IMG-1', {
        title: 'Piso con fotos',
        images: [
          { url: 'https://img.example/privada.jpg', order: 1, is_primary: true, title: null, public: false },
          { url: 'https://img.example/portada.jpg', order: 2, is_primary: false, title: null, public: true },
        ],
      }),
    ]);
    const created = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Inés Fotos',
      type: 'buyer',
      phone_number_1: '+34 611 99 88 77',
      search_preferences: [{ operations: ['venta'], property_types: ['apartamento'], locations: [{ name: 'Madrid' }] }],
    });
    expect(created.status).toBe(200);
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    const browser = new Browser(t.app);
    await browser.login('agent@uno.example');
    const lead = await t.db.selectFrom('leads').select('id').where('name', '=', 'Inés Fotos').executeTakeFirstOrThrow();
    const page = await browser.get(`/console/leads/${lead.id}`);
    expect(page.body).toContain('Piso con fotos');
    expect(page.body).toContain('<img src="https://img.example/portada.jpg"');
    expect(page.body).not.toContain('privada.jpg');
  });

  it('speaks English to a browser that prefers it, and both languages have every message', async () => {
    const english = new Browser(t.app, { 'accept-language': 'en-GB,en;q=0.9,es;q=0.5' });
    const page = await english.get('/console/login');
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain('Log in');
    expect((await new Browser(t.app, { 'accept-language': 'fr-FR, de' }).get('/console/login')).body).toContain('<html lang="es">');
    expect(Object.keys(DICTIONARIES.en).sort()).toEqual(Object.keys(DICTIONARIES.es).sort());
    // Labels the pages look up by name: every scope's (the key form lists them all).
    for (const scope of SCOPES) expect(DICTIONARIES.es, scope).toHaveProperty(`scope_${scope.replace(':', '_')}`);
  });

  it('serves its stylesheet and script from the package, without a session, and nothing beside them', async () => {
    const css = await t.app.inject({ url: '/console/assets/console.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    const js = await t.app.inject({ url: '/console/assets/console.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    for (const url of ['/console/assets/../plugin.ts', '/console/assets/%2e%2e/plugin.ts', '/console/assets/missing.css'])
      expect((await t.app.inject({ url })).statusCode, url).not.toBe(200);
  });

  it('keeps the console out of the OpenAPI document', async () => {
    const doc = await t.app.inject({ url: '/v1/ext/openapi.json' });
    expect(Object.keys(doc.json().paths).some((p) => p.startsWith('/console'))).toBe(false);
  });

  it('locks an account after its failed logins from any address, even for the right password, with Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_PER_ACCOUNT; i++)
      statuses.push((await new Browser(t.app, {}, `198.51.100.${i + 1}`).login('limited@uno.example', `guess-number-${i}`)).statusCode);
    expect(statuses).toEqual(new Array(LOGIN_PER_ACCOUNT).fill(401));
    const refused = await new Browser(t.app, {}, '198.51.100.200').login('LIMITED@uno.example', PASSWORD);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body).toContain('Demasiados intentos.');
  });

  it('never holds back an account for its successful logins', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_PER_ACCOUNT + 2; i++) statuses.push((await new Browser(t.app).login('agent@uno.example')).statusCode);
    expect(statuses).toEqual(new Array(LOGIN_PER_ACCOUNT + 2).fill(303));
  });

  it('limits logins per address, whichever accounts they try', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_PER_IP + 1; i++)
      statuses.push((await new Browser(t.app, {}, '203.0.113.7').login(`user${i}@uno.example`, 'some-wrong-password')).statusCode);
    expect(statuses).toEqual([...new Array(LOGIN_PER_IP).fill(401), 429]);
    // Another address is not held back by it.
    expect((await new Browser(t.app, {}, '203.0.113.8').login('owner@dos.example')).statusCode).toBe(303);
  });
});

describe('the console behind a TLS-terminating proxy', () => {
  const t = withApp({
    app: { trustProxy: true },
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'owner@proxy.example', 'owner');
    },
  });

  it('marks its cookies Secure when the proxy says the request came over HTTPS, and not otherwise', async () => {
    const secure = await new Browser(t.app, { 'x-forwarded-proto': 'https' }).login('owner@proxy.example');
    expect(secure.statusCode).toBe(303);
    for (const c of secure.cookies as Array<{ name: string; secure?: boolean }>) expect(c.secure, c.name).toBe(true);
    const plain = await new Browser(t.app).login('owner@proxy.example');
    expect(plain.statusCode).toBe(303);
    expect((plain.cookies as Array<{ name: string; secure?: boolean }>).find((c) => c.name === 'inmo_session')?.secure).toBeFalsy();
  });
});

describe('the console served over HTTPS (INMO_PUBLIC_URL is https:)', () => {
  const t = withApp({
    app: { trustProxy: true, publicUrl: 'https://inmo.agency.example' },
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'owner@https.example', 'owner');
    },
  });

  it('names its cookies with the __Host- prefix: Secure, Path=/, no Domain, so no other site or subdomain can set them', async () => {
    const browser = new Browser(t.app, { 'x-forwarded-proto': 'https' });
    const login = await browser.login('owner@https.example');
    expect(login.statusCode).toBe(303);
    const set = login.cookies as Array<{ name: string; value: string; secure?: boolean; path?: string; domain?: string }>;
    const session = set.find((c) => c.name === '__Host-inmo_session');
    expect(session).toMatchObject({ secure: true, path: '/' });
    expect(session?.domain).toBeUndefined();
    expect(set.map((c) => c.name).filter((n) => !n.startsWith('__Host-'))).toEqual([]);
    const page = await browser.get('/console');
    expect(page.statusCode).toBe(200);
    const csrf = (page.cookies as Array<{ name: string; secure?: boolean; path?: string }>).find((c) => c.name === '__Host-inmo_csrf');
    expect(csrf).toMatchObject({ secure: true, path: '/' });
    // The unprefixed names of a plain-http console open nothing here.
    const plain = await t.app.inject({
      method: 'GET',
      url: '/console',
      headers: { cookie: `inmo_session=${browser.cookie('__Host-inmo_session')}` },
    });
    expect(plain.statusCode).toBe(303);
    // Forms work with the prefixed cookies.
    const created = await browser.submit('/console/users', '/console/users', { email: 'agente@https.example', role: 'agent' });
    expect(created.statusCode).toBe(201);
  });
});

describe('the console in several processes', () => {
  const t = withApp({
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'owner@procesos.example', 'owner');
    },
  });

  it('takes a form made by another process of the installation (same key), and refuses one made with another key', async () => {
    // What `inmo serve` passes each process: a key derived from the installation's sealing key.
    const key = derivedKey('inmo console CSRF binding', { INMO_SECRET_KEY: 'la-clave-de-la-instalacion' });
    const [one, two, stranger] = await Promise.all([
      buildApp({ db: t.db, consoleCsrfKey: key }),
      buildApp({ db: t.db, consoleCsrfKey: Buffer.from(key) }),
      buildApp({ db: t.db, consoleCsrfKey: derivedKey('inmo console CSRF binding', { INMO_SECRET_KEY: 'otra-clave-distinta-1234' }) }),
    ]);
    try {
      const browser = new Browser(one);
      await browser.login('owner@procesos.example');
      const token = await browser.token('/console/users');
      const cookie = `inmo_session=${browser.cookie('inmo_session')}; inmo_csrf=${browser.cookie('inmo_csrf')}`;
      const post = (app: FastifyInstance, email: string) =>
        app.inject({
          method: 'POST',
          url: '/console/users',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ _csrf: token, email, role: 'agent' }).toString(),
        });
      expect((await post(two, 'uno@procesos.example')).statusCode).toBe(201);
      expect((await post(stranger, 'dos@procesos.example')).statusCode).toBe(403);
    } finally {
      await Promise.all([one.close(), two.close(), stranger.close()]);
    }
  });
});
