/** GET /properties and GET /properties/{id} against targeted fixtures (spec §4.4, §4.5; CONTRACT §4, §5). */
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { businessWithKey, importRecords, listing, snapshot } from '../../helpers/db.ts';
import { get, withApp, API_ONLY } from '../../helpers/http.ts';

let db: Db;
let key: string;
let otherKey: string;
const ids: Record<string, number> = {};

const t = withApp({
  surfaces: API_ONLY,
  seed: async (biz) => {
    db = biz.db;
    key = biz.key;
    const other = await businessWithKey(db, 'Otra Agencia');
    otherKey = other.key;
    await importRecords(db, biz.businessId, [
      listing('sale-public', { price: 200000, bedrooms: 3, updated_at: '2026-03-01T10:00:00+00:00', building_name: 'Torre Sol' }),
      listing('sale-approx', {
        price: 150000,
        bedrooms: 1,
        address_privacy: 'approximate',
        lat: 40.4168765,
        lon: -3.7038123,
        building_name: 'Secreto',
        updated_at: '2026-02-01T10:00:00+00:00',
      }),
      listing('sale-hidden', {
        price: null,
        address_privacy: 'hidden',
        building_name: 'Oculto',
        updated_at: '2026-02-01T10:00:00+00:00',
      }),
      listing('rent-annual', {
        operation: 'alquiler',
        rental_type: 'anual',
        price: null,
        price_rent: 900,
        city: 'Ávila',
        lat: 40.6566,
        lon: -4.6818,
        is_featured: true,
        updated_at: '2026-01-15T10:00:00+00:00',
      }),
      listing('rent-temporal', {
        operation: 'alquiler',
        rental_type: 'temporal',
        price: null,
        price_rent: 1200,
        city: 'Zaragoza',
        lat: 41.6488,
        lon: -0.8891,
        updated_at: '2026-01-14T10:00:00+00:00',
      }),
      listing('rent-unset', {
        operation: 'alquiler',
        rental_type: null,
        price: null,
        price_rent: 700,
        updated_at: '2026-01-13T10:00:00+00:00',
      }),
      listing('rent-holiday', {
        operation: 'alquiler',
        rental_type: 'vacacional',
        price: null,
        price_rent: 2000,
        updated_at: '2026-01-12T10:00:00+00:00',
      }),
      listing('traspaso-local', {
        operation: 'traspaso',
        type: 'local',
        subtype: 'local-comercial',
        price: null,
        price_transfer: 30000,
        bedrooms: null,
        updated_at: '2026-01-11T10:00:00+00:00',
      }),
      listing('sale-and-rent', {
        operation: 'venta,alquiler',
        subtype: 'atico',
        price: 300000,
        price_rent: 1500,
        bedrooms: 4,
        updated_at: '2026-01-10T10:00:00+00:00',
      }),
      listing('reserved', { status: 'reservada', price: 120000, updated_at: '2026-01-09T10:00:00+00:00' }),
      listing('sold', { status: 'vendida', updated_at: '2026-06-01T10:00:00+00:00' }),
      listing('withdrawn', { status: 'retirada', updated_at: '2026-06-01T10:00:00+00:00' }),
      listing('private', { public: false, updated_at: '2026-06-01T10:00:00+00:00' }),
      listing('media', {
        price: 99000,
        updated_at: '2026-01-08T10:00:00+00:00',
        subtype: 'nonexistent-key',
        description:
          '<p onclick="x()">Hola <script>alert(1)</script><a href="javascript:alert(1)">x</a><iframe src="https://e.vil"></iframe><b style="color:red">negrita</b></p>',
        images: [
          { url: 'https://img/2.webp', order: 2, is_primary: false, title: 'b', public: true },
          { url: 'https://img/1.webp', order: 1, is_primary: true, title: 'a', public: true },
          { url: 'https://img/private.webp', order: 0, is_primary: false, title: 'private', public: false },
        ],
        videos: [
          { title: 'ok', order: 0, url: 'https://v/1.mp4', hls_url: null, thumbnail_url: null, embed_url: null, processed: true },
          { title: 'raw', order: 1, url: 'https://v/2.mp4', hls_url: null, thumbnail_url: null, embed_url: null, processed: false },
        ],
        features: [{ key: 'ascensor', label: 'Ascensor', value: true, isextra: false }],
        specs: { floor: '3', building_name: 'smuggled', address_privacy: 'public', price_calc: { price_alq: 1 } },
      }),
      listing('hidden-videos', {
        price: 98000,
        updated_at: '2026-01-07T10:00:00+00:00',
        videos: [{ title: 'raw', order: 0, url: 'https://v/3.mp4', processed: false }],
      }),
    ]);
    await importRecords(db, other.businessId, [listing('other-biz', { updated_at: '2026-12-01T10:00:00+00:00' })]);
    const rows = await db.selectFrom('properties').select(['id', 'external_ref']).execute();
    for (const r of rows) ids[r.external_ref] = r.id;
  },
});

const refsOf = (body: { data: Array<{ id: number }> }) => body.data.map((p) => Object.entries(ids).find(([, id]) => id === p.id)?.[0]);

describe('GET /properties', () => {
  it('lists only public, available or reserved properties of the key’s business, newest update first, with the envelope', async () => {
    const { status, body } = await get(t.app, '/properties', key);
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['data', 'total', 'limit', 'offset']);
    expect(body.total).toBe(12);
    expect(body.limit).toBe(100);
    expect(body.offset).toBe(0);
    expect(refsOf(body)).toEqual([
      'sale-public',
      // equal updated_at: id desc
      'sale-hidden',
      'sale-approx',
      'rent-annual',
      'rent-temporal',
      'rent-unset',
      'rent-holiday',
      'traspaso-local',
      'sale-and-rent',
      'reserved',
      'media',
      'hidden-videos',
    ]);
  });

  it('pages with limit and offset; total ignores paging', async () => {
    const page = await get(t.app, '/properties?limit=5&offset=10', key);
    expect(page.body.total).toBe(12);
    expect(page.body.data).toHaveLength(2);
    expect(refsOf(page.body)).toEqual(['media', 'hidden-videos']);
    const beyond = await get(t.app, '/properties?offset=50', key);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.total).toBe(12);
  });

  it.each([
    ['operation=venta', ['sale-public', 'sale-hidden', 'sale-approx', 'sale-and-rent', 'reserved', 'media', 'hidden-videos']],
    ['operation=ALQUILER', ['rent-annual', 'rent-temporal', 'rent-unset', 'rent-holiday', 'sale-and-rent']],
    ['operation=traspaso', ['traspaso-local']],
    ['rental_type=temporal', ['rent-temporal']],
    ['rental_type=anual', ['rent-annual', 'rent-unset', 'sale-and-rent']],
    ['type=local', ['traspaso-local']],
    ['subtype=atico', ['sale-and-rent']],
    ['subtype=unknown', []],
    ['status=reservada', ['reserved']],
    ['status=vendida', []],
    ['city=%C3%81VILA', ['rent-annual']],
    ['city=zaragoza', ['rent-temporal']],
    ['city=Zarago', []],
    ['is_featured=true', ['rent-annual']],
    ['is_featured=YES', ['rent-annual']],
    ['min_bedrooms=3', ['sale-public', 'sale-and-rent']],
    ['operation=venta&min_price=150000&max_price=200000', ['sale-public', 'sale-approx']],
    ['operation=alquiler&max_price=900', ['rent-annual', 'rent-unset']],
    ['min_price=1000&max_price=1500', ['rent-temporal', 'sale-and-rent'].filter((r) => r !== 'sale-and-rent')],
  ])('filters %s', async (query, expected) => {
    const { status, body } = await get(t.app, `/properties?${query}`, key);
    expect(status).toBe(200);
    expect(refsOf(body)).toEqual(expected);
    expect(body.total).toBe(expected.length);
  });

  it('is_featured=false keeps only non-featured properties', async () => {
    const { body } = await get(t.app, '/properties?is_featured=0', key);
    expect(body.total).toBe(11);
    expect(body.data.every((p: { is_featured: boolean }) => p.is_featured === false)).toBe(true);
  });

  it('sorts by the operation’s price, properties without it last in both directions, ties by updated_at then id', async () => {
    const asc = await get(t.app, '/properties?operation=venta&sort=price_asc', key);
    expect(refsOf(asc.body)).toEqual(['hidden-videos', 'media', 'reserved', 'sale-approx', 'sale-public', 'sale-and-rent', 'sale-hidden']);
    const desc = await get(t.app, '/properties?operation=venta&sort=price_desc', key);
    expect(refsOf(desc.body)).toEqual(['sale-and-rent', 'sale-public', 'sale-approx', 'reserved', 'media', 'hidden-videos', 'sale-hidden']);
    const rent = await get(t.app, '/properties?operation=alquiler&sort=price_desc', key);
    expect(refsOf(rent.body)).toEqual(['rent-holiday', 'sale-and-rent', 'rent-temporal', 'rent-annual', 'rent-unset']);
  });

  it('without operation, sorts and filters by the first price that is set (sale, rent, transfer)', async () => {
    const { body } = await get(t.app, '/properties?sort=price_asc&limit=4', key);
    expect(refsOf(body)).toEqual(['rent-unset', 'rent-annual', 'rent-temporal', 'rent-holiday']);
    const last = await get(t.app, '/properties?sort=price_asc&offset=11', key);
    expect(refsOf(last.body)).toEqual(['sale-hidden']);
    const filtered = await get(t.app, '/properties?min_price=25000&max_price=35000', key);
    expect(refsOf(filtered.body)).toEqual(['traspaso-local']);
  });

  it('reports every invalid parameter at once, Pydantic-shaped, keeping the raw input', async () => {
    const { status, body } = await get(
      t.app,
      '/properties?limit=0&offset=x&operation=compra&rental_type=vacacional&type=piso&min_price=-1&max_price=abc&min_bedrooms=1.5&is_featured=maybe&sort=price',
      key,
    );
    expect(status).toBe(422);
    expect(body.detail).toEqual([
      {
        type: 'greater_than_equal',
        loc: ['query', 'limit'],
        msg: 'Input should be greater than or equal to 1',
        input: '0',
        ctx: { ge: 1 },
      },
      {
        type: 'int_parsing',
        loc: ['query', 'offset'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: 'x',
      },
      {
        type: 'literal_error',
        loc: ['query', 'operation'],
        msg: "Input should be 'venta', 'alquiler' or 'traspaso'",
        input: 'compra',
        ctx: { expected: "'venta', 'alquiler' or 'traspaso'" },
      },
      {
        type: 'literal_error',
        loc: ['query', 'rental_type'],
        msg: "Input should be 'temporal' or 'anual'",
        input: 'vacacional',
        ctx: { expected: "'temporal' or 'anual'" },
      },
      {
        type: 'literal_error',
        loc: ['query', 'type'],
        msg: "Input should be 'apartamento', 'casa', 'local', 'nave', 'almacenaje', 'oficina', 'terreno', 'aparcamiento' or 'edificio'",
        input: 'piso',
        ctx: { expected: "'apartamento', 'casa', 'local', 'nave', 'almacenaje', 'oficina', 'terreno', 'aparcamiento' or 'edificio'" },
      },
      {
        type: 'greater_than_equal',
        loc: ['query', 'min_price'],
        msg: 'Input should be greater than or equal to 0',
        input: '-1',
        ctx: { ge: 0 },
      },
      {
        type: 'float_parsing',
        loc: ['query', 'max_price'],
        msg: 'Input should be a valid number, unable to parse string as a number',
        input: 'abc',
      },
      {
        type: 'int_parsing',
        loc: ['query', 'min_bedrooms'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: '1.5',
      },
      {
        type: 'bool_parsing',
        loc: ['query', 'is_featured'],
        msg: 'Input should be a valid boolean, unable to interpret input',
        input: 'maybe',
      },
      {
        type: 'literal_error',
        loc: ['query', 'sort'],
        msg: "Input should be 'price_asc' or 'price_desc'",
        input: 'price',
        ctx: { expected: "'price_asc' or 'price_desc'" },
      },
    ]);
  });

  it('reports map-area faults together with the other faults, and reads huge integers as Python does', async () => {
    const many = encodeURIComponent(JSON.stringify(Array.from({ length: 51 }, () => ({ type: 'point', lat: 40, lng: -3 }))));
    const { body } = await get(t.app, `/properties?limit=0&locations=${many}&min_bedrooms=x`, key);
    expect(body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc[1]])).toEqual([
      ['greater_than_equal', 'limit'],
      ['too_long', 'locations'],
      ['int_parsing', 'min_bedrooms'],
    ]);
    const huge = await get(t.app, '/properties?limit=99999999999999999999', key);
    expect(huge.body.detail[0]).toMatchObject({ type: 'less_than_equal', ctx: { le: 1000 } });
    const far = await get(t.app, '/properties?offset=99999999999999999999', key);
    expect(far.status).toBe(200);
    expect(far.body.data).toEqual([]);
    expect((await get(t.app, '/leads?offset=99999999999999999999', key)).status).toBe(200);
    expect((await get(t.app, '/properties/99999999999999999999', key)).status).toBe(404);
    // Beyond the 32-bit integer column (PostgreSQL would refuse the comparison): nothing has that many bedrooms.
    const manyBedrooms = await get(t.app, '/properties?min_bedrooms=2147483648', key);
    expect([manyBedrooms.status, manyBedrooms.body.total]).toEqual([200, 0]);
  });

  it('rejects limit above 1000', async () => {
    const { status, body } = await get(t.app, '/properties?limit=1001', key);
    expect(status).toBe(422);
    expect(body.detail[0]).toMatchObject({ type: 'less_than_equal', ctx: { le: 1000 }, input: '1001' });
  });

  it('changes nothing in the database on any error', async () => {
    const before = await snapshot(db);
    await get(t.app, '/properties?limit=0', key);
    await get(t.app, '/properties/0', key);
    await get(t.app, '/properties/999999', key);
    expect(await snapshot(db)).toBe(before);
  });
});

describe('property object', () => {
  it('publishes everything of a public address', async () => {
    const { status, body } = await get(t.app, `/properties/${ids['sale-public']}`, key);
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['data']);
    const p = body.data;
    expect(p).toMatchObject({
      id: ids['sale-public'],
      operation: 'venta',
      type: 'apartamento',
      subtype: 'Piso',
      price: 200000,
      address: 'Calle Mayor 1, Madrid',
      postal_code: '28013',
      lat: 40.4165123,
      lon: -3.7055456,
      status: 'disponible',
      is_featured: false,
      created_at: '2026-01-01T10:00:00.000+00:00',
      updated_at: '2026-03-01T10:00:00.000+00:00',
    });
    expect(p.specs).toEqual({ price_calc: { price_alq: null, price_trasp: null }, address_privacy: 'public', building_name: 'Torre Sol' });
    expect(p.images).toEqual([]);
    expect(p.videos).toBeNull();
    expect(p.features).toBeNull();
  });

  it('publishes only the approximate address and 2-decimal coordinates of an approximate one', async () => {
    const { body } = await get(t.app, `/properties/${ids['sale-approx']}`, key);
    const p = body.data;
    expect(p.address).toBe('Centro, Madrid');
    expect(p.lat).toBe(40.42);
    expect(p.lon).toBe(-3.7);
    expect(p.postal_code).toBe('28013');
    expect(p.specs).not.toHaveProperty('building_name');
    expect(JSON.stringify(p)).not.toContain('Calle Mayor');
    expect(JSON.stringify(p)).not.toContain('Secreto');
  });

  it('has no address, coordinates, postal code or building name keys at all when hidden', async () => {
    const { body } = await get(t.app, `/properties/${ids['sale-hidden']}`, key);
    const p = body.data;
    for (const k of ['address', 'lat', 'lon', 'postal_code']) expect(p).not.toHaveProperty(k);
    expect(p.specs).not.toHaveProperty('building_name');
    expect(JSON.stringify(p)).not.toMatch(/Calle Mayor|Oculto|40\.416|28013/);
  });

  it('shows public images by order, processed videos only, features, sanitised HTML, reserved spec keys overridden', async () => {
    const { body } = await get(t.app, `/properties/${ids['media']}`, key);
    const p = body.data;
    expect(p.subtype).toBe('Sin Especificar');
    expect(p.images.map((i: { url: string }) => i.url)).toEqual(['https://img/1.webp', 'https://img/2.webp']);
    expect(p.images[0]).toEqual({ id: expect.any(Number), url: 'https://img/1.webp', order: 1, is_primary: true, title: 'a' });
    expect(p.videos).toHaveLength(1);
    expect(Object.keys(p.videos[0])).toEqual(['id', 'title', 'order', 'url', 'hls_url', 'thumbnail_url', 'embed_url']);
    expect(p.features).toEqual([{ key: 'ascensor', label: 'Ascensor', value: true, isextra: false }]);
    expect(p.description).not.toMatch(/script|onclick|javascript:|iframe|style=/i);
    expect(p.description).toContain('<b>negrita</b>');
    expect(p.specs).toEqual({
      floor: '3',
      price_calc: { price_alq: null, price_trasp: null },
      address_privacy: 'public',
      building_name: null,
    });
    const hidden = await get(t.app, `/properties/${ids['hidden-videos']}`, key);
    expect(hidden.body.data.videos).toBeNull();
  });

  it('puts rent and transfer prices in specs.price_calc', async () => {
    const rent = await get(t.app, `/properties/${ids['sale-and-rent']}`, key);
    expect(rent.body.data.price).toBe(300000);
    expect(rent.body.data.specs.price_calc).toEqual({ price_alq: 1500, price_trasp: null });
    expect(rent.body.data.subtype).toBe('Ático');
    const transfer = await get(t.app, `/properties/${ids['traspaso-local']}`, key);
    expect(transfer.body.data.specs.price_calc).toEqual({ price_alq: null, price_trasp: 30000 });
  });

  it.each(['sold', 'withdrawn', 'private'])('is 404 for a %s property', async (ref) => {
    const { status, body } = await get(t.app, `/properties/${ids[ref]}`, key);
    expect(status).toBe(404);
    expect(body).toEqual({ detail: 'Property not found' });
  });

  it('answers another business’s property exactly like a missing one', async () => {
    const foreign = await get(t.app, `/properties/${ids['other-biz']}`, key);
    const missing = await get(t.app, '/properties/987654', key);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    const own = await get(t.app, `/properties/${ids['other-biz']}`, otherKey);
    expect(own.status).toBe(200);
  });

  it.each([
    ['0', 'greater_than_equal'],
    ['-3', 'greater_than_equal'],
    ['abc', 'int_parsing'],
    ['1.5', 'int_parsing'],
  ])('validates the path parameter %s', async (id, type) => {
    const { status, body } = await get(t.app, `/properties/${id}`, key);
    expect(status).toBe(422);
    expect(body.detail).toEqual([expect.objectContaining({ type, loc: ['path', 'property_id'], input: id })]);
  });
});

describe('locations filter', () => {
  const q = (areas: unknown) => `/properties?locations=${encodeURIComponent(JSON.stringify(areas))}`;

  it('matches circles, points, markers, rectangles and polygons, any of several areas', async () => {
    const sol = { lat: 40.4168, lng: -3.7038 };
    const circle = await get(t.app, q([{ type: 'circle', center: sol, radius: 300 }]), key);
    expect(refsOf(circle.body)).toContain('sale-public');
    expect(refsOf(circle.body)).not.toContain('rent-annual');
    const avila = await get(t.app, q([{ type: 'point', lat: 40.6566, lon: -4.6818 }]), key);
    expect(refsOf(avila.body)).toEqual(['rent-annual']);
    const both = await get(
      t.app,
      q([
        { type: 'marker', lat: 40.6566, lng: -4.6818, radius: 100 },
        { type: 'rectangle', bounds: { south: 41.6, west: -0.95, north: 41.7, east: -0.85 } },
      ]),
      key,
    );
    expect(refsOf(both.body)).toEqual(['rent-annual', 'rent-temporal']);
    const polygon = await get(
      t.app,
      q([
        {
          type: 'polygon',
          coordinates: [
            { lat: 41.6, lng: -0.95 },
            { lat: 41.7, lng: -0.95 },
            { lat: 41.7, lng: -0.85 },
            { lat: 41.6, lng: -0.85 },
          ],
        },
      ]),
      key,
    );
    expect(refsOf(polygon.body)).toEqual(['rent-temporal']);
    // The triangle's hypotenuse passes north of the point (41.6488, -0.8891): outside.
    const triangle = await get(
      t.app,
      q([
        {
          type: 'polygon',
          coordinates: [
            { lat: 41.6, lng: -0.95 },
            { lat: 41.7, lng: -0.95 },
            { lat: 41.7, lng: -0.85 },
          ],
        },
      ]),
      key,
    );
    expect(refsOf(triangle.body)).toEqual([]);
    const geojson = await get(
      t.app,
      q([
        {
          type: 'polygon',
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [-0.95, 41.6],
                [-0.95, 41.7],
                [-0.85, 41.7],
                [-0.85, 41.6],
                [-0.95, 41.6],
              ],
            ],
          },
        },
        { geometry: { type: 'Point', coordinates: [-4.6818, 40.6566] } },
      ]),
      key,
    );
    expect(refsOf(geojson.body)).toEqual(['rent-annual', 'rent-temporal']);
  });

  it('ignores text that is not a JSON array and entries that are not areas', async () => {
    for (const value of ['not json', '{"type":"circle"}', '[]', '[{"type":"blob"},{"type":"circle","radius":5}]']) {
      const { status, body } = await get(t.app, `/properties?locations=${encodeURIComponent(value)}`, key);
      expect(status).toBe(200);
      expect(body.total).toBe(12);
    }
  });

  it('tests areas against the published position: an approximate address is found at its rounded point only', async () => {
    // sale-approx really is at 40.4168765,-3.7038123 but publishes 40.42,-3.70.
    const atTruth = await get(t.app, q([{ type: 'circle', center: { lat: 40.4168765, lng: -3.7038123 }, radius: 50 }]), key);
    expect(refsOf(atTruth.body)).not.toContain('sale-approx');
    const atPublished = await get(t.app, q([{ type: 'circle', center: { lat: 40.42, lng: -3.7 }, radius: 50 }]), key);
    expect(refsOf(atPublished.body)).toContain('sale-approx');
    // sale-hidden is at 40.4165123,-3.7055456, publishes nothing, and is tested at 40.42,-3.71.
    const hiddenTruth = await get(t.app, q([{ type: 'circle', center: { lat: 40.4165123, lng: -3.7055456 }, radius: 30 }]), key);
    expect(refsOf(hiddenTruth.body)).not.toContain('sale-hidden');
    const hiddenRounded = await get(t.app, q([{ type: 'circle', center: { lat: 40.42, lng: -3.71 }, radius: 30 }]), key);
    expect(refsOf(hiddenRounded.body)).toContain('sale-hidden');
  });

  it('rejects more than 50 areas and polygons of more than 1,000 vertices', async () => {
    const many = Array.from({ length: 51 }, () => ({ type: 'point', lat: 40, lng: -3 }));
    const tooMany = await get(t.app, q(many), key);
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail[0]).toMatchObject({
      type: 'too_long',
      loc: ['query', 'locations'],
      ctx: { max_length: 50, actual_length: 51 },
    });
    const ring = Array.from({ length: 1001 }, (_, i) => ({
      lat: 40 + Math.sin((i / 1001) * 2 * Math.PI),
      lng: -3 + Math.cos((i / 1001) * 2 * Math.PI),
    }));
    const big = await get(t.app, q([{ type: 'polygon', coordinates: ring }]), key);
    expect(big.status).toBe(422);
    expect(big.body.detail[0]).toMatchObject({ type: 'too_long', loc: ['query', 'locations', 0] });
  });
});
