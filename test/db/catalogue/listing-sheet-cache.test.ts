/**
 * The public sheet `/l/<token>.pdf` in bounded time (issue 55, items 5 and 9), on this process's
 * engine: the reproductions (a description of 99,000 characters without a space, 33 s a
 * GET before; 14,000 nested `<b>`, a 500 before) are served and read back; a sheet is laid out
 * once for the same listing, language and agency (counted by the cache's layouts: a second GET,
 * and an `If-None-Match` that names its ETag, lay nothing out) and again when the listing
 * changes.
 */
import { describe, expect, it } from 'vitest';
import { listingPageToken } from '../../../src/services/catalogue/listing-page.ts';
import { SHEET_DESCRIPTION_MAX } from '../../../src/services/catalogue/listing-sheet.ts';
import { listingSheets } from '../../../src/services/catalogue/sheet-cache.ts';
import { importRecords, listing, propertyId } from '../../helpers/db.ts';
import { withApp } from '../../helpers/http.ts';
import { readPdf } from '../../helpers/pdf.ts';

const WORD = `<p>Empieza ${'a'.repeat(99_000)}</p>`;
const NESTED = `${'<b>'.repeat(14_000)}Hola anidado${'</b>'.repeat(14_000)}`;

describe('the public sheet in bounded time, laid out once per version', () => {
  const tokens: Record<string, string> = {};
  const t = withApp({
    app: { publicUrl: 'https://inmo.example' },
    seed: async ({ db, businessId }) => {
      const summary = await importRecords(db, businessId, [
        listing('LARGO', { title: 'Palabra larga', description: WORD }),
        listing('ANIDADO', { title: 'Anidado', description: NESTED }),
        listing('CACHE', { title: 'Piso para la caché', description: '<p>Primera versión.</p>' }),
      ]);
      expect(summary.rejected).toEqual([]);
      for (const ref of ['LARGO', 'ANIDADO', 'CACHE']) tokens[ref] = (await listingPageToken(db, businessId, await propertyId(db, ref)))!;
    },
  });
  const sheet = (ref: string, headers: Record<string, string> = {}, lang = 'es') =>
    t.app.inject({ method: 'GET', url: `/l/${tokens[ref]}.pdf?lang=${lang}`, headers });

  it('serves a description of 99,000 characters without a space, cut to about a page', async () => {
    const r = await sheet('LARGO');
    expect(r.statusCode).toBe(200);
    const pdf = await readPdf(r.rawPayload);
    const text = pdf.text.join(' ');
    expect(text).toContain('Palabra larga');
    expect(text).toContain('Empieza aaaa');
    expect(text).toContain('a…');
    expect((text.match(/a/g) ?? []).length).toBeLessThan(SHEET_DESCRIPTION_MAX + 100);
    expect(pdf.pages).toBeLessThanOrEqual(2);
  });

  it('serves a description of 14,000 nested <b>', async () => {
    const r = await sheet('ANIDADO');
    expect(r.statusCode).toBe(200);
    expect((await readPdf(r.rawPayload)).text.join(' ')).toContain('Hola anidado');
  });

  it('lays a sheet out once: a second GET and a 304 lay out nothing; a changed listing or another language lays out again', async () => {
    listingSheets.clear();
    const first = await sheet('CACHE');
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(first.headers['cache-control']).toBe('no-cache');
    expect(listingSheets.statistics()).toEqual({ layouts: 1, hits: 0 });

    const second = await sheet('CACHE');
    expect(second.statusCode).toBe(200);
    expect(second.headers.etag).toBe(etag);
    expect(Buffer.compare(second.rawPayload, first.rawPayload)).toBe(0);
    const notModified = await sheet('CACHE', { 'if-none-match': etag });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.rawPayload.length).toBe(0);
    expect(listingSheets.statistics()).toEqual({ layouts: 1, hits: 2 });

    // Asked at once, laid out once.
    listingSheets.clear();
    const together = await Promise.all([sheet('CACHE'), sheet('CACHE'), sheet('CACHE')]);
    expect(together.map((r) => r.headers.etag)).toEqual([together[0].headers.etag, together[0].headers.etag, together[0].headers.etag]);
    expect(listingSheets.statistics()).toEqual({ layouts: 1, hits: 2 });

    const english = await sheet('CACHE', {}, 'en');
    expect(english.headers.etag).not.toBe(together[0].headers.etag);
    expect(listingSheets.statistics().layouts).toBe(2);

    await importRecords(t.db, t.businessId, [listing('CACHE', { title: 'Piso para la caché', description: '<p>Segunda versión.</p>' })]);
    const changed = await sheet('CACHE', { 'if-none-match': together[0].headers.etag as string });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(together[0].headers.etag);
    expect((await readPdf(changed.rawPayload)).text.join(' ')).toContain('Segunda versión.');
    expect(listingSheets.statistics().layouts).toBe(3);
  });
});
