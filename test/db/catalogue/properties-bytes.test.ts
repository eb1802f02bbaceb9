/**
 * `GET /properties` and `GET /properties/{id}` without `lang` answer byte for byte as before
 * listings had languages, an energy certificate and portal facts (issue 46, CONTRACT §22:
 * "without `lang` nothing changes").
 *
 * The SHA-256 of each body in test/fixtures/properties-bytes.json was captured from the code
 * before those changes (commit 4f82aad, with this file's commit 1abe5ab), on the same data: the
 * sample of the two Zaragoza catalogues in test/fixtures/catalogues (descriptions, images, floors
 * and conditions in `specs`) and a few listings of every shape the import format allows. The data
 * is imported here again with today's code and every body must hash the same.
 * `INMO_CAPTURE_BYTES=1` prints the hashes instead of checking them (to capture them again from a
 * commit that is known to be right: `git archive 1abe5ab` into a folder, this file and the
 * sample copied in).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { importCatalogueFile } from '../../../src/services/catalogue/import/import.ts';
import { importRecords, listing, REPO_ROOT, SAMPLE_CATALOGUES } from '../../helpers/db.ts';
import { withApp, API_ONLY } from '../../helpers/http.ts';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'properties-bytes.json');
const capture = process.env.INMO_CAPTURE_BYTES === '1';

/** Listings of every shape: hidden, approximate and public addresses, media, features, nested specs, nulls. */
const SHAPES = [
  listing('SHAPE-PUBLIC', {
    building_name: 'Edificio Sol',
    specs: { floor: '3', condition: 'buen-estado', plot_size: 120, url: { en: 'https://agency.example/en/1' } },
    features: [
      { key: 'ascensor', label: 'Ascensor', value: true, isextra: false },
      { key: 'terraza', label: 'Terraza', value: 12, isextra: true },
    ],
    images: [
      { url: 'https://img.example/a.jpg', order: 2, is_primary: false, title: 'Salón', public: true },
      { url: 'https://img.example/b.jpg', order: 1, is_primary: true, title: null, public: true },
      { url: 'https://img.example/c.jpg', order: 0, is_primary: false, title: 'Oculta', public: false },
    ],
    videos: [{ title: 'Visita', order: 0, url: 'https://video.example/v.mp4', processed: true }],
  }),
  listing('SHAPE-APPROX', {
    operation: 'venta,alquiler',
    price_rent: 1250.5,
    rental_type: 'anual',
    address_privacy: 'approximate',
    title: 'Ático <b>con</b> vistas & terraza',
    description: '<p onclick="x()">Texto <script>alert(1)</script><a href="javascript:x">enlace</a></p>',
  }),
  listing('SHAPE-HIDDEN', { address_privacy: 'hidden', operation: 'traspaso', price: null, price_transfer: 40000, subtype: null }),
  listing('SHAPE-NULLS', {
    title: null,
    description: null,
    price: null,
    size_total: null,
    bedrooms: null,
    bathrooms: null,
    lat: null,
    lon: null,
    city: null,
    features: null,
    specs: null,
    is_featured: true,
  }),
];

/** The requests pinned: pages, filters, sorts and single listings (ids known after the import). */
const LISTS = [
  '/properties',
  '/properties?limit=1000',
  '/properties?limit=100&offset=100',
  '/properties?operation=alquiler&sort=price_asc&limit=200',
  '/properties?city=ZARAGOZA&min_bedrooms=3&limit=300',
  '/properties?type=casa&sort=price_desc',
  '/properties?is_featured=true',
];

describe('GET /properties without lang, byte for byte', () => {
  const t = withApp({
    surfaces: API_ONLY,
    seed: async ({ db, businessId }) => {
      for (const file of ['catalogue-zaragoza-rent.ndjson', 'catalogue-zaragoza-sale.ndjson']) {
        await importCatalogueFile(db, businessId, join(SAMPLE_CATALOGUES, file));
      }
      await importRecords(db, businessId, SHAPES);
    },
  });

  it('answers every request with the bytes captured before languages and facts existed', async () => {
    const ids = (await t.db.selectFrom('properties').select('id').orderBy('id').execute()).map((r) => r.id);
    // The first two, the last rental and the first sale of the sample (114 refs of rentals), and the four shapes.
    const single = [ids[0], ids[1], ids[113], ids[114], ids[ids.length - 4], ids[ids.length - 3], ids[ids.length - 2], ids[ids.length - 1]];
    const urls = [...LISTS, ...single.map((id) => `/properties/${id}`)];
    const hashes: Record<string, string> = {};
    for (const url of urls) {
      const response = await t.app.inject({ method: 'GET', url: `/v1/ext${url}`, headers: { 'x-api-key': t.key } });
      if (url.startsWith('/properties/')) expect([200, 404], url).toContain(response.statusCode);
      else expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-language'], url).toBeUndefined();
      hashes[url.replace(/\/properties\/\d+$/, (m) => `/properties/#${single.indexOf(Number(m.slice(12)))}`)] = createHash('sha256')
        .update(response.rawPayload)
        .digest('hex');
    }
    if (capture) {
      process.stdout.write(`${JSON.stringify(hashes, null, 2)}\n`);
      return;
    }
    expect(hashes).toEqual(JSON.parse(readFileSync(FIXTURE, 'utf8')));
  });
});
