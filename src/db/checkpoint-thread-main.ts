/**
 * The checkpoint thread (db/checkpoints.ts), started on this file's bundle
 * (thread-bundle.ts): on a connection of its own to the SQLite file it is given, copies
 * the WAL's committed pages back into the database (`wal_checkpoint(PASSIVE)`: it waits for
 * no one and no one waits for it) every `intervalMs`, and once more when told `stop`, then
 * closes. Posts `ready` once its connection is open; after `maxFailures` failed checkpoints in
 * a row, posts `{failed: message}` and ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from './sqlite-binding.ts';

const port = parentPort!;
const { path, intervalMs, maxFailures } = workerData as { path: string; intervalMs: number; maxFailures: number };
const sqlite = new SQLite(path, { fileMustExist: true });
let failures = 0;
const end = () => {
  clearInterval(timer);
  sqlite.close();
  port.close();
};
const checkpoint = () => {
  try {
    sqlite.pragma('wal_checkpoint(PASSIVE)');
    failures = 0;
  } catch (error) {
    // Interrupted or failing (I/O): the next tick copies what this one did not, unless it keeps failing.
    if (++failures < maxFailures) return;
    port.postMessage({ failed: `checkpoints failed ${failures} times in a row: ${(error as Error).message}` });
    end();
  }
};
const timer = setInterval(checkpoint, intervalMs);
port.on('message', (message) => {
  if (message !== 'stop') return;
  checkpoint();
  if (sqlite.open) end();
});
port.postMessage('ready');
