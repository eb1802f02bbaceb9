/**
 * "Hoy" in a real browser (issue 47, CONTRACT §23): an agent's morning on a phone — the day's
 * lists, a viewing confirmed, a follow-up done, a new lead taken — without sideways scrolling,
 * and the owner's page at a desktop's width in English. axe-core checks every page.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck, CHROMIUM, chromiumHere, WIDTHS, logInToConsole } from '../helpers/browser.ts';
import { userWithPassword } from '../helpers/console.ts';
import { withApp } from '../helpers/http.ts';
import { seedDay } from '../helpers/today.ts';

const here = chromiumHere('"Hoy" browser tests');

describe.skipIf(!here)('Hoy in Chromium', () => {
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      const agent = await userWithPassword(db, businessId, 'bea@inmo.example', 'agent');
      const owner = await userWithPassword(db, businessId, 'ana@inmo.example', 'owner');
      await seedDay(db, businessId, agent.id, owner.id);
    },
  });
  let browser: Browser;
  let origin = '';
  const violations: string[] = [];

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    origin = new URL(t.base).origin;
  });
  afterAll(async () => {
    await browser?.close();
  });

  const sideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  it("an agent's morning on a phone: confirm, done, take", async () => {
    const context = await browser.newContext({ viewport: WIDTHS.phone, locale: 'es-ES' });
    const page = await context.newPage();
    await logInToConsole(page, origin, 'bea@inmo.example');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Hoy');
    await axeCheck(page, violations, 'hoy (agent)', 'phone');
    expect(await sideways(page)).toBeLessThanOrEqual(0);

    const viewings = page.getByRole('region', { name: /Tus visitas de hoy/ });
    await viewings.getByRole('button', { name: 'Confirmar' }).click();
    await expect.poll(() => viewings.textContent()).toContain('confirmada');

    const followUps = page.getByRole('region', { name: /Seguimientos pendientes/ });
    await expect.poll(() => followUps.textContent()).toContain('atrasado desde');
    await followUps.getByRole('listitem').filter({ hasText: 'Lucía Beatriz' }).getByRole('button', { name: 'Hecho' }).click();
    await expect.poll(() => followUps.textContent()).not.toContain('Lucía Beatriz');

    const unassigned = page.getByRole('region', { name: /Leads nuevos sin asignar/ });
    await unassigned.getByRole('button', { name: 'Me lo quedo' }).click();
    await expect.poll(() => page.url()).toMatch(/\/console\/leads\/\d+#h-work$/);
    await page.goto(`${origin}/console`);
    await expect.poll(() => unassigned.textContent()).toContain('Todos los leads nuevos tienen quien los lleve');
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    await context.close();
    expect(violations).toEqual([]);
  });

  it("the owner's page at a desktop's width, in English", async () => {
    const context = await browser.newContext({ viewport: WIDTHS.desktop, locale: 'en-GB' });
    const page = await context.newPage();
    await logInToConsole(page, origin, 'ana@inmo.example', 'en');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Today');
    await expect.poll(() => page.getByRole('region', { name: /Today's viewings/ }).textContent()).toContain('Olga Deana');
    await axeCheck(page, violations, 'hoy (owner)', 'desktop');
    await context.close();
    expect(violations).toEqual([]);
  });
});
