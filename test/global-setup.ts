/**
 * Says once, plainly, which database engines the suite runs on; on PostgreSQL, names this
 * run's test schemas (`inmo_test_<run>_…`) and drops them at the end.
 */
import pg from 'pg';

export default async function setup(): Promise<(() => Promise<void>) | void> {
  const url = process.env.INMO_TEST_POSTGRES_URL;
  if (!url) {
    process.stdout.write('\n[inmo] database engines under test: SQLite. PostgreSQL: skipped (INMO_TEST_POSTGRES_URL is not set).\n\n');
    return;
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
