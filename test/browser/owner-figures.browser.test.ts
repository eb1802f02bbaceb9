/**
 * An owner reading the last 30 days' figures on "Hoy" in Chromium (issue 47, CONTRACT §23), at
 * 1366 px and 390 px: four charts (server-side SVG, `role="img"` with a title) each with its
 * table, axe-core clean, and no sideways scrolling on a phone.
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertHistory, insertLead } from '../../src/db/repositories/leads.ts';
import { nowRfc3339, toRfc3339 } from '../../src/domain/time.ts';
import { axeCheck, CHROMIUM, chromiumHere, WIDTHS, logInToConsole } from '../helpers/browser.ts';
import { userWithPassword } from '../helpers/console.ts';
import { importRecords, listing } from '../helpers/db.ts';
import { withApp } from '../helpers/http.ts';

const here = chromiumHere('owner figures browser test');

describe.skipIf(!here)("the owner's figures in Chromium", () => {
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'duena@agencia.example', 'owner');
      const ana = await userWithPassword(db, businessId, 'ana.martinez.lopez@agencia-inmobiliaria.example', 'agent');
      const ago = (hours: number) => toRfc3339(new Date(Date.now() - hours * 3_600_000));
      const sources = ['idealista', 'idealista', 'fotocasa', 'www.agencia-inmobiliaria-del-centro.example', 'manual', null];
      for (const [i, source] of sources.entries()) {
        const lead = await insertLead(db, {
          business_id: businessId,
          name: `Lead ${i}`,
          type: 'demandante',
          status: i % 2 === 0 ? 'new' : 'searching_property',
          active: 1,
          source,
          phone_number_1: `+3461000000${i}`,
          rating: 3,
          assigned_user_id: i < 4 ? ana.id : null,
          created_at: ago(30 + i),
          updated_at: ago(30 + i),
        });
        if (i % 2 === 1)
          await insertHistory(db, {
            business_id: businessId,
            lead_id: lead.id,
            user_id: ana.id,
            change: 'status',
            detail: '{}',
            created_at: ago(28),
          });
      }
      const now = nowRfc3339();
      await importRecords(db, businessId, [
        listing('F1', { created_at: ago(24 * 5), updated_at: ago(24 * 5) }),
        listing('F2', { status: 'vendida', created_at: ago(24 * 40), updated_at: ago(24 * 2) }),
        listing('F3', { status: 'reservada', created_at: ago(24 * 10), updated_at: now }),
      ]);
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

  it('shows each chart beside its table, axe clean at 1366 and 390 px, no sideways scroll on a phone', async () => {
    const origin = new URL(t.base).origin;
    const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, locale: 'es-ES' });
    const page = await context.newPage();
    await logInToConsole(page, origin, 'duena@agencia.example');

    const figures = page.getByRole('region', { name: 'Cómo va la agencia' });
    await expect(figures.getByRole('img').count()).resolves.toBe(4);
    await expect(figures.getByRole('table').count()).resolves.toBe(4);
    await expect(figures.getByRole('img', { name: /^Leads por origen: idealista 2;/ }).count()).resolves.toBe(1);
    const bySource = figures.getByRole('table', { name: 'Leads por origen' });
    await expect(bySource.getByRole('row', { name: 'Introducido a mano 1' }).count()).resolves.toBe(1);
    await expect(bySource.getByRole('row', { name: 'Sin origen 1' }).count()).resolves.toBe(1);
    const contact = figures.getByRole('table', { name: 'Tiempo hasta el primer contacto, por agente' });
    // Contacted after 3 h and 5 h: a median of 4 h.
    await expect(
      contact
        .getByRole('row', { name: /^ana\.martinez/ })
        .locator('td')
        .allTextContents(),
    ).resolves.toEqual(['4', '2', '4 h']);
    await axeCheck(page, violations, 'owner-figures', 'desktop');

    await page.setViewportSize(WIDTHS.phone);
    await page.reload();
    await expect(figures.getByRole('img').count()).resolves.toBe(4);
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
    await axeCheck(page, violations, 'owner-figures', 'phone');
    expect(violations).toEqual([]);
    await context.close();
  });
});
