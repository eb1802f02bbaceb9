/**
 * A child process of test/unit/sqlite-binding.test.ts (run with `--expose-gc`): opens a SQLite
 * database as inmo does, runs more distinct statements than its statement cache keeps, so that
 * evicted statements are collected, forces collections, closes, and prints the binding it used.
 * An unsound binding ends this process with SIGABRT (src/db/sqlite-binding.ts).
 */
import { sql } from 'kysely';
import { createDb } from '../../src/db/database.ts';
import { SQLITE_PACKAGE } from '../../src/db/sqlite-binding.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const db = createDb('sqlite::memory:');
for (let round = 0; round < 4; round++) {
  for (let i = 0; i < 2000; i++) await sql`select ${sql.raw(String(round * 2000 + i))} as n`.execute(db);
  gc();
  await new Promise((resolve) => setImmediate(resolve));
}
await db.destroy();
gc();
process.stdout.write(`${JSON.stringify({ binding: SQLITE_PACKAGE, node: process.versions.node })}\n`);
