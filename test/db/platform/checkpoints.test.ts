/**
 * WAL checkpoints off the request path on SQLite (db/checkpoints.ts): the serving connection
 * no longer checkpoints in its commits, the thread does, and the WAL stays bounded; stopped,
 * the connection checkpoints again.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { endianness } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { BACKSTOP_PAGES, checkpointOffThread, type Checkpoints } from '../../../src/db/checkpoints.ts';
import { connectionOf, type Db } from '../../../src/db/database.ts';
import { ENGINE, freshDb } from '../../helpers/db.ts';

/** Commits `n` transactions of about 40 KiB each (10 pages of 4 KiB). */
async function write(db: Db, n: number): Promise<void> {
  const sqlite = sqliteOf(db);
  sqlite.exec('create table if not exists filler (id integer primary key, body blob)');
  const insert = sqlite.prepare('insert into filler (body) values (randomblob(40000))');
  for (let i = 0; i < n; i++) insert.run();
}

const walBytes = (path: string) => statSync(`${path}-wal`).size;

/**
 * Whether every frame committed to the WAL has been copied back into the database, as the
 * wal-index shared by every connection tells (the `-shm` file, https://www.sqlite.org/walformat.html,
 * in native byte order): `mxFrame`, the last frame committed, at byte 16 of its header;
 * `nBackfill`, the frames a checkpoint has copied back, at byte 96.
 */
function copiedBack(path: string): boolean {
  const header = Buffer.alloc(136);
  const fd = openSync(`${path}-shm`, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  const u32 = (offset: number) => (endianness() === 'LE' ? header.readUInt32LE(offset) : header.readUInt32BE(offset));
  return u32(96) === u32(16);
}
/** The SQLite connection of a handle (these tests run on SQLite only). */
function sqliteOf(db: Db) {
  const connection = connectionOf(db);
  if (connection.engine !== 'sqlite') throw new Error('an SQLite handle was expected');
  return connection.sqlite;
}
const opened: Db[] = [];
const threads: Checkpoints[] = [];
afterEach(async () => {
  for (const thread of threads.splice(0)) await thread.stop();
  for (const db of opened.splice(0)) await db.destroy();
});

describe.runIf(ENGINE === 'sqlite')('checkpoints off the request path', () => {
  it('leaves the WAL to the thread, which keeps it bounded; stopped, the connection checkpoints in its commits again', async () => {
    const { db, path } = await freshDb();
    opened.push(db);
    const sqlite = sqliteOf(db);
    const checkpoints = await checkpointOffThread(db, { intervalMs: 20 });
    expect(checkpoints).not.toBeNull();
    threads.push(checkpoints!);
    // The serving connection checkpoints only past the backstop, far beyond what is written here.
    expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_PAGES);
    expect(BACKSTOP_PAGES * 4096).toBeGreaterThan(24e6);
    // 600 commits of 10 pages: 24 MB through the WAL. Without checkpoints it would hold all of
    // it; with the thread's, the next commit finds it copied back and starts it again. After each
    // round the thread's checkpoint is waited for (this connection's own is far off, past the
    // backstop), however long a loaded machine keeps the thread from it.
    for (let round = 0; round < 30; round++) {
      await write(db, 20);
      await expect.poll(() => copiedBack(path!), { interval: 10 }).toBe(true);
    }
    expect(walBytes(path!)).toBeLessThan(8 * 1024 * 1024);
    await checkpoints!.stop();
    expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await sql`select 1`.execute(db);
  }, 120_000);

  it('without the thread, the same writes with checkpoints off grow the WAL past that bound (the test above can fail)', async () => {
    const { db, path } = await freshDb();
    opened.push(db);
    sqliteOf(db).pragma('wal_autocheckpoint = 0');
    for (let round = 0; round < 30; round++) await write(db, 20);
    expect(walBytes(path!)).toBeGreaterThan(8 * 1024 * 1024);
  });

  it('moves nothing for an in-memory database', async () => {
    const { createDb } = await import('../../../src/db/database.ts');
    const db = createDb('sqlite::memory:');
    opened.push(db);
    expect(await checkpointOffThread(db)).toBeNull();
  });
});
