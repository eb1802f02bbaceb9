// The reader thread of a catalogue import (services/import-reader.ts): reads and checks the file
// named by workerData with services/import-read.ts and posts its batches in order, never more
// than it has been asked for (2 at first, one more for each message received), then `done` or
// the error that ended the reading. The sources are TypeScript run through tsx, registered here
// as bin/inmo.mjs does for the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { readCatalogueFile } = await import('./import-read.ts');
let credit = 2;
let wake = null;
parentPort.on('message', () => {
  credit++;
  wake?.();
});
try {
  for await (const batch of readCatalogueFile(workerData.path, workerData.format, workerData.now)) {
    while (credit === 0) await new Promise((resolve) => (wake = resolve));
    credit--;
    parentPort.postMessage({ batch });
  }
  parentPort.postMessage({ done: true });
} catch (error) {
  parentPort.postMessage({ error: { name: error?.name ?? 'Error', message: String(error?.message ?? error), code: error?.code } });
}
