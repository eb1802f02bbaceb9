/**
 * Media URLs of a listing are `http` or `https` only (CONTRACT §8): a partner site puts
 * `images[].url` in an `<img>` and `videos[].embed_url` in an `<iframe>`, where a
 * `javascript:` URL would run. A line with any other URL is rejected with the field named,
 * and the rest of the file is imported (src/domain/catalogue/property-record.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseImportLine } from '../../src/services/catalogue/import/line.ts';

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
      faults: [{ field: 'images.1.url', rule: 'url' }],
    });
    for (const field of ['url', 'hls_url', 'thumbnail_url', 'embed_url']) {
      expect(parseImportLine(line({ videos: [{ [field]: url }] }), NOW)).toEqual({
        ok: false,
        reason: `videos[0].${field}: must be an http or https URL`,
        faults: [{ field: `videos.0.${field}`, rule: 'url' }],
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

describe('published URLs and plain text (issue 41)', () => {
  const parsed = (extra: Record<string, unknown>) => {
    const result = parseImportLine(line(extra), NOW);
    if (!result.ok) throw new Error(result.reason);
    return result.property;
  };

  it('stores a URL in its normalised, percent-encoded form, which no quote can break out of', () => {
    const property = parsed({
      images: [{ url: 'https://ok.example/a.jpg" onerror="alert(1)' }, { url: "https://OK.example/b c.jpg?x='y'&z=<q>" }],
      videos: [{ embed_url: 'https://www.youtube.com/embed/x"><script>alert(1)</script>' }],
    });
    expect(property.images.map((i) => i.url)).toEqual([
      'https://ok.example/a.jpg%22%20onerror=%22alert(1)',
      'https://ok.example/b%20c.jpg?x=%27y%27&z=%3Cq%3E',
    ]);
    expect(property.videos[0].embed_url).toBe('https://www.youtube.com/embed/x%22%3E%3Cscript%3Ealert(1)%3C/script%3E');
    for (const url of [...property.images.map((i) => i.url), property.videos[0].embed_url!]) {
      expect(url).not.toMatch(/["'<>\s]/);
      // Normalising again changes nothing: a stored listing saved again keeps its URLs.
      expect(parsed({ images: [{ url }] }).images[0].url).toBe(url);
    }
  });

  it.each([
    'http://x"onerror="alert(1)"/a.jpg',
    'http://a%22b.example/a.jpg',
    'http://a&b.example/',
    'http://a{b}.example/',
    'https://user:pw@cdn.example/a.jpg',
  ])('refuses %j: a host that is no DNS name or address, or credentials, could break out of an attribute or leak', (url) => {
    expect(parseImportLine(line({ images: [{ url }] }), NOW)).toEqual({
      ok: false,
      reason: 'images[0].url: must be an http or https URL',
      faults: [{ field: 'images.0.url', rule: 'url' }],
    });
  });

  it('keeps hosts that are names or addresses: IDN as punycode, IPv4, bracketed IPv6', () => {
    const urls = ['http://Bücher.example/a.jpg', 'http://192.0.2.7:8080/a.jpg', 'http://[2001:db8::1]/a.jpg'].map(
      (url) => parsed({ images: [{ url }] }).images[0].url,
    );
    expect(urls).toEqual(['http://xn--bcher-kva.example/a.jpg', 'http://192.0.2.7:8080/a.jpg', 'http://[2001:db8::1]/a.jpg']);
  });

  it('refuses a URL under a specs key naming one (Kyero url, tour_url) unless http or https, and normalises it', () => {
    expect(parseImportLine(line({ specs: { url: 'javascript:alert(13)' } }), NOW)).toEqual({
      ok: false,
      reason: 'specs.url: must be an http or https URL',
      faults: [{ field: 'specs.url', rule: 'url' }],
    });
    expect(parseImportLine(line({ specs: { url: { en: 'https://a.example/en', es: 'javascript:alert(13)' } } }), NOW)).toEqual({
      ok: false,
      reason: 'specs.url.es: must be an http or https URL',
      faults: [{ field: 'specs.url.es', rule: 'url' }],
    });
    expect(parseImportLine(line({ specs: { tour_url: 'data:text/html,x' } }), NOW)).toMatchObject({ ok: false });
    const specs = JSON.parse(parsed({ specs: { url: { en: 'https://a.example/"x"' }, floor: 3 } }).fields.specs!);
    expect(specs).toEqual({ url: { en: 'https://a.example/%22x%22' }, floor: 3 });
  });

  it('keeps no markup in plain-text fields: address, places, building, postal code, features, specs, titles', () => {
    const tag = '<img src=x onerror=alert(1)>';
    const property = parsed({
      title: `Piso${tag}`,
      address: `Calle Mayor 1${tag}`,
      address_approximate: `Centro<script>alert(1)</script>`,
      building_name: `<b>Torre</b>${tag}`,
      postal_code: `<b>28013</b>`,
      city: `Madrid${tag}`,
      province: `<i>Madrid</i>`,
      country: `España${tag}`,
      subtype: `Piso${tag}`,
      features: [{ key: `pool${tag}`, label: `<b>Piscina</b>`, value: `sí${tag}` }],
      specs: { orientation: `sur${tag}`, nested: { note: '&lt;script&gt;alert(1)&lt;/script&gt;ok' } },
      images: [{ url: 'https://a.example/a.jpg', title: `Salón${tag}` }],
    });
    const { fields } = property;
    expect([fields.title, fields.address, fields.address_approximate, fields.building_name, fields.postal_code]).toEqual([
      'Piso',
      'Calle Mayor 1',
      'Centro',
      'Torre',
      '28013',
    ]);
    expect([fields.city, fields.city_key, fields.province, fields.country, fields.subtype]).toEqual([
      'Madrid',
      'madrid',
      'Madrid',
      'España',
      'piso',
    ]);
    expect(JSON.parse(fields.features!)).toEqual([{ key: 'pool', label: 'Piscina', value: 'sí', isextra: false }]);
    expect(JSON.parse(fields.specs!)).toEqual({ orientation: 'sur', nested: { note: 'ok' } });
    expect(property.images[0].title).toBe('Salón');
    // Text that only looks like markup to a careless reader stays as written.
    expect(parsed({ city: 'A & B', address: 'Calle 1 > 2' }).fields).toMatchObject({ city: 'A & B', address: 'Calle 1 > 2' });
    // A feature key that is nothing but markup is no key.
    expect(parseImportLine(line({ features: [{ key: '<b></b>' }] }), NOW)).toEqual({
      ok: false,
      reason: 'features[0].key: must hold text, not only markup',
      faults: [{ field: 'features.0.key', rule: 'markup_only' }],
    });
  });

  it('removes C0 control characters (tab, line feed and carriage return kept) from every string of a line', () => {
    const property = parsed({
      title: 'Bonito\u0001piso',
      description: 'Línea 1\r\n\tLínea\u000b 2\u001f',
      city: 'Mad\u000crid',
      specs: { 'key\u0002': ['a\u0003b'], note: '\ufffe\uffffok' },
      features: [{ key: 'ter\u0004raza' }],
      images: [{ url: 'https://a.example/a\u0005.jpg', title: 'Sa\u0006lón' }],
    });
    expect(property.fields).toMatchObject({ title: 'Bonitopiso', description: 'Línea 1\r\n\tLínea 2', city: 'Madrid', city_key: 'madrid' });
    expect(JSON.parse(property.fields.specs!)).toEqual({ key: ['ab'], note: 'ok' });
    expect(JSON.parse(property.fields.features!)[0].key).toBe('terraza');
    expect(property.images[0]).toMatchObject({ url: 'https://a.example/a.jpg', title: 'Salón' });
  });
});
