/**
 * Listings kept in the console (issue 27, CONTRACT §14), on this process's engine: created,
 * edited, moved between statuses and switched by both roles through the console's forms, with
 * the effects of an import (the API, the changes feed, property.changed, re-matching); bad
 * input answers 422 beside its field and stores nothing; another business's listing is a 404.
 */
import { describe, expect, it } from 'vitest';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';

describe('listings in the console', () => {
  let theirs = 0;
  const t = withApp({
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'owner@uno.example', 'owner');
      await userWithPassword(db, businessId, 'agent@uno.example', 'agent');
      const other = await insertBusiness(db, 'Agencia Dos', nowRfc3339());
      await importRecords(db, other.id, [listing('DOS-1')]);
      theirs = await propertyId(db, 'DOS-1');
    },
  });

  const agent = () => loggedIn(t.app, 'agent@uno.example');

  /** The form of a new flat for sale, as an agent fills it in. */
  const flat = {
    external_ref: '',
    title: 'Piso luminoso en Delicias',
    description: '<p>Reformado.</p><script>alert(1)</script>',
    operation: ['venta'],
    type: 'apartamento',
    subtype: 'piso',
    price: '185.000',
    size_total: '82,5',
    bedrooms: '3',
    bathrooms: '1',
    address: 'Calle Delicias 12, 3ºB',
    address_approximate: 'Delicias, Zaragoza',
    postal_code: '50017',
    city: 'Zaragoza',
    province: 'Zaragoza',
    country: 'España',
    lat: '41.6497',
    lon: '-0.9112',
    address_privacy: 'approximate',
    status: 'disponible',
    public: '1',
    features: ['ascensor', 'terraza'],
  };

  /** The property.changed events of the business, `[id, change]`, oldest first. */
  const changes = async () =>
    (
      await t.db
        .selectFrom('events')
        .select(['data'])
        .where('type', '=', 'property.changed')
        .where('business_id', '=', t.businessId)
        .orderBy('id')
        .execute()
    ).map((e) => JSON.parse(e.data) as { id: number; change: string });

  it('creates a listing from the form as an import would: published, in the feed, an event, a re-match queued', async () => {
    const browser = await agent();
    const created = await browser.submit('/console/properties/new', '/console/properties', flat);
    expect(created.statusCode).toBe(303);
    const id = Number(/^\/console\/properties\/(\d+)\?saved=1$/.exec(created.headers.location as string)![1]);
    const page = await browser.get(`/console/properties/${id}?saved=1`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Inmueble guardado.');
    expect(page.body).toContain(`inmo-${id}`);

    const api = await get(t.app, `/properties/${id}`, t.key);
    expect(api.status).toBe(200);
    expect(api.body.data).toMatchObject({
      id,
      operation: 'venta',
      type: 'apartamento',
      subtype: 'Piso',
      title: 'Piso luminoso en Delicias',
      price: 185000,
      size_total: 82.5,
      bedrooms: 3,
      description: '<p>Reformado.</p>',
      address: 'Delicias, Zaragoza',
      lat: 41.65,
      lon: -0.91,
      status: 'disponible',
      features: [
        { key: 'ascensor', label: 'Ascensor', value: true, isextra: false },
        { key: 'terraza', label: 'Terraza', value: true, isextra: false },
      ],
    });
    const feed = await get(t.app, '/properties/changes', t.key);
    expect(feed.body.data.map((c: { id: number; change: string }) => [c.id, c.change])).toContainEqual([id, 'upsert']);
    expect(await changes()).toEqual([{ id, change: 'upsert' }]);
    const rematch = await t.db
      .selectFrom('jobs')
      .select('kind')
      .where('kind', '=', 'rematch_catalogue')
      .where('state', '=', 'pending')
      .where('business_id', '=', t.businessId)
      .execute();
    expect(rematch).toHaveLength(1);
    // The preview shows what the API shows, as the website kit lays it out, not as JSON.
    const preview = page.body.slice(page.body.indexOf('id="h-preview"'), page.body.indexOf('id="h-edit"'));
    expect(preview).toContain('<div class="kit">');
    expect(preview).not.toContain('"external_ref"');
    expect(preview).toContain('<h4>Piso luminoso en Delicias</h4>');
    expect(preview).toMatch(/<p class="kit-price">185\.000\s€<\/p>/);
    expect(preview).toContain('<p class="kit-facts">82.5 m² · 3 dormitorios · 1 baño</p>');
    expect(preview).toContain('<li>Ascensor</li><li>Terraza</li>');
    expect(preview).toContain('<div class="kit-description"><p>Reformado.</p></div>');
    expect(preview).not.toContain('<script');
    // Where it is, only as precisely as the API publishes it (the approximate address).
    expect(preview).toMatch(/<h5>Ubicación aproximada<\/h5>\s*<p>Delicias, Zaragoza, Zaragoza, Zaragoza<\/p>/);
  });

  it('refuses a form that breaks a rule with 422, each fault beside its field, and stores nothing', async () => {
    const browser = await agent();
    const before = await snapshot(t.db);
    const bad = await browser.submit('/console/properties/new', '/console/properties', {
      ...flat,
      price: 'mucho',
      bedrooms: '2.5',
      size_total: '-3',
      lon: '',
      title: 'x'.repeat(10_001),
      address_privacy: 'secreta',
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('El inmueble no se ha guardado');
    for (const [field, text] of [
      ['price', 'Escribe un número'],
      ['bedrooms', 'Escribe un número entero.'],
      ['size_total', 'No puede ser menor que 0.'],
      ['title', 'Como mucho 10000 caracteres.'],
      ['address_privacy', 'Elige una de las opciones.'],
    ]) {
      expect(bad.body, field).toMatch(new RegExp(`id="e-${field}">${text}`));
    }
    expect(bad.body).toMatch(/id="p-price"[^>]*aria-invalid="true"/);
    // What was typed is shown again.
    expect(bad.body).toContain('value="mucho"');
    // The rule beyond the schema: a position needs both halves.
    const half = await browser.submit('/console/properties/new', '/console/properties', { ...flat, lon: '' });
    expect(half.statusCode).toBe(422);
    expect(half.body).toContain('Escribe la latitud y la longitud, las dos o ninguna.');
    expect(await snapshot(t.db)).toBe(before);
  });

  it('edits a listing: the change reaches the API and the feed, created_at and photos stay', async () => {
    await importRecords(t.db, t.businessId, [
      listing('EDIT-1', {
        images: [{ url: 'https://img.example/1.jpg', public: true, is_primary: true }],
        created_at: '2025-01-02T03:04:05+00:00',
      }),
    ]);
    const id = await propertyId(t.db, 'EDIT-1');
    const imagesBefore = await t.db.selectFrom('property_images').select(['id', 'url']).where('property_id', '=', id).execute();
    const createdAt = (await get(t.app, `/properties/${id}`, t.key)).body.data.created_at;
    expect(Date.parse(createdAt)).toBe(Date.parse('2025-01-02T03:04:05Z'));
    const browser = await agent();
    const page = await browser.get(`/console/properties/${id}`);
    expect(page.body).toContain('value="EDIT-1"');
    const marker =
      (
        await t.db
          .selectFrom('events')
          .select((eb) => eb.fn.max('id').as('m'))
          .executeTakeFirstOrThrow()
      ).m ?? 0;
    const form = Object.fromEntries(
      [...page.body.matchAll(/<input id="p-([a-z_]+)" name="\1"[^>]*value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    const edited = await browser.submit(`/console/properties/${id}`, `/console/properties/${id}`, {
      ...form,
      operation: ['venta'],
      type: 'apartamento',
      address_privacy: 'approximate',
      status: 'disponible',
      public: '1',
      price: '99000',
    });
    expect(edited.statusCode).toBe(303);
    const api = (await get(t.app, `/properties/${id}`, t.key)).body.data;
    expect(api.price).toBe(99000);
    expect(api.created_at).toBe(createdAt);
    expect(Date.parse(api.updated_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(api.images).toEqual([{ id: imagesBefore[0].id, url: 'https://img.example/1.jpg', order: 0, is_primary: true, title: null }]);
    const later = await t.db
      .selectFrom('events')
      .select('data')
      .where('id', '>', Number(marker))
      .where('type', '=', 'property.changed')
      .execute();
    expect(later.map((e) => JSON.parse(e.data))).toEqual([{ id, change: 'upsert' }]);
  });

  it('moves a listing between statuses in one click: reserved stays public, sold leaves the catalogue; sold is not undone by a click', async () => {
    await importRecords(t.db, t.businessId, [listing('MOVE-1')]);
    const id = await propertyId(t.db, 'MOVE-1');
    const browser = await agent();
    const click = (path: string, form: Record<string, string>) =>
      browser.submit('/console/properties', `/console/properties/${id}/${path}`, {
        back: '/console/properties?status=disponible',
        ...form,
      });
    const reserved = await click('status', { status: 'reservada' });
    expect([reserved.statusCode, reserved.headers.location]).toEqual([303, '/console/properties?status=disponible']);
    expect((await get(t.app, `/properties/${id}`, t.key)).body.data.status).toBe('reservada');
    expect((await click('featured', { value: '1' })).statusCode).toBe(303);
    expect((await get(t.app, `/properties/${id}`, t.key)).body.data.is_featured).toBe(true);
    expect((await click('status', { status: 'vendida', closed_price: '180.000', closed_on: '2025-11-02' })).statusCode).toBe(303);
    expect((await get(t.app, `/properties/${id}`, t.key)).status).toBe(404);
    const feed = (await get(t.app, '/properties/changes?limit=500', t.key)).body.data as Array<{ id: number; change: string }>;
    expect(feed.find((c) => c.id === id)?.change).toBe('delete');
    expect((await changes()).filter((c) => c.id === id).map((c) => c.change)).toEqual(['upsert', 'upsert', 'upsert', 'delete']);
    const page = await browser.get(`/console/properties/${id}`);
    expect(page.body).toContain('No se publica: está vendido.');
    expect(page.body).toMatch(/Vendido por 180\.000\s€ el 2 de noviembre de 2025/);
    // What a sold listing can no longer do is not offered, and is refused when sent.
    expect(page.body).not.toContain('Dejar de publicar');
    expect(page.body).not.toContain('/featured"');
    const before = await snapshot(t.db);
    const undo = await click('status', { status: 'disponible' });
    expect(undo.statusCode).toBe(409);
    expect(undo.body).toContain('Ese cambio de estado no se hace con un clic');
    const hide = await click('public', { value: '0' });
    expect(hide.statusCode).toBe(409);
    expect(hide.body).toContain('«Dejar de publicar» no se puede hacer con estos: «Piso MOVE-1» (MOVE-1) está vendido.');
    expect(await snapshot(t.db)).toBe(before);
    // A return address elsewhere is not followed.
    await importRecords(t.db, t.businessId, [listing('MOVE-2')]);
    const other = await propertyId(t.db, 'MOVE-2');
    const elsewhere = await browser.submit('/console/properties', `/console/properties/${other}/public`, {
      value: '0',
      back: '//evil.example/',
    });
    expect(elsewhere.headers.location).toBe(`/console/properties/${other}`);
  });

  it('switches a listing off the public catalogue and back', async () => {
    await importRecords(t.db, t.businessId, [listing('PUB-1')]);
    const id = await propertyId(t.db, 'PUB-1');
    const browser = await agent();
    await browser.submit(`/console/properties/${id}`, `/console/properties/${id}/public`, { value: '0' });
    expect((await get(t.app, `/properties/${id}`, t.key)).status).toBe(404);
    expect((await browser.get(`/console/properties/${id}`)).body).toContain('No se publica: no está marcado para publicar.');
    await browser.submit(`/console/properties/${id}`, `/console/properties/${id}/public`, { value: '1' });
    expect((await get(t.app, `/properties/${id}`, t.key)).status).toBe(200);
  });

  it('keeps references unique: a create or an edit that takes another listing’s is refused and stores nothing', async () => {
    await importRecords(t.db, t.businessId, [listing('REF-A'), listing('REF-B')]);
    const id = await propertyId(t.db, 'REF-B');
    const browser = await agent();
    const before = await snapshot(t.db);
    const create = await browser.submit('/console/properties/new', '/console/properties', { ...flat, external_ref: 'REF-A' });
    expect(create.statusCode).toBe(422);
    expect(create.body).toContain('Otro inmueble ya tiene esa referencia.');
    const rename = await browser.submit(`/console/properties/${id}`, `/console/properties/${id}`, { ...flat, external_ref: 'REF-A' });
    expect(rename.statusCode).toBe(422);
    expect(rename.body).toContain('Otro inmueble ya tiene esa referencia.');
    expect(await snapshot(t.db)).toBe(before);
  });

  it("answers another business's listing exactly like a missing one, on every route, and changes nothing", async () => {
    const browser = await agent();
    const before = await snapshot(t.db);
    for (const id of [theirs, 999_999]) {
      expect((await browser.get(`/console/properties/${id}`)).statusCode).toBe(404);
      for (const [path, form] of [
        ['', flat],
        ['/status', { status: 'vendida' }],
        ['/public', { value: '0' }],
        ['/featured', { value: '1' }],
      ] as const) {
        expect((await browser.submit('/console/properties', `/console/properties/${id}${path}`, form)).statusCode, `${id}${path}`).toBe(
          404,
        );
      }
    }
    expect(await snapshot(t.db)).toBe(before);
  });

  it('lists every listing of the business, public or not, with search, filters, counts by status and pages', async () => {
    await importRecords(t.db, t.businessId, [
      listing('LIST-ALQ', { operation: 'alquiler', price: null, price_rent: 900, city: 'Huesca', title: 'Ático con vistas' }),
      listing('LIST-OFF', { public: false, type: 'oficina', subtype: 'despacho', title: 'Despacho céntrico' }),
      ...Array.from({ length: 55 }, (_, i) => listing(`BULK-${i}`, { city: 'Teruel' })),
    ]);
    const browser = await agent();
    const rows = (body: string) => [...body.matchAll(/<td class="col-ref"><code>([^<]+)<\/code><\/td>/g)].map((m) => m[1]);
    const byText = await browser.get('/console/properties?q=huesca');
    expect(rows(byText.body)).toEqual(['LIST-ALQ']);
    expect(byText.body).toMatch(/900\s€\/mes/);
    expect(rows((await browser.get('/console/properties?q=list-off')).body)).toEqual(['LIST-OFF']);
    expect(rows((await browser.get('/console/properties?operation=alquiler')).body)).toEqual(['LIST-ALQ']);
    expect(rows((await browser.get('/console/properties?type=oficina')).body)).toEqual(['LIST-OFF']);
    const all = await browser.get('/console/properties?q=BULK');
    expect(rows(all.body)).toHaveLength(50);
    expect(all.body).toContain('Inmuebles 1–50 de 55');
    const next = /href="([^"]+)" rel="next"/.exec(all.body)![1].replace(/&amp;/g, '&');
    expect(rows((await browser.get(next)).body)).toHaveLength(5);
    const counts = (await browser.get('/console/properties')).body;
    const total = Number(
      (
        await t.db
          .selectFrom('properties')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('business_id', '=', t.businessId)
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect(counts).toContain(`Todos <span class="count">${total}</span>`);
    // Another business's listing never shows.
    expect(rows((await browser.get('/console/properties?q=DOS')).body)).toEqual([]);
  });
});
