// The import thread (services/import-thread.ts): imports the file named by workerData into the
// database it names, on a connection of its own, reading the file on this thread too
// (services/catalogue-import.ts importCatalogueFileHere), and keeps the refs it accepts in
// import_refs under the run it is given. Posts a `progress` message after each batch, then the
// `summary`, or the error that ended the import. The sources are TypeScript run through tsx,
// registered here as bin/inmo.mjs does for the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { createDb } = await import('../db/database.ts');
const { importCatalogueFileHere } = await import('./catalogue-import.ts');
const { url, pool, businessId, path, format, run } = workerData;
const db = createDb(url, pool);
try {
  const summary = await importCatalogueFileHere(
    db,
    businessId,
    path,
    (lines, bytes, stage) => parentPort.postMessage({ progress: { lines, bytes, stage } }),
    format,
    run,
  );
  parentPort.postMessage({ summary });
} catch (error) {
  parentPort.postMessage({ error: { name: error?.name ?? 'Error', message: String(error?.message ?? error), code: error?.code } });
} finally {
  await db.destroy();
}
