/**
 * "Hoy" in a real browser (issue 47, CONTRACT §23): an agent's morning on a phone — the day's
 * lists, a viewing confirmed, a follow-up done, a waiting lead answered on WhatsApp (through a
 * fake of Meta's Graph API), a new lead taken — without sideways scrolling,
 * and the owner's page at a desktop's width in English. axe-core checks every page.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck, CHROMIUM, chromiumHere, WIDTHS, logInToConsole } from '../helpers/browser.ts';
import { userWithPassword } from '../helpers/console.ts';
import { startFakeGraph, type FakeGraph } from '../helpers/fake-graph.ts';
import { connectChannel } from '../../src/services/messaging/channels.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { withApp } from '../helpers/http.ts';
import { seedDay } from '../helpers/today.ts';

const here = chromiumHere('"Hoy" browser tests');

describe.skipIf(!here)('Hoy in Chromium', () => {
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      const agent = await userWithPassword(db, businessId, 'bea@inmo.example', 'agent');
      const owner = await userWithPassword(db, businessId, 'ana@inmo.example', 'owner');
      const { mario } = await seedDay(db, businessId, agent.id, owner.id);
      // Mario wrote an hour ago: his WhatsApp window is open, and he waits for an agent.
      await db
        .updateTable('conversations')
        .set({ window_open_until: new Date(Date.now() + 23 * 3600_000).toISOString() })
        .where('lead_id', '=', mario)
        .execute();
    },
  });
  let graph: FakeGraph;
  let browser: Browser;
  let origin = '';
  const violations: string[] = [];

  beforeAll(async () => {
    graph = await startFakeGraph();
    await connectChannel(
      t.db,
      {
        businessId: t.businessId,
        provider: 'whatsapp-cloud',
        phoneNumberId: '5550001',
        tokenEnv: 'T',
        template: 'bienvenida',
        baseUrl: graph.baseUrl,
      },
      { T: 'token-used-only-in-tests' },
    );
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    origin = new URL(t.base).origin;
  });
  afterAll(async () => {
    await browser?.close();
    await graph?.close();
  });

  const sideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  it("an agent's morning on a phone: confirm, done, answer, take", async () => {
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

    // A lead waiting for an agent: his thread, answered from the phone, reaches WhatsApp.
    const waiting = page.getByRole('region', { name: /esperando/i });
    await waiting.getByRole('link', { name: 'Mario Sinagente' }).click();
    await expect.poll(() => page.url()).toMatch(/\/console\/leads\/\d+#h-thread$/);
    const thread = page.getByRole('region', { name: 'Conversación' });
    await thread.getByLabel('Tu respuesta').fill('Hola Mario, te llamo en diez minutos.');
    await thread.getByRole('button', { name: 'Enviar respuesta' }).click();
    await expect.poll(() => thread.textContent()).toContain('te llamo en diez minutos');
    // The worker sends it: Meta's API receives the text, to Mario's phone.
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    const sent = graph.requests.map((r) => r.body as { to?: string; text?: { body?: string } });
    expect(sent).toContainEqual(
      expect.objectContaining({ to: '+34600000002', text: expect.objectContaining({ body: 'Hola Mario, te llamo en diez minutos.' }) }),
    );
    await axeCheck(page, violations, 'lead answered (agent)', 'phone');
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    await page.goto(`${origin}/console`);

    const unassigned = page.getByRole('region', { name: /Leads nuevos sin asignar/ });
    await unassigned.getByRole('button', { name: 'Me lo quedo' }).click();
    await expect.poll(() => page.url()).toMatch(/\/console\/leads\/\d+#h-work$/);
    await page.goto(`${origin}/console`);
    await expect.poll(() => unassigned.textContent()).toContain('Todos los leads nuevos tienen quien los lleve');
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    await context.close();
    expect(violations).toEqual([]);
  }, 120_000);

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
