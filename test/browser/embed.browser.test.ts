/**
 * The website kit on an agency's own page (issue 30, CONTRACT §17), in Debian's Chromium driven
 * by playwright-core: the page is served from one local origin (`http://localhost:P`), inmo from
 * another (`http://127.0.0.1:Q`), and the page holds only the tags `inmo embed snippet` prints.
 * The forms send leads with a publishable key (a double click is one lead), show the API's
 * refusals beside their fields, pass axe at desktop and phone widths, and make no request to any
 * host but the page's and inmo's. With a secret key in the page, nothing is stored.
 *
 * Skipped, saying so, where /usr/bin/chromium is missing, except under `INMO_REQUIRE_BROWSER=1`.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/services/access/api-keys.ts';
import { embedSnippet } from '../../src/services/integrations/website-kit-bundle.ts';
import { get, post, withApp } from '../helpers/http.ts';
import { createUser } from '../../src/services/access/console-users.ts';
import { importRecords, listing } from '../helpers/db.ts';
import { axeCheck, CHROMIUM, chromiumHere, startSite, type Site, WIDTHS } from '../helpers/browser.ts';

const here = chromiumHere('website kit browser test');

describe.skipIf(!here)('the website kit on another site', () => {
  const t = withApp({ listen: true });
  let browser: Browser;
  let site: Site;
  let siteOrigin: string;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    site = await startSite();
    siteOrigin = site.origin;
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  /** The agency's page: the pasted snippet, and a rental form beside it; it records the kit's events. */
  const pageWith = async (key: string) => {
    const server = new URL(t.base).origin;
    const { html: snippet } = await embedSnippet(t.db, { businessId: t.businessId, key, baseUrl: server }).catch(async () => ({
      // A secret key gets no snippet: the page pastes it by hand.
      html: (await embedSnippet(t.db, { businessId: t.businessId, key: publishable, baseUrl: server })).html.replaceAll(publishable, key),
    }));
    const form = (name: string) => `<${name} api="${server}/v1/ext" key="${key}" lang="es"></${name}>`;
    return `<!doctype html>
<html lang="es"><head><meta charset="utf-8"><title>Inmobiliaria Sol · Contacto</title><meta name="viewport" content="width=device-width"></head>
<body><main><h1>Contacto</h1>
${snippet.split('\n')[0]}
${form('inmo-inquiry-form')}
<h2>Busco piso de alquiler</h2>
${form('inmo-rental-form')}
</main>
<script>window.leads = []; document.addEventListener('inmo-lead-created', (e) => window.leads.push(e.detail));</script>
</body></html>`;
  };
  let publishable = '';
  const phones = async () => (await t.db.selectFrom('leads').select('phone_number_1').orderBy('id').execute()).map((l) => l.phone_number_1);

  /** Opens the page, recording every request it makes. */
  const open = async (width: keyof typeof WIDTHS = 'desktop') => {
    const context = await browser.newContext({ viewport: WIDTHS[width] });
    const tab = await context.newPage();
    const hosts: string[] = [];
    tab.on('request', (request) => hosts.push(new URL(request.url()).origin));
    await tab.goto(`${siteOrigin}/contacto`);
    await tab.waitForFunction(() => customElements.get('inmo-inquiry-form') && customElements.get('inmo-rental-form'));
    return { tab, hosts, close: () => context.close() };
  };
  const inquiry = (tab: Page) => tab.locator('inmo-inquiry-form');
  const rental = (tab: Page) => tab.locator('inmo-rental-form');

  it('sends an inquiry once however often it is clicked, shows a refused phone beside its field, and passes axe', async () => {
    publishable = (
      await createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read', 'leads:ingest'], origins: [siteOrigin] })
    ).key;
    site.serve(await pageWith(publishable));
    const violations: string[] = [];
    for (const width of ['desktop', 'phone'] as const) {
      const { tab, close } = await open(width);
      await axeCheck(tab, violations, 'embed-forms', width);
      await close();
    }

    const { tab, hosts, close } = await open();
    // The inputs' names of CONTRACT §17.
    const names = (element: ReturnType<typeof inquiry>) =>
      element.locator('input, textarea').evaluateAll((inputs) => inputs.map((i) => i.getAttribute('name')));
    expect(await names(inquiry(tab))).toEqual(['name', 'phone', 'email', 'message', 'consent']);
    expect(await names(rental(tab))).toEqual([
      'name',
      'phone',
      'email',
      'budget',
      'entryDate',
      'people',
      'habs',
      'pets',
      'freeText',
      'consent',
    ]);
    const form = inquiry(tab);
    // Nothing is sent without the consent, and the field says so.
    await form.getByLabel('Nombre', { exact: true }).fill('Irene Web');
    await form.getByLabel('Teléfono', { exact: true }).fill('12');
    await form.getByRole('button', { name: 'Enviar' }).click();
    await expect(form.getByRole('checkbox').getAttribute('aria-invalid')).resolves.toBe('true');
    await form.getByRole('checkbox').check();
    await form.getByRole('button', { name: 'Enviar' }).click();
    // The API refuses the phone: its field is marked, the message beside it, focus on it.
    await expect.poll(() => form.getByLabel('Teléfono', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await form.getByText('Escribe un teléfono válido').waitFor({ state: 'visible' });
    expect(await phones()).toEqual([]);
    await axeCheck(tab, violations, 'embed-refused', 'desktop');

    // As people type it: spaces, no prefix. Clicked twice: one lead.
    await form.getByLabel('Teléfono', { exact: true }).fill('611 70 00 21');
    await form.getByLabel('Mensaje', { exact: true }).fill('¿Se admiten mascotas?');
    await form.getByRole('button', { name: 'Enviar' }).dblclick();
    await expect.poll(() => form.getByRole('status').textContent()).toContain('Hemos recibido tu consulta');
    expect(await phones()).toEqual(['+34611700021']);
    const [lead] = await t.db.selectFrom('leads').selectAll().execute();
    expect([lead.name, lead.source, lead.type]).toEqual(['Irene Web', 'localhost', 'demandante']);
    const consent = await t.db.selectFrom('lead_consents').selectAll().where('lead_id', '=', lead.id).executeTakeFirstOrThrow();
    expect([consent.whatsapp, consent.source_page]).toEqual([1, `${siteOrigin}/contacto`]);
    expect(await tab.evaluate(() => (window as unknown as { leads: unknown[] }).leads)).toEqual([{ outcome: 'received' }]);

    // The rental form: a budget the API cannot read is refused here; then sent to /leads/ingest.
    const rent = rental(tab);
    await rent.getByLabel('Nombre', { exact: true }).fill('Luis Alquiler');
    await rent.getByLabel('Teléfono', { exact: true }).fill('611700022');
    await rent.getByLabel('Presupuesto mensual (€)', { exact: true }).fill('mucho');
    await rent.getByRole('checkbox').check();
    await rent.getByRole('button', { name: 'Enviar' }).click();
    await expect.poll(() => rent.getByLabel('Presupuesto mensual (€)', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await rent.getByLabel('Presupuesto mensual (€)', { exact: true }).fill('700-900');
    await rent.getByRole('button', { name: 'Enviar' }).click();
    await expect.poll(() => rent.getByRole('status').textContent()).toContain('Hemos recibido tu consulta');
    expect(await phones()).toEqual(['+34611700021', '+34611700022']);

    // Only this page's host and inmo's were asked for anything.
    expect([...new Set(hosts)].sort()).toEqual([siteOrigin, new URL(t.base).origin].sort());
    await close();
    expect(violations).toEqual([]);
  }, 120_000);

  it('stores nothing with a secret key in the page', async () => {
    site.serve(await pageWith(t.key));
    const before = await phones();
    const { tab, close } = await open();
    const form = inquiry(tab);
    await form.getByLabel('Nombre', { exact: true }).fill('Intruso');
    await form.getByLabel('Teléfono', { exact: true }).fill('611 70 00 23');
    await form.getByRole('checkbox').check();
    await form.getByRole('button', { name: 'Enviar' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toContain('No se ha podido enviar');
    expect(await phones()).toEqual(before);
    await close();
  }, 60_000);

  it('shows the catalogue as GET /properties gives it, page by page, with filters and the back button, and opens a listing in place', async () => {
    const server = new URL(t.base).origin;
    await importRecords(t.db, t.businessId, [
      ...Array.from({ length: 12 }, (_, i) =>
        listing(`V-${i}`, {
          price: 100_000 + i * 10_000,
          title: `Piso en venta ${i}`,
          images:
            i === 0
              ? [
                  {
                    url: `${server}/media/p/1/0d4f8a52-5c9e-4a31-9d55-1a2b3c4d5e6f-1600.jpg`,
                    order: 0,
                    is_primary: true,
                    title: 'Salón',
                    public: true,
                  },
                ]
              : [],
          // The newest: the first card of the first page.
          ...(i === 0 ? { updated_at: '2026-03-01T10:00:00+00:00' } : {}),
        }),
      ),
      ...Array.from({ length: 4 }, (_, i) =>
        listing(`Z-${i}`, {
          city: 'Zaragoza',
          province: 'Zaragoza',
          price: 90_000 + i,
          title: `Piso en Zaragoza ${i}`,
          address_privacy: 'approximate',
        }),
      ),
      listing('R-1', { operation: 'alquiler', price: null, price_rent: 900, title: 'Piso de alquiler' }),
    ]);
    const key = (await createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read', 'leads:ingest'], origins: [siteOrigin] }))
      .key;
    const { html: snippet } = await embedSnippet(t.db, { businessId: t.businessId, key, baseUrl: server });
    const script = snippet.split('\n')[0];
    site.serve(`<!doctype html><html lang="es"><head><meta charset="utf-8"><title>Inmuebles</title><meta name="viewport" content="width=device-width"></head>
<body><main><h1>Nuestros inmuebles</h1>${script}
<inmo-listings api="${server}/v1/ext" key="${key}" page-size="5" operation="venta"></inmo-listings></main></body></html>`);
    /** The ids GET /properties gives for these filters and page, as a site's server would read them. */
    const expected = async (query: string) =>
      ((await get(t.app, `/properties?${query}`, t.key)).body.data as Array<{ id: number }>).map((p) => p.id);
    const context = await browser.newContext({ viewport: WIDTHS.desktop });
    const tab = await context.newPage();
    const hosts: string[] = [];
    tab.on('request', (request) => hosts.push(new URL(request.url()).origin));
    await tab.goto(`${siteOrigin}/inmuebles`);
    const listings = tab.locator('inmo-listings');
    const shown = async () => {
      await expect.poll(() => listings.locator('[aria-busy]').count()).toBe(0);
      return listings.locator('article').evaluateAll((cards) => cards.map((c) => Number(c.getAttribute('data-property-id'))));
    };
    expect(await shown()).toEqual(await expected('operation=venta&limit=5&offset=0'));
    await expect(listings.getByRole('status').textContent()).resolves.toBe('16 inmuebles');
    // The photo store's widths as srcset, lazily loaded.
    const photo = listings.locator('article img').first();
    await expect(photo.getAttribute('srcset')).resolves.toBe(
      [480, 960, 1600].map((w) => `${server}/media/p/1/0d4f8a52-5c9e-4a31-9d55-1a2b3c4d5e6f-${w}.jpg ${w}w`).join(', '),
    );
    await expect(photo.getAttribute('loading')).resolves.toBe('lazy');
    const violations: string[] = [];
    await axeCheck(tab, violations, 'embed-listings', 'desktop');

    await listings.getByRole('button', { name: 'Siguiente' }).click();
    expect(await shown()).toEqual(await expected('operation=venta&limit=5&offset=5'));
    expect(new URL(tab.url()).searchParams.get('inmo_page')).toBe('2');

    await listings.getByLabel('Ciudad').fill('Zaragoza');
    await listings.getByRole('button', { name: 'Buscar' }).click();
    expect(await shown()).toEqual(await expected('operation=venta&city=Zaragoza&limit=5&offset=0'));
    // Back: page 2 of the sales again; a reload keeps it.
    await tab.goBack();
    expect(await shown()).toEqual(await expected('operation=venta&limit=5&offset=5'));
    await tab.reload();
    expect(await shown()).toEqual(await expected('operation=venta&limit=5&offset=5'));

    // A listing opens in place, with the form to ask about it; back returns to the list.
    await listings.getByRole('button', { name: 'Anterior' }).click();
    await listings.getByRole('link', { name: 'Piso en venta 0' }).click();
    await expect.poll(() => listings.locator('inmo-property h2').textContent()).toBe('Piso en venta 0');
    const property = listings.locator('inmo-property');
    // Its photo shown (waited for), and with one photo no counter.
    await expect(property.locator('img').getAttribute('alt')).resolves.toBe('Salón');
    await expect(property.getByText('Foto 1 de 1').count()).resolves.toBe(0);
    const asked = property.locator('inmo-inquiry-form');
    const listingId = await asked.getAttribute('property-id');
    expect(listingId).toMatch(/^\d+$/);
    await axeCheck(tab, violations, 'embed-property', 'desktop');
    await tab.setViewportSize(WIDTHS.phone);
    await axeCheck(tab, violations, 'embed-property', 'phone');
    // Asked from the listing's page: the lead's notes name the listing.
    await asked.getByLabel('Nombre', { exact: true }).fill('Olga Ficha');
    await asked.getByLabel('Teléfono', { exact: true }).fill('611 70 00 31');
    await asked.getByRole('checkbox').check();
    await asked.getByRole('button', { name: 'Enviar' }).click();
    await expect.poll(() => asked.getByRole('status').textContent()).toContain('Hemos recibido tu consulta');
    const note = await t.db
      .selectFrom('lead_notes')
      .innerJoin('leads', 'leads.id', 'lead_notes.lead_id')
      .select('lead_notes.text')
      .where('leads.phone_number_1', '=', '+34611700031')
      .executeTakeFirstOrThrow();
    expect(note.text).toContain(`Ref. ${listingId}`);
    await listings.getByRole('button', { name: 'Volver al listado' }).click();
    expect(await shown()).toEqual(await expected('operation=venta&limit=5&offset=0'));
    await axeCheck(tab, violations, 'embed-listings', 'phone');

    expect([...new Set(hosts)].sort()).toEqual([siteOrigin, server].sort());
    expect(violations).toEqual([]);
    await context.close();
  }, 120_000);

  it('passes its lang to the API: listings in German where they hold it, the kit’s own words in English', async () => {
    const server = new URL(t.base).origin;
    await importRecords(t.db, t.businessId, [
      listing('DE-1', {
        title: 'Ático con terraza',
        description: '<p>Ático luminoso.</p>',
        titles: { de: 'Penthouse mit Terrasse' },
        descriptions: { de: '<p>Helles Penthouse.</p>' },
        updated_at: '2027-01-01T10:00:00+00:00',
      }),
    ]);
    const key = (await createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read', 'leads:ingest'], origins: [siteOrigin] }))
      .key;
    const { html: snippet } = await embedSnippet(t.db, { businessId: t.businessId, key, baseUrl: server });
    site.serve(`<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Immobilien</title><meta name="viewport" content="width=device-width"></head>
<body><main><h1>Unsere Immobilien</h1>${snippet.split('\n')[0]}
<inmo-listings api="${server}/v1/ext" key="${key}" page-size="3" lang="de"></inmo-listings></main></body></html>`);
    const context = await browser.newContext({ viewport: WIDTHS.phone });
    const tab = await context.newPage();
    const asked: string[] = [];
    tab.on('request', (request) => request.url().startsWith(server) && asked.push(request.url()));
    await tab.goto(`${siteOrigin}/immobilien`);
    const listings = tab.locator('inmo-listings');
    await expect.poll(() => listings.locator('[aria-busy]').count()).toBe(0);
    await expect(listings.locator('article h3').first().textContent()).resolves.toBe('Penthouse mit Terrasse');
    // A listing without German keeps its default (Spanish) text; the kit's words are English.
    await expect(listings.getByRole('status').textContent()).resolves.toMatch(/ properties$/);
    expect(asked.filter((url) => url.includes('/v1/ext/properties?')).every((url) => new URL(url).searchParams.get('lang') === 'de')).toBe(
      true,
    );
    const violations: string[] = [];
    await axeCheck(tab, violations, 'embed-listings-de', 'phone');
    await listings.getByRole('link', { name: 'Penthouse mit Terrasse' }).click();
    const property = listings.locator('inmo-property');
    await expect.poll(() => property.locator('h2').textContent()).toBe('Penthouse mit Terrasse');
    await expect(property.locator('.description').textContent()).resolves.toBe('Helles Penthouse.');
    expect(asked.some((url) => /\/v1\/ext\/properties\/\d+\?lang=de$/.test(url))).toBe(true);
    await axeCheck(tab, violations, 'embed-property-de', 'phone');
    expect(violations).toEqual([]);
    await context.close();
  }, 60_000);

  it('“Pedir visita” on a listing: the free times by day, errors beside the fields, a time taken meanwhile refused, then a requested viewing', async () => {
    const server = new URL(t.base).origin;
    await createUser(t.db, { businessId: t.businessId, email: 'agente.visitas@agencia.example', role: 'agent', name: 'Bea Martín' });
    await importRecords(t.db, t.businessId, [listing('VIS-1', { title: 'Piso para visitar', updated_at: '2027-01-02T10:00:00+00:00' })]);
    const id = (await t.db.selectFrom('properties').select('id').where('external_ref', '=', 'VIS-1').executeTakeFirstOrThrow()).id;
    const key = (
      await createApiKey(t.db, {
        businessId: t.businessId,
        scopes: ['properties:read', 'leads:ingest', 'viewings:write'],
        origins: [siteOrigin],
      })
    ).key;
    const { html: snippet } = await embedSnippet(t.db, { businessId: t.businessId, key, baseUrl: server });
    site.serve(`<!doctype html><html lang="es"><head><meta charset="utf-8"><title>Piso para visitar</title><meta name="viewport" content="width=device-width"></head>
<body><main><h1>Inmueble</h1>${snippet.split('\n')[0]}
<inmo-property api="${server}/v1/ext" key="${key}" lang="es" property-id="${id}"></inmo-property></main>
<script>window.leads = []; document.addEventListener('inmo-lead-created', (e) => window.leads.push(e.detail));</script></body></html>`);
    const context = await browser.newContext({ viewport: { width: 1366, height: 860 } });
    const tab = await context.newPage();
    const hosts: string[] = [];
    tab.on('request', (request) => hosts.push(new URL(request.url()).origin));
    await tab.goto(`${siteOrigin}/piso`);
    const property = tab.locator('inmo-property');
    await expect.poll(() => property.locator('h2').textContent()).toBe('Piso para visitar');
    const button = property.getByRole('button', { name: 'Pedir visita' });
    await expect(button.getAttribute('aria-expanded')).resolves.toBe('false');
    await button.click();
    await expect(button.getAttribute('aria-expanded')).resolves.toBe('true');
    const form = property.locator('inmo-viewing-form');
    const select = form.getByLabel('Día y hora de la visita');
    await expect.poll(() => select.locator('option').count()).toBeGreaterThan(2);
    // The times the API offers, grouped by their local day, as the API gives them.
    const offered = (await get(t.app, `/viewings/availability?property_id=${id}&days=7`, t.key)).body.data as Array<{ starts_at: string }>;
    const values = await select
      .locator('option')
      .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
    // (A half hour that ended between the kit's read and this one leaves the kit one time more.)
    expect(values.length - offered.length).toBeGreaterThanOrEqual(0);
    expect(values.length - offered.length).toBeLessThanOrEqual(1);
    expect(values.slice(values.length - offered.length)).toEqual(offered.map((s) => s.starts_at));
    const groups = await select.locator('optgroup').evaluateAll((gs) => gs.map((g) => g.getAttribute('label')));
    expect(groups.length).toBe(new Set(offered.map((s) => s.starts_at.slice(0, 10))).size);
    expect(groups[0]).toMatch(/^(lunes|martes|miércoles|jueves|viernes|sábado|domingo) \d{1,2} de [a-z]+$/);
    const violations: string[] = [];
    await axeCheck(tab, violations, 'embed-viewing', 'desktop');
    await tab.setViewportSize(WIDTHS.phone);
    await axeCheck(tab, violations, 'embed-viewing', 'phone');

    // Nothing chosen, nothing filled: each fault beside its field, nothing sent.
    await form.getByRole('button', { name: 'Enviar' }).click();
    await expect(select.getAttribute('aria-invalid')).resolves.toBe('true');
    await form.getByText('Elige el día y la hora de la visita.').waitFor({ state: 'visible' });
    await expect(form.getByLabel('Nombre', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await t.db.selectFrom('viewings').select('id').execute()).toEqual([]);

    // A late time chosen; someone else takes it before the visitor sends: 409, said beside the select, times read again.
    const [takenTime, freeTime] = values.slice(-2);
    await select.selectOption(takenTime);
    await form.getByLabel('Nombre', { exact: true }).fill('Marta Visita');
    await form.getByLabel('Correo electrónico', { exact: true }).fill('marta@example.com');
    await form.getByRole('checkbox').check();
    // A phone the API refuses: beside its field, nothing stored.
    await form.getByLabel('Teléfono', { exact: true }).fill('12');
    await form.getByRole('button', { name: 'Enviar' }).click();
    await expect.poll(() => form.getByLabel('Teléfono', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await form.getByText('Escribe un teléfono válido').waitFor({ state: 'visible' });
    expect(await t.db.selectFrom('viewings').select('id').execute()).toEqual([]);
    await form.getByLabel('Teléfono', { exact: true }).fill('611 70 00 41');
    const other = await post(t.app, '/viewings', t.key, {
      property_id: id,
      starts_at: takenTime,
      lead: { name: 'Otra Persona', phone_number_1: '611700042', consent: { marketing: false, whatsapp: true, text: 'Acepto.' } },
    });
    expect(other.status).toBe(201);
    await form.getByRole('button', { name: 'Enviar' }).click();
    await form.getByText('Ese horario se acaba de ocupar').waitFor({ state: 'visible' });
    await expect(select.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect.poll(() => select.locator(`option[value="${takenTime}"]`).count()).toBe(0);
    expect((await t.db.selectFrom('viewings').select('starts_at').execute()).length).toBe(1);
    await axeCheck(tab, violations, 'embed-viewing-taken', 'phone');

    await select.selectOption(freeTime);
    await form.getByRole('button', { name: 'Enviar' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toContain('Hemos recibido tu petición de visita para el');
    const mine = await t.db
      .selectFrom('viewings')
      .innerJoin('leads', 'leads.id', 'viewings.lead_id')
      .select(['viewings.status', 'viewings.source', 'viewings.starts_at', 'viewings.property_id', 'leads.name'])
      .where('leads.phone_number_1', '=', '+34611700041')
      .execute();
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ status: 'requested', source: 'website', property_id: id, name: 'Marta Visita' });
    expect(Date.parse(mine[0].starts_at)).toBe(Date.parse(freeTime));
    expect(await tab.evaluate(() => (window as unknown as { leads: unknown[] }).leads)).toEqual([{ outcome: 'received' }]);
    await axeCheck(tab, violations, 'embed-viewing-sent', 'phone');
    expect(violations).toEqual([]);
    expect([...new Set(hosts)].sort()).toEqual([siteOrigin, server].sort());
    await context.close();
  }, 120_000);

  it('serves /embed/demo: the catalogue and the rental form on inmo’s own page, under its CSP, axe clean', async () => {
    const server = new URL(t.base).origin;
    const key = (await createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read', 'leads:ingest'], origins: [server] }))
      .key;
    const context = await browser.newContext({ viewport: WIDTHS.desktop });
    const tab = await context.newPage();
    const hosts: string[] = [];
    const refused: string[] = [];
    tab.on('request', (request) => hosts.push(new URL(request.url()).origin));
    tab.on('console', (message) => message.type() === 'error' && refused.push(message.text()));
    await tab.goto(`${server}/embed/demo?key=${key}`);
    await expect.poll(() => tab.locator('inmo-listings article').count()).toBeGreaterThan(0);
    await tab.locator('inmo-rental-form').getByRole('button', { name: 'Enviar' }).waitFor({ state: 'visible' });
    const violations: string[] = [];
    await axeCheck(tab, violations, 'embed-demo', 'desktop');
    await tab.setViewportSize(WIDTHS.phone);
    await axeCheck(tab, violations, 'embed-demo', 'phone');
    expect(violations).toEqual([]);
    expect([...new Set(hosts)]).toEqual([server]);
    // Nothing the page's CSP refused (a refused style or script would say so here).
    expect(refused.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
    await context.close();
  }, 60_000);
});
