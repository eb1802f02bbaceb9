/**
 * Runs once before the suite: says plainly which database engines it runs on, migrates the
 * run's template databases, and removes everything it made at the end.
 *
 * - **Templates.** Every test database is a copy of one migrated at the start (a SQLite file,
 *   `INMO_TEST_SQLITE_TEMPLATE`; a PostgreSQL database, `INMO_TEST_POSTGRES_TEMPLATE`), so a
 *   test pays for a file copy or a `create database … template`, not for 13 migrations
 *   (test/helpers/db.ts). On PostgreSQL each test database is `inmo_test_<run>_…`, dropped at
 *   the end.
 * - **Compiled.** The CLI's child processes start from dist/main.mjs, compiled here from the
 *   sources under test (scripts/build.mjs).
 * - **No trace.** `HOME` and `XDG_CONFIG_HOME` of every test process, and of every process they
 *   spawn, point at a temporary folder of this run (removed at the end), so nothing the code
 *   under test writes by default (the secret key file, `~/.config/inmo/secret.key`) lands in
 *   the user's home. test/db/platform/no-trace.test.ts checks it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { build } from '../scripts/build.mjs';
import { createDb, migrate } from '../src/db/database.ts';
import { postgresUrlOf } from './helpers/db.ts';

export default async function setup(): Promise<() => Promise<void>> {
  const home = mkdtempSync(join(tmpdir(), 'inmo-test-home-'));
  process.env.INMO_TEST_REAL_HOME = homedir();
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, '.config');
  delete process.env.INMO_SECRET_KEY_FILE;
  delete process.env.INMO_SECRET_KEY;
  // The fake providers listen on loopback, which outgoing calls refuse by default
  // (src/channels/outbound.ts; test/unit/outbound.test.ts turns it off again).
  process.env.INMO_ALLOW_PRIVATE_NETWORK = '1';

  // Child processes of the CLI start from this very source tree, compiled (test/helpers/processes.ts).
  process.env.INMO_TEST_BUNDLE = await build();

  const sqliteTemplate = join(home, 'template.db');
  await migrated(`sqlite:${sqliteTemplate}`);
  process.env.INMO_TEST_SQLITE_TEMPLATE = sqliteTemplate;
  const removeHome = async () => rmSync(home, { recursive: true, force: true });

  const url = process.env.INMO_TEST_POSTGRES_URL;
  if (!url) {
    process.stdout.write('\n[inmo] database engines under test: SQLite. PostgreSQL: skipped (INMO_TEST_POSTGRES_URL is not set).\n\n');
    return removeHome;
  }
  const run = `${Date.now().toString(36)}${process.pid.toString(36)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const { rows } = await admin.query<{ server_version: string }>('show server_version');
  process.stdout.write(
    `\n[inmo] database engines under test: SQLite and PostgreSQL ${rows[0].server_version} (${url.replace(/\/\/[^@]*@/, '//')}).\n\n`,
  );
  const template = `inmo_test_${run}_template`;
  await admin.query(`create database "${template}"`);
  await migrated(postgresUrlOf(url, template));
  process.env.INMO_TEST_RUN = run;
  process.env.INMO_TEST_POSTGRES_TEMPLATE = template;
  return async () => {
    await removeHome();
    try {
      const { rows: databases } = await admin.query<{ datname: string }>('select datname from pg_database where datname like $1', [
        `inmo_test_${run}_%`,
      ]);
      for (const { datname } of databases) await admin.query(`drop database "${datname}" with (force)`);
    } finally {
      await admin.end();
    }
  };
}

/** Migrates the database at `url` and closes it (a template takes no connection while copied). */
async function migrated(url: string): Promise<void> {
  const db = createDb(url);
  try {
    await migrate(db);
  } finally {
    await db.destroy();
  }
}
