/**
 * An agent making their calendar URL in Chromium (issue 44, CONTRACT §20 "Agents' calendars"):
 * the page at 1366 px and 390 px, axe-core clean and with no sideways scrolling on a phone (the
 * long URL included), the URL shown once with its copy button, and the phone's instructions.
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck, CHROMIUM, chromiumHere, logInToConsole, WIDTHS } from '../helpers/browser.ts';
import { userWithPassword } from '../helpers/console.ts';
import { withApp } from '../helpers/http.ts';

const here = chromiumHere('calendar browser test');

describe.skipIf(!here)("an agent's calendar URL in Chromium", () => {
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'ana.martinez.lopez@agencia-inmobiliaria.example', 'agent');
    },
  });
  let browser: Browser;
  const violations: string[] = [];

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('makes the URL, shows it once with a copy button, and reads well at 1366 and 390 px', async () => {
    const origin = new URL(t.base).origin;
    const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, locale: 'es-ES' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const page = await context.newPage();
    await logInToConsole(page, origin, 'ana.martinez.lopez@agencia-inmobiliaria.example');
    await page.goto(`${origin}/console/calendar`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Tu calendario en el móvil');
    await axeCheck(page, violations, 'calendar', 'desktop');

    await page.getByRole('button', { name: 'Hacer mi dirección' }).click();
    const field = page.getByLabel('Dirección de tu calendario');
    await field.waitFor();
    const url = await field.inputValue();
    expect(url).toMatch(new RegExp(`^${origin}/calendar/[A-Za-z0-9_-]{43}\\.ics$`));
    await page.getByRole('button', { name: 'Copiar' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(url);
    const subscribe = page.getByRole('link', { name: 'Suscribirse en este dispositivo' });
    await expect(subscribe.getAttribute('href')).resolves.toBe(url.replace(/^http:/, 'webcal:'));
    const served = await fetch(url);
    expect([served.status, served.headers.get('content-type')]).toEqual([200, 'text/calendar; charset=utf-8']);
    await axeCheck(page, violations, 'calendar-made', 'desktop');

    await page.setViewportSize(WIDTHS.phone);
    await axeCheck(page, violations, 'calendar-made', 'phone');
    await page.goto(`${origin}/console/calendar`);
    await expect(page.getByText('Tienes una dirección activa desde el').count()).resolves.toBe(1);
    await expect(page.getByLabel('Dirección de tu calendario').count()).resolves.toBe(0);
    await axeCheck(page, violations, 'calendar', 'phone');
    expect(violations).toEqual([]);
    await context.close();
  });
});
