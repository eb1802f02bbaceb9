/**
 * Reading Kyero v3 feeds (CONTRACT §15): every rule of the mapping (domain/catalogue/kyero-import-line.ts,
 * domain/catalogue/kyero-types.ts) on a feed written by hand with what real feeds contain (a BOM,
 * whitespace around CDATA, repeated and empty elements, seven description languages, accents
 * the XSD does not allow), and hostile documents refused quickly in bounded memory
 * (feeds/kyero-read.ts).
 */
import { createReadStream, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { placePortalType } from '../../src/domain/catalogue/kyero-types.ts';
import { kyeroType } from '../../src/domain/catalogue/kyero-feed.ts';
import { PROPERTY_TYPES, SUBTYPES } from '../../src/domain/catalogue/terms.ts';
import { featureKey, paragraphs, recordOfKyero, titleOf } from '../../src/domain/catalogue/kyero-import-line.ts';
import { normalizeImportRecord } from '../../src/domain/catalogue/property-record.ts';
import { CharacterRunLimiter, KyeroDocumentError, readKyeroFeed, type KyeroProperty } from '../../src/feeds/kyero-read.ts';
import { REPO_ROOT } from '../helpers/db.ts';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'kyero');

async function readAll(input: Readable): Promise<KyeroProperty[]> {
  const out: KyeroProperty[] = [];
  for await (const p of readKyeroFeed(input)) out.push(p);
  return out;
}

const text = (xml: string) => Readable.from([Buffer.from(xml)]);

describe('portal types', () => {
  it.each([
    ['Apartment', 'apartamento', 'apartamento'],
    ['Piso', 'apartamento', 'piso'],
    ['Flat', 'apartamento', 'piso'],
    ['Penthouse', 'apartamento', 'atico'],
    ['Ático', 'apartamento', 'atico'],
    ['ATICO DUPLEX', 'apartamento', 'atico'],
    ['Duplex', 'apartamento', 'duplex'],
    ['Studio', 'apartamento', 'estudio'],
    ['Ground floor apartment', 'apartamento', 'planta-baja'],
    ['Villa', 'casa', 'villa'],
    ['Villa independiente', 'casa', 'villa'],
    ['Chalet', 'casa', 'chalet'],
    ['House', 'casa', null],
    ['Casa', 'casa', null],
    ['Townhouse', 'casa', 'adosado'],
    ['Town House', 'casa', 'adosado'],
    ['Adosado', 'casa', 'adosado'],
    ['Semi-detached house', 'casa', 'pareado'],
    ['Country House', 'casa', 'casa-rural'],
    ['Casa rural con terreno', 'casa', 'casa-rural'],
    ['Finca', 'casa', 'finca'],
    ['Village house', 'casa', 'casa-de-pueblo'],
    ['Bungalow', 'casa', 'bungalow'],
    ['Commercial', 'local', 'local-comercial'],
    ['Local comercial', 'local', 'local-comercial'],
    ['Office', 'oficina', null],
    ['Oficina', 'oficina', null],
    ['Garage', 'aparcamiento', 'plaza-coche'],
    ['Parking', 'aparcamiento', 'plaza-coche'],
    ['Plot', 'terreno', null],
    ['Land', 'terreno', null],
    ['Parcela', 'terreno', null],
    ['Solar', 'terreno', 'urbano'],
    ['Terreno rústico', 'terreno', 'rustico'],
    ['Warehouse', 'nave', 'nave-industrial'],
    ['Nave industrial', 'nave', 'nave-industrial'],
    ['Building', 'edificio', null],
    ['Edificio', 'edificio', null],
    ['Storage', 'almacenaje', 'trastero'],
    ['Trastero', 'almacenaje', 'trastero'],
  ])('places %j as %s / %s', (portal, type, subtype) => {
    expect(placePortalType(portal)).toEqual({ type, subtype });
  });

  it('places back every type word the published feed writes, so a feed round-trips', () => {
    const keys = new Map(Object.entries(SUBTYPES).map(([key, { label }]) => [label, key]));
    for (const [key, { label, type }] of Object.entries(SUBTYPES)) {
      const word = kyeroType(type, label, keys);
      expect(word, key).toMatch(/^[a-zA-Z&\s()/-]{3,}$/);
      const placed = placePortalType(word);
      expect(placed?.type, `${key} → ${word}`).toBe(type);
      expect(placed?.subtype, `${key} → ${word}`).toBe(key);
    }
    for (const type of PROPERTY_TYPES) expect(placePortalType(kyeroType(type, null, keys))?.type, type).toBe(type);
  });

  it('cannot place a text with no known word', () => {
    expect(placePortalType('Yacht')).toBeNull();
    expect(placePortalType('')).toBeNull();
  });
});

describe('the mapping of a hand-written feed with the quirks of real ones', () => {
  const read = () => readAll(createReadStream(join(FIXTURES, 'quirks.xml')));

  it('reads every property in order, with its position, whatever the BOM and the whitespace', async () => {
    const properties = await read();
    expect(properties.map((p) => [p.position, p.texts.get('id')])).toEqual([
      [1, 'A-100'],
      [2, 'B-200'],
      [3, 'C-300'],
      [4, 'D-400'],
      [5, 'E-500'],
    ]);
  });

  it('maps a sale: reference, price (the first of repeated elements), type, location approximate, rooms, sizes, specs, dates', async () => {
    const [villa] = await read();
    const mapped = recordOfKyero(villa);
    expect(mapped.ok).toBe(true);
    if (!mapped.ok) return;
    expect(mapped.record).toMatchObject({
      external_ref: 'kyero:A-100',
      public: true,
      status: 'disponible',
      operation: 'venta',
      price: 245000,
      type: 'casa',
      subtype: 'villa',
      bedrooms: 4,
      bathrooms: 3,
      size_total: 210,
      city: 'Jávea',
      province: 'Alicante',
      country: 'Spain',
      lat: 38.7891234,
      lon: 0.1654321,
      address_privacy: 'approximate',
      address_approximate: 'Montgó, Jávea',
      updated_at: '2026-10-01T09:30:00+00:00',
      specs: {
        plot_size: 1200,
        emissions_rating: 'F',
        new_build: false,
        pool: true,
        url: { en: 'https://agencia.example/en/a-100', es: 'https://agencia.example/es/a-100' },
      },
      energy_certificate: { status: 'available', rating: 'E' },
    });
  });

  it('keeps the description of each of the five languages, as paragraphs, its first sentence as the title; Spanish the default', async () => {
    const [villa] = await read();
    const mapped = recordOfKyero(villa);
    if (!mapped.ok) throw new Error(mapped.reason);
    expect(mapped.record.descriptions).toEqual({
      es: '<p>Villa con vistas al mar. Cuatro dormitorios y piscina.</p><p>Cerca del pueblo &amp; de la playa.</p>',
      en: '<p>Villa with sea views. Four bedrooms.</p>',
      fr: '<p>Villa avec vue mer.</p>',
      de: '<p>Villa mit Meerblick.</p>',
    });
    expect(mapped.record.titles).toEqual({
      es: 'Villa con vistas al mar.',
      en: 'Villa with sea views.',
      fr: 'Villa avec vue mer.',
      de: 'Villa mit Meerblick.',
    });
    const { fields } = normalizeImportRecord(mapped.record, '2026-10-01T00:00:00.000+00:00');
    expect(fields.title).toBe('Villa con vistas al mar.');
    expect(fields.description).toBe(
      '<p>Villa con vistas al mar. Cuatro dormitorios y piscina.</p><p>Cerca del pueblo &amp; de la playa.</p>',
    );
  });

  it('maps an energy rating of X as a certificate in process, and no energy rating as none', () => {
    const base = { position: 1, descLanguages: [], features: [], images: [], overlong: null };
    const feed = (extra: Array<[string, string]>) =>
      recordOfKyero({
        ...base,
        texts: new Map([['id', '1'], ['price', '5'], ['price_freq', 'sale'], ['type', 'Flat'], ...extra]),
      });
    expect(feed([['energy_rating/consumption', 'X']])).toMatchObject({ record: { energy_certificate: { status: 'in_process' } } });
    expect(feed([['energy_rating/consumption', 'b']])).toMatchObject({
      record: { energy_certificate: { status: 'available', rating: 'B' } },
    });
    const none = feed([['energy_rating/emissions', 'Q']]);
    expect(none.ok && (none.record.energy_certificate ?? null)).toBeNull();
    expect(none.ok && none.record.specs).toBeNull();
  });

  it('orders images by id, the first primary, skips one without a URL; features become slugs, once each', async () => {
    const [villa] = await read();
    const mapped = recordOfKyero(villa);
    if (!mapped.ok) throw new Error(mapped.reason);
    expect(mapped.record.images).toEqual([
      { url: 'https://img.example/a-100/1.jpg', order: 0, is_primary: true, title: null, public: true },
      { url: 'https://img.example/a-100/2.jpg', order: 1, is_primary: false, title: null, public: true },
    ]);
    expect(mapped.record.features).toEqual([
      { key: 'aire_acondicionado', label: 'Aire acondicionado', value: true, isextra: false },
      { key: 'piscina_privada', label: 'Piscina privada', value: true, isextra: false },
    ]);
  });

  it('maps a weekly rent to a monthly one (× 52 / 12), temporal; English alone when there is no Spanish; no position hides the address', async () => {
    const [, flat] = await read();
    const mapped = recordOfKyero(flat);
    if (!mapped.ok) throw new Error(mapped.reason);
    expect(mapped.record).toMatchObject({
      external_ref: 'kyero:B-200',
      operation: 'alquiler',
      rental_type: 'temporal',
      price_rent: 3033.33,
      type: 'apartamento',
      subtype: 'apartamento',
      bedrooms: null,
      address_privacy: 'hidden',
      titles: { en: 'Holiday flat near the beach' },
      descriptions: { en: '<p>Holiday flat near the beach</p>' },
    });
    expect(mapped.record.lat).toBeUndefined();
    const { fields } = normalizeImportRecord(mapped.record, '2026-10-01T00:00:00.000+00:00');
    expect(fields).toMatchObject({ title: 'Holiday flat near the beach', description: '<p>Holiday flat near the beach</p>' });
  });

  it('maps a monthly rent, price on request (x) as no price, and French first when neither Spanish nor English is', async () => {
    const [, , penthouse] = await read();
    const mapped = recordOfKyero(penthouse);
    if (!mapped.ok) throw new Error(mapped.reason);
    expect(mapped.record).toMatchObject({ operation: 'alquiler', rental_type: 'anual', price_rent: null, subtype: 'atico' });
    expect(mapped.record.descriptions).toEqual({ fr: '<p>Penthouse lumineux.</p>', de: '<p>Helles Penthouse.</p>' });
    const { fields } = normalizeImportRecord(mapped.record, '2026-10-01T00:00:00.000+00:00');
    expect(fields.description).toBe('<p>Penthouse lumineux.</p>');
  });

  it('keeps the text of the first language given when none of the five is', () => {
    const dutch = recordOfKyero({
      position: 1,
      descLanguages: ['nl', 'ru'],
      features: [],
      images: [],
      overlong: null,
      texts: new Map([
        ['id', '1'],
        ['price', '5'],
        ['price_freq', 'sale'],
        ['type', 'Flat'],
        ['desc/nl', 'Mooi appartement. Dicht bij zee.'],
        ['desc/ru', 'Квартира.'],
      ]),
    });
    expect(dutch).toMatchObject({ record: { title: 'Mooi appartement.', description: '<p>Mooi appartement. Dicht bij zee.</p>' } });
    expect(dutch.ok && dutch.record.titles).toBeUndefined();
  });

  it('refuses a type it cannot place and a price in another currency, saying why', async () => {
    const [, , , yacht, pounds] = await read();
    expect(recordOfKyero(yacht)).toEqual({
      ok: false,
      reason: '<type> "Yacht" is not a property type inmo can place',
      fault: { field: 'type', rule: 'kyero_type', ctx: { value: 'Yacht' } },
    });
    expect(recordOfKyero(pounds)).toEqual({
      ok: false,
      reason: 'the price is in GBP: inmo keeps prices in euros',
      fault: { field: 'currency', rule: 'kyero_currency', ctx: { value: 'GBP' } },
    });
  });

  it('refuses a property without an id or a price frequency it knows', () => {
    const base = { position: 1, descLanguages: [], features: [], images: [], overlong: null };
    expect(recordOfKyero({ ...base, texts: new Map([['price_freq', 'sale']]) })).toMatchObject({ reason: '<id> is missing' });
    expect(
      recordOfKyero({
        ...base,
        texts: new Map([
          ['id', '1'],
          ['price', '5'],
          ['price_freq', 'year'],
          ['type', 'Flat'],
        ]),
      }),
    ).toMatchObject({
      reason: '<price_freq> "year" is not sale, month or week',
    });
    expect(
      recordOfKyero({
        ...base,
        texts: new Map([
          ['id', '1'],
          ['price', '5 000'],
          ['price_freq', 'sale'],
          ['type', 'Flat'],
        ]),
      }),
    ).toMatchObject({
      reason: '<price> "5 000" is not a number',
    });
  });

  it('keeps a description that is already HTML, and shortens a long first sentence to 120 characters', () => {
    expect(paragraphs('<p>Ya es <b>HTML</b></p>')).toBe('<p>Ya es <b>HTML</b></p>');
    const long = `${'palabra '.repeat(30)}final.`;
    const title = titleOf(long)!;
    expect(title.length).toBeLessThanOrEqual(120);
    expect(title.endsWith('…')).toBe(true);
    expect(featureKey('Vistas al mar / Sea views')).toBe('vistas_al_mar_sea_views');
  });
});

describe('hostile documents', () => {
  it('refuses a document with an external entity naming a local file, before reading anything of it', async () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE root [<!ENTITY secret SYSTEM "file:///etc/passwd">]><root><kyero><feed_version>3</feed_version></kyero><property><id>&secret;</id></property></root>`;
    await expect(readAll(text(xml))).rejects.toThrow(KyeroDocumentError);
    await expect(readAll(text(xml))).rejects.toThrow('declares a DTD');
  });

  it('refuses an entity expansion bomb by its DTD, before expanding anything', async () => {
    const entities = Array.from({ length: 10 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join('');
    const xml = `<?xml version="1.0"?><!DOCTYPE root [<!ENTITY l0 "lol">${entities}]><root><property><id>&l10;</id></property></root>`;
    await expect(readAll(text(xml))).rejects.toThrow(KyeroDocumentError);
    await expect(readAll(text(xml))).rejects.toThrow('declares a DTD');
  });

  it('refuses an entity it does not know even without a DTD', async () => {
    await expect(readAll(text('<root><property><id>&nbsp;</id></property></root>'))).rejects.toThrow(KyeroDocumentError);
  });

  it('cuts a 200 MB text node without holding it, rejects its property and reads the next', async () => {
    // 64 KiB, sent 3,200 times (so the test itself holds one), as a file stream reads it.
    const chunk = Buffer.from('a'.repeat(64 * 1024));
    async function* huge() {
      yield Buffer.from('<root><kyero><feed_version>3</feed_version></kyero><property><id>BIG</id><desc><es>');
      for (let i = 0; i < 3200; i++) yield chunk;
      yield Buffer.from('</es></desc></property><property><id>NEXT</id></property></root>');
    }
    const before = process.memoryUsage().rss;
    let peak = before;
    const properties: KyeroProperty[] = [];
    for await (const p of readKyeroFeed(Readable.from(huge()))) {
      properties.push(p);
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(properties.map((p) => [p.texts.get('id'), p.overlong])).toEqual([
      ['BIG', 'desc/es'],
      ['NEXT', null],
    ]);
    expect(recordOfKyero(properties[0])).toMatchObject({ ok: false, reason: '<desc/es> is longer than a description can be' });
    expect(peak - before).toBeLessThan(100 * 1024 * 1024);
  }, 60_000);

  it('cuts every kind of character run, text, CDATA and attribute values, and drops comments, keeping the markup', () => {
    const limiter = new CharacterRunLimiter(3);
    const cut = limiter.push('<a x="123456" y=\'ab\'>abcdefg<![CDATA[12<3456]]><!-- a comment --><b>12</b>');
    expect(cut).toBe('<a x="1234" y=\'ab\'>abcd<![CDATA[12<3]]><!----><b>12</b>');
    // Across chunk boundaries too.
    const split = new CharacterRunLimiter(3);
    expect(['<a>ab', 'cdefg<![CD', 'ATA[123', '456]', ']></a>'].map((c) => split.push(c)).join('')).toBe('<a>abcd<![CDATA[1234]]></a>');
  });

  it('gives the same output however the document is cut into chunks, and the document itself (comments emptied) when no run is too long', () => {
    const document = readFileSync(join(FIXTURES, 'quirks.xml'), 'utf8') + '<!-- a -- b --><x a="]]>">]]]</x><![CDATA[]]]]><![CDATA[a]]>';
    const whole = (limit: number) => new CharacterRunLimiter(limit).push(document);
    expect(whole(1_000_000)).toBe(document.replace(/<!--[\s\S]*?-->/g, '<!---->'));
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 200 }),
        fc.constantFrom(3, 20, 1_000_000),
        (sizes, limit) => {
          const limiter = new CharacterRunLimiter(limit);
          let out = '';
          let at = 0;
          for (let k = 0; at < document.length; k++) {
            const size = sizes[k % sizes.length];
            out += limiter.push(document.slice(at, at + size));
            at += size;
          }
          expect(out).toBe(whole(limit));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives the properties that closed before a fault, then says where the document stops being XML', async () => {
    const read: string[] = [];
    const reading = (async () => {
      for await (const p of readKyeroFeed(text('<root><property><id>1</id></property><property><id>2</id></propert></root>')))
        read.push(p.texts.get('id')!);
    })();
    await expect(reading).rejects.toThrow(KyeroDocumentError);
    expect(read).toEqual(['1']);
  });

  it('says where a document stops being well-formed XML', async () => {
    await expect(readAll(text('<root><property><id>1</id></propert></root>'))).rejects.toThrow(/not well-formed XML \(1:\d+/);
    await expect(readAll(text('<rss><channel/></rss>'))).rejects.toThrow("the document's root is <rss>, not a Kyero v3 <root>");
    await expect(readAll(text(''))).rejects.toThrow('the document is empty');
  });
});
