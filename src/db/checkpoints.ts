/**
 * WAL checkpoints off the request path on SQLite (issue 32 "Writes without stalls").
 *
 * SQLite's own rule (`wal_autocheckpoint`, 1,000 pages) makes the commit that crosses it copy
 * the WAL back into the database file, inside that commit: under `inmo serve` the event loop
 * waits for it, and so does every request behind it (commits with a checkpoint ran up to
 * 12.7 ms in a profile of lead writes). Here the serving connection does not checkpoint; a
 * thread with a connection of its own does, every {@link CHECKPOINT_INTERVAL_MS}, without
 * blocking writers or readers (PASSIVE). The WAL is written again from its start once a
 * checkpoint has copied all of it, as before; if the thread stops, the serving connection
 * checkpoints in its commits again.
 *
 * Measured with `npm run bench -- --only leads` (server and thread pinned to one core): SQLite
 * inquiries' p99 41–43 → 31–32 ms, 0.72–0.77× → 0.77–0.81× the bare insert (with no
 * checkpoints at all: 0.82–0.85×, p99 33–37 ms).
 */
import { Worker } from 'node:worker_threads';
import { connectionOf, type Db } from './database.ts';
import { inPackage } from '../package-root.ts';
import { threadBundle } from '../services/thread-bundle.ts';

/** How often the thread checkpoints, ms. */
export const CHECKPOINT_INTERVAL_MS = 100;
/** SQLite's default `wal_autocheckpoint`, pages: restored when the thread stops. */
const AUTOCHECKPOINT_PAGES = 1000;

/** A running checkpoint thread. */
export interface Checkpoints {
  /** Checkpoints once more, stops the thread and gives checkpoints back to the serving connection. */
  stop(): Promise<void>;
}

/**
 * Moves the checkpoints of `db`'s connection to a thread (see the module's comment).
 * @returns the thread's handle, or null where there is nothing to move (PostgreSQL, an
 *   in-memory database).
 * @throws Error when the thread cannot start (its bundle does not build, the file cannot be opened).
 */
export async function checkpointOffThread(db: Db, intervalMs = CHECKPOINT_INTERVAL_MS): Promise<Checkpoints | null> {
  const connection = connectionOf(db);
  if (connection.engine !== 'sqlite' || connection.sqlite.memory) return null;
  const sqlite = connection.sqlite;
  const worker = new Worker(await threadBundle(inPackage('src', 'db', 'checkpoint-thread-main.ts')), {
    workerData: { path: sqlite.name, intervalMs },
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // Whatever ends the thread, the serving connection checkpoints in its commits again.
  void exited.then(() => {
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the checkpoint thread exited (code ${code}) before it was ready`)));
  });
  // A failure after that ends the thread, and the handler above gives checkpoints back.
  worker.on('error', () => {});
  sqlite.pragma('wal_autocheckpoint = 0');
  return {
    async stop() {
      worker.postMessage('stop');
      await exited;
    },
  };
}
