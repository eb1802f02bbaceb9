/**
 * The listings table in Chromium (issue 47, CONTRACT §23): an agent sorts by price, publishes
 * three listings at once, and sells one with its price and day through its row's one control;
 * the list shows each listing's thumbnail, and a listing's public view is drawn as the website
 * kit shows it. At 1280 px and 390 px, axe-core clean; on a phone the table is a list with no
 * sideways scrolling, each row's price, status and control in sight.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FolderMediaStore } from '../../src/media/store.ts';
import { addPhotos } from '../../src/services/catalogue/photos.ts';
import { businessToday } from '../../src/services/catalogue/listings.ts';
import { axeCheck, CHROMIUM, chromiumHere, logInToConsole, WIDTHS } from '../helpers/browser.ts';
import { userWithPassword } from '../helpers/console.ts';
import { importRecords, listing, propertyId } from '../helpers/db.ts';
import { withApp } from '../helpers/http.ts';
import { phonePhoto } from '../helpers/images.ts';

const here = chromiumHere('listings table browser test');

describe.skipIf(!here)('the listings table in Chromium', () => {
  const mediaDir = mkdtempSync(join(tmpdir(), 'inmo-media-'));
  const store = new FolderMediaStore(mediaDir);
  const t = withApp({
    listen: true,
    app: { media: { store, publicUrl: null } },
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agente@agencia.example', 'agent');
      await importRecords(db, businessId, [
        listing('TB-1', { title: 'Ático con terraza en Chamberí', price: 420_000, public: false }),
        listing('TB-2', {
          title: 'Piso para reformar en Tetuán con un título largo de los que escriben las agencias',
          price: 189_000,
          public: false,
        }),
        listing('TB-3', { title: 'Estudio junto al Retiro', price: 265_000, public: false }),
        listing('TB-4', {
          title: 'Piso exterior en Delicias',
          price: 185_000,
          description: '<p>Reformado, con <strong>ascensor</strong>.</p>',
          features: [{ key: 'ascensor', label: 'Ascensor', value: true, isextra: false }],
        }),
        listing('TB-5', { title: 'Apartamento en alquiler', operation: 'alquiler', price: null, price_rent: 950 }),
      ]);
    },
  });
  let browser: Browser;
  let origin: string;
  const violations: string[] = [];
  const check = (page: Page, name: string, width: keyof typeof WIDTHS = 'desktop') => axeCheck(page, violations, name, width);

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    origin = new URL(t.base).origin;
    // A photo uploaded as the console stores it: three widths under /media/ of this server.
    const file = join(mediaDir, 'salon.jpg');
    writeFileSync(file, await phonePhoto(1200, 900));
    await addPhotos(
      t.db,
      store,
      t.businessId,
      await propertyId(t.db, 'TB-4'),
      [{ path: file, fileName: 'salon.jpg' }],
      (key) => `${origin}/media/${key}`,
    );
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('sorts by price, publishes three at once, sells one with its price, at desktop and phone widths', async () => {
    const context = await browser.newContext({ viewport: WIDTHS.desktop, locale: 'es-ES' });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await logInToConsole(page, origin, 'agente@agencia.example');
    await page.goto(`${origin}/console/properties`);
    // The thumbnail is the smallest width of the photo, and it loads.
    const thumb = page.locator('tr', { hasText: 'TB-4' }).locator('td.col-photo img');
    await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(480);
    expect(await thumb.getAttribute('src')).toMatch(new RegExp(`^${origin}/media/p/\\d+/[0-9a-f-]{36}-480\\.jpg$`));
    await check(page, 'listings-table');

    // Sorted by price, cheapest first: the column says so.
    await page.getByRole('link', { name: /^Precio/ }).click();
    await page.waitForURL(/sort=price&dir=asc/);
    await expect(page.locator('th[aria-sort]').textContent()).resolves.toContain('Precio');
    expect(await page.locator('th.col-price').getAttribute('aria-sort')).toBe('ascending');
    const refs = await page.locator('td.col-ref code').allTextContents();
    expect(refs).toEqual(['TB-5', 'TB-4', 'TB-2', 'TB-3', 'TB-1']);

    // Three published at once.
    for (const title of ['Ático con terraza en Chamberí', 'Estudio junto al Retiro', 'Piso para reformar en Tetuán']) {
      await page.getByRole('checkbox', { name: new RegExp(`^Seleccionar ${title}`) }).check();
    }
    await page.getByLabel('Con los seleccionados').selectOption('publish');
    await page.getByRole('button', { name: 'Aplicar a los seleccionados' }).click();
    await page.getByText('Publicados: 3.').waitFor();
    expect(page.url()).toContain('sort=price&dir=asc');
    const listed = await t.db
      .selectFrom('properties')
      .select(['external_ref', 'listed'])
      .where('external_ref', 'in', ['TB-1', 'TB-2', 'TB-3'])
      .execute();
    expect(listed.map((l) => l.listed)).toEqual([1, 1, 1]);

    // Sold through its row's one control: the price and the day are asked, today by default.
    await page.getByLabel('Qué hacer con Estudio junto al Retiro').selectOption('vendida');
    await page.getByRole('button', { name: /^Aplicar\s*: Estudio junto al Retiro$/ }).click();
    await page.getByRole('heading', { name: 'Marcar como vendido: Estudio junto al Retiro' }).waitFor();
    const today = await businessToday(t.db, t.businessId);
    expect(await page.getByLabel('Fecha de la venta').inputValue()).toBe(today);
    await page.getByLabel('Precio de venta (€)').fill('');
    await page.getByRole('button', { name: 'Confirmar la venta' }).click();
    await page.getByText('Escribe el precio.').first().waitFor();
    await check(page, 'listing-sell-invalid');
    await page.getByLabel('Precio de venta (€)').fill('258.500');
    await page.getByRole('button', { name: 'Confirmar la venta' }).click();
    await page.waitForURL(/\/console\/properties\?/);
    const sold = await t.db
      .selectFrom('properties')
      .select(['status', 'closed_price', 'closed_on'])
      .where('external_ref', '=', 'TB-3')
      .executeTakeFirstOrThrow();
    expect(sold).toEqual({ status: 'vendida', closed_price: 258_500, closed_on: today });
    const row = page.locator('tr', { hasText: 'TB-3' });
    await expect(row.locator('td.col-status').textContent()).resolves.toMatch(/Vendido\s*258\.500\s€/);
    // A sold listing's row offers an edit, not a switch.
    expect(await row.locator('select').count()).toBe(0);
    await check(page, 'listings-table-after');

    // The public view, as the website kit shows it.
    await page.goto(`${origin}/console/properties/${await propertyId(t.db, 'TB-4')}`);
    const kit = page.locator('.kit');
    await expect(kit.locator('.kit-card .kit-price').textContent()).resolves.toMatch(/185\.000\s€/);
    await expect(kit.locator('.kit-description strong').textContent()).resolves.toBe('ascensor');
    await expect
      .poll(() => kit.locator('.kit-card img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0))
      .toBe(true);
    await check(page, 'listing-kit-preview');

    // On a phone: a list, no sideways scrolling, each row's price, status and control in sight.
    await page.setViewportSize(WIDTHS.phone);
    await page.goto(`${origin}/console/properties?sort=price&dir=asc`);
    await check(page, 'listings-table', 'phone');
    for (const ref of ['TB-5', 'TB-2']) {
      const card = page.locator('tr', { hasText: ref });
      for (const part of ['td.col-price', 'td.col-status', 'td.col-actions select', 'td.col-actions button']) {
        const box = (await card.locator(part).boundingBox())!;
        expect(box, `${ref} ${part}`).not.toBeNull();
        expect(box.x, `${ref} ${part}`).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, `${ref} ${part}`).toBeLessThanOrEqual(WIDTHS.phone.width);
      }
    }
    await page.getByLabel('Qué hacer con Piso exterior en Delicias').selectOption('vendida');
    await page.getByRole('button', { name: /^Aplicar\s*: Piso exterior en Delicias$/ }).click();
    await page.getByRole('heading', { name: /^Marcar como vendido/ }).waitFor();
    await check(page, 'listing-sell', 'phone');
    await page.goto(`${origin}/console/properties/${await propertyId(t.db, 'TB-4')}`);
    await check(page, 'listing-kit-preview', 'phone');
    await context.close();
    expect(violations).toEqual([]);
  }, 120_000);
});
