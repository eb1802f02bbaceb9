/**
 * A mandate signed on a phone (issue 58 item 3, CONTRACT §24), on the agent's screen and through
 * the owner's link `/m/<token>` (in the owner's language): on an agent's phone (390 px) the
 * agent saves the draft from the listing's terms, the owner types their name and DNI and signs
 * with the pointer on the canvas; the page then shows the mandate in force, and its PDF,
 * downloaded and read back with pdf.js, holds the owner, the document, the fee and a signature
 * with ink. At a desktop's width the page with its versions. axe-core checks each page at both
 * widths; no page scrolls sideways at 390 px.
 */
import { readFile } from 'node:fs/promises';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { axeCheck, chromiumForFile, chromiumHere, drawSignature, logInToConsole, WIDTHS } from '../helpers/browser.ts';
import { userWithPassword } from '../helpers/console.ts';
import { importRecords, listing, propertyId } from '../helpers/db.ts';
import { withApp } from '../helpers/http.ts';
import { leadOfType, linkOwner } from '../helpers/leads.ts';
import { readPdf } from '../helpers/pdf.ts';
import { mintToken } from '../../src/domain/capability-token.ts';
import { defaultTerms, termsForm } from '../../src/domain/owners/mandates.ts';
import { CLI } from '../../src/services/access/audit.ts';
import { saveMandateDraft } from '../../src/services/owners/mandates.ts';

const here = chromiumHere('mandate browser tests');

describe.skipIf(!here)('a mandate in Chromium', () => {
  let house = 0;
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'bea@inmo.example', 'agent');
      await importRecords(db, businessId, [listing('CASA-7', { title: 'Piso en Delicias', price: 185000, address: 'Calle Delicias 7' })]);
      const owner = await leadOfType(db, businessId, 'propietario', '+34612700007', 'Rosa Propietaria');
      await linkOwner(db, owner, ['CASA-7']);
      house = await propertyId(db, 'CASA-7');
    },
  });
  const browser = chromiumForFile();
  const violations: string[] = [];

  it('an agent’s phone: the draft saved, the owner signs with the finger, the signed PDF downloads; the versions at a desktop', async () => {
    const origin = new URL(t.base).origin;
    const context = await browser().newContext({ viewport: WIDTHS.phone, locale: 'es-ES', acceptDownloads: true });
    const page = await context.newPage();
    await logInToConsole(page, origin, 'bea@inmo.example');
    await page.goto(`${origin}/console/properties/${house}`);
    await page.getByRole('link', { name: 'Hoja de encargo' }).click();
    await page.waitForURL(`${origin}/console/properties/${house}/mandate`);
    expect(await page.getByLabel('Precio de salida (€)').inputValue()).toBe('185000');
    await axeCheck(page, violations, 'mandate', 'phone');
    await page.getByLabel('Honorarios', { exact: true }).fill('4');
    await page.getByRole('button', { name: 'Guardar el borrador' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Borrador guardado.');
    await axeCheck(page, violations, 'mandate-draft', 'phone');

    await page.getByLabel('Nombre y apellidos del propietario').fill('Rosa María Propietaria');
    await page.getByLabel('Número del documento').fill('12345678Z');
    await drawSignature(page);
    await expect.poll(() => page.locator('[data-signature-state]').textContent()).toBe('Firma dibujada en el recuadro.');
    await page.getByRole('button', { name: 'Firmar la hoja de encargo' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Hoja de encargo firmada.');
    expect(await page.getByRole('region', { name: 'Encargo en vigor' }).textContent()).toContain('Rosa María Propietaria');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(WIDTHS.phone.width);
    await axeCheck(page, violations, 'mandate-signed', 'phone');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Descargar la hoja de encargo firmada (PDF)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('hoja-de-encargo-CASA-7-v1.pdf');
    const pdf = await readPdf(await readFile((await download.path())!));
    const text = pdf.text.join(' ');
    for (const words of ['Rosa María Propietaria', 'DNI 12345678Z', '4 % del precio', 'CASA-7', 'Calle Delicias 7'])
      expect(text).toContain(words);
    expect(pdf.images).toHaveLength(1);
    const [image] = pdf.images;
    let ink = 0;
    for (let i = 0; i < image.rgba.length; i += 4) if (image.rgba[i] < 128 && image.rgba[i + 1] < 128 && image.rgba[i + 2] < 160) ink++;
    expect(ink).toBeGreaterThan(200);

    await page.setViewportSize({ width: 1366, height: 900 });
    await page.reload();
    expect(await page.getByRole('region', { name: 'Versiones' }).textContent()).toContain('firmada');
    await axeCheck(page, violations, 'mandate-signed', 'desktop');
    await context.close();
    expect(violations).toEqual([]);
  }, 180_000);

  it('an owner’s phone, through the e-mailed link: the draft signed with the finger, in the owner’s language', async () => {
    const owner = (await t.db.selectFrom('leads').select('id').executeTakeFirstOrThrow()).id;
    await t.db.updateTable('leads').set({ preferred_language: 'gb' }).where('id', '=', owner).execute();
    const draft = await saveMandateDraft(
      t.db,
      t.businessId,
      house,
      termsForm(defaultTerms({ operation: 'venta', price: 185000 }, DateTime.now().setZone('Europe/Madrid').toISODate()!)),
      CLI,
    );
    // The link as the e-mail's claim makes it (services/owners/mandate-links.ts): only its hash stored.
    const { token, hash } = mintToken();
    const at = new Date().toISOString();
    await t.db
      .insertInto('mandate_links')
      .values({
        business_id: t.businessId,
        mandate_id: draft.id,
        message_id: null,
        token_hash: hash,
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
        used_at: null,
        created_at: at,
      })
      .execute();
    const origin = new URL(t.base).origin;
    const context = await browser().newContext({ viewport: WIDTHS.phone, locale: 'en-GB' });
    const page = await context.newPage();
    await page.goto(`${origin}/m/${token}`);
    expect(await page.locator('h1').textContent()).toBe('Mandate to sign');
    await axeCheck(page, violations, 'mandate-link', 'phone');
    await page.getByLabel('Full name').fill('Rosa María Propietaria');
    await page.getByLabel('Document number').fill('12345678Z');
    await drawSignature(page);
    await expect.poll(() => page.locator('[data-signature-state]').textContent()).toBe('Signature drawn in the box.');
    await page.getByRole('button', { name: 'Sign the mandate' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Done: the mandate is signed. The agency has it. Thank you.');
    await axeCheck(page, violations, 'mandate-link-done', 'phone');
    const signed = await t.db.selectFrom('mandates').select(['status', 'signed_how']).where('id', '=', draft.id).executeTakeFirstOrThrow();
    expect(signed).toEqual({ status: 'signed', signed_how: 'link' });
    await page.setViewportSize({ width: 1366, height: 900 });
    await axeCheck(page, violations, 'mandate-link-done', 'desktop');
    await context.close();
    expect(violations).toEqual([]);
  }, 120_000);
});
