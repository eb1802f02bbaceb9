/** Group commit (db/group-commit.ts): units share a commit but keep their own outcome. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../../src/db/group-commit.ts';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { SQLITE_PACKAGE } from '../../../src/db/sqlite-binding.ts';
import { ENGINE, freshDb, REPO_ROOT } from '../../helpers/db.ts';

/**
 * Another process that commits a small write every millisecond or two on the SQLite file at
 * `path` until killed: it prints `ready` once writing.
 */
function busyWriter(path: string) {
  const code = `
    const Database = require(${JSON.stringify(SQLITE_PACKAGE)});
    const db = new Database(${JSON.stringify(path)});
    db.pragma('busy_timeout = 10000');
    db.exec('create table if not exists busy_writes (n integer)');
    const write = db.prepare('insert into busy_writes (n) values (1)');
    const pause = new Int32Array(new SharedArrayBuffer(4));
    let told = false;
    for (;;) {
      db.transaction(() => { write.run(); Atomics.wait(pause, 0, 0, 1); })();
      if (!told) { process.stdout.write('ready\\n'); told = true; }
      Atomics.wait(pause, 0, 0, 1);
    }`;
  return spawn(process.execPath, ['-e', code], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
}

describe('GroupCommit', () => {
  // SQLite batches units in one transaction; PostgreSQL runs each in its own, concurrently (twin below).
  it.skipIf(ENGINE !== 'sqlite')(
    'SQLite: runs units in arrival order, each seeing the ones before; a failing unit leaves no trace and fails alone',
    async () => {
      const { db } = await freshDb();
      const writes = new GroupCommit(db);
      const seen: number[] = [];
      const results = await Promise.allSettled([
        writes.run(async (trx) => (await insertBusiness(trx, 'uno', 'x')).id),
        writes.run(async (trx) => {
          await insertBusiness(trx, 'fallido', 'x');
          throw new Error('rolled back');
        }),
        writes.run(async (trx) => {
          const rows = await trx.selectFrom('businesses').select('name').orderBy('id').execute();
          seen.push(rows.length);
          return (await insertBusiness(trx, 'dos', 'x')).id;
        }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(seen).toEqual([1]);
      const names = (await db.selectFrom('businesses').select('name').orderBy('id').execute()).map((r) => r.name);
      expect(names).toEqual(['uno', 'dos']);
      await db.destroy();
    },
  );

  it.skipIf(ENGINE !== 'sqlite')(
    'SQLite: a batch that reads before it writes commits while another process writes all the time',
    async () => {
      // Under load a batch of 64 ingests and inquiries read, then wrote, and found its snapshot
      // stale on every try (SQLITE_BUSY_SNAPSHOT cannot be waited out): 64 requests failed at once.
      // The batch now takes the write lock before it reads, waiting for it as long as busy_timeout.
      const { db, path } = await freshDb();
      await insertBusiness(db, 'primera', 'x');
      const writer = busyWriter(path!);
      try {
        await once(writer.stdout!, 'data');
        const writes = new GroupCommit(db);
        const ids = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            writes.run(async (trx) => {
              const count = (await trx.selectFrom('businesses').select('id').execute()).length;
              // A read that takes a while, as a loaded machine makes every read: other commits land meanwhile.
              await new Promise((resolve) => setTimeout(resolve, 5));
              return (await insertBusiness(trx, `b${i}-${count}`, 'x')).id;
            }),
          ),
        );
        expect(new Set(ids).size).toBe(40);
      } finally {
        writer.kill('SIGKILL');
        await db.destroy();
      }
    },
    60_000,
  );

  it.skipIf(ENGINE !== 'postgres')(
    'PostgreSQL: runs each unit in its own transaction; a failing unit leaves no trace and fails alone',
    async () => {
      const { db } = await freshDb();
      const writes = new GroupCommit(db);
      const results = await Promise.allSettled([
        writes.run(async (trx) => (await insertBusiness(trx, 'uno', 'x')).id),
        writes.run(async (trx) => {
          await insertBusiness(trx, 'fallido', 'x');
          throw new Error('rolled back');
        }),
        writes.run(async (trx) => (await insertBusiness(trx, 'dos', 'x')).id),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const names = (await db.selectFrom('businesses').select('name').execute()).map((r) => r.name).sort();
      expect(names).toEqual(['dos', 'uno']);
      await db.destroy();
    },
  );

  it('answers only after the commit: every resolved unit is readable at once', async () => {
    const { db } = await freshDb();
    const writes = new GroupCommit(db);
    const ids = await Promise.all(
      Array.from({ length: 100 }, (_, i) => writes.run(async (trx) => (await insertBusiness(trx, `b${i}`, 'x')).id)),
    );
    const stored = await db.selectFrom('businesses').select('id').execute();
    expect(stored.map((r) => r.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    await db.destroy();
  });
});

describe('GroupCommit under another writer', () => {
  // SQLite has one writer at a time; PostgreSQL writers of different rows do not wait on one another.
  it.skipIf(ENGINE !== 'sqlite')('SQLite: waits out another process’s write transaction and then commits every unit', async () => {
    const { db, path } = await freshDb();
    const { default: SQLite } = await import('../../../src/db/sqlite-binding.ts');
    const other = new SQLite(path!);
    other.exec('begin immediate');
    other.prepare("insert into businesses (name, created_at) values ('otro proceso', 'x')").run();
    const writes = new GroupCommit(db);
    const pending = Promise.all([1, 2, 3].map((i) => writes.run(async (trx) => (await insertBusiness(trx, `b${i}`, 'x')).id)));
    setTimeout(() => other.exec('commit'), 300);
    const ids = await pending;
    expect(ids).toHaveLength(3);
    const names = (await db.selectFrom('businesses').select('name').orderBy('id').execute()).map((r) => r.name);
    expect(names).toEqual(['otro proceso', 'b1', 'b2', 'b3']);
    other.close();
    await db.destroy();
  });
});
