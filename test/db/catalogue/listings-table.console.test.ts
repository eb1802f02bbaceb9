/**
 * The console's listings table made for daily use (issue 47, CONTRACT §23), on this process's
 * engine: sorted by date, price and reference with `aria-sort` and the filters kept; a
 * thumbnail per row; one control per row; bulk publish, unpublish, feature and withdraw of the
 * rows ticked, all or none, with the events and audit of the single actions; sold and rented
 * ask for the price and the day, which are stored and cleared by a later status change. Every
 * 4xx stores nothing.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { businessToday } from '../../../src/services/catalogue/listings.ts';
import { Browser, loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';

describe('the listings table', () => {
  let theirs = 0;
  const t = withApp({
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agent@uno.example', 'agent');
      const other = await insertBusiness(db, 'Agencia Dos', nowRfc3339());
      await importRecords(db, other.id, [listing('THEIRS-1', { public: false })]);
      theirs = await propertyId(db, 'THEIRS-1');
    },
  });
  const agent = () => loggedIn(t.app, 'agent@uno.example');
  /** The references of a list page's rows, in order. */
  const refs = (body: string) => [...body.matchAll(/<td class="col-ref"><code>([^<]+)<\/code><\/td>/g)].map((m) => m[1]);
  /** The header cell of a sortable column. */
  const header = (body: string, key: string) => new RegExp(`<th scope="col" class="sortable col-${key}"[^>]*>.*?</th>`, 's').exec(body)![0];
  const stored = (id: number) =>
    t.db
      .selectFrom('properties')
      .select(['status', 'public', 'is_featured', 'listed', 'closed_price', 'closed_on', 'change_seq'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const events = async (ids: number[]) =>
    (
      await t.db
        .selectFrom('events')
        .select(['data'])
        .where('type', '=', 'property.changed')
        .where('business_id', '=', t.businessId)
        .orderBy('id')
        .execute()
    )
      .map((e) => JSON.parse(e.data) as { id: number; change: string })
      .filter((e) => ids.includes(e.id));

  it('sorts by date, price and reference both ways, marks the column with aria-sort, and keeps the filters', async () => {
    await importRecords(t.db, t.businessId, [
      listing('SORT-B', { price: 300_000 }),
      listing('SORT-A', { price: 100_000 }),
      listing('SORT-C', { operation: 'alquiler', price: null, price_rent: 900 }),
      listing('SORT-D', { price: null }),
    ]);
    const browser = await agent();
    const page = async (query: string) => (await browser.get(`/console/properties?q=SORT-${query}`)).body;
    // Newest written first by default (the same import: by id).
    const newest = await page('');
    expect(refs(newest)).toEqual(['SORT-D', 'SORT-C', 'SORT-A', 'SORT-B']);
    expect(header(newest, 'date')).toContain('aria-sort="descending"');
    expect(header(newest, 'price')).not.toContain('aria-sort');
    expect(header(newest, 'price')).toContain('href="/console/properties?q=SORT-&amp;sort=price&amp;dir=asc"');
    expect(refs(await page('&sort=date&dir=asc'))).toEqual(['SORT-B', 'SORT-A', 'SORT-C', 'SORT-D']);
    // By price: the first price stated (a rent too), listings without one last either way.
    const cheapest = await page('&sort=price&dir=asc');
    expect(refs(cheapest)).toEqual(['SORT-C', 'SORT-A', 'SORT-B', 'SORT-D']);
    expect(header(cheapest, 'price')).toContain('aria-sort="ascending"');
    expect(header(cheapest, 'price')).toContain('dir=desc');
    expect(header(cheapest, 'date')).not.toContain('aria-sort');
    // The search form keeps the order; the pages' links keep both.
    expect(cheapest).toContain('<input type="hidden" name="sort" value="price"><input type="hidden" name="dir" value="asc">');
    expect(refs(await page('&sort=price&dir=desc'))).toEqual(['SORT-B', 'SORT-A', 'SORT-C', 'SORT-D']);
    expect(refs(await page('&sort=ref&dir=asc'))).toEqual(['SORT-A', 'SORT-B', 'SORT-C', 'SORT-D']);
    const zToA = await page('&sort=ref&dir=desc');
    expect(refs(zToA)).toEqual(['SORT-D', 'SORT-C', 'SORT-B', 'SORT-A']);
    expect(header(zToA, 'ref')).toContain('aria-sort="descending"');
    // With an operation, its own price: the rent of a rental.
    expect(refs(await page('&operation=venta&sort=price&dir=desc'))).toEqual(['SORT-B', 'SORT-A', 'SORT-D']);
    // In English too, in words.
    const english = new Browser(t.app, { 'accept-language': 'en' });
    await english.login('agent@uno.example');
    const inEnglish = (await english.get('/console/properties?q=SORT-&sort=price&dir=asc')).body;
    for (const words of ['>Updated', 'With the selected', 'Apply to the selected', '>Choose an action<', '>Mark sold…<', '(descending)'])
      expect(inEnglish).toContain(words);
    // An order the list does not know is the default one.
    expect(refs(await page('&sort=city&dir=sideways'))).toEqual(['SORT-D', 'SORT-C', 'SORT-A', 'SORT-B']);
  });

  it("shows each listing's first photo at its smallest width, and one control for what it can do", async () => {
    const stored = `http://127.0.0.1:9/media/p/1/${randomUUID()}-1600.jpg`;
    await importRecords(t.db, t.businessId, [
      listing('THUMB-1', {
        images: [
          { url: 'https://img.example/otra.jpg', is_primary: false, order: 0 },
          { url: stored, is_primary: true, order: 1 },
        ],
      }),
      listing('THUMB-2', { images: [{ url: 'https://img.example/solo.jpg', order: 0 }] }),
      listing('THUMB-3', { status: 'vendida' }),
      listing('THUMB-4', { operation: 'alquiler', price: null, price_rent: 700 }),
    ]);
    const body = (await (await agent()).get('/console/properties?q=THUMB-&sort=ref&dir=asc')).body;
    const row = (ref: string) => new RegExp(`<tr>(?:(?!</tr>).)*<code>${ref}</code>.*?</tr>`, 's').exec(body)![0];
    expect(row('THUMB-1')).toContain(`<img src="${stored.replace('-1600.jpg', '-480.jpg')}" alt=""`);
    expect(row('THUMB-2')).toContain('<img src="https://img.example/solo.jpg" alt=""');
    expect(row('THUMB-3')).toContain('class="no-photo"');
    // One control per row, in words; sold and rented only where the operation allows.
    const options = (ref: string) => [...row(ref).matchAll(/<option value="([^"]*)">([^<]+)<\/option>/g)].map((m) => `${m[1]}:${m[2]}`);
    expect(options('THUMB-1')).toEqual([
      // Nothing chosen until the agent chooses: a stray click on "Aplicar" changes nothing.
      ':Elige una acción',
      'reservada:Reservar',
      'vendida:Marcar vendido…',
      'retirada:Retirar',
      'unpublish:Dejar de publicar',
      'feature:Destacar',
    ]);
    expect(options('THUMB-4')).toContain('alquilada:Marcar alquilado…');
    expect(options('THUMB-4')).not.toContain('vendida:Marcar vendido…');
    expect(row('THUMB-1').match(/<form /g)).toHaveLength(1);
    // A sold listing is changed by an edit: no publishing offered.
    expect(options('THUMB-3')).toEqual([]);
    expect(row('THUMB-3')).toContain('Editar para cambiar su estado');
  });

  it('applies the row control: a move, a switch, or the question of a sale; an unknown action changes nothing', async () => {
    await importRecords(t.db, t.businessId, [listing('ROW-1')]);
    const id = await propertyId(t.db, 'ROW-1');
    const browser = await agent();
    const act = (action: string) =>
      browser.submit('/console/properties', `/console/properties/${id}/action`, { action, back: '/console/properties?q=ROW' });
    const reserved = await act('reservada');
    expect([reserved.statusCode, reserved.headers.location]).toEqual([303, '/console/properties?q=ROW']);
    expect((await act('feature')).statusCode).toBe(303);
    expect(await stored(id)).toMatchObject({ status: 'reservada', is_featured: 1 });
    const sell = await act('vendida');
    expect(sell.statusCode).toBe(303);
    expect(sell.headers.location).toBe(`/console/properties/${id}/close?status=vendida&back=%2Fconsole%2Fproperties%3Fq%3DROW`);
    const before = await snapshot(t.db);
    for (const action of ['borrar', '']) {
      const unknown = await act(action);
      expect(unknown.statusCode).toBe(422);
      expect(unknown.body).toContain('No se ha cambiado nada: elige qué hacer con el inmueble.');
    }
    expect(await snapshot(t.db)).toBe(before);
    expect(await stored(id)).toMatchObject({ status: 'reservada' });
  });

  it('asks for the price and the day of a sale: both needed, no day to come, stored, and cleared by a later status change', async () => {
    await importRecords(t.db, t.businessId, [listing('SELL-1', { price: 210_000 })]);
    const id = await propertyId(t.db, 'SELL-1');
    const browser = await agent();
    const today = await businessToday(t.db, t.businessId);
    const ask = await browser.get(`/console/properties/${id}/close?status=vendida&back=/console/properties`);
    expect(ask.statusCode).toBe(200);
    expect(ask.body).toContain('<h1>Marcar como vendido: Piso SELL-1</h1>');
    // The asking price and today, to confirm or correct; no day after today.
    expect(ask.body).toMatch(/<input id="c-closed_price" name="closed_price"[^>]* value="210000"/);
    expect(ask.body).toMatch(new RegExp(`<input id="c-closed_on" name="closed_on" type="date" max="${today}" required value="${today}"`));
    const sell = (form: Record<string, string>) =>
      browser.submit(`/console/properties/${id}/close?status=vendida`, `/console/properties/${id}/status`, {
        status: 'vendida',
        back: '/console/properties',
        ...form,
      });
    const before = await snapshot(t.db);
    const tomorrow = new Date(Date.parse(`${today}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    for (const [form, words] of [
      [{}, ['Escribe el precio.', 'Escribe la fecha.']],
      [{ closed_price: '200.000' }, ['Escribe la fecha.']],
      [{ closed_on: today }, ['Escribe el precio.']],
      [{ closed_price: 'mucho', closed_on: today }, ['Escribe el precio en euros']],
      [{ closed_price: '0', closed_on: today }, ['El precio debe ser mayor que 0']],
      [{ closed_price: '200000', closed_on: tomorrow }, ['La fecha no puede ser posterior a hoy.']],
      [{ closed_price: '200000', closed_on: '2026-02-30' }, ['Escribe una fecha del calendario']],
    ] as const) {
      const refused = await sell(form);
      expect(refused.statusCode, JSON.stringify(form)).toBe(422);
      for (const said of words) expect(refused.body, JSON.stringify(form)).toContain(said);
      expect(refused.body).toContain('aria-invalid="true"');
    }
    expect(await snapshot(t.db)).toBe(before);

    const sold = await sell({ closed_price: '205.000', closed_on: '2025-06-30' });
    expect([sold.statusCode, sold.headers.location]).toEqual([303, '/console/properties']);
    expect(await stored(id)).toMatchObject({ status: 'vendida', listed: 0, closed_price: 205_000, closed_on: '2025-06-30' });
    expect((await get(t.app, `/properties/${id}`, t.key)).status).toBe(404);
    expect((await events([id])).map((e) => e.change)).toEqual(['upsert', 'delete']);
    // The list shows the price it fetched, and no control but an edit.
    const list = (await browser.get('/console/properties?q=SELL-1')).body;
    expect(list).toMatch(/<span class="state state-vendida">Vendido<\/span><span class="meta">205\.000\s€<\/span>/);
    // Sold again by the old one-click form without a price: refused, nothing stored.
    const again = await browser.submit('/console/properties', `/console/properties/${id}/status`, { status: 'vendida' });
    expect(again.statusCode).toBe(409);

    // The listing comes back (an edit or a feed's line): the sale recorded no longer stands.
    await importRecords(t.db, t.businessId, [listing('SELL-1', { price: 210_000 })]);
    expect(await stored(id)).toMatchObject({ status: 'disponible', closed_price: null, closed_on: null });
    // A rental asks for the rent a month.
    await importRecords(t.db, t.businessId, [listing('RENT-1', { operation: 'alquiler', price: null, price_rent: 950 })]);
    const rent = await propertyId(t.db, 'RENT-1');
    const asked = await browser.get(`/console/properties/${rent}/close?status=alquilada`);
    expect(asked.body).toContain('Alquiler (€ al mes)');
    const english = new Browser(t.app, { 'accept-language': 'en' });
    await english.login('agent@uno.example');
    const inEnglish = (await english.get(`/console/properties/${rent}/close?status=alquilada`)).body;
    for (const words of ['<h1>Mark as rented: Piso RENT-1</h1>', 'Rent (€ a month)', 'Date of the rental', 'Confirm the rental'])
      expect(inEnglish).toContain(words);
    expect(asked.body).toMatch(/name="closed_price"[^>]* value="950"/);
    // A move that is not one click shows no form.
    const wrong = await browser.get(`/console/properties/${rent}/close?status=retirada`);
    expect(wrong.statusCode).toBe(409);
  });

  it('publishes three listings at once: one catalogue version, an event each, and says so', async () => {
    await importRecords(
      t.db,
      t.businessId,
      ['PUB3-1', 'PUB3-2', 'PUB3-3'].map((ref) => listing(ref, { public: false })),
    );
    const ids = await Promise.all(['PUB3-1', 'PUB3-2', 'PUB3-3'].map((ref) => propertyId(t.db, ref)));
    const browser = await agent();
    const bulk = await browser.submit('/console/properties?q=PUB3', '/console/properties/bulk', {
      action: 'publish',
      ids: ids.map(String),
      back: '/console/properties?q=PUB3&sort=ref&dir=asc',
    });
    expect(bulk.statusCode).toBe(303);
    expect(bulk.headers.location).toBe('/console/properties?q=PUB3&sort=ref&dir=asc&done=publish&changed=3&unchanged=0');
    const rows = await Promise.all(ids.map(stored));
    expect(rows.map((r) => [r.public, r.listed])).toEqual([
      [1, 1],
      [1, 1],
      [1, 1],
    ]);
    expect(new Set(rows.map((r) => r.change_seq)).size).toBe(1);
    for (const id of ids) expect((await get(t.app, `/properties/${id}`, t.key)).status).toBe(200);
    expect(await events(ids)).toEqual(ids.map((id) => ({ id, change: 'upsert' })));
    expect((await browser.get(bulk.headers.location as string)).body).toContain('<p class="notice" role="status">Publicados: 3.</p>');

    // Featured, then two of them again with one already so: only the other changes.
    await browser.submit('/console/properties', '/console/properties/bulk', {
      action: 'feature',
      ids: [String(ids[0])],
      back: '/console/properties',
    });
    const feature = await browser.submit('/console/properties', '/console/properties/bulk', {
      action: 'feature',
      ids: ids.slice(0, 2).map(String),
      back: '/console/properties',
    });
    expect(feature.headers.location).toBe('/console/properties?done=feature&changed=1&unchanged=1');
    expect((await browser.get(feature.headers.location as string)).body).toContain('Destacados: 1. Ya lo estaban: 1.');
    expect((await Promise.all(ids.map(stored))).map((r) => r.is_featured)).toEqual([1, 1, 0]);
  });

  it('withdraws in bulk with an audit entry each, as a single withdrawal', async () => {
    await importRecords(t.db, t.businessId, [
      listing('OUT-1'),
      listing('OUT-2', { status: 'reservada' }),
      listing('OUT-3', { status: 'retirada' }),
    ]);
    const ids = await Promise.all(['OUT-1', 'OUT-2', 'OUT-3'].map((ref) => propertyId(t.db, ref)));
    const browser = await agent();
    const bulk = await browser.submit('/console/properties', '/console/properties/bulk', {
      action: 'withdraw',
      ids: ids.map(String),
      back: '/console/properties',
    });
    expect(bulk.headers.location).toBe('/console/properties?done=withdraw&changed=2&unchanged=1');
    expect((await Promise.all(ids.map(stored))).map((r) => r.status)).toEqual(['retirada', 'retirada', 'retirada']);
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['actor_type', 'action', 'target_id'])
      .where('business_id', '=', t.businessId)
      .where('target_id', 'in', ids.map(String))
      .orderBy('id')
      .execute();
    expect(audit).toEqual(ids.slice(0, 2).map((id) => ({ actor_type: 'user', action: 'property.withdraw', target_id: String(id) })));
    // After the import's own: one delete for each that left the public catalogue.
    const after = await events(ids);
    expect(after.slice(after.findIndex((e) => e.change === 'delete'))).toEqual(ids.slice(0, 2).map((id) => ({ id, change: 'delete' })));
  });

  it('changes none when the action cannot apply to one, naming it in words; and no 4xx stores anything', async () => {
    await importRecords(t.db, t.businessId, [
      listing('MIX-1', { public: false }),
      listing('MIX-2', { public: false, status: 'vendida', title: 'Chalet vendido' }),
      listing('MIX-3', { public: false }),
    ]);
    const ids = await Promise.all(['MIX-1', 'MIX-2', 'MIX-3'].map((ref) => propertyId(t.db, ref)));
    const browser = await agent();
    const bulk = (form: Record<string, string | string[]>) =>
      browser.submit('/console/properties?q=MIX', '/console/properties/bulk', { back: '/console/properties?q=MIX', ...form });
    const before = await snapshot(t.db);
    const refused = await bulk({ action: 'publish', ids: ids.map(String) });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('No se ha cambiado ningún inmueble: «Publicar» no se puede hacer con estos:');
    expect(refused.body).toContain('<li>«Chalet vendido» (MIX-2) está vendido.</li>');
    // The rows ticked stay ticked, to untick the one and send again.
    for (const id of ids) expect(refused.body).toMatch(new RegExp(`value="${id}" form="bulk" id="sel-${id}" checked`));
    expect(await snapshot(t.db)).toBe(before);

    const cases: Array<[Record<string, string | string[]>, number, string | null]> = [
      [{ action: 'publish' }, 422, 'marca al menos un inmueble'],
      [{ action: 'delete', ids: ids.map(String) }, 422, 'elige qué hacer con los inmuebles seleccionados'],
      [{ action: '', ids: ids.map(String) }, 422, 'elige qué hacer con los inmuebles seleccionados'],
      [{ action: 'publish', ids: Array.from({ length: 51 }, (_, i) => String(i + 1)) }, 422, 'como mucho 50 inmuebles a la vez'],
      [{ action: 'publish', ids: [String(ids[0]), String(theirs)] }, 404, null],
      [{ action: 'publish', ids: [String(ids[0]), 'abc'] }, 404, null],
    ];
    for (const [form, status, words] of cases) {
      const answer = await bulk(form);
      expect(answer.statusCode, JSON.stringify(form)).toBe(status);
      if (words) expect(answer.body).toContain(words);
    }
    // Without the form's token: refused before anything is read.
    const forged = await browser.request('POST', '/console/properties/bulk', { action: 'publish', ids: [String(ids[0])] });
    expect(forged.statusCode).toBe(403);
    expect(await snapshot(t.db)).toBe(before);
    // The one that can, alone, is published.
    const alone = await bulk({ action: 'publish', ids: [String(ids[0]), String(ids[2])] });
    expect(alone.statusCode).toBe(303);
  });
});
