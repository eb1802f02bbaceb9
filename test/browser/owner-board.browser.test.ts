/**
 * The owner board in Chromium (issue 58 item 2, CONTRACT §24), at 1366 px and 390 px: an agent
 * moves an owner by choosing its stage and pressing the card's button; the card is then in the
 * new column, the page says so, axe-core finds nothing, and a phone does not scroll sideways.
 */
import { describe, expect, it } from 'vitest';
import { createLeadByHand } from '../../src/services/leads/leads.ts';
import { axeCheck, chromiumForFile, chromiumHere, logInToConsole, WIDTHS } from '../helpers/browser.ts';
import { userWithPassword } from '../helpers/console.ts';
import { withApp } from '../helpers/http.ts';

const here = chromiumHere('owner board browser test');

describe.skipIf(!here)('the owner board in Chromium', () => {
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'ana@agencia.example', 'agent');
      const owners = [
        ['+34611444001', 'María del Rosario Fernández-Villaverde de la Concepción'],
        ['+34611444002', 'Jorge Propietario'],
      ];
      for (const [phone, name] of owners) {
        const { id } = await createLeadByHand(db, { businessId, phone, name });
        await db.updateTable('leads').set({ type: 'propietario' }).where('id', '=', id).execute();
      }
    },
  });
  const browser = chromiumForFile();
  const violations: string[] = [];

  it('moves an owner between columns, axe clean at 1366 and 390 px, no sideways scroll on a phone', async () => {
    const origin = new URL(t.base).origin;
    const context = await browser().newContext({ viewport: WIDTHS.desktop, locale: 'es-ES' });
    const page = await context.newPage();
    await logInToConsole(page, origin, 'ana@agencia.example');
    await page.getByRole('link', { name: 'Propietarios' }).click();
    const column = (name: RegExp) => page.getByRole('region', { name });
    await expect(
      column(/^Nuevo/)
        .getByRole('link', { name: 'Jorge Propietario' })
        .count(),
    ).resolves.toBe(1);
    await axeCheck(page, violations, 'owner-board', 'desktop');

    await page.getByRole('combobox', { name: 'Etapa de Jorge Propietario' }).selectOption({ label: 'Valorado' });
    await column(/^Nuevo/)
      .getByRole('listitem')
      .filter({ hasText: 'Jorge Propietario' })
      .getByRole('button', { name: 'Mover' })
      .click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Jorge Propietario está ahora en «Valorado».');
    await expect(
      column(/^Valorado/)
        .getByRole('link', { name: 'Jorge Propietario' })
        .count(),
    ).resolves.toBe(1);
    await expect(
      column(/^Nuevo/)
        .getByRole('link', { name: 'Jorge Propietario' })
        .count(),
    ).resolves.toBe(0);
    await axeCheck(page, violations, 'owner-board-moved', 'desktop');

    await page.setViewportSize(WIDTHS.phone);
    await page.reload();
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
    await axeCheck(page, violations, 'owner-board', 'phone');
    expect(violations).toEqual([]);
    await context.close();
  }, 60_000);
});
