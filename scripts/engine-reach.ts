/**
 * Checks the split of vitest.config.ts's `ONCE` (issue 56 item 6): every db file is run on
 * PostgreSQL, each recording the functions of src/ it reached (test/engine-reach-setup.ts); then
 * every storage function (any function of src/db/ but its migrations, and of the src/ files that
 * still write a statement themselves) that some db file reached must be reached by a file that
 * runs on PostgreSQL, not only by the `ONCE` files. Prints what each `ONCE` file alone reached
 * and exits 1 when anything is, or 0 saying how many functions were checked.
 *
 * Usage: `node bin/run-ts.mjs scripts/engine-reach.ts` (about 10 minutes on 2 cores;
 * INMO_TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ONCE } from '../vitest.config.ts';

const root = join(import.meta.dirname, '..');
const folder = mkdtempSync(join(tmpdir(), 'inmo-engine-reach-'));
try {
  const run = spawnSync(join(root, 'node_modules', '.bin', 'vitest'), ['run', '--project', 'db-postgres', '--reporter=dot'], {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      INMO_TEST_POSTGRES_URL: process.env.INMO_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test',
      INMO_TEST_REACH: folder,
    },
  });
  if (run.status !== 0) throw new Error(`the db-postgres run failed (exit ${run.status}): its reach would be incomplete`);

  /** Files outside src/db/ that still hold a statement of their own. */
  const statement = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto)\(|\bsql`|\bsql</;
  const storageFile = (path: string) =>
    !path.startsWith('src/db/migrations/') && (path.startsWith('src/db/') || statement.test(readFileSync(join(root, path), 'utf8')));
  /** The SQLite driver's own wrapper (db/database.ts), which a file may reach on PostgreSQL by opening a SQLite file too; no PostgreSQL run can reach it. */
  const sqliteOnly = new Set(['src/db/database.ts close', 'src/db/database.ts prepare', 'src/db/database.ts withStatementCache']);
  const storage = new Map<string, boolean>();
  const isStorage = (path: string) => storage.get(path) ?? storage.set(path, storageFile(path)).get(path)!;

  const once = new Set(ONCE);
  const reachedOnPostgres = new Set<string>();
  const reachedByOnce = new Map<string, Set<string>>();
  for (const name of readdirSync(folder)) {
    const { file, reached } = JSON.parse(readFileSync(join(folder, name), 'utf8')) as { file: string; reached: Record<string, string[]> };
    const functions = Object.entries(reached)
      .flatMap(([path, names]) => (isStorage(path) ? names.map((n) => `${path} ${n}`) : []))
      .filter((f) => !sqliteOnly.has(f));
    if (once.has(file)) reachedByOnce.set(file, new Set(functions));
    else for (const f of functions) reachedOnPostgres.add(f);
  }
  let missing = 0;
  for (const [file, functions] of reachedByOnce) {
    const alone = [...functions].filter((f) => !reachedOnPostgres.has(f)).sort();
    if (alone.length === 0) continue;
    missing += alone.length;
    process.stdout.write(`${file} alone reaches on PostgreSQL:\n${alone.map((f) => `  ${f}\n`).join('')}`);
  }
  if (missing > 0) {
    process.stdout.write(
      `[inmo] ${missing} storage functions are reached only by ONCE files: run their file on both engines, or test them where it runs\n`,
    );
    process.exitCode = 1;
  } else {
    process.stdout.write(
      `[inmo] every storage function the db files reach (${reachedOnPostgres.size}) is reached on PostgreSQL outside the ${once.size} ONCE files\n`,
    );
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
