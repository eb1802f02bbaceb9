/**
 * Listings in a real browser (issue 27, CONTRACT §14): an agent creates a listing in Chromium,
 * a form with a bad price is shown again with the fault beside the field and stores nothing,
 * the listing is lowered in price, reserved and sold with one click, and the API follows each
 * step. Every page is checked by axe-core at desktop and phone widths.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck, CHROMIUM, chromiumHere, WIDTHS } from '../helpers/browser.ts';
import { PASSWORD, userWithPassword } from '../helpers/console.ts';
import { importRecords, listing, snapshot } from '../helpers/db.ts';
import { withApp } from '../helpers/http.ts';

const here = chromiumHere('listings browser tests');

describe.skipIf(!here)('listings in Chromium', () => {
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agente@agencia.example', 'agent');
      await importRecords(db, businessId, [listing('M-1', { title: 'Piso luminoso en Chamberí' }), listing('M-2', { public: false })]);
    },
  });
  let browser: Browser;
  let origin: string;
  const violations: string[] = [];
  const check = (page: Page, name: string, width: keyof typeof WIDTHS = 'desktop') => axeCheck(page, violations, name, width);
  const api = async (path: string) => {
    const response = await fetch(`${t.base}${path}`, { headers: { 'x-api-key': t.key } });
    return { status: response.status, body: (await response.json()) as { data: Record<string, unknown> } };
  };

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    origin = new URL(t.base).origin;
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('an agent creates a listing, fixes a bad price, lowers it, reserves and sells it, and the API follows', async () => {
    const context = await browser.newContext({ viewport: WIDTHS.desktop, locale: 'es-ES' });
    const page = await context.newPage();
    await page.goto(`${origin}/console/login`);
    await page.getByLabel('Correo electrónico').fill('agente@agencia.example');
    await page.getByLabel('Contraseña').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('link', { name: 'Inmuebles' }).click();
    await check(page, 'properties');
    await page.getByRole('link', { name: 'Nuevo inmueble' }).click();
    await check(page, 'property-new');

    await page.getByLabel('Título').fill('Ático con terraza en Delicias');
    await page.getByLabel('Tipo', { exact: true }).selectOption('apartamento');
    await page.getByLabel('Subtipo').selectOption('atico');
    // The rent appears once the operation is ticked.
    await expect(page.getByLabel('Alquiler (€ al mes)').isVisible()).resolves.toBe(false);
    await page.getByLabel('Alquiler', { exact: true }).check();
    await page.getByLabel('Alquiler (€ al mes)').fill('novecientos');
    await page.getByLabel('Habitaciones').fill('2');
    await page.getByLabel('Ciudad', { exact: true }).fill('Zaragoza');
    await page.getByLabel('Ascensor').check();
    const before = await snapshot(t.db);
    await page.getByRole('button', { name: 'Crear el inmueble' }).click();
    await expect(page.locator('#e-price_rent').textContent()).resolves.toContain('Escribe un número');
    await expect(page.getByLabel('Alquiler (€ al mes)').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await snapshot(t.db)).toBe(before);
    await check(page, 'property-invalid');

    await page.getByLabel('Alquiler (€ al mes)').fill('950');
    await page.getByRole('button', { name: 'Crear el inmueble' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('Inmueble guardado.');
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    expect((await api(`/properties/${id}`)).body.data).toMatchObject({
      title: 'Ático con terraza en Delicias',
      subtype: 'Ático',
      status: 'disponible',
    });
    expect((await api(`/properties/${id}`)).body.data.specs).toMatchObject({ price_calc: { price_alq: 950 } });
    await check(page, 'property');

    await page.getByLabel('Alquiler (€ al mes)').fill('900');
    await page.getByRole('button', { name: 'Guardar los cambios' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('Inmueble guardado.');
    expect((await api(`/properties/${id}`)).body.data.specs).toMatchObject({ price_calc: { price_alq: 900 } });

    await page.getByRole('button', { name: 'Marcar como Reservado' }).click();
    expect((await api(`/properties/${id}`)).body.data.status).toBe('reservada');
    await page.getByRole('button', { name: 'Marcar como Alquilado' }).click();
    expect((await api(`/properties/${id}`)).status).toBe(404);
    await expect(page.getByText('No se publica: está alquilado.').isVisible()).resolves.toBe(true);

    await page.setViewportSize(WIDTHS.phone);
    for (const [name, path] of [
      ['properties', '/console/properties'],
      ['property-new', '/console/properties/new'],
      ['property', `/console/properties/${id}`],
    ]) {
      await page.goto(origin + path);
      await check(page, name, 'phone');
    }
    await context.close();
    expect(violations).toEqual([]);
  }, 120_000);
});
