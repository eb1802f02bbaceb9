/**
 * Parsing of catalogue import lines on a thread of its own (issue 14, "Scale").
 *
 * JSON parsing, validation and normalization (descriptions sanitized) were half of an
 * import's CPU time. On a second thread they run while the importing thread writes the
 * previous batch: on a 2-core machine a million listings import about a third faster. The
 * first chunk is parsed on the calling thread, so an import of one batch starts no thread.
 * Results come back in the order the chunks were given.
 */
import { Worker } from 'node:worker_threads';
import { parseImportLine, type Parsed } from './import-line.ts';
import { inPackage } from '../package-root.ts';

interface Waiting {
  resolve: (parsed: Parsed[]) => void;
  reject: (error: Error) => void;
}

/** Parses chunks of import lines, the first one here and the rest on a worker thread. */
export class LineParser {
  private worker: Worker | null = null;
  private chunks = 0;
  private readonly waiting = new Map<number, Waiting>();
  private failure: Error | null = null;

  /** @param now canonical timestamp for lines without dates (see parseImportLine). */
  constructor(private readonly now: string) {}

  /** Starts the worker thread now, so that its start overlaps the work on the first chunk. */
  prestart(): void {
    this.worker ??= this.start();
  }

  /**
   * Parses one chunk of lines.
   * @returns one result per line, in order.
   * @throws (rejects with) the worker's error when the thread fails: the import stops.
   */
  parse(texts: string[]): Promise<Parsed[]> {
    const id = this.chunks++;
    if (id === 0) return Promise.resolve(texts.map((text) => parseImportLine(text, this.now)));
    if (this.failure) return Promise.reject(this.failure);
    const worker = (this.worker ??= this.start());
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, texts, now: this.now });
    });
  }

  /** Stops the worker thread; chunks still waiting are rejected. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private start(): Worker {
    const worker = new Worker(inPackage('src', 'services', 'import-parse-worker.mjs'));
    worker.on('message', ({ id, parsed }: { id: number; parsed: Parsed[] }) => {
      const waiting = this.waiting.get(id);
      this.waiting.delete(id);
      waiting?.resolve(parsed);
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const waiting of this.waiting.values()) waiting.reject(this.failure);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the import's parser thread stopped (exit code ${code})`)));
    return worker;
  }
}
