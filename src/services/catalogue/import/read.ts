/**
 * Reading a catalogue import (CONTRACT §9, §15): a file's NDJSON lines or Kyero feed properties,
 * each checked completely and normalized (services/catalogue/import/line.ts), in batches, writing nothing.
 *
 * Pure but for reading the file: the same generators run on the importing thread (small files,
 * lines given in memory) or on the import's reader thread (services/catalogue/import/reader-thread.ts), which then
 * does all of an import's parsing while the importing thread writes.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { recordOfKyero } from '../../../domain/catalogue/kyero-import-line.ts';
import type { ImportFault } from '../../../domain/catalogue/import-faults.ts';
import type { NormalizedProperty } from '../../../domain/catalogue/property-record.ts';
import { readKyeroFeed } from '../../../feeds/kyero-read.ts';
import { parseImportLine, parseImportRecord } from './line.ts';
import { IMPORT_FORMATS, type ImportFormat } from '../../../domain/catalogue/feed-formats.ts';

export { IMPORT_FORMATS, type ImportFormat };

/** Items per batch: the accepted ones of a batch are written in one transaction. */
export const BATCH_SIZE = 500;

/**
 * An item read: accepted and normalized, or rejected with an English reason and its faults in
 * parts (domain/catalogue/import-faults.ts). `line` is the 1-based line number (in a Kyero feed,
 * the property's position); `id` a feed property's `<id>`.
 */
export type ReadItem =
  { line: number; property: NormalizedProperty } | { line: number; reason: string; faults: ImportFault[]; id?: string };

/** A batch of items, and how far the input has been read after it (lines, and bytes of the file). */
export interface ReadBatch {
  items: ReadItem[];
  linesRead: number;
  bytesRead: number;
}

/** An input line: NDJSON text, or a feed's property already mapped (its record) or refused. */
type Source =
  AsyncIterable<string | { record: unknown; id: string } | { rejected: string; fault: ImportFault; id?: string }> | Iterable<string>;

/**
 * Checks the items of `source` in batches of {@link BATCH_SIZE} (blank lines count as lines but
 * are not items; a BOM before the first line is dropped).
 * @throws the source's error, after a batch of the items read before it.
 * @param now canonical timestamp for items without dates.
 * @param bytesRead how much of the file has been read (else the lines' UTF-8 bytes are counted).
 */
export async function* checkedBatches(source: Source, now: string, bytesRead?: () => number): AsyncGenerator<ReadBatch> {
  let items: ReadItem[] = [];
  let line = 0;
  let bytes = 0;
  try {
    for await (const raw of source) {
      line++;
      if (typeof raw === 'string') {
        bytes = bytesRead ? bytesRead() : bytes + Buffer.byteLength(raw) + 1;
        const text = line === 1 ? raw.replace(/^\uFEFF/, '') : raw;
        if (text.trim() === '') continue;
        const parsed = parseImportLine(text, now);
        items.push(parsed.ok ? { line, property: parsed.property } : { line, reason: parsed.reason, faults: parsed.faults });
      } else {
        bytes = bytesRead ? bytesRead() : bytes;
        const parsed =
          'rejected' in raw ? { ok: false as const, reason: raw.rejected, faults: [raw.fault] } : parseImportRecord(raw.record, now);
        items.push(
          parsed.ok
            ? { line, property: parsed.property }
            : { line, reason: parsed.reason, faults: parsed.faults, ...(raw.id === undefined ? {} : { id: raw.id }) },
        );
      }
      if (items.length >= BATCH_SIZE) {
        yield { items, linesRead: line, bytesRead: bytes };
        items = [];
      }
    }
  } catch (error) {
    // A source that fails half way gives what it read before the fault first.
    if (items.length > 0) yield { items, linesRead: line, bytesRead: bytes };
    throw error;
  }
  yield { items, linesRead: line, bytesRead: bytesRead ? bytesRead() : bytes };
}

/**
 * A file's items in batches (see {@link checkedBatches}): NDJSON lines as they are, a Kyero
 * feed's properties mapped by domain/catalogue/kyero-import-line.ts. The last batch may be empty; it gives the totals.
 * @throws (while iterating) KyeroDocumentError for a feed that cannot be read at all: the
 *   batches of what came before the fault are given first.
 */
export async function* readCatalogueFile(path: string, format: ImportFormat, now: string): AsyncGenerator<ReadBatch> {
  if (format === 'kyero') {
    const stream = createReadStream(path);
    try {
      yield* checkedBatches(
        (async function* () {
          for await (const property of readKyeroFeed(stream)) {
            const id = property.texts.get('id') || undefined;
            const mapped = recordOfKyero(property);
            yield mapped.ok
              ? { record: mapped.record, id: id! }
              : { rejected: mapped.reason, fault: mapped.fault, ...(id === undefined ? {} : { id }) };
          }
        })(),
        now,
        () => stream.bytesRead,
      );
    } finally {
      stream.destroy();
    }
    return;
  }
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    yield* checkedBatches(lines, now, () => stream.bytesRead);
  } finally {
    lines.close();
    stream.destroy();
  }
}
