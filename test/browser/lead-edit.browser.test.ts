/**
 * The lead page's edit form in Chromium at a phone's width (CONTRACT §25, §23): opened from
 * "Editar", a refused phone said beside its field with the form open again and nothing lost, then
 * saved; axe-core finds nothing serious and the page does not scroll sideways at 390 px.
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeadByHand } from '../../src/services/leads/leads.ts';
import { axeCheck, CHROMIUM, chromiumHere, logInToConsole, WIDTHS } from '../helpers/browser.ts';
import { userWithPassword } from '../helpers/console.ts';
import { withApp } from '../helpers/http.ts';

const here = chromiumHere('lead edit browser tests');

describe.skipIf(!here)('the lead edit form in Chromium', () => {
  let leadId = 0;
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agente@agencia.example', 'agent');
      leadId = (await createLeadByHand(db, { businessId, phone: '+34 612 345 678', name: 'Lucia Perez' })).id;
    },
  });
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('corrects a lead at 390 px: a refusal beside its field, then saved', async () => {
    const origin = new URL(t.base).origin;
    const context = await browser.newContext({ viewport: WIDTHS.phone, locale: 'es-ES' });
    const page = await context.newPage();
    await logInToConsole(page, origin, 'agente@agencia.example');
    await page.goto(`${origin}/console/leads/${leadId}`);
    await page.getByText('Editar', { exact: true }).click();
    await page.getByLabel('Nombre', { exact: true }).fill('Lucía Pérez');
    await page.getByLabel('Segundo teléfono').fill('12');
    await page.getByLabel('Alquiler máx. (€/mes)').first().fill('900');
    await page.locator('input[name="s0_property_types"][value="apartamento"]').check();
    await page.getByRole('button', { name: 'Guardar cambios' }).click();

    const problem = page.locator('#e-phone_number_2-problem');
    await problem.waitFor();
    await expect(problem.textContent()).resolves.toContain('No es un teléfono válido');
    await expect(page.getByLabel('Segundo teléfono').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByLabel('Nombre', { exact: true }).inputValue()).resolves.toBe('Lucía Pérez');
    const violations: string[] = [];
    await axeCheck(page, violations, 'lead-edit-refused', 'phone');
    expect(violations).toEqual([]);

    await page.getByLabel('Segundo teléfono').fill('976 000 111');
    await page.getByRole('button', { name: 'Guardar cambios' }).click();
    await page.locator('h1', { hasText: 'Lucía Pérez' }).waitFor();
    await expect(page.locator('.history li', { hasText: 'Editó:' }).textContent()).resolves.toContain(
      'Editó: Nombre, Segundo teléfono, Búsquedas',
    );
    await axeCheck(page, violations, 'lead-edit-saved', 'phone');
    expect(violations).toEqual([]);
    await context.close();
  });
});
