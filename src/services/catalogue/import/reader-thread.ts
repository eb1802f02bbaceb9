/**
 * The reader thread of a catalogue import (issue 14 "Scale", issue 28 "Speed"). Reading a file
 * (readline or the Kyero SAX parse), mapping a feed's properties, JSON parsing, validation and
 * normalization (descriptions sanitized) are most of an import's CPU time. A file of
 * {@link READER_THREAD_MIN_BYTES} or more is read on a thread of its own, which stays at most two
 * batches ahead while the importing thread writes: the two run at once on a 2-core machine, and
 * the importing thread, the server's own in a pull or an upload, keeps only the writing.
 */
import { stat } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { KyeroDocumentError } from '../../../feeds/kyero-read.ts';
import { inPackage } from '../../../package-root.ts';
import { threadBundle } from '../../../thread-bundle.ts';
import { readCatalogueFile, type ImportFormat, type ReadBatch } from './read.ts';

/** Files smaller than this (bytes) are read on the importing thread: a thread costs more than it saves. */
export const READER_THREAD_MIN_BYTES = 1024 * 1024;

/**
 * The reader thread's young generation, MiB: V8 would grow it to 32 (×3 with its copies) on an
 * import's allocation rate, for no gain in speed.
 */
const READER_YOUNG_GENERATION_MB = 8;

/** An error a thread posted: what crosses the thread's boundary of it. */
export interface PostedError {
  name: string;
  message: string;
  code?: string;
}

/** How a thread ended without saying so itself: an uncaught error, or its exit. */
type ThreadEnd = { error: PostedError } | { exit: number };

/**
 * The messages `worker` posts, in order; then its uncaught error or exit, should it end without
 * the caller having stopped. Stopping the iteration terminates the thread.
 */
export async function* messagesOf<M>(worker: Worker): AsyncGenerator<M | ThreadEnd> {
  const queue: Array<M | ThreadEnd> = [];
  let wake: (() => void) | null = null;
  const receive = (message: M | ThreadEnd) => {
    queue.push(message);
    wake?.();
  };
  worker.on('message', receive);
  worker.on('error', (error) => receive({ error: { name: error.name, message: error.message } }));
  worker.on('exit', (code) => receive({ exit: code }));
  try {
    for (;;) {
      while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
      yield queue.shift()!;
    }
  } finally {
    await worker.terminate();
  }
}

/** A thread's error on this side: a KyeroDocumentError by its name, else an Error with the `code` of a file system error. */
export function rebuiltError({ name, message, code }: PostedError): Error {
  if (name === 'KyeroDocumentError') return new KyeroDocumentError(message);
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

type Message = { batch: ReadBatch } | { done: true } | { error: PostedError };

/**
 * A file's batches read on the reader thread, in order (see readCatalogueFile). Stopping the
 * iteration stops the thread.
 * @throws KyeroDocumentError for a feed that cannot be read at all (after the batches before
 *   the fault); Error (with the `code` of a file system error) when the file cannot be read.
 */
export async function* readInThread(path: string, format: ImportFormat, now: string): AsyncGenerator<ReadBatch> {
  const worker = new Worker(await threadBundle(inPackage('src', 'services', 'catalogue', 'import', 'reader-thread-main.ts')), {
    workerData: { path, format, now },
    resourceLimits: { maxYoungGenerationSizeMb: READER_YOUNG_GENERATION_MB },
  });
  for await (const message of messagesOf<Message>(worker)) {
    if ('batch' in message) {
      worker.postMessage('more');
      yield message.batch;
    } else if ('done' in message) return;
    else if ('error' in message) throw rebuiltError(message.error);
    else throw new Error(`the import's reader thread stopped (exit code ${message.exit})`);
  }
}

/**
 * A file's batches: on the reader thread for a file of {@link READER_THREAD_MIN_BYTES} or more,
 * else on this one.
 * @throws as {@link readInThread}.
 */
export async function* readCatalogueBatches(path: string, format: ImportFormat, now: string): AsyncGenerator<ReadBatch> {
  const { size } = await stat(path);
  yield* size >= READER_THREAD_MIN_BYTES ? readInThread(path, format, now) : readCatalogueFile(path, format, now);
}
