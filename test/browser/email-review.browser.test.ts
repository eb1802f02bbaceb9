/**
 * The e-mails not understood in a real browser (issue 43, CONTRACT §19): at a phone's width an
 * agent opens the e-mail page, reads one, completes the phone the portal left out and makes the
 * lead, landing on its page; discards another. An owner makes an inbound address and sees it,
 * by SMTP with its forwarding rule (CONTRACT §25), beside the form of mailboxes read over IMAP. Every page is checked by axe-core at 1280 px and 390 px, in Spanish and English.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/jobs/worker.ts';
import { createInboundAddress } from '../../src/services/leads/email-intake.ts';
import { axeCheck, checkAtPhoneWidth, CHROMIUM, chromiumHere, WIDTHS, logInToConsole } from '../helpers/browser.ts';
import { userWithPassword } from '../helpers/console.ts';
import { withApp } from '../helpers/http.ts';

const here = chromiumHere('e-mail review browser tests');

/** A portal's notice without the phone, as a forward may leave it. */
const withoutPhone = [
  'From: Portal <avisos@portal.example>',
  'To: info@agencia.example',
  'Message-ID: <sin-telefono@portal.example>',
  'Subject: Nuevo contacto para tu anuncio',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'Nombre: Inés Gil',
  'Email: ines@correo.example',
  'Mensaje: Me gustaría visitarlo el sábado.',
  '',
].join('\r\n');
const advert = [
  'From: Portal <promos@portal.example>',
  'Message-ID: <promo@portal.example>',
  'Subject: Mejora tu plan',
  '',
  'Contrata el plan premium.',
  '',
].join('\r\n');

describe.skipIf(!here)('the e-mails to review in Chromium', () => {
  const t = withApp({
    listen: true,
    app: { inboundSmtp: { port: 2525, host: null, domain: 'entrada.agencia.example', maxConnections: 50, sessionMs: 600_000, tls: null } },
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agente@agencia.example', 'agent');
      await userWithPassword(db, businessId, 'duena@agencia.example', 'owner');
    },
  });
  let browser: Browser;
  let origin = '';
  const violations: string[] = [];
  const check = (page: Page, name: string, width: keyof typeof WIDTHS = 'desktop') => axeCheck(page, violations, name, width);

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    origin = new URL(t.base).origin;
    const { url } = await createInboundAddress(t.db, t.businessId);
    for (const raw of [withoutPhone, advert]) {
      const response = await fetch(origin + url, { method: 'POST', headers: { 'content-type': 'message/rfc822' }, body: raw });
      expect(response.status).toBe(202);
    }
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('an agent on a phone makes the lead of one and discards the other; an owner makes an address', async () => {
    const context = await browser.newContext({ viewport: WIDTHS.phone, locale: 'es-ES' });
    const page = await context.newPage();
    await logInToConsole(page, origin, 'agente@agencia.example');
    await page.getByRole('link', { name: 'Correo', exact: true }).click();
    await check(page, 'email (agent)', 'phone');
    const list = page.getByRole('list', { name: 'Correos por revisar' });
    await expect(list.getByRole('listitem').count()).resolves.toBe(2);
    await expect(list.textContent()).resolves.toContain('No aparece ningún teléfono y un contacto lo necesita');

    await list.getByRole('link', { name: 'Nuevo contacto para tu anuncio' }).click();
    await check(page, 'email message', 'phone');
    await expect(page.locator('pre.email-text').textContent()).resolves.toContain('Me gustaría visitarlo el sábado.');
    await expect(page.getByLabel('Nombre').inputValue()).resolves.toBe('Inés Gil');
    // Page width holds: nothing scrolls sideways at 390 px.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(WIDTHS.phone.width);
    await page.getByLabel('Teléfono').fill('12');
    await page.getByRole('button', { name: 'Crear el contacto' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('El teléfono no es válido');
    await check(page, 'email message refused', 'phone');
    await page.getByLabel('Teléfono').fill('633 444 555');
    await page.getByLabel('Origen').selectOption({ label: 'fotocasa' });
    await page.getByRole('button', { name: 'Crear el contacto' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Inés Gil');
    expect(page.url()).toMatch(/\/console\/leads\/\d+$/);

    await page.getByRole('link', { name: 'Correo', exact: true }).click();
    await page.getByRole('link', { name: 'Mejora tu plan' }).click();
    await page.getByRole('button', { name: 'Descartar este correo' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Correo descartado.');
    await expect(page.getByText('No hay correos por revisar.').isVisible()).resolves.toBe(true);
    await check(page, 'email (agent, none)', 'phone');
    await context.close();

    const owner = await browser.newContext({ viewport: WIDTHS.desktop, locale: 'en-GB' });
    const ownerPage = await owner.newPage();
    await logInToConsole(ownerPage, origin, 'duena@agencia.example', 'en');
    await ownerPage.getByRole('link', { name: 'E-mail', exact: true }).click();
    await ownerPage.getByRole('button', { name: 'Make an address' }).click();
    await ownerPage.getByRole('status').filter({ hasText: 'New address made' }).waitFor();
    const address = await ownerPage.getByLabel('Address to forward to').inputValue();
    expect(address).toMatch(/^[a-z0-9]{43}@entrada\.agencia\.example$/);
    await expect(ownerPage.locator('#email-rule-sieve').inputValue()).resolves.toContain(`redirect :copy "${address}";`);
    await expect(ownerPage.locator('#email-inbound-url').textContent()).resolves.toMatch(/^http:\/\/.+\/webhooks\/email\/[a-z0-9]{43}$/);
    await expect(ownerPage.getByRole('button', { name: 'Add the mailbox' }).isVisible()).resolves.toBe(true);
    await check(ownerPage, 'email (owner)');
    await checkAtPhoneWidth(ownerPage, origin, [['email (owner)', '/console/email']], violations);
    await owner.close();

    expect(violations).toEqual([]);
  }, 120_000);
});
