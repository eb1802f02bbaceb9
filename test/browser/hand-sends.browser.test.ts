/**
 * Listings sent by hand from the lead page in a real browser (issue 45, CONTRACT §21): an agent
 * sends with nothing ticked and is told so beside the list, then ticks two of the lead's matches,
 * sends them by e-mail (WhatsApp shown disabled, with the reason), and sees them listed as sent
 * once the worker has handed the e-mail to a real SMTP server on loopback. Every page is checked
 * by axe-core at 1366 and 390 px, where nothing may scroll sideways.
 *
 * Skipped, saying so, where /usr/bin/chromium is missing, except under `INMO_REQUIRE_BROWSER=1`.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/jobs/clock.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { connectEmail } from '../../src/services/messaging/email.ts';
import { axeCheck, CHROMIUM, chromiumHere, logInToConsole, WIDTHS } from '../helpers/browser.ts';
import { userWithPassword } from '../helpers/console.ts';
import { importRecords, listing, snapshot } from '../helpers/db.ts';
import { post, withApp } from '../helpers/http.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';

const here = chromiumHere('listings sent by hand browser tests');
const DESKTOP = { width: 1366, height: 860 };

describe.skipIf(!here)('listings sent by hand from the lead page in Chromium', () => {
  let leadId = 0;
  let smtp: TestSmtp;
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agente@agencia.example', 'agent');
      await db.updateTable('users').set({ display_name: 'Lucía Gil' }).where('email', '=', 'agente@agencia.example').execute();
      await importRecords(db, businessId, [
        listing('H-1', { title: 'Piso luminoso en Chamberí', price: 180_000 }),
        listing('H-2', { title: 'Piso exterior con balcón', price: 170_000 }),
        listing('H-3', { title: 'Ático con terraza', price: 195_000 }),
      ]);
    },
  });
  let browser: Browser;
  let origin: string;
  const violations: string[] = [];
  const checkBoth = async (page: Page, name: string) => {
    await page.setViewportSize(DESKTOP);
    await axeCheck(page, violations, name, 'desktop');
    await page.setViewportSize(WIDTHS.phone);
    await axeCheck(page, violations, name, 'phone');
    await page.setViewportSize(DESKTOP);
  };
  const drain = () =>
    new Worker({
      db: t.db,
      clock: new ManualClock(new Date(Date.now() + 60_000)),
      settings: { pollMs: 20, backoffMs: 60_000, maxAttempts: 3, alertHour: 24 },
    }).drain();

  beforeAll(async () => {
    smtp = await startSmtp();
    await connectEmail(t.db, { businessId: t.businessId, url: smtp.url, from: 'hola@agencia.example', replyTo: null });
    const response = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Marta Ruiz',
      type: 'buyer',
      phone_number_1: '+34611700900',
      personal_email: 'marta@example.com',
      search_preferences: [{ operations: ['venta'], property_types: ['apartamento'], apartamento: { price_max: 200_000 } }],
    });
    expect(response.status).toBe(200);
    leadId = response.body.lead_id as number;
    await drain();
    smtp.received.length = 0;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    origin = new URL(t.base).origin;
  });
  afterAll(async () => {
    await browser?.close();
    await smtp?.close();
  });

  it('an agent ticks two matches, sends them by e-mail, and sees them listed as sent', async () => {
    const context = await browser.newContext({ viewport: DESKTOP, locale: 'es-ES' });
    const page = await context.newPage();
    await logInToConsole(page, origin, 'agente@agencia.example');
    await page.goto(`${origin}/console/leads/${leadId}`);
    const form = page.locator('section[aria-labelledby="h-send"]');
    await form.getByRole('heading', { name: 'Enviar inmuebles' }).waitFor();
    // WhatsApp is offered, disabled, with the reason in words.
    await expect(form.getByLabel('Por WhatsApp').isDisabled()).resolves.toBe(true);
    await expect(form.locator('#s-whatsapp-why').textContent()).resolves.toBe('No hay ningún número de WhatsApp conectado.');
    await expect(form.getByLabel('Por correo').isChecked()).resolves.toBe(true);
    await checkBoth(page, 'lead-send');

    // Nothing ticked: refused beside the list, nothing stored.
    const before = await snapshot(t.db, ['sessions']);
    await form.getByRole('button', { name: 'Enviar los inmuebles' }).click();
    await page.locator('#s-property_id-problem').waitFor();
    await expect(page.locator('#s-property_id-problem').textContent()).resolves.toBe(
      'Marca al menos un inmueble o escribe una referencia.',
    );
    expect(await snapshot(t.db, ['sessions'])).toBe(before);
    await checkBoth(page, 'lead-send-refused');

    await form.getByLabel(/H-1 · Piso luminoso en Chamberí/).check();
    await form.getByLabel(/H-2 · Piso exterior con balcón/).check();
    await form.getByRole('button', { name: 'Enviar los inmuebles' }).click();
    await page.waitForURL(`${origin}/console/leads/${leadId}#h-alerts`);
    const sent = page.locator('.sent-listings li');
    await expect.poll(() => sent.count()).toBe(2);
    await expect(sent.first().textContent()).resolves.toMatch(/enviado a mano por Lucía Gil · por correo · pendiente de envío/);

    // The worker hands the e-mail to the SMTP server; the page then says it was sent.
    await drain();
    expect(smtp.received.map((r) => r.to)).toEqual([['marta@example.com']]);
    await page.reload();
    await expect.poll(() => sent.count()).toBe(2);
    const lines = await sent.allTextContents();
    expect(lines.some((l) => l.includes('Piso luminoso en Chamberí') && /por correo · enviado/.test(l))).toBe(true);
    expect(lines.some((l) => l.includes('Piso exterior con balcón') && /por correo · enviado/.test(l))).toBe(true);
    await expect(form.getByText(/ya enviado el/).count()).resolves.toBe(2);
    await checkBoth(page, 'lead-sent');
    await context.close();
  }, 180_000);

  it('finds no serious or critical accessibility violation, and nothing scrolls sideways on a phone', () => {
    expect(violations).toEqual([]);
  });
});
