/**
 * The reader thread of a catalogue import (services/catalogue/import/reader-thread.ts), started on this file's
 * bundle (thread-bundle.ts): reads and checks the file named by workerData with
 * services/catalogue/import/read.ts and posts its batches in order, never more than it has been asked for
 * (2 at first, one more for each message received), then `done` or the error that ended the reading.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readCatalogueFile, type ImportFormat } from './read.ts';

const port = parentPort!;
const { path, format, now } = workerData as { path: string; format: ImportFormat; now: string };
let credit = 2;
let wake: (() => void) | null = null;
port.on('message', () => {
  credit++;
  wake?.();
});
try {
  for await (const batch of readCatalogueFile(path, format, now)) {
    while (credit === 0) await new Promise<void>((resolve) => (wake = resolve));
    credit--;
    port.postMessage({ batch });
  }
  port.postMessage({ done: true });
} catch (error) {
  const { name, message, code } = error as Error & { code?: string };
  port.postMessage({ error: { name: name ?? 'Error', message: String(message ?? error), code } });
}
