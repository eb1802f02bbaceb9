/**
 * Media URLs of a listing are `http` or `https` only (CONTRACT §8): a partner site puts
 * `images[].url` in an `<img>` and `videos[].embed_url` in an `<iframe>`, where a
 * `javascript:` URL would run. A line with any other URL is rejected with the field named,
 * and the rest of the file is imported (src/domain/property-record.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseImportLine } from '../../src/services/import-line.ts';

const NOW = '2026-11-24T10:00:00+00:00';
const line = (extra: Record<string, unknown>) => JSON.stringify({ external_ref: 'M-1', title: 'Piso', ...extra });

const HOSTILE = [
  'javascript:alert(document.cookie)',
  'JavaScript:alert(1)',
  ' javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  '/relative/photo.jpg',
  'ftp://example.com/a.jpg',
];

describe('media URLs in an import line', () => {
  it.each(HOSTILE)('rejects %j in images[].url and in every URL of videos[]', (url) => {
    expect(parseImportLine(line({ images: [{ url: 'https://cdn.example/a.jpg' }, { url }] }), NOW)).toEqual({
      ok: false,
      reason: 'images[1].url: must be an http or https URL',
    });
    for (const field of ['url', 'hls_url', 'thumbnail_url', 'embed_url']) {
      expect(parseImportLine(line({ videos: [{ [field]: url }] }), NOW)).toEqual({
        ok: false,
        reason: `videos[0].${field}: must be an http or https URL`,
      });
    }
  });

  it('keeps http and https URLs as they are, and absent video URLs as null', () => {
    const parsed = parseImportLine(
      line({ images: [{ url: 'http://cdn.example/a.jpg' }], videos: [{ embed_url: 'https://www.youtube.com/embed/x' }] }),
      NOW,
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.property.images.map((i) => i.url)).toEqual(['http://cdn.example/a.jpg']);
    expect(parsed.property.videos).toEqual([expect.objectContaining({ url: null, embed_url: 'https://www.youtube.com/embed/x' })]);
  });
});
