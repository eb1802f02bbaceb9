import { defineConfig } from 'vitest/config';

/**
 * The suite in three tiers (DEVELOPERS.md):
 *
 * - `unit`: test/unit/, no database: runs once.
 * - `db-sqlite`, `db-postgres`: test/db/, once per engine: always on SQLite, and on PostgreSQL
 *   when INMO_TEST_POSTGRES_URL names a server (`.ci/run` sets it).
 * - `browser`: test/browser/ in Chromium, on SQLite; `browser-postgres` runs the console's
 *   journey once more on PostgreSQL.
 * - `fast-path`, `fast-path-postgres`: the security, fuzz, publishable-key and conditional suites
 *   again, with every GET sent twice, so that their rules are checked on the fast path of cached
 *   reads (http/fast-path.ts) as well as on the full one.
 *
 * Each test database is a copy of the run's migrated template (a SQLite file or a PostgreSQL
 * database, test/global-setup.ts), so files run in parallel: INMO_TEST_WORKERS processes at
 * once (default 3, the fastest measured on a 2-core machine: most of a file's time is spent
 * waiting on PostgreSQL, child processes or Chromium).
 */
const postgres = Boolean(process.env.INMO_TEST_POSTGRES_URL);
const workers = Number(process.env.INMO_TEST_WORKERS) || 3;
/** Suites run again with every GET repeated, so that cacheable answers come from the fast path (test/helpers/http.ts). */
const FAST_PATH_SUITES = [
  'test/db/security.test.ts',
  'test/db/fuzz.test.ts',
  'test/db/publishable-keys.test.ts',
  'test/db/conditional.test.ts',
];

const tier = (name: string, include: string[], engine?: 'sqlite' | 'postgres', env: Record<string, string> = {}) => ({
  test: {
    name,
    include,
    ...(engine ? { env: { INMO_TEST_ENGINE: engine, ...env } } : {}),
    pool: 'forks' as const,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // expect.poll's deadline (vitest's default is 1 s): a condition waited for is given as long as
    // a loaded machine may need. A test that needs longer than its own 30 s says so.
    expect: { poll: { timeout: 30_000 } },
  },
});

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    maxWorkers: workers,
    minWorkers: 1,
    projects: [
      tier('unit', ['test/unit/**/*.test.ts']),
      tier('db-sqlite', ['test/db/**/*.test.ts'], 'sqlite'),
      ...(postgres ? [tier('db-postgres', ['test/db/**/*.test.ts'], 'postgres')] : []),
      // The security and fuzz suites once more, every GET sent twice: their rules hold on the fast path too.
      tier('fast-path', FAST_PATH_SUITES, 'sqlite', { INMO_TEST_FAST_PATH: 'repeat' }),
      ...(postgres ? [tier('fast-path-postgres', FAST_PATH_SUITES, 'postgres', { INMO_TEST_FAST_PATH: 'repeat' })] : []),
      tier('browser', ['test/browser/**/*.test.ts'], 'sqlite'),
      ...(postgres ? [tier('browser-postgres', ['test/browser/console.browser.test.ts'], 'postgres')] : []),
    ],
  },
});
