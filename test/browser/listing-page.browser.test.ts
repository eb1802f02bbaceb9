/**
 * A listing's public page in a real browser (issue 45, CONTRACT §21), Debian's Chromium driven
 * by playwright-core: an agent follows "Página pública" from the listing's console page; the
 * page shows the listing with its photos and energy label, switches language, and its inquiry
 * form, sent once with a fault and once right, makes one lead; its viewing form, sent once with
 * faults and once with a free slot, books a requested viewing and thanks the person; the
 * console's "Ficha PDF" is a PDF. Every page (the listing's, the refused forms, the thanks, the
 * 410 of a sold listing) is
 * checked by axe-core at 1366 and 390 px, where nothing may scroll sideways.
 *
 * Skipped, saying so, where /usr/bin/chromium is missing, except under `INMO_REQUIRE_BROWSER=1`
 * (`.ci/run`). No browser is ever downloaded.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FolderMediaStore } from '../../src/media/store.ts';
import { CLI } from '../../src/services/access/audit.ts';
import { listingPageToken } from '../../src/services/catalogue/listing-page.ts';
import { moveListing } from '../../src/services/catalogue/listings.ts';
import { addPhotos } from '../../src/services/catalogue/photos.ts';
import { axeCheck, CHROMIUM, chromiumHere, logInToConsole, WIDTHS } from '../helpers/browser.ts';
import { userWithPassword } from '../helpers/console.ts';
import { importRecords, listing, propertyId, snapshot } from '../helpers/db.ts';
import { withApp } from '../helpers/http.ts';
import { phonePhoto, transparentPng } from '../helpers/images.ts';

const here = chromiumHere('listing page browser tests');

/** The widths the page is checked at: a laptop's and a phone's. */
const DESKTOP = { width: 1366, height: 860 };

describe.skipIf(!here)("a listing's public page in Chromium", () => {
  const mediaDir = mkdtempSync(join(tmpdir(), 'inmo-page-media-'));
  let listingId = 0;
  let soldToken = '';
  const t = withApp({
    listen: true,
    app: { media: { store: new FolderMediaStore(mediaDir), publicUrl: null } },
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agente@agencia.example', 'agent');
      await importRecords(db, businessId, [
        listing('PAGINA', {
          title: 'Ático con terraza en Delicias',
          titles: { en: 'Penthouse with a terrace in Delicias' },
          description: '<p>Luminoso, con <strong>terraza</strong> de 20 m² y vistas despejadas sobre el parque.</p>',
          descriptions: { en: '<p>Bright, with a 20 m² <strong>terrace</strong> and open views over the park.</p>' },
          price: 289000,
          city: 'Zaragoza',
          province: 'Zaragoza',
          address_privacy: 'approximate',
          address_approximate: 'Delicias, Zaragoza',
          energy_certificate: { status: 'available', rating: 'D', consumption_kwh_m2_year: 140, emissions_kg_co2_m2_year: 30 },
          community_fees: 65,
          condition: 'buen-estado',
          features: [{ key: 'ascensor' }, { key: 'terraza' }, { key: 'aire_acondicionado' }],
        }),
        listing('VENDIDO', { title: 'Piso vendido' }),
      ]);
      listingId = await propertyId(db, 'PAGINA');
      const file = async (name: string, content: Buffer) => {
        const path = join(mediaDir, name);
        writeFileSync(path, content);
        return { path, fileName: name };
      };
      await addPhotos(
        db,
        new FolderMediaStore(mediaDir),
        businessId,
        listingId,
        [await file('salon.jpg', await phonePhoto(1600, 1200)), await file('plano.png', await transparentPng(1200, 800))],
        (key) => `http://127.0.0.1/media/${key}`,
      );
      const sold = await propertyId(db, 'VENDIDO');
      await moveListing(db, businessId, sold, 'vendida', CLI, { price: 250_000, on: new Date().toISOString().slice(0, 10) });
      soldToken = (await listingPageToken(db, businessId, sold))!;
    },
  });
  let browser: Browser;
  let origin: string;
  const violations: string[] = [];
  /** axe at the laptop's width, then again at the phone's (which also fails a page that scrolls sideways). */
  const checkBoth = async (page: Page, name: string) => {
    await page.setViewportSize(DESKTOP);
    await axeCheck(page, violations, name, 'desktop');
    await page.setViewportSize(WIDTHS.phone);
    await axeCheck(page, violations, name, 'phone');
    await page.setViewportSize(DESKTOP);
  };

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    origin = new URL(t.base).origin;
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('opens from the console, shows the listing in two languages, and its form sends one lead', async () => {
    const context = await browser.newContext({ viewport: DESKTOP, locale: 'es-ES' });
    const page = await context.newPage();
    await logInToConsole(page, origin, 'agente@agencia.example');
    await page.goto(`${origin}/console/properties/${listingId}`);
    // "Ficha PDF": the sheet, with the session's cookies.
    const sheetHref = await page.getByRole('link', { name: 'Ficha PDF' }).getAttribute('href');
    const sheet = await context.request.get(`${origin}${sheetHref}`);
    expect(sheet.status()).toBe(200);
    expect(sheet.headers()['content-type']).toBe('application/pdf');
    expect((await sheet.body()).subarray(0, 5).toString()).toBe('%PDF-');

    await page.getByRole('link', { name: 'Página pública' }).click();
    await page.getByRole('heading', { level: 1, name: 'Ático con terraza en Delicias' }).waitFor();
    expect(page.url()).toMatch(new RegExp(`^${origin}/l/[A-Za-z0-9_-]{43}$`));
    await expect(page.locator('.listing-price').textContent()).resolves.toBe('289.000\u00a0€');
    await expect(page.locator('.energy-scale [aria-current="true"]').textContent()).resolves.toContain('D');
    await expect(page.getByRole('heading', { name: 'Ubicación aproximada' }).isVisible()).resolves.toBe(true);
    // Both photos load from the media store, in the widths the browser picks.
    await expect
      .poll(() => page.locator('.listing-photos img').evaluateAll((imgs) => imgs.map((img) => (img as HTMLImageElement).naturalWidth > 0)))
      .toEqual([true, true]);
    await checkBoth(page, 'listing-page');

    await page.getByRole('link', { name: 'English' }).click();
    await page.getByRole('heading', { level: 1, name: 'Penthouse with a terrace in Delicias' }).waitFor();
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await checkBoth(page, 'listing-page-en');

    // Sent without a name and with a phone that is none: refused beside the fields, nothing stored.
    const before = await snapshot(t.db);
    const contact = page.locator('#contact');
    await contact.getByLabel('Phone', { exact: true }).fill('12');
    await contact.getByLabel('I agree that the agency contacts me').check();
    await contact.getByRole('button', { name: 'Send' }).click();
    await page.locator('#e-name').waitFor();
    await expect(page.locator('#e-phone').textContent()).resolves.toContain('Enter a valid phone number');
    await expect(page.locator('#contact').getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await snapshot(t.db)).toBe(before);
    await checkBoth(page, 'listing-page-refused');

    await contact.getByLabel('Name', { exact: true }).fill('Olivia Browne');
    await contact.getByLabel('Phone', { exact: true }).fill('+44 7911 123456');
    await contact.getByLabel('Email (optional)', { exact: true }).fill('olivia@example.co.uk');
    await contact.getByLabel('Message (optional)', { exact: true }).fill('Is the terrace south-facing?');
    await contact.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('status').filter({ hasText: 'Thank you!' }).waitFor();
    expect(page.url()).toContain('sent=1');
    const lead = await t.db.selectFrom('leads').selectAll().where('phone_number_1', '=', '+447911123456').executeTakeFirstOrThrow();
    expect(lead).toMatchObject({
      name: 'Olivia Browne',
      source: 'listing_page',
      preferred_language: 'gb',
      personal_email: 'olivia@example.co.uk',
    });
    // A reload of the thanks sends nothing again.
    await page.reload();
    await page.getByRole('status').filter({ hasText: 'Thank you!' }).waitFor();
    expect((await t.db.selectFrom('leads').select('id').where('phone_number_1', '=', '+447911123456').execute()).length).toBe(1);
    await checkBoth(page, 'listing-page-sent');
    await context.close();
  }, 180_000);

  it('asks for a viewing among the free slots: refused beside the fields first, then a requested viewing and a thank-you page', async () => {
    const context = await browser.newContext({ viewport: DESKTOP, locale: 'es-ES' });
    const page = await context.newPage();
    const token = await listingPageToken(t.db, t.businessId, listingId);
    await page.goto(`${origin}/l/${token}`);
    const visit = page.locator('#visit');
    await visit.getByRole('heading', { name: 'Pide una visita' }).waitFor();
    // Sent without a slot or a consent: refused beside the fields, nothing stored.
    const before = await snapshot(t.db);
    await visit.getByLabel('Nombre', { exact: true }).fill('Pablo Ferrer');
    await visit.getByLabel('Teléfono', { exact: true }).fill('612 77 88 99');
    await visit.getByRole('button', { name: 'Pedir visita' }).click();
    await page.locator('#ve-slot').waitFor();
    await expect(page.locator('#ve-consent').textContent()).resolves.toContain('Marca la casilla');
    await expect(page.locator('#v-slot').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await snapshot(t.db)).toBe(before);
    await checkBoth(page, 'listing-page-visit-refused');

    // The second free slot, chosen as a person would: by the day's group and the time.
    const choice = await page
      .locator('#v-slot optgroup option')
      .nth(1)
      .evaluate((option) => ({
        value: (option as HTMLOptionElement).value,
        day: (option.parentElement as HTMLOptGroupElement).label,
        time: option.textContent ?? '',
      }));
    await page.locator('#v-slot').selectOption(choice.value);
    await visit.getByLabel('Acepto que la agencia me contacte por WhatsApp, teléfono o correo sobre mi visita.').check();
    await visit.getByRole('button', { name: 'Pedir visita' }).click();
    await page.getByRole('heading', { level: 1, name: '¡Gracias! Hemos recibido tu petición de visita' }).waitFor();
    await expect(page.getByRole('status').textContent()).resolves.toContain(`${choice.day}, ${choice.time}`);
    const viewing = await t.db.selectFrom('viewings').selectAll().where('property_id', '=', listingId).executeTakeFirstOrThrow();
    expect(viewing).toMatchObject({ status: 'requested', source: 'website' });
    expect(Date.parse(viewing.starts_at)).toBe(Date.parse(choice.value));
    await checkBoth(page, 'listing-page-visit-thanks');
    // Back on the page, that time is offered no more.
    await page.getByRole('link', { name: /Volver al inmueble/ }).click();
    await visit.getByRole('heading', { name: 'Pide una visita' }).waitFor();
    await expect(page.locator(`#v-slot option[value="${choice.value}"]`).count()).resolves.toBe(0);
    await context.close();
  }, 180_000);

  it("says in words that a sold listing's page is gone (410)", async () => {
    const context = await browser.newContext({ viewport: DESKTOP, locale: 'es-ES' });
    const page = await context.newPage();
    const response = await page.goto(`${origin}/l/${soldToken}`);
    expect(response?.status()).toBe(410);
    await page.getByRole('heading', { level: 1, name: 'Este inmueble ya no está disponible' }).waitFor();
    await checkBoth(page, 'listing-page-gone');
    await context.close();
  }, 120_000);

  it('finds no serious or critical accessibility violation, and nothing scrolls sideways on a phone', () => {
    expect(violations).toEqual([]);
  });
});
