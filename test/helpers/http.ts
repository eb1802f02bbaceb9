/**
 * The app under test: built on a test database as `inmo serve` builds it, called with
 * Fastify's `inject` (or served on a free port), and closed by the helper that opened it.
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { buildApp, type AppOptions, type Surface } from '../../src/app.ts';
import type { Db } from '../../src/db/database.ts';
import type { Scope } from '../../src/domain/access/api-key.ts';
import { businessWithKey, freshDb } from './db.ts';

/**
 * The surfaces of a test of the API's contracts (app.ts `Surface`): the API alone, so that the
 * file loads none of the console's, the public pages' or the docs' modules (issue 56 item 6).
 */
export const API_ONLY: readonly Surface[] = ['api'];

/** The app as `inmo serve` builds it: count and page caches on; every surface unless `surfaces` says. */
export async function appOn(db: Db, surfaces?: readonly Surface[]): Promise<FastifyInstance> {
  return repeatingGets(await buildApp({ db, countCacheSize: 2000, pageCacheMb: 8, surfaces }));
}

/**
 * With `INMO_TEST_FAST_PATH=repeat` (the `fast-path` tier, vitest.config.ts), every GET a test
 * injects is sent twice and the test sees the second answer: a cacheable one is then the fast
 * path's (http/fast-path.ts), so a suite run in that tier checks its rules against both paths.
 */
function repeatingGets(app: FastifyInstance): FastifyInstance {
  if (process.env.INMO_TEST_FAST_PATH !== 'repeat') return app;
  const inject = app.inject.bind(app) as (options: InjectOptions) => Promise<LightMyRequestResponse>;
  const repeated = async (options: InjectOptions) => {
    if ((options.method ?? 'GET').toUpperCase() === 'GET') await inject(options);
    return inject(options);
  };
  (app as { inject: unknown }).inject = repeated;
  return app;
}

/** Status, body (JSON when it parses, else text) and headers of an injected response. */
function outcome(response: LightMyRequestResponse) {
  let body: unknown;
  try {
    body = response.json();
  } catch {
    body = response.body;
  }
  return { status: response.statusCode, body: body as any, headers: response.headers };
}

/** GET with a key; returns status, parsed body and headers. */
export async function get(app: FastifyInstance, url: string, key?: string, headers: Record<string, string> = {}) {
  return outcome(await app.inject({ method: 'GET', url: `/v1/ext${url}`, headers: key ? { 'x-api-key': key, ...headers } : headers }));
}

/** POST a JSON body (or raw text) with a key; returns status, parsed body and headers. */
export async function post(
  app: FastifyInstance,
  url: string,
  key: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return outcome(
    await app.inject({
      method: 'POST',
      url: `/v1/ext${url}`,
      headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}), ...headers },
      payload,
    }),
  );
}

/** What {@link withApp} opened: set before the first test runs. */
export interface TestApp {
  db: Db;
  /** The database's URL (`sqlite:<file>` or `postgres://…?schema=…`), for child processes. */
  url: string;
  app: FastifyInstance;
  /** The business the key belongs to, and the key (every scope unless `scopes` says otherwise). */
  businessId: number;
  key: string;
  keyId: string;
  /** `http://127.0.0.1:PORT/v1/ext` when `listen` was asked for. */
  base: string;
}

/**
 * Opens, for the tests of the file (or `describe`) it is called in, a new database with a
 * business and a key, runs `seed`, and builds the app on it (as `inmo serve` does, with
 * `options.app` on top); closes the app, then the database, after them. With `each`, once per
 * test instead. With `listen`, also serves it on a free port.
 * @returns an object whose fields are set before the first test runs.
 */
export function withApp(
  options: {
    app?: Partial<Omit<AppOptions, 'db'>>;
    business?: string;
    scopes?: Scope[];
    listen?: boolean;
    each?: boolean;
    /** What the app serves: every surface by default; {@link API_ONLY} for a test of the API alone. */
    surfaces?: readonly Surface[];
    seed?: (t: TestApp) => Promise<void>;
  } = {},
): TestApp {
  const t = {} as TestApp;
  (options.each ? beforeEach : beforeAll)(async () => {
    const { db, url } = await freshDb();
    Object.assign(t, { db, url }, await businessWithKey(db, options.business, options.scopes));
    await options.seed?.(t);
    t.app = repeatingGets(await buildApp({ db, countCacheSize: 2000, pageCacheMb: 8, surfaces: options.surfaces, ...options.app }));
    if (options.listen) t.base = `${await t.app.listen({ port: 0, host: '127.0.0.1' })}/v1/ext`;
  });
  (options.each ? afterEach : afterAll)(async () => {
    await t.app?.close();
    await t.db?.destroy();
  });
  return t;
}
