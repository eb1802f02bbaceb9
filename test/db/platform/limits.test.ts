/**
 * The limits of CONTRACT §8 are configurable (src/limits.ts): an app built with small limits
 * enforces them, each with its clear error, and documents them in its OpenAPI; `inmo` reads
 * them from the environment into its config.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { DEFAULT_LIMITS, loadLimits, type Limits } from '../../../src/limits.ts';
import { buildApp } from '../../../src/app.ts';
import { inmo } from '../../helpers/cli.ts';
import { Browser, userWithPassword } from '../../helpers/console.ts';
import { snapshot } from '../../helpers/db.ts';
import { withApp } from '../../helpers/http.ts';

const SMALL_ENV = {
  INMO_MAX_BODY_BYTES: '2048',
  INMO_MAX_STRING: '40',
  INMO_MAX_NAME: '10',
  INMO_MAX_SEARCHES: '2',
  INMO_MAX_LOCATIONS: '2',
  INMO_MAX_POLYGON_VERTICES: '4',
  INMO_MAX_LOCATIONS_QUERY_CHARS: '600',
  INMO_MAX_JSON_DEPTH: '6',
  INMO_HEADERS_TIMEOUT_MS: '1000',
  INMO_BODY_TIMEOUT_MS: '1000',
  INMO_UPLOAD_TIMEOUT_MS: '2000',
  INMO_KEEP_ALIVE_TIMEOUT_MS: '500',
  INMO_MAX_DISCARDED_BODY_BYTES: '16777216',
};

const SMALL: Limits = {
  bodyBytes: 2048,
  stringChars: 40,
  nameChars: 10,
  searches: 2,
  locations: 2,
  polygonVertices: 4,
  locationsQueryChars: 600,
  jsonDepth: 6,
  headersTimeoutMs: 1000,
  bodyTimeoutMs: 1000,
  uploadTimeoutMs: 2000,
  keepAliveTimeoutMs: 500,
  discardBodyBytes: 16 * 1024 * 1024,
};

/**
 * The file's app: SMALL's sizes, with time limits no loaded machine comes near, since its tests
 * are about sizes (an idle connection kept for 500 ms could close under a request about to
 * reuse it). Each test of a time limit listens with an app of its own ({@link listening}).
 */
const t = withApp({
  app: { limits: { ...SMALL, headersTimeoutMs: 60_000, bodyTimeoutMs: 60_000, uploadTimeoutMs: 120_000, keepAliveTimeoutMs: 5_000 } },
  listen: true,
});

/**
 * SMALL's time limits, for the tests of them, but a body's 3 s rather than 1: a request's
 * checks before its body is read (its key, its session) must end within it, loaded or not.
 */
const TIMED: Limits = { ...SMALL, bodyTimeoutMs: 3000 };

/** An app on the file's database with `limits`, listening: its base URL, and its close. */
async function listening(limits: Limits): Promise<{ base: string; close: () => Promise<void> }> {
  const app = await buildApp({ db: t.db, limits });
  return { base: await app.listen({ port: 0, host: '127.0.0.1' }), close: () => app.close() };
}

const post = async (path: string, body: unknown) => {
  const response = await fetch(`${t.base}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': t.key, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
};
const inquiry = (extra: Record<string, unknown>) => ({ name: 'Ana', phone_number_1: '612345678', type: 'buyer', ...extra });
const square = (n: number) => ({
  type: 'polygon',
  coordinates: Array.from({ length: n }, (_, i) => ({ lat: 40 + (i % 2) / 100, lng: -3.7 + i / 100 })),
});

it('enforces each configured limit with its error, and stores nothing', async () => {
  const before = await snapshot(t.db);
  const big = await post('/leads/inquiries', inquiry({ notes: 'x'.repeat(3000) }));
  expect(big).toEqual({ status: 413, body: { detail: 'Request body too large' } });

  const name = await post('/leads/inquiries', inquiry({ name: 'Bartolomé de las Casas' }));
  expect(name.status).toBe(422);
  expect(name.body.detail).toEqual([expect.objectContaining({ type: 'string_too_long', loc: ['body', 'name'], ctx: { max_length: 10 } })]);

  const text = await post('/leads/inquiries', inquiry({ notes: 'y'.repeat(41) }));
  expect(text.body.detail).toEqual([expect.objectContaining({ type: 'string_too_long', loc: ['body', 'notes'], ctx: { max_length: 40 } })]);

  const searches = await post('/leads/inquiries', inquiry({ search_preferences: [{}, {}, {}] }));
  expect(searches.body.detail).toEqual([expect.objectContaining({ type: 'too_long', loc: ['body', 'search_preferences'] })]);

  const areas = await post(
    '/leads/inquiries',
    inquiry({ search_preferences: [{ locations: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }] }),
  );
  expect(areas.body.detail).toEqual([expect.objectContaining({ type: 'too_long', loc: ['body', 'search_preferences', 0, 'locations'] })]);
  expect(await snapshot(t.db)).toBe(before);

  const get = async (query: string) => {
    const response = await fetch(`${t.base}/properties?locations=${encodeURIComponent(query)}`, { headers: { 'x-api-key': t.key } });
    return { status: response.status, body: await response.json() };
  };
  expect((await get(JSON.stringify([square(4)]))).status).toBe(200);
  const vertices = await get(JSON.stringify([square(5)]));
  expect(vertices.status).toBe(422);
  expect(vertices.body.detail[0]).toMatchObject({ type: 'too_long', loc: ['query', 'locations', 0] });
  const many = await get(JSON.stringify([{ name: 'a' }, { name: 'b' }, { name: 'c' }].map(() => square(3))));
  expect(many.body.detail[0]).toMatchObject({ type: 'too_long', loc: ['query', 'locations'] });
  const long = await get(JSON.stringify([square(3)]).padEnd(601, ' '));
  expect(long.body.detail[0]).toMatchObject({ type: 'string_too_long', loc: ['query', 'locations'] });
});

it('documents the configured limits in its OpenAPI document', async () => {
  const doc = await (await fetch(`${t.base}/openapi.json`)).json();
  const inquirySchema = doc.paths['/leads/inquiries'].post.requestBody.content['application/json'].schema;
  expect(inquirySchema.properties.name.maxLength).toBe(10);
  expect(JSON.stringify(inquirySchema.properties.search_preferences)).toContain('"maxItems":2');
});

it('reads the limits from the environment into the config, with a clear error for a bad value', async () => {
  expect(loadConfig(SMALL_ENV).limits).toEqual(SMALL);
  expect(loadLimits({})).toEqual(DEFAULT_LIMITS);
  expect(DEFAULT_LIMITS).toEqual({
    bodyBytes: 1_048_576,
    stringChars: 10_000,
    nameChars: 200,
    searches: 20,
    locations: 50,
    polygonVertices: 1000,
    locationsQueryChars: 65_536,
    jsonDepth: 64,
    headersTimeoutMs: 10_000,
    bodyTimeoutMs: 30_000,
    uploadTimeoutMs: 3_600_000,
    keepAliveTimeoutMs: 5_000,
    discardBodyBytes: 33_554_432,
  });
  expect(() => loadLimits({ INMO_MAX_NAME: '0' })).toThrow('INMO_MAX_NAME must be a positive integer, got "0"');
  const refused = await inmo({ ...process.env, DATABASE_URL: t.url, INMO_MAX_STRING: 'lots' }, 'migrate', '--json');
  expect(refused.json).toEqual({ error: 'INMO_MAX_STRING must be a positive integer, got "lots"' });
});

it('refuses JSON nested deeper than the limit with json_invalid before parsing it, and stores nothing', async () => {
  // Six levels (the object, `specs`, and four more) pass the schema's checks; seven do not parse.
  const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
  const six = await post('/leads/inquiries', `{"name":"Ana","phone_number_1":"612345671","type":"buyer","x":${nested(5)}}`);
  expect(six.status).toBe(200);
  const before = await snapshot(t.db);
  const head = '{"name":"Eva","phone_number_1":"612345672","type":"buyer","x":';
  const seven = await post('/leads/inquiries', `${head}${nested(6)}}`);
  expect(seven.status).toBe(422);
  expect(seven.body.detail).toEqual([
    // The bracket that opens the seventh level: the sixth of `x`'s, each `{"a":` 5 characters long.
    {
      type: 'json_invalid',
      loc: ['body', head.length + 5 * 5],
      msg: 'JSON decode error',
      input: {},
      ctx: { error: 'nesting deeper than 6 levels' },
    },
  ]);
  expect(await snapshot(t.db)).toBe(before);
  // Brackets inside strings are text, not nesting.
  const text = await post('/leads/inquiries', { name: 'Luz', phone_number_1: '612345673', type: 'buyer', notes: '[[[[[[[[{{{{{{{{' });
  expect(text.status).toBe(200);
  expect((await t.db.selectFrom('leads').select('name').orderBy('id').execute()).map((l) => l.name)).toEqual(['Ana', 'Luz']);
});

/**
 * A raw connection to the test server: what it received, and why it ended, `closed` (by the
 * server) or `gave up` (the client's own bound, far beyond every limit under test).
 */
function rawConnection(base = t.base): { socket: Socket; received: () => string; ended: Promise<'closed' | 'gave up'> } {
  const { port } = new URL(base);
  const socket = connect(Number(port), '127.0.0.1');
  let data = '';
  socket.on('data', (chunk) => (data += chunk.toString('latin1')));
  socket.on('error', () => {});
  const ended = new Promise<'closed' | 'gave up'>((resolve) => {
    const giveUp = setTimeout(() => {
      resolve('gave up');
      socket.destroy();
    }, 30_000);
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve('closed');
    });
  });
  return { socket, received: () => data, ended };
}

const headers = (length: number, connection = 'close') =>
  `POST /v1/ext/leads/inquiries HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-api-key: ${t.key}\r\n` +
  `content-length: ${length}\r\nconnection: ${connection}\r\n\r\n`;

it('answers a body sent a byte at a time 408 once its time is up, closes the connection, and stores nothing', async () => {
  const before = await snapshot(t.db);
  const app = await listening(TIMED);
  try {
    const { socket, received, ended } = rawConnection(app.base);
    socket.write(headers(1000, 'keep-alive'));
    const drip = setInterval(() => socket.writable && socket.write('{'), 100);
    try {
      expect(await ended).toBe('closed');
    } finally {
      clearInterval(drip);
    }
    expect(received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(received()).toMatch(/\r\nconnection: close\r\n/i);
    expect(received().split('\r\n\r\n')[1]).toBe('{"detail":"Request body not received in time"}');
  } finally {
    await app.close();
  }
  expect(await snapshot(t.db)).toBe(before);
});

it('closes a connection whose headers come too slowly, and an idle keep-alive connection', async () => {
  const app = await listening(TIMED);
  try {
    const slow = rawConnection(app.base);
    slow.socket.write('GET /v1/ext/me HTTP/1.1\r\n');
    const drip = setInterval(() => slow.socket.writable && slow.socket.write('x-a: b\r\n'), 100);
    try {
      expect(await slow.ended).toBe('closed');
    } finally {
      clearInterval(drip);
    }
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);

    const idle = rawConnection(app.base);
    idle.socket.write(`GET /v1/ext/me HTTP/1.1\r\nhost: x\r\nx-api-key: ${t.key}\r\n\r\n`);
    expect(await idle.ended).toBe('closed');
    expect(idle.received()).toMatch(/^HTTP\/1\.1 200 /);
  } finally {
    await app.close();
  }
});

it('gives the 413 to a client that writes its whole 8 MiB body before reading, every time of twenty', async () => {
  // The file's app: the body is discarded within its minute, however slowly a loaded machine reads it.
  const body = Buffer.alloc(8 * 1024 * 1024, 'x');
  const answers: string[] = [];
  for (let i = 0; i < 20; i++) {
    const { socket, received, ended } = rawConnection();
    // Written whole, then read: what Python's urllib and many HTTP libraries do.
    let writeError: string | null = null;
    socket.write(headers(body.length));
    socket.write(body, (error) => (writeError = error ? ((error as NodeJS.ErrnoException).code ?? 'error') : null));
    await ended;
    answers.push(writeError ?? received().split('\r\n')[0]);
  }
  expect(answers).toEqual(Array.from({ length: 20 }, () => 'HTTP/1.1 413 Payload Too Large'));
});

it('answers a refused request whose body stops arriving, and closes the connection rather than keep it for Node’s backstop', async () => {
  // Node's own bound on a whole request is an hour here: the connection must not wait for it.
  const app = await listening({ ...TIMED, uploadTimeoutMs: 3_600_000 });
  try {
    const { socket, received, ended } = rawConnection(app.base);
    // No key: refused before its body is read.
    socket.write(`POST /v1/ext/leads/inquiries HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"a":`);
    expect(await ended).toBe('closed');
    expect(received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(received()).toMatch(/\r\nconnection: close\r\n/i);
  } finally {
    await app.close();
  }
});

describe('a console upload', () => {
  /** An app whose bodies have TIMED's 3 s, and whose console uploads 2 minutes once allowed (beyond the client's 30 s patience). */
  const withUploads = async () => {
    const app = await buildApp({ db: t.db, limits: { ...TIMED, uploadTimeoutMs: 120_000 } });
    return { app, base: await app.listen({ port: 0, host: '127.0.0.1' }) };
  };
  const multipart = (path: string, cookie: string, length: number) =>
    `POST ${path} HTTP/1.1\r\nhost: x\r\ncookie: ${cookie}\r\ncontent-type: multipart/form-data; boundary=b\r\n` +
    `content-length: ${length}\r\nconnection: close\r\n\r\n`;

  it('gets the body’s time only, not the upload’s, before its session is checked', async () => {
    const { app, base } = await withUploads();
    try {
      const { socket, received, ended } = rawConnection(base);
      socket.write(multipart('/console/catalogue?_csrf=x', 'inmo_session=forged', 100_000));
      const drip = setInterval(() => socket.writable && socket.write('-'), 200);
      try {
        expect(await ended).toBe('closed');
      } finally {
        clearInterval(drip);
      }
      // Refused (no session: to the login page), its body given the body's seconds, not the upload's minutes.
      expect(received()).toMatch(/^HTTP\/1\.1 303 /);
      expect(received()).toMatch(/\r\nconnection: close\r\n/i);
    } finally {
      await app.close();
    }
  });

  it('gets the upload’s time once its session and CSRF token are checked', async () => {
    const { app, base } = await withUploads();
    // The upload's temp folder (http/console/uploads.ts) lands here: it is made once the checks passed.
    const uploads = mkdtempSync(join(tmpdir(), 'inmo-limits-'));
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = uploads;
    try {
      await userWithPassword(t.db, t.businessId, 'owner-upload@uno.example', 'owner');
      const browser = new Browser(app);
      expect((await browser.login('owner-upload@uno.example')).statusCode).toBe(303);
      const token = await browser.token('/console/catalogue');
      const cookie = `inmo_session=${browser.cookie('inmo_session')}; inmo_csrf=${browser.cookie('inmo_csrf')}`;
      const line = JSON.stringify({ external_ref: 'SLOW-1', title: 'Piso' });
      const body = Buffer.from(
        `--b\r\ncontent-disposition: form-data; name="file"; filename="c.ndjson"\r\ncontent-type: application/x-ndjson\r\n\r\n${line}\n\r\n--b--\r\n`,
      );
      const { socket, received, ended } = rawConnection(base);
      socket.write(multipart(`/console/catalogue?_csrf=${encodeURIComponent(token)}`, cookie, body.length));
      socket.write(body.subarray(0, 10));
      // Allowed: the route has made its folder.
      await expect.poll(() => readdirSync(uploads).some((name) => name.startsWith('inmo-upload-'))).toBe(true);
      // Then the body's deadline (counted from before that) passes, and the rest comes: within the upload's.
      await new Promise((resolve) => setTimeout(resolve, TIMED.bodyTimeoutMs + 500));
      socket.write(body.subarray(10));
      expect(await ended).toBe('closed');
      expect(received()).toMatch(/^HTTP\/1\.1 (202|303) /);
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
      await app.close();
      rmSync(uploads, { recursive: true, force: true });
    }
  });
});
