/**
 * Catalogue files uploaded in the console (issue 15): imported in the background of the
 * serving process, with their progress and outcome kept in `catalogue_imports` so that the
 * page following them (and any other process) can read it.
 *
 * The import is the CLI's (services/catalogue/import/import.ts): same rules, same report. Progress is
 * written at most every {@link PROGRESS_EVERY_MS}; the report keeps every rejected line with its
 * number and reason. A run whose process died stays `running` with an old `updated_at`: the
 * page calls it interrupted after {@link STALE_AFTER_MS}.
 */
import { rm } from 'node:fs/promises';
import type { Db } from '../../../db/database.ts';
import type { CatalogueImportTable } from '../../../db/types.ts';
import type { Selectable } from 'kysely';
import * as repo from '../../../db/repositories/catalogue-imports.ts';
import { toRfc3339 } from '../../../domain/time.ts';
import type { RejectedLine } from './import.ts';
import { importFileOffThread } from './import-thread.ts';

/** Progress is written at most this often, ms. */
export const PROGRESS_EVERY_MS = 250;
/** A run not heard from for this long is shown as interrupted, ms (index builds report once, so it is generous). */
export const STALE_AFTER_MS = 15 * 60 * 1000;

export type CatalogueImportRow = Selectable<CatalogueImportTable>;

/** An import as the console shows it. */
export interface UploadedImport extends Omit<CatalogueImportRow, 'rejected'> {
  rejected: RejectedLine[];
  /** Running, but not heard from for {@link STALE_AFTER_MS}: its process died. */
  interrupted: boolean;
}

function present(row: CatalogueImportRow, now: number): UploadedImport {
  return {
    ...row,
    rejected: row.rejected === null ? [] : (JSON.parse(row.rejected) as RejectedLine[]),
    interrupted: (row.state === 'running' || row.state === 'indexing') && now - Date.parse(row.updated_at) > STALE_AFTER_MS,
  };
}

/**
 * Records an import of the uploaded file at `path` and starts it; the file (and `removeAfter`,
 * its folder) is deleted when the import ends, however it ends.
 * @returns the import's id, at once; `done` settles when the import has ended (tests await it).
 */
export async function startUploadedImport(
  db: Db,
  upload: { businessId: number; userId: number | null; fileName: string; path: string; bytes: number; removeAfter: string },
): Promise<{ id: number; done: Promise<void> }> {
  const at = toRfc3339(new Date());
  const id = await repo.insertCatalogueImport(db, {
    business_id: upload.businessId,
    user_id: upload.userId,
    file_name: upload.fileName.slice(0, 255),
    state: 'running',
    bytes_total: upload.bytes,
    bytes_done: 0,
    lines_done: 0,
    started_at: at,
    updated_at: at,
  });
  let lastWrite = 0;
  const done = (async () => {
    try {
      const summary = await importFileOffThread(db, upload.businessId, upload.path, async (lines, bytes, stage) => {
        const now = Date.now();
        if (stage !== 'indexing' && now - lastWrite < PROGRESS_EVERY_MS) return;
        lastWrite = now;
        await repo.updateCatalogueImport(db, id, {
          lines_done: lines,
          bytes_done: bytes,
          state: stage === 'indexing' ? 'indexing' : 'running',
          updated_at: toRfc3339(new Date(now)),
        });
      });
      const end = toRfc3339(new Date());
      await repo.updateCatalogueImport(db, id, {
        state: 'done',
        bytes_done: upload.bytes,
        // Every line is created, updated or rejected; a repeated one is also an update (counted once).
        lines_done: summary.created + summary.updated + summary.rejected.length,
        created: summary.created,
        updated: summary.updated,
        repeated: summary.repeated,
        rejected: JSON.stringify(summary.rejected),
        updated_at: end,
        finished_at: end,
      });
    } catch (error) {
      const end = toRfc3339(new Date());
      await repo
        .updateCatalogueImport(db, id, {
          state: 'failed',
          error: (error as Error).message.slice(0, 1000),
          updated_at: end,
          finished_at: end,
        })
        .catch(() => {});
    } finally {
      await rm(upload.removeAfter, { recursive: true, force: true });
    }
  })();
  return { id, done };
}

/** One import of the business, or undefined (another business's import is no different from none). */
export async function findUploadedImport(db: Db, businessId: number, id: number): Promise<UploadedImport | undefined> {
  const row = await repo.findCatalogueImport(db, businessId, id);
  return row && present(row, Date.now());
}

/** The business's latest imports, newest first. */
export async function listUploadedImports(db: Db, businessId: number, limit = 10): Promise<UploadedImport[]> {
  const rows = await repo.listCatalogueImports(db, businessId, limit);
  const now = Date.now();
  return rows.map((row) => present(row, now));
}

/**
 * The catalogue in figures: listings by status, and by operation among the published ones
 * (public, `disponible` or `reservada`), and when a listing was last imported.
 */
export async function catalogueFigures(db: Db, businessId: number) {
  const byStatus = await repo.countListingsByStatus(db, businessId);
  const published = await repo.publishedListingFigures(db, businessId);
  return {
    byStatus: byStatus.map((r) => ({ status: r.status, count: Number(r.n) })),
    operations: { venta: Number(published.venta), alquiler: Number(published.alquiler), traspaso: Number(published.traspaso) },
    published: Number(published.total),
    lastImportedAt: published.last_imported_at,
  };
}
