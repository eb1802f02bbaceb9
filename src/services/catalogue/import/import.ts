/**
 * Catalogue import (CONTRACT §9 `inmo properties import`): NDJSON lines in the import format
 * of shared/data/README.md, upserted by `external_ref` within one business.
 *
 * Every line is checked completely before anything is written, so a bad line is reported
 * (line number and reason) and skipped without touching the stored property, and the rest of
 * the file goes on. Lines are read in batches of {@link BATCH_SIZE} (services/catalogue/import/read.ts; a
 * large file on a thread of its own, services/catalogue/import/reader-thread.ts), and the accepted lines of each
 * batch written in one transaction; each also bumps the business's catalogue version, which
 * drops cached counts in every API process.
 */
import { CLI } from '../../access/audit.ts';
import { open } from 'node:fs/promises';
import { withPageCache, type Db } from '../../../db/database.ts';
import { transact } from '../../../db/transaction.ts';
import { findBusiness } from '../../../db/repositories/businesses.ts';
import { signalChange } from '../../../db/change-watch.ts';
import { deferIndexes, restoreDeferredIndexes } from '../../../db/deferred-indexes.ts';
import { refreshPlannerStatistics, refreshStatisticsWhileGrowing } from '../../../db/planner-statistics.ts';
import * as repo from '../../../db/repositories/properties.ts';
import type { ImportOwner, NormalizedProperty } from '../../../domain/catalogue/property-record.ts';
import { nowRfc3339 } from '../../../domain/time.ts';
import { withdrawListings, writeListings } from '../listing-writes.ts';
import { linkOwners, settleOwners } from './owners.ts';
import { checkedBatches, readCatalogueFile, type ImportFormat, type ReadBatch, type ReadItem } from './read.ts';
import type { ImportFault } from '../../../domain/catalogue/import-faults.ts';
import { readCatalogueBatches } from './reader-thread.ts';
import { InmoError } from '../../../errors.ts';

export { BATCH_SIZE, IMPORT_FORMATS, type ImportFormat } from './read.ts';

/** Imports writing fewer rows than this skip refreshing the planner's statistics. */
const ANALYZE_MIN_ROWS = 1000;

/**
 * SQLite's page cache while an import writes, KiB (db/database.ts withPageCache). Measured on a
 * 200 MB feed into an empty catalogue: as fast as with 64 MiB, and the importing process peaks
 * about 60 MiB lower; 60,000 updates took 5 % longer (8 MiB: 10 %).
 */
export const IMPORT_PAGE_CACHE_KIB = 16_384;

/**
 * A rejected line: 1-based line number (in a Kyero feed, the property's position) and an
 * English reason; for a Kyero property, its `<id>` too when it has one.
 */
export interface RejectedLine {
  line: number;
  reason: string;
  id?: string;
  /** The reason in parts any language can word (domain/catalogue/import-faults.ts); absent from runs stored before them. */
  faults?: ImportFault[];
}

/** A rejected item as reported: its line, reason, feed `<id>` when it has one, and faults. */
function rejectedLine(item: Extract<ReadItem, { reason: string }>): RejectedLine {
  return { line: item.line, reason: item.reason, ...(item.id === undefined ? {} : { id: item.id }), faults: item.faults };
}

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

/**
 * Writes a batch in one transaction, with its refs when the import keeps them in import_refs,
 * and the owners its lines name (services/catalogue/import/owners.ts): a line whose owner cannot
 * be its owner is rejected and its listing left as it was.
 * @param refs the batch's accepted refs, each once.
 * @param lineOf the line number of each line that names an owner.
 */
async function writeBatch(
  db: Db,
  businessId: number,
  batch: NormalizedProperty[],
  refs: Set<string>,
  summary: ImportSummary,
  now: string,
  seen: Set<string> | { run: string },
  lineOf: Map<NormalizedProperty, { line: number }>,
) {
  // Run again from the start when SQLite reports the database busy: the owners are read before the
  // catalogue's write lock is taken, and another process may commit in between.
  const { written, refused, repeated } = await transact(db, async (trx) => {
    const repeated = seen instanceof Set ? 0 : await repo.addImportRefs(trx, seen.run, [...refs]);
    const owners = await settleOwners(trx, businessId, lineOf.size > 0 ? batch : []);
    const kept = owners.refused.size > 0 ? batch.filter((property) => !owners.refused.has(property)) : batch;
    const listings = await writeListings(
      trx,
      businessId,
      kept.map((property) => ({ property })),
      now,
    );
    await linkOwners(trx, businessId, owners.owners, now);
    return { written: listings, refused: owners.refused, repeated };
  });
  summary.repeated += repeated;
  if (seen instanceof Set)
    for (const ref of refs) {
      if (seen.has(ref)) summary.repeated++;
      else seen.add(ref);
    }
  if (refused.size > 0) {
    for (const [property, refusal] of refused)
      summary.rejected.push({ line: lineOf.get(property)!.line, reason: refusal.reason, faults: [refusal.fault] });
    // Reported in line order, as the lines refused when read are.
    summary.rejected.sort((a, b) => a.line - b.line);
  }
  summary.created += written.created.size;
  summary.updated += written.updated;
  // Requests of this process see the new catalogue version at once (db/change-watch.ts).
  signalChange(db);
}

/**
 * Imports NDJSON lines into a business's catalogue, checked on this thread.
 * @param lines the file's lines, in order (line numbers count from 1, blank lines included).
 * @throws InmoError UNKNOWN_BUSINESS when the business does not exist (nothing is written).
 */
export async function importCatalogueLines(
  db: Db,
  businessId: number,
  lines: AsyncIterable<string> | Iterable<string>,
  onProgress?: ImportProgress,
): Promise<ImportSummary> {
  return importBatches(db, businessId, (now) => checkedBatches(lines, now), onProgress, null);
}

/**
 * Writes checked batches into a business's catalogue: the accepted items of each batch in one
 * transaction, while the source reads the next (services/catalogue/import/reader-thread.ts).
 * @param batches the source, given the import's timestamp.
 * @param run an import run whose accepted refs are kept in import_refs (the caller drops them:
 *   a feed pull withdraws its source's other listings by them), so that the memory an import
 *   holds does not grow with the file; null: they are kept in memory for the import only.
 * @throws InmoError UNKNOWN_BUSINESS when the business does not exist (nothing is written); the
 *   source's error when it fails half way, after what it read before the fault is written.
 */
async function importBatches(
  db: Db,
  businessId: number,
  batches: (now: string) => AsyncIterable<ReadBatch>,
  onProgress: ImportProgress | undefined,
  run: string | null,
): Promise<ImportSummary> {
  return withPageCache(db, IMPORT_PAGE_CACHE_KIB, async () => {
    if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
    const summary: ImportSummary = { created: 0, updated: 0, repeated: 0, rejected: [] };
    const now = nowRfc3339();
    // A first import into an empty catalogue loads without the listing indexes after its first
    // batch, and builds them once at the end (db/deferred-indexes.ts); a small one never does.
    const bulk = !(await repo.anyProperty(db));
    let batchesWritten = 0;
    let deferred = false;
    let linesRead = 0;
    let bytesRead = 0;
    const seen = run === null ? new Set<string>() : { run };
    try {
      // A source that fails half way (a feed that stops being XML) has given what it read before
      // the fault: that is written, then its error is thrown.
      for await (const read of batches(now)) {
        linesRead = read.linesRead;
        bytesRead = read.bytesRead;
        const batch: NormalizedProperty[] = [];
        const refs = new Set<string>();
        const lineOf = new Map<NormalizedProperty, { line: number }>();
        for (const item of read.items) {
          if (!('property' in item)) {
            summary.rejected.push(rejectedLine(item));
            continue;
          }
          const ref = item.property.fields.external_ref;
          if (refs.has(ref)) summary.repeated++;
          else refs.add(ref);
          batch.push(item.property);
          if (item.property.owner !== undefined) lineOf.set(item.property, { line: item.line });
        }
        if (batch.length > 0) {
          if (bulk && batchesWritten === 1) deferred = (await deferIndexes(db, 'properties')).length > 0;
          await writeBatch(db, businessId, batch, refs, summary, now, seen, lineOf);
          batchesWritten++;
          // The lookup of a batch's refs is planned from the table's statistics: refreshed each time
          // the import has written 4 times more batches (db/planner-statistics.ts says why).
          if (isPowerOf4(batchesWritten)) await refreshStatisticsWhileGrowing(db, 'properties');
        }
        await onProgress?.(linesRead, bytesRead);
      }
      if (deferred) await onProgress?.(linesRead, bytesRead, 'indexing');
    } finally {
      if (deferred) await restoreDeferredIndexes(db);
    }
    await onProgress?.(linesRead, bytesRead);
    // Fresh statistics let the planner pick the right index for each filter; an import that
    // changed little of the catalogue leaves them as good as they were.
    const written = summary.created + summary.updated;
    if (written >= ANALYZE_MIN_ROWS) await refreshPlannerStatistics(db, ['properties', 'property_docs']);
    return summary;
  });
}

/** What a full import did: the import's summary, and the listings it withdrew. */
export interface FullImportSummary extends ImportSummary {
  /** Listings the file did not name, now `retirada` and out of the public catalogue. */
  withdrawn: number;
}

/** Bytes read at a time while looking for a document's first character. */
const SNIFF_CHUNK_BYTES = 64 * 1024;

/**
 * The first character of a file that is neither white space nor a byte order mark, or null when
 * there is none (an empty document). Reads only as far as that character.
 */
async function firstCharacter(path: string): Promise<string | null> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_CHUNK_BYTES);
    for (let position = 0; ;) {
      const { bytesRead } = await handle.read(buffer, 0, SNIFF_CHUNK_BYTES, position);
      if (bytesRead === 0) return null;
      position += bytesRead;
      // String.prototype.trimStart drops the BOM (U+FEFF) with the white space.
      const start = buffer.subarray(0, bytesRead).toString('utf8').trimStart();
      if (start !== '') return start[0];
    }
  } finally {
    await handle.close();
  }
}

/**
 * What a file holds, by its content (CONTRACT §15): a Kyero feed starts with `<`, NDJSON with
 * `{` (after a BOM and white space). A document that is empty, or starts otherwise, is refused
 * before anything is read into the catalogue: a full import or a pull of it would withdraw
 * every listing (an empty 200 from a CRM or a proxy), and nothing else could be in it.
 * @param format the format the caller names (`--format`), which only the emptiness check then concerns.
 * @throws InmoError IMPORT_DOCUMENT_EMPTY (nothing but white space or a BOM, or no byte at all),
 *   IMPORT_DOCUMENT_UNKNOWN (told by content, neither `<` nor `{` first).
 */
export async function sniffFormat(path: string, format?: ImportFormat | null): Promise<ImportFormat> {
  const first = await firstCharacter(path);
  if (first === null) throw new InmoError('IMPORT_DOCUMENT_EMPTY');
  if (format) return format;
  if (first === '<') return 'kyero';
  if (first === '{') return 'ndjson';
  throw new InmoError('IMPORT_DOCUMENT_UNKNOWN');
}

/**
 * Checks every line (or feed property) of a file, writing nothing.
 * @returns the external refs of the lines that would be imported, the rejected ones, and the
 *   owner each line naming one names, with its line number (services/catalogue/import/owners.ts).
 * @throws KyeroDocumentError for a feed that cannot be read at all.
 */
export async function scanCatalogueFile(
  path: string,
  format: ImportFormat,
): Promise<{ refs: Set<string>; rejected: RejectedLine[]; owners: Array<{ line: number; owner: ImportOwner | null }> }> {
  const refs = new Set<string>();
  const rejected: RejectedLine[] = [];
  const owners: Array<{ line: number; owner: ImportOwner | null }> = [];
  for await (const { items } of readCatalogueBatches(path, format, nowRfc3339())) {
    for (const item of items) {
      if (!('property' in item)) rejected.push(rejectedLine(item));
      else {
        refs.add(item.property.fields.external_ref);
        if (item.property.owner !== undefined) owners.push({ line: item.line, owner: item.property.owner });
      }
    }
  }
  return { refs, rejected, owners };
}

/**
 * `inmo properties import FILE --full` (CONTRACT §13): the file is the whole catalogue. It is
 * checked first, in full: a file with any rejected line is refused, and nothing is written
 * (the rejections are reported in `rejected`). Otherwise it is imported, then the business's
 * listings it does not name are withdrawn in one transaction, which the changes feed reports
 * as deletions. NDJSON or a Kyero feed, as {@link importCatalogueFile}; an empty document
 * (IMPORT_DOCUMENT_EMPTY), or a well-formed one that names no listing (IMPORT_FULL_NO_LISTINGS),
 * is refused, never read as a catalogue of nothing.
 * @throws InmoError UNKNOWN_BUSINESS, IMPORT_DOCUMENT_EMPTY, IMPORT_DOCUMENT_UNKNOWN, IMPORT_FULL_NO_LISTINGS (nothing written).
 */
export async function importFullCatalogueFile(
  db: Db,
  businessId: number,
  path: string,
  onProgress?: ImportProgress,
  format?: ImportFormat,
): Promise<FullImportSummary & { refused: boolean }> {
  if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  const readAs = await sniffFormat(path, format);
  const { refs, rejected, owners } = await scanCatalogueFile(path, readAs);
  // A line naming an owner that cannot be its owner is a rejected line too: checked now, before anything is written.
  for (const [{ line }, refusal] of (await settleOwners(db, businessId, owners)).refused)
    rejected.push({ line, reason: refusal.reason, faults: [refusal.fault] });
  rejected.sort((a, b) => a.line - b.line);
  if (rejected.length > 0) return { format: readAs, created: 0, updated: 0, repeated: 0, rejected, withdrawn: 0, refused: true };
  // A well-formed document of nothing (`<root></root>`) is no catalogue either (issue 41).
  if (refs.size === 0) throw new InmoError('IMPORT_FULL_NO_LISTINGS');
  const summary = await importCatalogueFile(db, businessId, path, onProgress, readAs);
  const unnamed = (await repo.listWithdrawable(db, businessId)).filter((p) => !refs.has(p.external_ref)).map((p) => p.id);
  if (unnamed.length > 0) {
    await db.transaction().execute((trx) => withdrawListings(trx, businessId, unnamed, nowRfc3339(), CLI));
    signalChange(db);
  }
  return { ...summary, withdrawn: unnamed.length, refused: false };
}

/**
 * Imports a file: NDJSON, or a Kyero v3 feed (CONTRACT §15), told apart by content unless
 * `format` names one; see {@link importCatalogueLines}. A feed's property that cannot be mapped
 * is reported with its position, `<id>` and reason, and the rest imported.
 * @param run an import run whose accepted refs are kept in import_refs for the caller (who drops
 *   them with dropImportRefs); without it, they are kept in memory for the import only.
 * @throws InmoError UNKNOWN_BUSINESS, IMPORT_DOCUMENT_EMPTY, IMPORT_DOCUMENT_UNKNOWN (see
 *   {@link sniffFormat}: nothing is written); KyeroDocumentError for a feed that cannot be read at
 *   all (a DTD, malformed XML): what came before the fault is imported, nothing after it.
 */
export async function importCatalogueFile(
  db: Db,
  businessId: number,
  path: string,
  onProgress?: ImportProgress,
  format?: ImportFormat,
  run?: string,
): Promise<ImportSummary> {
  return importFile(db, businessId, path, onProgress, format, run, readCatalogueBatches);
}

/**
 * {@link importCatalogueFile} reading on this thread whatever the file's size: the import
 * thread's (services/catalogue/import/import-thread.ts), whose memory a reader thread's isolate would double.
 */
export async function importCatalogueFileHere(
  db: Db,
  businessId: number,
  path: string,
  onProgress: ImportProgress | undefined,
  format: ImportFormat | undefined,
  run: string,
): Promise<ImportSummary> {
  return importFile(db, businessId, path, onProgress, format, run, readCatalogueFile);
}

async function importFile(
  db: Db,
  businessId: number,
  path: string,
  onProgress: ImportProgress | undefined,
  format: ImportFormat | undefined,
  run: string | undefined,
  read: typeof readCatalogueFile,
): Promise<ImportSummary> {
  const readAs = await sniffFormat(path, format);
  return {
    format: readAs,
    ...(await importBatches(db, businessId, (now) => read(path, readAs, now), onProgress, run ?? null)),
  };
}
