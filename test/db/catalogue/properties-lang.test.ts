/**
 * Listings in five languages through the API (issue 46, CONTRACT §22): an import line's
 * `titles` and `descriptions` come back from `GET /properties` and `GET /properties/{id}` with
 * `lang` (the spec's `gb` and `ge` as `en` and `de`), title and description each where held,
 * the default text (Spanish, else the first held) otherwise, with `Content-Language`; anything
 * else is a 422 in the spec's shape; without `lang` every listing gives its default text. The
 * energy certificate and the portals' facts are published in `specs`.
 */
import { describe, expect, it } from 'vitest';
import { importRecords, listing, propertyId } from '../../helpers/db.ts';
import { get, withApp, API_ONLY } from '../../helpers/http.ts';

const CERTIFICATE = { status: 'available', rating: 'B', consumption_kwh_m2_year: 71.2, emissions_kg_co2_m2_year: 14 };

describe('GET /properties with lang', () => {
  const t = withApp({
    surfaces: API_ONLY,
    seed: async ({ db, businessId }) => {
      const summary = await importRecords(db, businessId, [
        listing('MULTI', {
          title: 'Ático con vistas al mar',
          description: '<p>Ático luminoso.</p>',
          titles: { en: 'Penthouse with sea views', de: 'Penthouse mit Meerblick', fr: 'Attique vue mer' },
          descriptions: { en: '<p>Bright penthouse.</p>', de: '<p onclick="x()">Helles Penthouse.</p><script>alert(1)</script>' },
          energy_certificate: CERTIFICATE,
          floor: '5',
          community_fees: 120,
          year_built: 2004,
          condition: 'buen-estado',
          updated_at: '2026-01-03T10:00:00+00:00',
        }),
        listing('ENGLISH', {
          title: null,
          description: null,
          titles: { en: 'Villa with pool' },
          descriptions: { en: '<p>A villa.</p>', it: '<p>Una villa.</p>' },
          updated_at: '2026-01-02T10:00:00+00:00',
        }),
        listing('SPANISH', { title: 'Piso en el centro', updated_at: '2026-01-01T10:00:00+00:00' }),
      ]);
      expect(summary.rejected).toEqual([]);
    },
  });

  const titles = (body: { data: Array<{ title: string }> }) => body.data.map((p) => p.title);

  it('gives each listing its default text without lang, and no Content-Language', async () => {
    const r = await get(t.app, '/properties', t.key);
    expect(r.status).toBe(200);
    expect(r.headers['content-language']).toBeUndefined();
    expect(titles(r.body)).toEqual(['Ático con vistas al mar', 'Villa with pool', 'Piso en el centro']);
    expect(r.body.data.map((p: { description: string | null }) => p.description)).toEqual([
      '<p>Ático luminoso.</p>',
      '<p>A villa.</p>',
      '<p>Bonito piso</p>',
    ]);
  });

  it.each([
    ['en', 'en', ['Penthouse with sea views', 'Villa with pool', 'Piso en el centro']],
    ['gb', 'en', ['Penthouse with sea views', 'Villa with pool', 'Piso en el centro']],
    ['GB', 'en', ['Penthouse with sea views', 'Villa with pool', 'Piso en el centro']],
    ['de', 'de', ['Penthouse mit Meerblick', 'Villa with pool', 'Piso en el centro']],
    ['ge', 'de', ['Penthouse mit Meerblick', 'Villa with pool', 'Piso en el centro']],
    ['fr', 'fr', ['Attique vue mer', 'Villa with pool', 'Piso en el centro']],
    ['it', 'it', ['Ático con vistas al mar', 'Villa with pool', 'Piso en el centro']],
    ['es', 'es', ['Ático con vistas al mar', 'Villa with pool', 'Piso en el centro']],
  ])('lang=%s gives the titles held in %s, the default text elsewhere', async (lang, language, expected) => {
    const r = await get(t.app, `/properties?lang=${lang}`, t.key);
    expect(r.status).toBe(200);
    expect(r.headers['content-language']).toBe(language);
    expect(titles(r.body)).toEqual(expected);
  });

  it('replaces title and description each on its own, sanitised, and nothing else', async () => {
    const plain = (await get(t.app, '/properties', t.key)).body.data;
    const german = (await get(t.app, '/properties?lang=de', t.key)).body.data;
    expect(german[0]).toEqual({ ...plain[0], title: 'Penthouse mit Meerblick', description: '<p>Helles Penthouse.</p>' });
    expect(Object.keys(german[0])).toEqual(Object.keys(plain[0]));
    const french = (await get(t.app, '/properties?lang=fr', t.key)).body.data;
    expect(french[0]).toEqual({ ...plain[0], title: 'Attique vue mer' });
    const italian = (await get(t.app, '/properties?lang=it', t.key)).body.data;
    expect(italian[1]).toEqual({ ...plain[1], description: '<p>Una villa.</p>' });
  });

  it('gives one listing in a language, with its own ETag per language', async () => {
    const id = await propertyId(t.db, 'MULTI');
    const english = await get(t.app, `/properties/${id}?lang=gb`, t.key);
    expect(english.status).toBe(200);
    expect(english.headers['content-language']).toBe('en');
    expect(english.body.data).toMatchObject({ id, title: 'Penthouse with sea views', description: '<p>Bright penthouse.</p>' });
    const spanish = await get(t.app, `/properties/${id}`, t.key);
    expect(spanish.headers['content-language']).toBeUndefined();
    expect(spanish.body.data.title).toBe('Ático con vistas al mar');
    expect(english.headers.etag).not.toBe(spanish.headers.etag);
    const again = await get(t.app, `/properties/${id}?lang=en`, t.key, { 'if-none-match': String(english.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.headers['content-language']).toBe('en');
  });

  it.each(['pt', 'english', '', 'es,en'])('refuses lang=%j with the spec’s 422', async (lang) => {
    const expected = {
      detail: [
        {
          type: 'literal_error',
          loc: ['query', 'lang'],
          msg: "Input should be 'es', 'en', 'fr', 'de', 'it', 'gb' or 'ge'",
          input: lang,
          ctx: { expected: "'es', 'en', 'fr', 'de', 'it', 'gb' or 'ge'" },
        },
      ],
    };
    const list = await get(t.app, `/properties?lang=${encodeURIComponent(lang)}`, t.key);
    expect(list.status).toBe(422);
    expect(list.body).toEqual(expected);
    const one = await get(t.app, `/properties/${await propertyId(t.db, 'MULTI')}?lang=${encodeURIComponent(lang)}`, t.key);
    expect(one.status).toBe(422);
    expect(one.body).toEqual(expected);
  });

  it('publishes the energy certificate and the facts in specs', async () => {
    const r = await get(t.app, `/properties/${await propertyId(t.db, 'MULTI')}`, t.key);
    expect(r.body.data.specs).toEqual({
      energy_certificate: CERTIFICATE,
      floor: '5',
      community_fees: 120,
      year_built: 2004,
      condition: 'buen-estado',
      price_calc: { price_alq: null, price_trasp: null },
      address_privacy: 'public',
      building_name: null,
    });
  });
});
