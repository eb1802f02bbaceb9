/**
 * The import thread (services/import-thread.ts), started on this file's bundle
 * (services/thread-bundle.ts): imports the file named by workerData into the database it names,
 * on a connection of its own, reading the file on this thread too
 * (catalogue-import.ts importCatalogueFileHere), and keeps the refs it accepts in import_refs
 * under the run it is given. Posts a `progress` message after each batch, then the `summary`, or
 * the error that ended the import.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createDb, type PoolSettings } from '../db/database.ts';
import { importCatalogueFileHere, type ImportFormat } from './catalogue-import.ts';

const port = parentPort!;
const { url, pool, businessId, path, format, run } = workerData as {
  url: string;
  pool: PoolSettings;
  businessId: number;
  path: string;
  format: ImportFormat;
  run: string;
};
const db = createDb(url, pool);
try {
  const summary = await importCatalogueFileHere(
    db,
    businessId,
    path,
    (lines, bytes, stage) => port.postMessage({ progress: { lines, bytes, stage } }),
    format,
    run,
  );
  port.postMessage({ summary });
} catch (error) {
  const { name, message, code } = error as Error & { code?: string };
  port.postMessage({ error: { name: name ?? 'Error', message: String(message ?? error), code } });
} finally {
  await db.destroy();
}
