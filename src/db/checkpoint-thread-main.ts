/**
 * The checkpoint thread (db/checkpoints.ts), started on this file's bundle
 * (services/thread-bundle.ts): on a connection of its own to the SQLite file it is given, copies
 * the WAL's committed pages back into the database (`wal_checkpoint(PASSIVE)`: it waits for
 * no one and no one waits for it) every `intervalMs`, and once more when told `stop`, then
 * closes. Posts `ready` once its connection is open.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from './sqlite-binding.ts';

const port = parentPort!;
const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const sqlite = new SQLite(path, { fileMustExist: true });
const checkpoint = () => {
  try {
    sqlite.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or interrupted: the next tick copies what this one did not.
  }
};
const timer = setInterval(checkpoint, intervalMs);
port.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  sqlite.close();
  port.close();
});
port.postMessage('ready');
