import { defineConfig } from 'vitest/config';

/**
 * Every test file runs once per engine: on SQLite always, and on PostgreSQL when
 * INMO_TEST_POSTGRES_URL names a server (`.ci/run` sets it; see DEVELOPERS.md). Each test
 * database is a fresh SQLite file or a fresh PostgreSQL schema, so files run in parallel.
 */
const engines = ['sqlite', ...(process.env.INMO_TEST_POSTGRES_URL ? ['postgres'] : [])];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    projects: engines.map((engine) => ({
      test: {
        name: engine,
        include: ['test/**/*.test.ts'],
        env: { INMO_TEST_ENGINE: engine },
        pool: 'forks' as const,
        testTimeout: 30_000,
        hookTimeout: 120_000,
      },
    })),
  },
});
