/**
 * Listing sheets already laid out (issue 55): the public `/l/<token>.pdf` needs no login, so
 * every GET of it would otherwise lay the sheet out again (a third of a second of one core, and
 * 30 s or more before layouts were bounded). A sheet is kept under a key made of everything it
 * shows (listing-sheet.ts `sheetKey`: the published listing, the language, the agency's name and
 * e-mail, the page's URL, the photos' stored objects), so a change to any of them is a new key
 * and an edited listing never gets an old sheet; nothing needs to be told to forget.
 *
 * Kept in this process's memory, least recently used out first, at most
 * {@link SHEET_CACHE_BYTES} of PDFs in all. Requests for a sheet being laid out wait for that
 * layout rather than starting one each.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** Bytes of PDFs kept in a process (a sheet with five photos is about half a megabyte). */
export const SHEET_CACHE_BYTES = 32 * 1024 * 1024;

/** A sheet laid out: its bytes and their strong ETag (a SHA-256 of the bytes, quoted). */
export interface CachedSheet {
  pdf: Buffer;
  etag: string;
}

/** Layouts and answers from memory since the process started (or since {@link SheetCache.clear}). */
export interface SheetCacheCounts {
  /** Sheets laid out (cache misses). */
  layouts: number;
  /** Sheets answered from memory, or from a layout already under way. */
  hits: number;
}

/** Sheets by key, bounded in bytes, with the layouts under way. */
export class SheetCache {
  private readonly kept: LRUCache<string, CachedSheet>;
  private readonly pending = new Map<string, Promise<CachedSheet>>();
  private readonly counts: SheetCacheCounts = { layouts: 0, hits: 0 };

  /** @param maxBytes the most bytes of PDFs kept; a sheet larger than a quarter of it is laid out every time. */
  constructor(maxBytes: number) {
    this.kept = new LRUCache<string, CachedSheet>({
      maxSize: maxBytes,
      maxEntrySize: Math.floor(maxBytes / 4),
      sizeCalculation: (sheet, key) => sheet.pdf.length + key.length,
    });
  }

  /**
   * The sheet kept under `key`, or the one `layOut` makes (kept for the next request); one
   * layout at a time per key.
   * @throws whatever `layOut` throws (nothing is kept then).
   */
  async get(key: string, layOut: () => Promise<Buffer>): Promise<CachedSheet> {
    const kept = this.kept.get(key);
    if (kept) {
      this.counts.hits++;
      return kept;
    }
    const under = this.pending.get(key);
    if (under) {
      this.counts.hits++;
      return under;
    }
    this.counts.layouts++;
    const made = layOut().then((pdf) => {
      const sheet = { pdf, etag: `"${createHash('sha256').update(pdf).digest('base64url')}"` };
      this.kept.set(key, sheet);
      return sheet;
    });
    this.pending.set(key, made);
    try {
      return await made;
    } finally {
      this.pending.delete(key);
    }
  }

  /** How many layouts and answers from memory there have been. */
  statistics(): SheetCacheCounts {
    return { ...this.counts };
  }

  /** Forgets every sheet and the counts (tests). */
  clear(): void {
    this.kept.clear();
    this.counts.layouts = 0;
    this.counts.hits = 0;
  }
}

/** This process's listing sheets. */
export const listingSheets = new SheetCache(SHEET_CACHE_BYTES);
