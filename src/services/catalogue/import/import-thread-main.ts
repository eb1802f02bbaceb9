/**
 * The import thread (services/catalogue/import/import-thread.ts), started on this file's bundle
 * (thread-bundle.ts): for a pull, first GETs the document into the file (posting
 * `fetched`, and stopping there unless it came); then imports the file into the database it names,
 * on a connection of its own, reading the file on this thread too
 * (catalogue-import.ts importCatalogueFileHere), and keeps the refs it accepts in import_refs
 * under the run it is given. Posts a `progress` message after each batch, then the `summary`, or
 * the error that ended the import.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createDb } from '../../../db/database.ts';
import { importCatalogueFileHere, sniffFormat } from './import.ts';
import { fetchFeedDocument } from '../feeds/pull-download.ts';
import type { ImportThreadData } from './import-thread.ts';

const port = parentPort!;
const { url, pool, businessId, path, format, run, request } = workerData as ImportThreadData;
const db = createDb(url, pool);
try {
  const fetched = request ? await fetchFeedDocument(request, path) : null;
  if (fetched) port.postMessage({ fetched });
  if (!fetched || fetched.status === 'fetched') {
    const summary = await importCatalogueFileHere(
      db,
      businessId,
      path,
      (lines, bytes, stage) => port.postMessage({ progress: { lines, bytes, stage } }),
      await sniffFormat(path, format),
      run,
    );
    port.postMessage({ summary });
  }
} catch (error) {
  const { name, message, code } = error as Error & { code?: string };
  port.postMessage({ error: { name: name ?? 'Error', message: String(message ?? error), code } });
} finally {
  await db.destroy();
}
