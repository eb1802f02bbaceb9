/**
 * The website kit's `<inmo-valuation>` ("¿Cuánto vale tu casa?", issue 58 item 5, CONTRACT §24)
 * on an agency's own page in Chromium: the page from one local origin, inmo from another, with
 * a publishable key. A fault is said beside its field with nothing sent; a home of a postal code
 * with comparables gets the range the valuation's own rules give, and its owner becomes a
 * `propietario` lead with the home's facts; axe clean at 1366 and 390 px; no request to any host
 * but the page's and inmo's.
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/services/access/api-keys.ts';
import { embedSnippet } from '../../src/services/integrations/website-kit-bundle.ts';
import { valuateHome } from '../../src/services/owners/valuations.ts';
import { axeCheck, CHROMIUM, chromiumHere, startSite, type Site, WIDTHS } from '../helpers/browser.ts';
import { importRecords, listing } from '../helpers/db.ts';
import { withApp } from '../helpers/http.ts';

const here = chromiumHere('valuation kit browser test');

describe.skipIf(!here)('<inmo-valuation> on another site', () => {
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      await importRecords(db, businessId, [
        listing('C-1', { price: 230000, size_total: 95, postal_code: '28010' }),
        listing('C-2', { price: 270000, size_total: 105, postal_code: '28010' }),
        listing('C-3', { price: 240000, size_total: 90, postal_code: '28010' }),
        listing('C-4', { price: 300000, size_total: 110, postal_code: '28010' }),
      ]);
    },
  });
  let browser: Browser;
  let site: Site;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    site = await startSite();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('values a home from another origin, says faults beside their fields, and keeps the owner as a lead', async () => {
    const server = new URL(t.base).origin;
    const { key } = await createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:ingest'], origins: [site.origin] });
    const { html: snippet } = await embedSnippet(t.db, { businessId: t.businessId, key, baseUrl: server });
    site.serve(`<!doctype html><html lang="es"><head><meta charset="utf-8"><title>Inmobiliaria Sol · Valoración</title><meta name="viewport" content="width=device-width"></head>
<body><main><h1>¿Cuánto vale tu casa?</h1>${snippet.split('\n')[0]}
<inmo-valuation api="${server}/v1/ext" key="${key}" lang="es"></inmo-valuation></main>
<script>window.leads = []; document.addEventListener('inmo-lead-created', (e) => window.leads.push(e.detail));</script></body></html>`);
    const context = await browser.newContext({ viewport: { width: 1366, height: 860 } });
    const tab = await context.newPage();
    const hosts = new Set<string>();
    tab.on('request', (request) => hosts.add(new URL(request.url()).origin));
    await tab.goto(`${site.origin}/valoracion`);
    const form = tab.locator('inmo-valuation');
    await form.getByLabel('Dirección (calle y número)').waitFor();
    const violations: string[] = [];
    await axeCheck(tab, violations, 'embed-valuation', 'desktop');
    await tab.setViewportSize(WIDTHS.phone);
    await axeCheck(tab, violations, 'embed-valuation', 'phone');

    // A postal code of 4 digits: said beside the field, nothing sent.
    await form.getByLabel('Dirección (calle y número)').fill('Calle de Fuencarral 120, 3º B');
    await form.getByLabel('Código postal').fill('2801');
    await form.getByLabel('Tipo de inmueble').selectOption('apartamento');
    await form.getByLabel('Superficie (m²)').fill('100');
    await form.getByLabel('Dormitorios').fill('3');
    await form.getByLabel('Nombre', { exact: true }).fill('Rosa Propietaria');
    await form.getByLabel('Teléfono', { exact: true }).fill('612 300 400');
    await form.getByLabel('Correo electrónico', { exact: true }).fill('rosa@example.com');
    await form.getByRole('checkbox').check();
    await form.getByRole('button', { name: 'Calcular el valor' }).click();
    await expect.poll(() => form.getByText('Escribe un código postal de 5 cifras, por ejemplo 28010.').count()).toBe(1);
    await expect(form.getByLabel('Código postal').getAttribute('aria-invalid')).resolves.toBe('true');
    await axeCheck(tab, violations, 'embed-valuation-refused', 'phone');
    expect(await t.db.selectFrom('leads').select('id').execute()).toEqual([]);

    await form.getByLabel('Código postal').fill('28010');
    await form.getByRole('button', { name: 'Calcular el valor' }).click();
    const expected = await valuateHome(t.db, t.businessId, {
      id: null,
      type: 'apartamento',
      operation: 'venta',
      size: 100,
      bedrooms: 3,
      postal_code: '28010',
      lat: null,
      lon: null,
    });
    const euros = (n: number) => `${n.toLocaleString('es-ES')} €`;
    const done = form.getByRole('status').filter({ hasText: 'podría valer' });
    await expect.poll(() => done.textContent()).toContain(`entre ${euros(expected.range!.low)} y ${euros(expected.range!.high)}`);
    await axeCheck(tab, violations, 'embed-valuation-done', 'phone');
    await tab.setViewportSize(WIDTHS.desktop);
    await axeCheck(tab, violations, 'embed-valuation-done', 'desktop');
    expect(await tab.evaluate(() => (window as unknown as { leads: unknown[] }).leads)).toEqual([{ outcome: 'received' }]);

    const leads = await t.db.selectFrom('leads').select(['id', 'type', 'phone_number_1', 'source']).execute();
    expect(leads).toMatchObject([{ type: 'propietario', phone_number_1: '+34612300400', source: 'localhost' }]);
    const notes = (await t.db.selectFrom('lead_notes').select('text').where('lead_id', '=', leads[0].id).execute())
      .map((n) => n.text)
      .join('\n');
    expect(notes).toContain('Apartamento de 100 m², 3 dormitorios, Calle de Fuencarral 120, 3º B, 28010.');
    expect([...hosts].sort()).toEqual([server, site.origin].sort());
    expect(violations).toEqual([]);
    await context.close();
  });
});
