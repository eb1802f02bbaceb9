/**
 * Catalogue import (CONTRACT §9 `inmo properties import`): NDJSON lines in the import format
 * of shared/data/README.md, upserted by `external_ref` within one business.
 *
 * Every line is checked completely before anything is written, so a bad line is reported
 * (line number and reason) and skipped without touching the stored property, and the rest of
 * the file goes on. Lines are read in chunks of {@link BATCH_SIZE}, and the accepted lines of
 * each chunk written in one transaction; each also bumps the business's catalogue version,
 * which drops cached counts in every API process.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { findBusiness } from '../db/repositories/businesses.ts';
import { signalChange } from '../db/change-watch.ts';
import { deferIndexes, restoreDeferredIndexes } from '../db/deferred-indexes.ts';
import * as repo from '../db/repositories/properties.ts';
import type { NormalizedProperty } from '../domain/property-record.ts';
import { nowRfc3339 } from '../domain/time.ts';
import { withdrawListings, writeListings } from './catalogue-writes.ts';
import { parseImportLine, type Parsed } from './import-line.ts';
import { LineParser } from './import-parser.ts';
import { readKyeroFeed } from '../feeds/kyero-read.ts';
import { recordOfKyero } from '../domain/kyero.ts';
import { InmoError } from '../errors.ts';

/** Imports writing fewer rows than this skip refreshing the planner's statistics. */
const ANALYZE_MIN_ROWS = 1000;

/** Rows of each index SQLite's ANALYZE reads (its `analysis_limit`; 0 would read all). */
const ANALYSIS_LIMIT = 1000;

/** Lines per chunk: the accepted ones of a chunk are written in one transaction. */
export const BATCH_SIZE = 500;

/**
 * A rejected line: 1-based line number (in a Kyero feed, the property's position) and an
 * English reason; for a Kyero property, its `<id>` too when it has one.
 */
export interface RejectedLine {
  line: number;
  reason: string;
  id?: string;
}

/** The formats an import reads (CONTRACT §15): told apart by content unless the caller names one. */
export const IMPORT_FORMATS = ['ndjson', 'kyero'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/**
 * An item of an import: an NDJSON line; a line made from a feed's property, with the property's
 * `<id>` for the report; or a property refused before it became a line (a Kyero mapping).
 */
export type ImportItem = string | { line: string; id: string } | { rejected: string; id?: string };

/** What an import did. */
export interface ImportSummary {
  /** What the file was read as. */
  format?: ImportFormat;
  created: number;
  updated: number;
  /** Accepted lines whose `external_ref` an earlier line of the same file had: the last one wins. */
  repeated: number;
  rejected: RejectedLine[];
}

/**
 * Reported after each batch: lines read so far and bytes of the file consumed; then, when a
 * bulk load deferred the listing indexes, once more with `indexing` before they are built.
 * The import waits for a returned promise.
 */
export type ImportProgress = (linesDone: number, bytesDone: number, stage?: 'indexing') => void | Promise<void>;

/** 1, 4, 16, 64… */
function isPowerOf4(n: number): boolean {
  while (n > 1 && n % 4 === 0) n /= 4;
  return n === 1;
}

async function writeBatch(db: Db, businessId: number, batch: NormalizedProperty[], summary: ImportSummary, now: string) {
  const written = await db.transaction().execute((trx) =>
    writeListings(
      trx,
      businessId,
      batch.map((property) => ({ property })),
      now,
    ),
  );
  summary.created += written.created.size;
  summary.updated += written.updated;
  // Requests of this process see the new catalogue version at once (db/change-watch.ts).
  signalChange(db);
}

/**
 * Imports NDJSON lines into a business's catalogue.
 * @param lines the file's lines, in order (line numbers count from 1, blank lines included).
 * @param bytesRead how much of the file has been read, for progress (else the lines' bytes are counted).
 * @param accepted an empty set the external refs of the accepted lines are added to (a feed pull
 *   withdraws its source's other listings by them).
 * @throws InmoError UNKNOWN_BUSINESS when the business does not exist (nothing is written).
 */
export async function importCatalogueLines(
  db: Db,
  businessId: number,
  lines: AsyncIterable<ImportItem> | Iterable<ImportItem>,
  onProgress?: ImportProgress,
  bytesRead?: () => number,
  accepted: Set<string> = new Set(),
): Promise<ImportSummary> {
  if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  const summary: ImportSummary = { created: 0, updated: 0, repeated: 0, rejected: [] };
  const refsSeen = accepted;
  // A feed property's <id> by line, until its chunk is written (for the report).
  const feedIds = new Map<number, string>();
  const now = nowRfc3339();
  // A first import into an empty catalogue loads without the listing indexes after its first
  // batch, and builds them once at the end (db/deferred-indexes.ts); a small one never does.
  const bulk = !(await repo.anyProperty(db));
  let batchesWritten = 0;
  let deferred = false;
  // Lines are parsed in chunks, on a second thread after the first (services/import-parser.ts),
  // while the chunk before is written: at most two chunks wait, so memory stays bounded.
  const parser = new LineParser(now);
  type Chunk = { parsed: Promise<Parsed[]>; lineNumbers: number[]; linesRead: number; bytesRead: number };
  const waiting: Chunk[] = [];
  let texts: string[] = [];
  let lineNumbers: number[] = [];
  let lineNumber = 0;
  let bytes = 0;
  const send = () => {
    if (waiting.length === 0 && texts.length >= BATCH_SIZE) parser.prestart();
    const parsed = parser.parse(texts);
    // Awaited in order below; a failure meanwhile must not count as unhandled.
    parsed.catch(() => {});
    waiting.push({ parsed, lineNumbers, linesRead: lineNumber, bytesRead: bytes });
    texts = [];
    lineNumbers = [];
  };
  const writeNext = async () => {
    const chunk = waiting.shift()!;
    const batch: NormalizedProperty[] = [];
    (await chunk.parsed).forEach((parsed, i) => {
      if (!parsed.ok) {
        const id = feedIds.get(chunk.lineNumbers[i]);
        summary.rejected.push({ line: chunk.lineNumbers[i], reason: parsed.reason, ...(id === undefined ? {} : { id }) });
        return;
      }
      const ref = parsed.property.fields.external_ref;
      if (refsSeen.has(ref)) summary.repeated++;
      else refsSeen.add(ref);
      batch.push(parsed.property);
    });
    if (batch.length > 0) {
      if (bulk && batchesWritten === 1) deferred = (await deferIndexes(db, 'properties')).length > 0;
      await writeBatch(db, businessId, batch, summary, now);
      batchesWritten++;
      // PostgreSQL plans the lookup of a batch's refs from the table's statistics: left as they
      // were while the table grows from nothing to a million rows, they made it scan the table
      // for every batch (an import slowing to a crawl). Refreshed each time the import has
      // written 4 times more batches; ANALYZE reads a fixed sample, so this stays cheap.
      if (db.engine === 'postgres' && isPowerOf4(batchesWritten)) await sql`analyze properties`.execute(db);
    }
    for (const line of chunk.lineNumbers) feedIds.delete(line);
    await onProgress?.(chunk.linesRead, chunk.bytesRead);
  };
  try {
    // A source that fails half way (a feed that stops being XML) ends the reading, not the
    // writing: the lines read before the fault are written, then its error is thrown.
    let unreadable: { error: unknown } | null = null;
    const untilFault = async function* (source: AsyncIterable<ImportItem> | Iterable<ImportItem>) {
      try {
        yield* source;
      } catch (error) {
        unreadable = { error };
      }
    };
    for await (const raw of untilFault(lines)) {
      lineNumber++;
      if (typeof raw !== 'string' && 'rejected' in raw) {
        summary.rejected.push({ line: lineNumber, reason: raw.rejected, ...(raw.id === undefined ? {} : { id: raw.id }) });
        continue;
      }
      const line = typeof raw === 'string' ? raw : raw.line;
      if (typeof raw !== 'string') feedIds.set(lineNumber, raw.id);
      const text = lineNumber === 1 ? line.replace(/^\uFEFF/, '') : line;
      bytes = bytesRead ? bytesRead() : bytes + Buffer.byteLength(line) + 1;
      if (text.trim() === '') continue;
      texts.push(text);
      lineNumbers.push(lineNumber);
      if (texts.length >= BATCH_SIZE) {
        send();
        if (waiting.length >= 2) await writeNext();
      }
    }
    if (texts.length > 0) send();
    while (waiting.length > 0) await writeNext();
    if (unreadable) throw (unreadable as { error: unknown }).error;
    if (deferred) await onProgress?.(lineNumber, bytes, 'indexing');
  } finally {
    await parser.close();
    if (deferred) await restoreDeferredIndexes(db);
  }
  await onProgress?.(lineNumber, bytesRead ? bytesRead() : bytes);
  // Refusals made before parsing (a Kyero mapping) and after it are reported in position order.
  summary.rejected.sort((a, b) => a.line - b.line);
  // Fresh statistics let the planner pick the right index for each filter; an import that
  // changed little of the catalogue leaves them as good as they were.
  const written = summary.created + summary.updated;
  // On PostgreSQL, VACUUM also marks the new rows' pages all-visible, which lets the covering
  // listing indexes answer with index-only scans instead of reading every row they pass.
  if (written >= ANALYZE_MIN_ROWS) {
    if (db.engine === 'postgres') await sql`vacuum (analyze) properties, property_docs`.execute(db);
    else {
      // A sample of each index is as good for the planner as reading all of it: 7 s less at 1M.
      await sql`pragma analysis_limit = ${sql.lit(ANALYSIS_LIMIT)}`.execute(db);
      await sql`analyze`.execute(db);
    }
  }
  return summary;
}

/** What a full import did: the import's summary, and the listings it withdrew. */
export interface FullImportSummary extends ImportSummary {
  /** Listings the file did not name, now `retirada` and out of the public catalogue. */
  withdrawn: number;
}

/**
 * What a file holds, by its content (CONTRACT §15): a Kyero feed starts with `<` (after a BOM
 * and white space), anything else is read as NDJSON.
 */
export async function sniffFormat(path: string): Promise<ImportFormat> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4096), 0, 4096, 0);
    const start = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart();
    return start.startsWith('<') ? 'kyero' : 'ndjson';
  } finally {
    await handle.close();
  }
}

/**
 * The items of a file in its format: NDJSON lines as they are; a Kyero feed's properties mapped
 * to import lines (domain/kyero.ts), or refused with their `<id>` and reason.
 * @returns the items, how many bytes of the file have been read so far, and a way to stop reading.
 * @throws (while iterating) KyeroDocumentError for a feed that cannot be read at all.
 */
function itemsOf(path: string, format: ImportFormat): { items: AsyncIterable<ImportItem>; bytesRead: () => number; close: () => void } {
  if (format === 'kyero') {
    const stream = createReadStream(path);
    async function* items(): AsyncGenerator<ImportItem> {
      for await (const property of readKyeroFeed(stream)) {
        const id = property.texts.get('id') || undefined;
        const mapped = recordOfKyero(property);
        if (mapped.ok) yield { line: JSON.stringify(mapped.record), id: id! };
        else yield { rejected: mapped.reason, ...(id === undefined ? {} : { id }) };
      }
    }
    return { items: items(), bytesRead: () => stream.bytesRead, close: () => stream.destroy() };
  }
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  // readline emits lines as soon as the file is read, and only an attached iterator keeps
  // them: take it now, before anything awaits, or the first lines are lost.
  const iterator = lines[Symbol.asyncIterator]();
  return {
    items: { [Symbol.asyncIterator]: () => iterator },
    bytesRead: () => stream.bytesRead,
    close: () => {
      lines.close();
      stream.destroy();
    },
  };
}

/**
 * Checks every line (or feed property) of a file, writing nothing.
 * @returns the external refs of the lines that would be imported, and the rejected ones.
 * @throws KyeroDocumentError for a feed that cannot be read at all.
 */
export async function scanCatalogueFile(path: string, format: ImportFormat): Promise<{ refs: Set<string>; rejected: RejectedLine[] }> {
  const refs = new Set<string>();
  const rejected: RejectedLine[] = [];
  const now = nowRfc3339();
  let lineNumber = 0;
  const { items, close } = itemsOf(path, format);
  try {
    for await (const item of items) {
      lineNumber++;
      if (typeof item !== 'string' && 'rejected' in item) {
        rejected.push({ line: lineNumber, reason: item.rejected, ...(item.id === undefined ? {} : { id: item.id }) });
        continue;
      }
      const raw = typeof item === 'string' ? item : item.line;
      const text = lineNumber === 1 ? raw.replace(/^\uFEFF/, '') : raw;
      if (text.trim() === '') continue;
      const parsed = parseImportLine(text, now);
      if (parsed.ok) refs.add(parsed.property.fields.external_ref);
      else rejected.push({ line: lineNumber, reason: parsed.reason, ...(typeof item === 'string' ? {} : { id: item.id }) });
    }
  } finally {
    close();
  }
  return { refs, rejected };
}

/**
 * `inmo properties import FILE --full` (CONTRACT §13): the file is the whole catalogue. It is
 * checked first, in full: a file with any rejected line is refused, and nothing is written
 * (the rejections are reported in `rejected`). Otherwise it is imported, then the business's
 * listings it does not name are withdrawn in one transaction, which the changes feed reports
 * as deletions. NDJSON or a Kyero feed, as {@link importCatalogueFile}.
 */
export async function importFullCatalogueFile(
  db: Db,
  businessId: number,
  path: string,
  onProgress?: ImportProgress,
  format?: ImportFormat,
): Promise<FullImportSummary & { refused: boolean }> {
  if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  const readAs = format ?? (await sniffFormat(path));
  const { refs, rejected } = await scanCatalogueFile(path, readAs);
  if (rejected.length > 0) return { format: readAs, created: 0, updated: 0, repeated: 0, rejected, withdrawn: 0, refused: true };
  const summary = await importCatalogueFile(db, businessId, path, onProgress, readAs);
  const unnamed = (await repo.listWithdrawable(db, businessId)).filter((p) => !refs.has(p.external_ref)).map((p) => p.id);
  if (unnamed.length > 0) {
    await db.transaction().execute((trx) => withdrawListings(trx, businessId, unnamed, nowRfc3339()));
    signalChange(db);
  }
  return { ...summary, withdrawn: unnamed.length, refused: false };
}

/**
 * Imports a file: NDJSON, or a Kyero v3 feed (CONTRACT §15), told apart by content unless
 * `format` names one; see {@link importCatalogueLines}. A feed's property that cannot be mapped
 * is reported with its position, `<id>` and reason, and the rest imported.
 * @param accepted an empty set the external refs of the accepted lines or properties are added to.
 * @throws InmoError UNKNOWN_BUSINESS; KyeroDocumentError for a feed that cannot be read at all
 *   (a DTD, malformed XML): what came before the fault is imported, nothing after it.
 */
export async function importCatalogueFile(
  db: Db,
  businessId: number,
  path: string,
  onProgress?: ImportProgress,
  format?: ImportFormat,
  accepted?: Set<string>,
): Promise<ImportSummary> {
  const readAs = format ?? (await sniffFormat(path));
  const { items, bytesRead, close } = itemsOf(path, readAs);
  try {
    return { format: readAs, ...(await importCatalogueLines(db, businessId, items, onProgress, bytesRead, accepted)) };
  } finally {
    close();
  }
}
