/** The operator CLI as scripts use it (CONTRACT §9): child processes on a real SQLite file. */
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrationProvider } from '../../../src/db/migrations/index.ts';
import { startFakeGraph } from '../../helpers/fake-graph.ts';
import { inmo } from '../../helpers/cli.ts';
import { freshDatabaseUrl, REPO_ROOT, listing } from '../../helpers/db.ts';
import { INMO_ENTRY, startServe } from '../../helpers/processes.ts';

/** A scratch folder and the environment of a CLI run on a fresh database of this process's engine. */
async function workspace() {
  const dir = mkdtempSync(join(tmpdir(), 'inmo-cli-'));
  return { dir, env: { ...process.env, DATABASE_URL: await freshDatabaseUrl(), LOG_LEVEL: 'warn', INMO_MEDIA_DIR: join(dir, 'media') } };
}

/**
 * A console session over HTTP at `origin`: the password set through `setPasswordPath` (the
 * demo's one-time link), then a login; its `get` sends the session's cookies.
 */
async function consoleSession(origin: string, setPasswordPath: string) {
  const cookies = new Map<string, string>();
  const send = async (path: string, form?: Record<string, string>) => {
    const response = await fetch(origin + path, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  };
  const csrf = async (path: string) => /name="_csrf" value="([^"]+)"/.exec(await (await send(path)).text())![1];
  const password = 'tejado-azul-sobre-Zaragoza';
  const set = await send(setPasswordPath, { _csrf: await csrf(setPasswordPath), password, password_confirm: password });
  expect(set.status).toBe(303);
  const login = await send('/console/login', { _csrf: await csrf('/console/login'), email: 'demo@inmo.example', password });
  expect(login.status).toBe(303);
  return { get: (path: string) => send(path) };
}

describe('inmo CLI', () => {
  it('creates a business and keys, lists and revokes them, imports a catalogue reporting bad lines, records leads', async () => {
    const { dir, env } = await workspace();
    const migrations = Object.keys(await migrationProvider.getMigrations());
    expect(migrations.slice(0, 3)).toEqual(['0001_initial', '0002_jobs', '0003_background']);
    expect((await inmo(env, 'migrate', '--json')).json).toEqual({ applied: migrations });
    expect((await inmo(env, 'migrate', '--json')).json).toEqual({ applied: [] });
    const business = await inmo(env, 'business', 'create', '--name', 'Inmobiliaria Sol', '--json');
    expect(business.json).toEqual({ id: 1, name: 'Inmobiliaria Sol', timezone: 'Europe/Madrid' });

    const key = await inmo(env, 'keys', 'create', '--business', '1', '--scopes', 'properties:read,leads:read', '--name', 'web', '--json');
    expect(key.code).toBe(0);
    expect(key.json.key).toMatch(/^AC_LIVE_[A-Za-z0-9]{16}\.[A-Za-z0-9]{43}$/);
    expect(key.json).toMatchObject({ scopes: ['properties:read', 'leads:read'], name: 'web', business_id: 1 });
    const listed = await inmo(env, 'keys', 'list', '--business', '1', '--json');
    expect(listed.json).toHaveLength(1);
    expect(JSON.stringify(listed.json)).not.toContain(key.json.key.split('.')[1]);
    const revoked = await inmo(env, 'keys', 'revoke', key.json.key_id, '--json');
    expect(revoked.json.revoked_at).toMatch(/\+00:00$/);

    const badScope = await inmo(env, 'keys', 'create', '--business', '1', '--scopes', 'admin', '--json');
    expect(badScope.code).toBe(1);
    expect(badScope.json.error).toMatch(/Unknown scope "admin"/);
    const badArgument = await inmo(env, 'keys', 'create', '--business', 'abc', '--scopes', 'leads:read', '--json');
    expect(badArgument.code).toBe(1);
    expect(badArgument.json.error).toMatch(/--business/);
    expect(badArgument.stderr).toBe('');
    expect((await inmo(env, 'nonsense', '--json')).json).toEqual({ error: "unknown command 'nonsense'" });
    const noBusiness = await inmo(env, 'keys', 'create', '--business', '9', '--scopes', 'leads:read', '--json');
    expect(noBusiness.json).toEqual({ error: 'Business 9 does not exist' });

    const file = join(dir, 'catalogue.ndjson');
    writeFileSync(
      file,
      [
        JSON.stringify(listing('a')),
        '{"external_ref": "broken", ',
        JSON.stringify(listing('b', { price: 'cheap' })),
        '',
        JSON.stringify(listing('c', { operation: 'venta,permuta' })),
        JSON.stringify(listing('a', { price: 1 })),
      ].join('\n'),
    );
    const imported = await inmo(env, 'properties', 'import', '--business', '1', file, '--json');
    // Imported with rejections: its own exit status (src/cli/properties.ts).
    expect(imported.code).toBe(3);
    expect(imported.json.created).toBe(1);
    expect(imported.json.updated).toBe(1);
    expect(imported.json.rejected.map((r: { line: number }) => r.line)).toEqual([2, 3, 5]);
    // Each rejected line: its number, the English reason, and the same in parts (docs/operators.md).
    expect(imported.json.rejected[1]).toEqual({
      line: 3,
      reason: 'price: Input should be a valid number, unable to parse string as a number',
      faults: [{ field: 'price', rule: 'float_parsing' }],
    });
    expect(imported.json.rejected[2].reason).toMatch(/permuta/);
    const human = await inmo(env, 'properties', 'import', '--business', '1', file);
    expect(human.stdout).toMatch(/created 0, updated 2, rejected 3/);
    expect(human.stdout).toMatch(/line 2: invalid JSON/);

    const lead = await inmo(env, 'leads', 'create', '--business', '1', '--phone', '612 34 56 78', '--json');
    expect(lead.json).toMatchObject({ id: 1, phone_number_1: '+34612345678', name: null, type: 'demandante', status: 'new' });
    const again = await inmo(env, 'leads', 'create', '--business', '1', '--phone', '+34 612-345-678', '--name', 'Ana', '--json');
    expect(again.json).toEqual({ error: 'A lead with this phone number already exists' });
    const invalid = await inmo(env, 'leads', 'create', '--business', '1', '--phone', '12345', '--json');
    expect(invalid.json).toEqual({ error: 'Invalid phone number. Use international format, e.g. +34612345678' });
    const shown = await inmo(env, 'leads', 'show', '1', '--json');
    expect(shown.json.lead).toMatchObject({ id: 1, phone_number_1: '+34612345678', rating: 3 });
    expect((await inmo(env, 'leads', 'show', '99', '--json')).json).toEqual({ error: 'No lead with id 99' });
  }, 90_000);

  it('serve --demo seeds an empty database once, prints the URL, docs, console and a working key; a later start reuses it, photos following it in the API and the console', async () => {
    const { env } = await workspace();
    const start = () => startServe(env, '--demo', '--no-worker');
    const first = await start();
    expect(first.info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/ext$/);
    expect(first.info.docs).toBe(`${first.info.url}/docs`);
    expect(first.info.console).toBe(`${new URL(first.info.url).origin}/console`);
    expect((await fetch(`${first.info.console}/login`)).status).toBe(200);
    expect(first.info.owner_email).toBe('demo@inmo.example');
    expect((await fetch(`${new URL(first.info.url).origin}${first.info.set_password_url}`)).status).toBe(200);
    expect(first.info.properties).toBe(600);
    const response = await fetch(`${first.info.url}/properties?limit=1`, { headers: { 'x-api-key': first.info.key } });
    expect(response.status).toBe(200);
    expect((await response.json()).total).toBeGreaterThan(400);
    // The website kit's demo page, with a publishable key for this origin that reads the catalogue from it.
    const origin = new URL(first.info.url).origin;
    expect(first.info.embed_demo).toMatch(new RegExp(`^${origin}/embed/demo\\?key=AC_PUB_[A-Za-z0-9]{16}\\.[A-Za-z0-9]+$`));
    const demoPage = await fetch(first.info.embed_demo);
    const html = await demoPage.text();
    expect(demoPage.status).toBe(200);
    const publishable = new URL(first.info.embed_demo).searchParams.get('key')!;
    expect(html).toContain(`<inmo-listings api="${origin}/v1/ext" key="${publishable}" lang="es"></inmo-listings>`);
    expect(html).toMatch(/<script type="module" src="\/embed\/v1\/inmo\.[0-9a-f]{16}\.js" integrity="sha384-/);
    const fromPage = await fetch(`${first.info.url}/properties?limit=1`, { headers: { 'x-api-key': publishable, origin } });
    expect([fromPage.status, fromPage.headers.get('access-control-allow-origin')]).toEqual([200, origin]);
    expect((await fetch(`${origin}/embed/demo`)).status).toBe(400);
    // The demo's photos are real images served by inmo, linked under this server's /media/.
    const withPhotos = await fetch(`${first.info.url}/properties?limit=50`, { headers: { 'x-api-key': first.info.key } });
    const urls = ((await withPhotos.json()).data as Array<{ images: Array<{ url: string }> | null }>).flatMap((p) =>
      (p.images ?? []).map((i) => i.url),
    );
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url).toMatch(new RegExp(`^${origin}/media/p/0/[0-9a-f-]{36}-1600\\.jpg$`));
    const photo = await fetch(urls[0]);
    expect([photo.status, photo.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
    const bytes = Buffer.from(await photo.arrayBuffer());
    expect(bytes.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    for (const width of [480, 960]) expect((await fetch(urls[0].replace(/-1600\.jpg$/, `-${width}.jpg`))).status).toBe(200);
    await first.stop();

    const second = await start();
    expect(second.info).not.toHaveProperty('key');
    expect(second.info.business_id).toBe(1);
    // The website kit's demo again, on this start's address (another port); the previous start's
    // key is revoked, not piled up.
    const again = new URL(second.info.url).origin;
    expect(second.info.embed_demo).toMatch(new RegExp(`^${again}/embed/demo\\?key=AC_PUB_`));
    const secondKey = new URL(second.info.embed_demo).searchParams.get('key')!;
    const read = (key: string) => fetch(`${second.info.url}/properties?limit=1`, { headers: { 'x-api-key': key, origin: again } });
    expect((await read(secondKey)).status).toBe(200);
    expect((await read(publishable)).status).toBe(401);
    // The photos followed the server to its new address (issue 47): the old port answers nothing.
    const moved = await fetch(`${second.info.url}/properties?limit=50`, { headers: { 'x-api-key': secondKey, origin: again } });
    const movedUrls = ((await moved.json()).data as Array<{ images: Array<{ url: string }> | null }>).flatMap((p) =>
      (p.images ?? []).map((i) => i.url),
    );
    expect(movedUrls.length).toBe(urls.length);
    for (const url of movedUrls) expect(url).toMatch(new RegExp(`^${again}/media/p/0/[0-9a-f-]{36}-1600\\.jpg$`));
    for (const url of new Set(movedUrls)) expect((await fetch(url)).status).toBe(200);
    // And in the console: the owner sets a password through the first start's link, logs in on the
    // new address, and every thumbnail of the listings page answers 200 there.
    const owner = await consoleSession(again, first.info.set_password_url);
    const listingsPage = await owner.get('/console/properties');
    expect(listingsPage.status).toBe(200);
    const thumbnails = [...(await listingsPage.text()).matchAll(/<img[^>]*src="([^"]+)"/g)].map(([, src]) => new URL(src, again).href);
    expect(thumbnails.length).toBeGreaterThan(10);
    for (const src of thumbnails) expect(src.startsWith(`${again}/media/`), src).toBe(true);
    for (const src of new Set(thumbnails)) expect((await fetch(src)).status, src).toBe(200);
    await second.stop();
  }, 90_000);

  it('serve listens on PORT and HOST as hosting platforms set them, unless --port and --host say otherwise', async () => {
    const { env } = await workspace();
    const free = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const served = await startServe({ ...env, PORT: String(free), HOST: '127.0.0.1' }, '--no-worker');
    try {
      expect(served.base).toBe(`http://127.0.0.1:${free}/v1/ext`);
      expect((await fetch(`http://127.0.0.1:${free}/healthz`)).status).toBe(200);
    } finally {
      await served.stop();
    }
    const flags = await startServe({ ...env, PORT: String(free), HOST: '0.0.0.0' }, '--no-worker', '--port', '0', '--host', '127.0.0.1');
    try {
      expect(flags.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/ext$/);
      expect(flags.base).not.toContain(`:${free}/`);
    } finally {
      await flags.stop();
    }
    const refused = await inmo({ ...env, PORT: 'http' }, 'serve', '--json');
    expect([refused.code, refused.json]).toEqual([1, { error: 'PORT must be an integer >= 0, got "http"' }]);
  }, 60_000);

  it('serve runs the worker in-process: a lead is matched and greeted once; channel connect never prints the token; jobs list and leads show --json', async () => {
    const { dir, env } = await workspace();
    const graph = await startFakeGraph();
    try {
      await inmo(env, 'business', 'create', '--name', 'Sol', '--json');
      const file = join(dir, 'catalogue.ndjson');
      writeFileSync(
        file,
        [listing('r1', { operation: 'alquiler', price: null, price_rent: 800 })].map((r) => JSON.stringify(r)).join('\n'),
      );
      await inmo(env, 'properties', 'import', '--business', '1', file, '--json');

      const secret = 'EAAG-cli-secret-token';
      const args = [
        'channel',
        'connect',
        '--business',
        '1',
        '--provider',
        'whatsapp-cloud',
        '--phone-number-id',
        '42',
        '--token-env',
        'WA_TOKEN',
      ];
      const missing = await inmo(env, ...args, '--template', 'hola', '--json');
      expect(missing.json).toEqual({ error: 'the environment variable WA_TOKEN named by --token-env is not set' });
      const connect = [...args, '--template', 'hola', '--base-url', graph.baseUrl, '--language', 'gb=en_GB'];
      const connected = await inmo({ ...env, WA_TOKEN: secret }, ...connect, '--json');
      expect(connected.code).toBe(0);
      expect(connected.stdout).not.toContain(secret);
      expect(connected.json).toMatchObject({
        business_id: 1,
        provider: 'whatsapp-cloud',
        phone_number_id: '42',
        template: 'hola',
        token: 'stored from WA_TOKEN',
      });
      expect(connected.json.languages).toEqual({ es: 'es', gb: 'en_GB', fr: 'fr', ge: 'de', it: 'it' });
      const human = await inmo({ ...env, WA_TOKEN: secret }, ...connect);
      expect(human.stdout + human.stderr).not.toContain(secret);

      const key = (await inmo(env, 'keys', 'create', '--business', '1', '--scopes', 'leads:ingest', '--json')).json.key;
      const server = await startServe(env);
      // The import's re-match of searching leads runs 2 s after it (debounced): let it run first,
      // so that the lead below is matched once, by its own job.
      await expect
        .poll(async () => (await inmo(env, 'jobs', 'list', '--json')).json.find((j: any) => j.kind === 'rematch_catalogue')?.state)
        .toBe('done');
      const response = await fetch(`${server.info.url}/leads/inquiries`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Jane',
          phone_number_1: '+447911123456',
          type: 'tenant',
          preferred_language: 'gb',
          search_preferences: [{ operations: ['alquiler'] }],
        }),
      });
      expect(response.status).toBe(200);
      const { lead_id: leadId } = await response.json();
      await expect.poll(() => graph.requests.length, { interval: 25 }).toBeGreaterThan(0);
      expect(await server.stop()).toBe(0);
      expect(graph.requests).toHaveLength(1);
      expect(graph.requests[0].body.template).toEqual({ name: 'hola', language: { code: 'en_GB' } });
      expect(graph.requests[0].authorization).toBe(`Bearer ${secret}`);

      const shown = await inmo(env, 'leads', 'show', String(leadId), '--json');
      expect(Object.keys(shown.json)).toEqual([
        'lead',
        'notes',
        'consents',
        'matches',
        'near_misses',
        'matching',
        'message',
        'follow_ups',
        'conversation',
        'alerts',
      ]);
      expect(shown.json.lead).toMatchObject({
        id: leadId,
        name: 'Jane',
        phone_number_1: '+447911123456',
        type: 'demandante',
        status: 'searching_property',
        rating: 3,
      });
      expect(shown.json.matches).toEqual([{ property_id: 1, search_index: 0 }]);
      expect(shown.json.near_misses).toEqual([]);
      expect(shown.json.message).toMatchObject({ state: 'sent', template: 'hola', provider_message_id: 'wamid.fake1' });
      expect(shown.json.follow_ups).toEqual([expect.objectContaining({ every_days: 30, state: 'scheduled' })]);
      expect(JSON.stringify(shown.json)).not.toContain(secret);

      const jobs = await inmo(env, 'jobs', 'list', '--json');
      expect(jobs.json.map((j: any) => [j.kind, j.state])).toEqual([
        ['follow_up', 'pending'],
        ['schedule_follow_ups', 'done'],
        ['send_welcome', 'done'],
        ['match_lead', 'done'],
        ['rematch_catalogue', 'done'],
      ]);
      expect((await inmo(env, 'jobs', 'list', '--state', 'failed', '--json')).json).toEqual([]);
      expect((await inmo(env, 'jobs', 'list', '--state', 'stuck', '--json')).json).toEqual({
        error: '--state must be one of: pending, running, done, failed',
      });
    } finally {
      await graph.close();
    }
  }, 120_000);

  it('inmo worker keeps running while idle, takes new jobs, and exits 0 on SIGTERM; settings are checked at start', async () => {
    const { dir, env } = await workspace();
    await inmo(env, 'business', 'create', '--name', 'Sol', '--json');
    const workerEnv = { ...env, INMO_WORKER_POLL_MS: '50' };
    const child = spawn(process.execPath, [INMO_ENTRY, 'worker'], { env: workerEnv, cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let exited: number | null | undefined;
    child.once('exit', (code) => (exited = code));
    // Idle for a while: it must still be there.
    await new Promise((r) => setTimeout(r, 2500));
    expect(exited).toBeUndefined();
    const file = join(dir, 'c.ndjson');
    writeFileSync(file, JSON.stringify(listing('x')));
    await inmo(env, 'properties', 'import', '--business', '1', file, '--json');
    // The import's re-match job (due 2 s later) is taken by the running worker.
    await expect.poll(async () => (await inmo(env, 'jobs', 'list', '--state', 'done', '--json')).json.length, { interval: 100 }).toBe(1);
    const code = await new Promise<number | null>((resolve) => {
      if (exited !== undefined) return resolve(exited);
      child.once('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);

    const bad = await inmo({ ...env, INMO_JOB_LEASE_MS: '1000', INMO_SEND_TIMEOUT_MS: '5000' }, 'worker', '--until-idle', '--json');
    expect(bad.json).toEqual({ error: 'INMO_JOB_LEASE_MS (1000) must be longer than INMO_SEND_TIMEOUT_MS (5000)' });
    const pasted = await inmo(
      { ...env, WA: 'x' },
      'channel',
      'connect',
      '--business',
      '1',
      '--provider',
      'whatsapp-cloud',
      '--phone-number-id',
      '1',
      '--token-env',
      'EAAG.secret-value',
      '--template',
      't',
      '--json',
    );
    expect(pasted.json).toEqual({ error: '--token-env must be the NAME of an environment variable holding the token, not the token' });
    expect(pasted.stdout).not.toContain('secret-value');
  }, 90_000);
});
