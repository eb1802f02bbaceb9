/**
 * The visit sheet in a real browser (issue 44 item 6, CONTRACT §20): on a phone (390 px) the visitor
 * types their name and DNI and signs with the pointer on the canvas (page.mouse); a wrong DNI letter
 * is refused beside the field, the signature drawn back in the box; once signed the page shows the
 * signature, and the PDF downloaded from it, read back with pdf.js, holds the visitor's name, the
 * document number, the listing's reference and a signature image with ink on it. At a desktop's
 * width (1366 px) the owner sets the clause on the settings page. axe-core checks every page at
 * both widths; no page scrolls sideways at 390 px.
 */
import { readFile } from 'node:fs/promises';
import { DateTime } from 'luxon';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeadByHand } from '../../src/services/leads/leads.ts';
import { axeCheck, CHROMIUM, chromiumHere, drawSignature, logInToConsole, WIDTHS } from '../helpers/browser.ts';
import { userWithPassword } from '../helpers/console.ts';
import { importRecords, listing, propertyId } from '../helpers/db.ts';
import { withApp } from '../helpers/http.ts';
import { readPdf } from '../helpers/pdf.ts';

const here = chromiumHere('visit sheet browser tests');

/** Tomorrow at 10:00 in Madrid, as stored. */
const STARTS = DateTime.now().setZone('Europe/Madrid').plus({ days: 1 }).set({ hour: 10, minute: 0, second: 0, millisecond: 0 });
const stored = (at: DateTime) => at.toUTC().toISO()!.replace('Z', '+00:00');

describe.skipIf(!here)('the visit sheet in Chromium', () => {
  let viewing = 0;
  let unsigned = 0;
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'ana@inmo.example', 'owner');
      const bea = await userWithPassword(db, businessId, 'bea@inmo.example', 'agent');
      await importRecords(db, businessId, [listing('PISO-9', { title: 'Piso luminoso en Gràcia', address: 'Carrer de Verdi 12, 2º 1ª' })]);
      const lucia = (await createLeadByHand(db, { businessId, phone: '+34 612 345 678', name: 'Lucía Beatriz' })).id;
      const booked = async (at: DateTime, status: 'confirmed' | 'scheduled') =>
        (
          await db
            .insertInto('viewings')
            .values({
              business_id: businessId,
              lead_id: lucia,
              property_id: await propertyId(db, 'PISO-9'),
              user_id: bea.id,
              starts_at: stored(at),
              ends_at: stored(at.plus({ minutes: 30 })),
              status,
              source: 'console',
              feedback: null,
              created_at: new Date().toISOString(),
              updated_at: new Date().toISOString(),
            })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id;
      viewing = await booked(STARTS, 'confirmed');
      unsigned = await booked(STARTS.plus({ hours: 2 }), 'scheduled');
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

  it('an agent’s phone: the visitor signs with the finger, a wrong DNI letter is refused, the signed PDF downloads', async () => {
    const context = await browser.newContext({ viewport: WIDTHS.phone, locale: 'es-ES', acceptDownloads: true });
    const page = await context.newPage();
    await logInToConsole(page, origin, 'bea@inmo.example');
    await page.goto(`${origin}/console/viewings/${viewing}`);
    const sheet = page.getByRole('region', { name: 'Hoja de visita' });
    await sheet.getByRole('img', { name: /Recuadro de firma/ }).waitFor();
    expect(await sheet.textContent()).toContain('El visitante declara que ha conocido y visitado el inmueble');
    expect(await sheet.locator('[data-signature-state]').textContent()).toBe('Aún no hay firma en el recuadro.');
    await axeCheck(page, violations, 'visit-sheet', 'phone');

    // A DNI whose letter is not its number's: refused beside the field, the name kept, nothing stored.
    await sheet.getByLabel('Nombre y apellidos del visitante').fill('Lucía Beatriz Gómez');
    await sheet.getByLabel('Tipo de documento').selectOption('dni');
    await sheet.getByLabel('Número del documento').fill('12345678A');
    await drawSignature(page);
    await expect.poll(() => sheet.locator('[data-signature-state]').textContent()).toBe('Firma dibujada en el recuadro.');
    await sheet.getByRole('button', { name: 'Firmar la hoja de visita' }).click();
    await expect
      .poll(() => page.locator('#s-number-problem').textContent())
      .toBe('La letra no corresponde al número: revise el documento.');
    expect(await page.locator('#s-number').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#s-name').inputValue()).toBe('Lucía Beatriz Gómez');
    expect(await t.db.selectFrom('visit_sheets').selectAll().execute()).toEqual([]);
    await axeCheck(page, violations, 'visit-sheet-refused', 'phone');

    // The right letter; the signature taken is back in the box, not to be drawn again.
    await expect.poll(() => page.locator('[data-signature-state]').textContent()).toBe('Firma dibujada en el recuadro.');
    // The phone turned and back: the box takes its new width, the signature stays (the PDF's ink below).
    await page.setViewportSize({ width: WIDTHS.phone.height, height: WIDTHS.phone.width });
    await expect.poll(() => page.locator('canvas').evaluate((c) => c.getBoundingClientRect().width)).toBeGreaterThan(WIDTHS.phone.width);
    await page.setViewportSize(WIDTHS.phone);
    await expect.poll(() => page.locator('canvas').evaluate((c) => c.getBoundingClientRect().width)).toBeLessThan(WIDTHS.phone.width);
    expect(await page.locator('[data-signature-state]').textContent()).toBe('Firma dibujada en el recuadro.');
    await page.locator('#s-number').fill('12345678Z');
    await page.getByRole('button', { name: 'Firmar la hoja de visita' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Hoja de visita firmada.');
    const signature = page.getByRole('img', { name: 'Firma de Lucía Beatriz Gómez' });
    await expect.poll(() => signature.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    const [row] = await t.db.selectFrom('visit_sheets').selectAll().execute();
    expect(row).toMatchObject({ visitor_name: 'Lucía Beatriz Gómez', document_type: 'dni', document_number: '12345678Z' });
    await axeCheck(page, violations, 'visit-sheet-signed', 'phone');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Descargar la hoja firmada (PDF)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`hoja-de-visita-${viewing}.pdf`);
    const pdf = await readPdf(await readFile((await download.path())!));
    const text = pdf.text.join(' ');
    expect(text).toContain('Lucía Beatriz Gómez');
    expect(text).toContain('12345678Z');
    expect(text).toContain('PISO-9');
    expect(text).toContain('Carrer de Verdi 12, 2º 1ª');
    // The signature drawn with the mouse: an image with ink (dark pixels) on it.
    expect(pdf.images).toHaveLength(1);
    const [image] = pdf.images;
    let ink = 0;
    for (let i = 0; i < image.rgba.length; i += 4) if (image.rgba[i] < 128 && image.rgba[i + 1] < 128 && image.rgba[i + 2] < 160) ink++;
    expect(ink).toBeGreaterThan(200);
    expect(ink).toBeLessThan((image.width * image.height) / 2);
    await context.close();
    expect(violations).toEqual([]);
  }, 180_000);

  it('the owner at a desktop’s width, in English: the settings’ clause, the viewing’s signed sheet', async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, locale: 'en-GB' });
    const page = await context.newPage();
    await logInToConsole(page, origin, 'ana@inmo.example', 'en');
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(`${origin}/console/settings`);
    const clause = page.getByLabel('Text of the clause');
    expect(await clause.inputValue()).toContain('El visitante declara');
    await axeCheck(page, violations, 'settings', 'desktop');
    await clause.fill(
      'The visitor acknowledges that the agency introduced the property and that its fee is due on any sale within 12 months.',
    );
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Settings saved.');
    expect(await page.textContent('main')).toContain("The agency's own clause is in use.");
    await page.setViewportSize(WIDTHS.phone);
    await axeCheck(page, violations, 'settings', 'phone');
    await page.setViewportSize({ width: 1366, height: 900 });

    await page.goto(`${origin}/console/viewings/${viewing}`);
    const sheet = page.getByRole('region', { name: 'Visit sheet' });
    await expect.poll(() => sheet.textContent()).toMatch(/Signed by Lucía Beatriz Gómez \(DNI 12345678Z\) on /);
    await axeCheck(page, violations, 'visit-sheet-signed', 'desktop');
    // A viewing not signed yet: the form, the box and the new clause.
    await page.goto(`${origin}/console/viewings/${unsigned}`);
    const form = page.getByRole('region', { name: 'Visit sheet' });
    await form.getByRole('img', { name: /Signature box/ }).waitFor();
    expect(await form.textContent()).toContain('its fee is due on any sale within 12 months');
    await axeCheck(page, violations, 'visit-sheet', 'desktop');
    await context.close();
    expect(violations).toEqual([]);
  }, 120_000);
});
