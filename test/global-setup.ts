/**
 * Says once, plainly, which database engines the suite runs on; on PostgreSQL, names this
 * run's test schemas (`inmo_test_<run>_…`) and drops them at the end.
 *
 * Tests leave no trace outside the repository: `HOME` and `XDG_CONFIG_HOME` of every test
 * process, and of every process they spawn, point at a temporary folder of this run (removed
 * at the end), so nothing the code under test writes by default (the secret key file,
 * `~/.config/inmo/secret.key`) lands in the user's home. test/no-trace.test.ts checks it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export default async function setup(): Promise<() => Promise<void>> {
  const home = mkdtempSync(join(tmpdir(), 'inmo-test-home-'));
  process.env.INMO_TEST_REAL_HOME = homedir();
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, '.config');
  delete process.env.INMO_SECRET_KEY_FILE;
  delete process.env.INMO_SECRET_KEY;
  // The fake providers listen on loopback, which outgoing calls refuse by default
  // (src/channels/outbound.ts; test/outbound.test.ts turns it off again).
  process.env.INMO_ALLOW_PRIVATE_NETWORK = '1';
  const removeHome = async () => rmSync(home, { recursive: true, force: true });

  const url = process.env.INMO_TEST_POSTGRES_URL;
  if (!url) {
    process.stdout.write('\n[inmo] database engines under test: SQLite. PostgreSQL: skipped (INMO_TEST_POSTGRES_URL is not set).\n\n');
    return removeHome;
  }
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>('show server_version');
    process.stdout.write(
      `\n[inmo] database engines under test: SQLite and PostgreSQL ${rows[0].server_version} (${url.replace(/\/\/[^@]*@/, '//')}).\n\n`,
    );
  } finally {
    await client.end();
  }
  const run = `${Date.now().toString(36)}${process.pid.toString(36)}`;
  process.env.INMO_TEST_RUN = run;
  return async () => {
    await removeHome();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ nspname: string }>('select nspname from pg_namespace where nspname like $1', [
        `inmo_test_${run}_%`,
      ]);
      for (const { nspname } of rows) await admin.query(`drop schema "${nspname}" cascade`);
    } finally {
      await admin.end();
    }
  };
}
