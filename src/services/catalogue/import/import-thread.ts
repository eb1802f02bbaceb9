/**
 * Imports run by the server (a feed pull, a console upload) on a thread of their own (issue 28
 * "Speed": server RSS growth under 100 MB for a 200 MB feed). Written on the server's main
 * isolate, an import's garbage made V8 grow that heap to 150–200 MiB for 20–40 MiB of live
 * objects, and it kept the memory afterwards. The import thread reads and writes the file with
 * a capped heap and a connection of its own, and gives all its memory back when it ends; the
 * server's requests meanwhile read from their own connection (WAL on SQLite). Its catalogue
 * changes reach this process's caches after each batch, as its own writes would. A thread that
 * runs out of its heap ends the import with an error, never the server.
 */
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { signalChange } from '../../../db/change-watch.ts';
import { reopenable, type Db } from '../../../db/database.ts';
import type { PoolSettings } from '../../../db/pool-settings.ts';
import { dropImportRefs } from '../../../db/repositories/properties.ts';
import { findBusiness } from '../../../db/repositories/businesses.ts';
import { InmoError } from '../../../errors.ts';
import { inPackage } from '../../../package-root.ts';
import { threadBundle } from '../../../thread-bundle.ts';
import { importCatalogueFile, type ImportFormat, type ImportProgress, type ImportSummary } from './import.ts';
import { fetchFeedDocument, type FeedRequest, type FetchOutcome } from '../feeds/pull-download.ts';
import { messagesOf, READER_THREAD_MIN_BYTES, rebuiltError, type PostedError } from './reader-thread.ts';

/**
 * The import thread's heap, MiB. Nothing it holds grows with the file (its refs are kept in
 * import_refs, a Kyero text is cut at its limit), so a cap is safe, and without one V8 let the
 * heap grow to 150 MiB for a few MiB of live objects. Measured on a 200 MB feed (318k listings)
 * on one core: uncapped, with a reader thread, 227 MiB of growth in 53 s; read on the import
 * thread, 153 MiB in 56 s; with these limits, 97–99 MiB in 70 s.
 */
const IMPORT_OLD_GENERATION_MB = 64;
const IMPORT_YOUNG_GENERATION_MB = 4;

/** Connections the import thread's PostgreSQL pool may open: it writes one batch at a time. */
const IMPORT_POOL_SIZE = 2;

type Message =
  | { fetched: FetchOutcome }
  | { progress: { lines: number; bytes: number; stage?: 'indexing' } }
  | { summary: ImportSummary }
  | { error: PostedError };

/**
 * Imports a file as {@link importCatalogueFile} does, on the import thread when the file is
 * large enough for a reader thread ({@link READER_THREAD_MIN_BYTES}) and the database can be
 * opened again (not an in-memory SQLite one); else on this thread.
 * @param onProgress called after each batch (not awaited by the thread: it goes on writing).
 *   On the thread, the accepted refs are kept in import_refs under a run of its own, dropped at
 *   its end.
 * @throws InmoError UNKNOWN_BUSINESS; KyeroDocumentError for a feed that cannot be read at all
 *   (what came before the fault is imported); Error when the thread fails otherwise.
 */
export async function importFileOffThread(
  db: Db,
  businessId: number,
  path: string,
  onProgress?: ImportProgress,
  format?: ImportFormat,
): Promise<ImportSummary> {
  const opened = reopenable(db);
  if (opened === null || (await stat(path)).size < READER_THREAD_MIN_BYTES) {
    return importCatalogueFile(db, businessId, path, onProgress, format);
  }
  if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  const run = randomUUID();
  try {
    const pulled = await onThread(db, opened, { businessId, path, format: format ?? null, run }, onProgress);
    return (pulled as Extract<Pulled, { summary: ImportSummary }>).summary;
  } finally {
    await dropImportRefs(db, run);
  }
}

/** A pull's outcome: what its GET came to, and the import's summary when the document came. */
export type Pulled =
  | { fetched: Exclude<FetchOutcome, { status: 'fetched' }> }
  | { fetched: Extract<FetchOutcome, { status: 'fetched' }>; summary: ImportSummary };

/**
 * A feed pull's download and import (services/catalogue/feeds/pulls.ts), both on the import thread when
 * the database can be opened again (a 200 MB download's buffers then stay off the server's
 * main heap); else on this thread.
 * @param path where the document is written.
 * @param format the source's format, or null to tell it by content.
 * @param run the import run whose accepted refs are kept in import_refs for the caller.
 * @throws InmoError UNKNOWN_BUSINESS; KyeroDocumentError for a document that cannot be read at
 *   all (what came before the fault is imported); Error when the thread fails otherwise.
 */
export async function pullOffThread(
  db: Db,
  businessId: number,
  request: FeedRequest,
  path: string,
  format: ImportFormat | null,
  run: string,
): Promise<Pulled> {
  const opened = reopenable(db);
  if (opened === null) {
    const fetched = await fetchFeedDocument(request, path);
    if (fetched.status !== 'fetched') return { fetched };
    return { fetched, summary: await importCatalogueFile(db, businessId, path, undefined, format ?? undefined, run) };
  }
  if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  return onThread(db, opened, { businessId, path, format, run, request }, undefined);
}

/** What the import thread is given (services/catalogue/import/import-thread-main.ts). */
export interface ImportThreadData {
  url: string;
  pool: PoolSettings;
  businessId: number;
  path: string;
  /** Null: told by content once the file is there. */
  format: ImportFormat | null;
  run: string;
  /** A pull's GET, made first into `path`. */
  request?: FeedRequest;
}

async function onThread(
  db: Db,
  opened: { url: string; pool: PoolSettings },
  work: Omit<ImportThreadData, 'url' | 'pool'>,
  onProgress: ImportProgress | undefined,
): Promise<Pulled> {
  const data: ImportThreadData = { url: opened.url, pool: { ...opened.pool, poolSize: IMPORT_POOL_SIZE }, ...work };
  const worker = new Worker(await threadBundle(inPackage('src', 'services', 'catalogue', 'import', 'import-thread-main.ts')), {
    workerData: data,
    resourceLimits: { maxOldGenerationSizeMb: IMPORT_OLD_GENERATION_MB, maxYoungGenerationSizeMb: IMPORT_YOUNG_GENERATION_MB },
  });
  // A file given is there already: as if fetched.
  let fetched: FetchOutcome = { status: 'fetched', etag: null, lastModified: null };
  // Ending the loop (a summary, an error) terminates the thread.
  for await (const message of messagesOf<Message>(worker)) {
    if ('fetched' in message) {
      fetched = message.fetched;
      if (fetched.status !== 'fetched') return { fetched };
      continue;
    }
    // Each message after it follows a commit of the thread's: this process's requests see the new catalogue at once.
    signalChange(db);
    if ('progress' in message) await onProgress?.(message.progress.lines, message.progress.bytes, message.progress.stage);
    else if ('summary' in message) return { fetched: fetched as Extract<FetchOutcome, { status: 'fetched' }>, summary: message.summary };
    else if ('error' in message) throw rebuiltError(message.error);
    else throw new Error(`the import thread stopped (exit code ${message.exit})`);
  }
  throw new Error('the import thread ended without a summary');
}
