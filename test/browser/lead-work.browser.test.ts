/**
 * The lead pipeline in a real browser (issue 29, CONTRACT §16): an agent sees the conversation
 * waiting for an agent first in the inbox and its unread count drop once opened; takes a lead,
 * moves it to active_negotiation with a reason and adds a note; GET /leads?updated_since= returns
 * it with the new status while a webhook receiver gets lead.updated, signed. The owner's
 * assistant page is shown too. Every page is checked by axe-core at 1280 px and 390 px.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertInbound, setConversationState, touchConversation } from '../../src/db/repositories/messaging.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { connectChannel } from '../../src/services/messaging/channels.ts';
import { createLeadByHand } from '../../src/services/leads/leads.ts';
import { addWebhook } from '../../src/services/integrations/outgoing-webhooks.ts';
import { axeCheck, checkAtPhoneWidth, CHROMIUM, chromiumHere, WIDTHS } from '../helpers/browser.ts';
import { PASSWORD, userWithPassword } from '../helpers/console.ts';
import { withApp } from '../helpers/http.ts';

const here = chromiumHere('lead pipeline browser tests');

describe.skipIf(!here)('the lead pipeline in Chromium', () => {
  let lucia = 0;
  let bruno = 0;
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agente@agencia.example', 'agent');
      await userWithPassword(db, businessId, 'duena@agencia.example', 'owner');
      lucia = (await createLeadByHand(db, { businessId, phone: '+34 612 345 678', name: 'Lucía Pérez' })).id;
      const searches = [
        {
          operations: ['alquiler'],
          property_types: ['apartamento'],
          locations: [{ name: 'Delicias' }],
          apartamento: { price_rent_max: 900, bedrooms_min: 2 },
        },
      ];
      await db
        .updateTable('leads')
        .set({ search_preferences: JSON.stringify(searches) })
        .where('id', '=', lucia)
        .execute();
      bruno = (await createLeadByHand(db, { businessId, phone: '+34 600 333 444', name: 'Bruno Gil' })).id;
      await connectChannel(
        db,
        { businessId, provider: 'whatsapp-cloud', phoneNumberId: '1099', tokenEnv: 'T', template: 'bienvenida' },
        { T: 'EAAG-token' },
      );
      const at = new Date().toISOString();
      await insertInbound(db, {
        business_id: businessId,
        lead_id: bruno,
        kind: 'text',
        author: null,
        body: 'Quiero hablar con una persona',
        provider_message_id: 'wamid.bruno.1',
        created_at: at,
        updated_at: at,
      });
      await touchConversation(db, { leadId: bruno, businessId, at, windowOpenUntil: new Date(Date.now() + 86_400_000).toISOString() });
      await setConversationState(db, bruno, { state: 'waiting_for_agent', updated_at: at });
    },
  });
  let browser: Browser;
  let origin: string;
  const violations: string[] = [];
  const check = (page: Page, name: string, width: keyof typeof WIDTHS = 'desktop') => axeCheck(page, violations, name, width);
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(204).end();
    });
  });

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    origin = new URL(t.base).origin;
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('an agent answers the inbox, takes a lead, moves it along with a reason and a note; the API and a webhook see it', async () => {
    const { port } = receiver.address() as AddressInfo;
    const { secret } = await addWebhook(t.db, {
      businessId: t.businessId,
      url: `http://127.0.0.1:${port}/hooks`,
      events: ['lead.updated'],
    });
    const context = await browser.newContext({ viewport: WIDTHS.desktop, locale: 'es-ES' });
    const page = await context.newPage();
    await page.goto(`${origin}/console/login`);
    await page.getByLabel('Correo electrónico').fill('agente@agencia.example');
    await page.getByLabel('Contraseña').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();

    // The inbox: Bruno waits for an agent, with one message unread.
    await page.getByRole('link', { name: 'Bandeja', exact: true }).click();
    const first = page.locator('.inbox .conversation').first();
    await expect(first.locator('strong').textContent()).resolves.toBe('Bruno Gil');
    await expect(first.locator('.badge').textContent()).resolves.toBe('1 sin leer');
    await check(page, 'inbox');
    await first.getByRole('link', { name: 'Abrir y responder' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Bruno Gil');
    await page.getByRole('link', { name: 'Bandeja', exact: true }).click();
    // The inbox loaded whole (a count does not wait for it), then: nothing unread.
    await page.waitForURL(`${origin}/console/inbox`);
    await expect(page.locator('.inbox .conversation').first().locator('strong').textContent()).resolves.toBe('Bruno Gil');
    await expect(page.locator('.inbox .conversation').first().locator('.badge').count()).resolves.toBe(0);

    // Lucía's page: her search in plain words, then the agent works the lead.
    await page.getByRole('link', { name: 'Leads', exact: true }).click();
    await check(page, 'leads');
    await page.getByRole('link', { name: 'Lucía Pérez' }).click();
    const prefs = await page.locator('.prefs').textContent();
    expect(prefs).toContain('Zona: Delicias');
    expect(prefs).toMatch(/Alquiler máx\. 900\s€\/mes/);
    expect(prefs).toContain('2+ habitaciones');
    const mark = new Date().toISOString();
    await page.getByRole('button', { name: 'Quedármelo' }).click();
    await expect(page.locator('#h-work + p strong, #h-work ~ p strong').first().textContent()).resolves.toBe('agente@agencia.example');
    await page.getByLabel('Nuevo estado').selectOption('active_negotiation');
    await page.getByLabel('Motivo (opcional)').fill('Visita el jueves');
    await page.getByRole('button', { name: 'Cambiar estado' }).click();
    await page.getByLabel('Nota', { exact: true }).fill('Llamada: quiere ver el piso de Delicias.');
    await page.getByRole('button', { name: 'Añadir nota' }).click();
    const history = page.locator('.history li');
    // The page after the note (the one before had two lines), waited for.
    await expect.poll(() => history.count()).toBe(3);
    await expect(history.first().textContent()).resolves.toContain('Añadió una nota');
    await expect(history.nth(1).textContent()).resolves.toContain('Estado: Nuevo → En negociación (Visita el jueves)');
    await check(page, 'lead');

    // The API sees the change, and the webhook receiver gets lead.updated, signed.
    const response = await fetch(`${t.base}/leads?updated_since=${encodeURIComponent(mark)}`, { headers: { 'x-api-key': t.key } });
    const listed = ((await response.json()) as { data: Array<{ id: number; status: string }> }).data;
    expect(listed).toEqual([expect.objectContaining({ id: lucia, status: 'active_negotiation' })]);
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    const webhook = new Webhook(secret);
    const statuses = received.map(({ headers, body }) => {
      const event = webhook.verify(body, headers as Record<string, string>) as {
        type: string;
        data: { lead: { id: number; status: string } };
      };
      return [event.type, event.data.lead.id, event.data.lead.status];
    });
    expect(statuses).toEqual([
      ['lead.updated', lucia, 'new'],
      ['lead.updated', lucia, 'active_negotiation'],
      ['lead.updated', lucia, 'active_negotiation'],
    ]);

    // Every page again at a phone's width.
    await checkAtPhoneWidth(
      page,
      origin,
      [
        ['inbox', '/console/inbox'],
        ['leads', '/console/leads?assigned=me'],
        ['lead', `/console/leads/${lucia}`],
      ],
      violations,
    );
    await context.close();

    // The owner's assistant page.
    const owner = await browser.newContext({ viewport: WIDTHS.desktop, locale: 'en-GB' });
    const ownerPage = await owner.newPage();
    await ownerPage.goto(`${origin}/console/login`);
    await ownerPage.getByLabel('Email').fill('duena@agencia.example');
    await ownerPage.getByLabel('Password').fill(PASSWORD);
    await ownerPage.getByRole('button', { name: 'Log in' }).click();
    await ownerPage.getByRole('link', { name: 'Assistant' }).click();
    await ownerPage.getByLabel('The assistant answers messages').uncheck();
    await ownerPage.getByRole('button', { name: 'Save' }).click();
    await expect(ownerPage.getByRole('status').textContent()).resolves.toBe('Assistant saved.');
    await expect(ownerPage.locator('main strong').first().textContent()).resolves.toBe('off: every message waits for an agent');
    await check(ownerPage, 'assistant');
    await ownerPage.setViewportSize(WIDTHS.phone);
    await check(ownerPage, 'assistant', 'phone');
    await owner.close();

    expect(violations).toEqual([]);
  }, 120_000);
});
