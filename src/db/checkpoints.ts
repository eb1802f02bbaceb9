/**
 * WAL checkpoints off the request path on SQLite (issue 32 "Writes without stalls").
 *
 * SQLite's own rule (`wal_autocheckpoint`, 1,000 pages) makes the commit that crosses it copy
 * the WAL back into the database file, inside that commit: under `inmo serve` the event loop
 * waits for it, and so does every request behind it (commits with a checkpoint ran up to
 * 12.7 ms in a profile of lead writes). Here a thread with a connection of its own checkpoints
 * every {@link CHECKPOINT_INTERVAL_MS}, without blocking writers or readers (PASSIVE), and the
 * serving connection only past {@link BACKSTOP_PAGES}: SQLite writes the WAL again from its
 * start when a write begins on a WAL copied back whole, which the thread's checkpoint may miss
 * under writes without a pause, and the backstop bounds it then. If the thread stops (it does
 * after {@link MAX_FAILURES} failed checkpoints in a row), the serving connection checkpoints
 * at SQLite's 1,000 pages again, and `onStopped` is told.
 *
 * Measured with `npm run bench -- --only leads` (server and thread pinned to one core): SQLite
 * inquiries' p99 41–50 ms before, 31–32 with the thread and no backstop, 25–38 with the backstop
 * (logs off / on; the runs vary by as much); their rate 0.72–0.81× the bare insert throughout.
 * Under those 5 s of writes without a pause the WAL reached the backstop (41 MB): the thread
 * copies the pages, the serving connection's checkpoint there copies what is left and lets the
 * WAL start again.
 */
import { Worker } from 'node:worker_threads';
import { connectionOf, type Db } from './database.ts';
import { inPackage } from '../package-root.ts';
import { threadBundle } from '../thread-bundle.ts';

/** How often the thread checkpoints, ms. */
export const CHECKPOINT_INTERVAL_MS = 100;
/** SQLite's default `wal_autocheckpoint`, pages: restored when the thread stops. */
const AUTOCHECKPOINT_PAGES = 1000;
/** The serving connection's `wal_autocheckpoint` while the thread runs, pages (40 MiB of 4 KiB pages). */
export const BACKSTOP_PAGES = 10_000;
/** Failed checkpoints in a row after which the thread stops (checkpoint-thread-main.ts). */
export const MAX_FAILURES = 10;

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
export async function checkpointOffThread(
  db: Db,
  options: { intervalMs?: number; onStopped?: (reason: string) => void } = {},
): Promise<Checkpoints | null> {
  const { intervalMs = CHECKPOINT_INTERVAL_MS, onStopped } = options;
  const connection = connectionOf(db);
  if (connection.engine !== 'sqlite' || connection.sqlite.memory) return null;
  const sqlite = connection.sqlite;
  const worker = new Worker(await threadBundle(inPackage('src', 'db', 'checkpoint-thread-main.ts')), {
    workerData: { path: sqlite.name, intervalMs, maxFailures: MAX_FAILURES },
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
  });
  let stopping = false;
  let failure = '';
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // Whatever ends the thread, the serving connection checkpoints in its commits again.
  void exited.then(() => {
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    if (!stopping) onStopped?.(failure || 'the checkpoint thread exited');
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the checkpoint thread exited (code ${code}) before it was ready`)));
  });
  // A failure after that ends the thread, and the handler above gives checkpoints back.
  worker.on('error', (error) => (failure = error.message));
  worker.on('message', (message: unknown) => {
    if (typeof message === 'object' && message !== null && 'failed' in message) failure = String(message.failed);
  });
  sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  return {
    async stop() {
      stopping = true;
      worker.postMessage('stop');
      await exited;
    },
  };
}
