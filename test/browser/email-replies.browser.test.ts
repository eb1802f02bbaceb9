/**
 * Answering by e-mail from the lead page in a real browser (CONTRACT §25): for a lead with an
 * e-mail address and no WhatsApp, the reply form offers e-mail (WhatsApp shown disabled, with the
 * reason), and the reply, once the worker has handed it to a real SMTP server on loopback, shows in
 * the lead's conversation marked as an e-mail; the inbox lists the conversation as an e-mail one.
 * Every page is checked by axe-core at 1366 and 390 px, where nothing may scroll sideways.
 *
 * Skipped, saying so, where /usr/bin/chromium is missing, except under `INMO_REQUIRE_BROWSER=1`.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/jobs/worker.ts';
import { createLeadByHand } from '../../src/services/leads/leads.ts';
import { connectEmail } from '../../src/services/messaging/email.ts';
import { axeCheck, CHROMIUM, chromiumHere, logInToConsole, WIDTHS } from '../helpers/browser.ts';
import { userWithPassword } from '../helpers/console.ts';
import { withApp } from '../helpers/http.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';

const here = chromiumHere('e-mail replies browser tests');
const DESKTOP = { width: 1366, height: 860 };

describe.skipIf(!here)('answering by e-mail from the lead page in Chromium', () => {
  let leadId = 0;
  let smtp: TestSmtp;
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agente@agencia.example', 'agent');
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

  beforeAll(async () => {
    smtp = await startSmtp();
    await connectEmail(t.db, { businessId: t.businessId, url: smtp.url, from: 'hola@agencia.example', replyTo: null });
    const lead = await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34611700901', name: 'Marta Ruiz' });
    await t.db.updateTable('leads').set({ personal_email: 'marta@example.com' }).where('id', '=', lead.id).execute();
    leadId = lead.id;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    origin = new URL(t.base).origin;
  });
  afterAll(async () => {
    await browser?.close();
    await smtp?.close();
  });

  it('an agent answers a lead without WhatsApp by e-mail, and sees it in the thread and the inbox', async () => {
    const context = await browser.newContext({ viewport: DESKTOP, locale: 'es-ES' });
    const page = await context.newPage();
    await logInToConsole(page, origin, 'agente@agencia.example');
    await page.goto(`${origin}/console/leads/${leadId}`);
    const thread = page.locator('section[aria-labelledby="h-thread"]');
    await thread.getByLabel('Tu respuesta').waitFor();
    await expect(thread.getByLabel('WhatsApp').isDisabled()).resolves.toBe(true);
    await expect(thread.locator('#r-whatsapp-why').textContent()).resolves.toBe('El espacio de trabajo no tiene WhatsApp conectado.');
    await expect(thread.getByLabel('Correo electrónico').isChecked()).resolves.toBe(true);
    await checkBoth(page, 'lead-reply-by-email');

    await thread.getByLabel('Tu respuesta').fill('Hola Marta, el piso sigue disponible.');
    await thread.getByRole('button', { name: 'Enviar respuesta' }).click();
    await page.waitForURL(`${origin}/console/leads/${leadId}#h-thread`);
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    expect(smtp.received.map((r) => r.to)).toEqual([['marta@example.com']]);
    await page.reload();
    const sent = page.locator('.thread li');
    await expect.poll(() => sent.count()).toBe(1);
    await expect(sent.first().textContent()).resolves.toMatch(/correo electrónico · .* Hola Marta, el piso sigue disponible\./s);
    await checkBoth(page, 'lead-replied-by-email');

    await page.goto(`${origin}/console/inbox`);
    const row = page.locator('.inbox li').first();
    await row.waitFor();
    await expect(row.locator('.channel').textContent()).resolves.toBe('Correo electrónico');
    await checkBoth(page, 'inbox-email');
    await context.close();
  }, 180_000);

  it('finds no serious or critical accessibility violation, and nothing scrolls sideways on a phone', () => {
    expect(violations).toEqual([]);
  });
});
