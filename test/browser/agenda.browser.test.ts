/**
 * Viewings in a real browser (issue 44, CONTRACT §20): an agent on a phone books a viewing from
 * the lead's page, sees an overlap with another of her viewings refused beside the time (nothing
 * stored), finds the viewing on her agenda, moves it and records her feedback; the owner reads the
 * week at a desktop's width (1366 px) in English. No page scrolls sideways at 390 px, and axe-core
 * checks every page at both widths.
 *
 * The day is next week's Tuesday in Madrid, so it is in the future and within viewing hours
 * (10:00–14:00) whenever the suite runs.
 */
import { DateTime } from 'luxon';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeadByHand } from '../../src/services/leads/leads.ts';
import { axeCheck, CHROMIUM, chromiumHere, logInToConsole, WIDTHS } from '../helpers/browser.ts';
import { userWithPassword } from '../helpers/console.ts';
import { importRecords, listing, propertyId } from '../helpers/db.ts';
import { withApp } from '../helpers/http.ts';

const here = chromiumHere('agenda browser tests');

/** Next week's Tuesday, the business's (Madrid) date. */
const DAY = DateTime.now().setZone('Europe/Madrid').plus({ weeks: 1 }).set({ weekday: 2 }).toISODate()!;
/** An instant of DAY at a Madrid wall-clock time, as stored (canonical UTC). */
const madrid = (time: string) => DateTime.fromISO(`${DAY}T${time}`, { zone: 'Europe/Madrid' }).toUTC().toISO()!.replace('Z', '+00:00');

describe.skipIf(!here)('viewings in Chromium', () => {
  let lucia = 0;
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'ana@inmo.example', 'owner');
      const bea = await userWithPassword(db, businessId, 'bea@inmo.example', 'agent');
      await importRecords(db, businessId, [
        listing('PISO-1', { title: 'Piso en Delicias' }),
        listing('PISO-2', { title: 'Ático en el Centro' }),
      ]);
      lucia = (await createLeadByHand(db, { businessId, phone: '+34 612 345 678', name: 'Lucía Beatriz' })).id;
      const mario = (await createLeadByHand(db, { businessId, phone: '+34 600 333 444', name: 'Mario Ruiz' })).id;
      // Bea already shows the Ático to Mario at 12:00 that day.
      await db
        .insertInto('viewings')
        .values({
          business_id: businessId,
          lead_id: mario,
          property_id: await propertyId(db, 'PISO-2'),
          user_id: bea.id,
          starts_at: madrid('12:00'),
          ends_at: madrid('12:30'),
          status: 'scheduled',
          source: 'api',
          feedback: null,
          created_at: new Date().toISOString(),
          updated_at: new Date().toISOString(),
        })
        .execute();
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

  const stored = () => t.db.selectFrom('viewings').selectAll().orderBy('id').execute();

  it('an agent on a phone: book from the lead, an overlap refused, the agenda, a new time, feedback', async () => {
    const context = await browser.newContext({ viewport: WIDTHS.phone, locale: 'es-ES' });
    const page = await context.newPage();
    await logInToConsole(page, origin, 'bea@inmo.example');

    await page.goto(`${origin}/console/leads/${lucia}`);
    const viewings = page.getByRole('region', { name: 'Visitas', exact: true });
    await expect.poll(() => viewings.textContent()).toContain('No hay visitas.');
    await axeCheck(page, violations, 'lead-viewings', 'phone');
    await viewings.getByLabel('O escribe su referencia').fill('PISO-1');
    await viewings.getByLabel('Fecha', { exact: true }).fill(DAY);
    await viewings.getByLabel('Hora', { exact: true }).fill('10:00');
    await viewings.getByRole('button', { name: 'Programar la visita' }).click();
    await page.waitForURL(`${origin}/console/leads/${lucia}#h-viewings`);
    await expect
      .poll(() => viewings.getByRole('listitem').textContent())
      .toMatch(/10:00–10:30.*programada.*Piso en Delicias.*con bea@inmo\.example/s);
    const [, booked] = await stored();
    expect(booked).toMatchObject({ lead_id: lucia, starts_at: madrid('10:00'), status: 'scheduled', source: 'console' });

    // 12:15 overlaps Bea's 12:00 with Mario: refused beside the time, the form as typed, nothing stored.
    await viewings.getByLabel('Inmueble', { exact: true }).selectOption({ label: 'PISO-1 · Piso en Delicias' });
    await viewings.getByLabel('Fecha', { exact: true }).fill(DAY);
    await viewings.getByLabel('Hora', { exact: true }).fill('12:15');
    await viewings.getByRole('button', { name: 'Programar la visita' }).click();
    await expect.poll(() => page.locator('#v-time-problem').textContent()).toBe('Se solapa con otra visita del agente a esa hora.');
    expect(await page.locator('#v-time').inputValue()).toBe('12:15');
    expect(await page.locator('#v-time').getAttribute('aria-invalid')).toBe('true');
    expect((await stored()).length).toBe(2);
    await axeCheck(page, violations, 'lead-viewing-refused', 'phone');

    // The agenda of that day: her viewings, in Madrid's time.
    await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Agenda' }).click();
    await page.waitForURL(`${origin}/console/agenda`);
    await page.getByLabel('Fecha', { exact: true }).fill(DAY);
    await page.getByRole('button', { name: 'Ver', exact: true }).click();
    await page.waitForURL(/date=/);
    const day = page.getByRole('region', { name: 'Visitas', exact: true });
    await expect.poll(() => day.getByRole('listitem').allTextContents()).toHaveLength(2);
    const items = await day.getByRole('listitem').allTextContents();
    expect(items[0]).toMatch(/10:00–10:30.*programada.*Lucía Beatriz · Piso en Delicias/s);
    expect(items[1]).toMatch(/12:00–12:30.*programada.*Mario Ruiz · Ático en el Centro/s);
    await axeCheck(page, violations, 'agenda-day', 'phone');
    await page.getByRole('link', { name: 'Día siguiente →' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Visitas', exact: true }).textContent()).toContain('Sin visitas.');
    await page.getByRole('link', { name: '← Día anterior' }).click();
    await page.getByRole('link', { name: 'Semana', exact: true }).click();
    await expect.poll(() => page.locator('.agenda-week section').count()).toBe(7);
    await axeCheck(page, violations, 'agenda-week', 'phone');

    // The viewing's page: a new time, done, feedback.
    await page.locator(`a.when[href="/console/viewings/${booked.id}"]`).click();
    await page.waitForURL(`${origin}/console/viewings/${booked.id}`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toMatch(/a las 10:00$/);
    await axeCheck(page, violations, 'viewing', 'phone');
    const move = page.getByRole('region', { name: 'Cambiar la hora' });
    await move.getByLabel('Hora', { exact: true }).fill('11:00');
    await move.getByRole('button', { name: 'Cambiar la hora' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Visita guardada.');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toMatch(/a las 11:00$/);
    expect((await stored())[1].starts_at).toBe(madrid('11:00'));

    await page.getByRole('button', { name: 'Marcar como hecha' }).click();
    const feedback = page.getByRole('region', { name: 'Valoración de la visita' });
    await feedback.getByLabel('Interés del lead').selectOption({ label: 'Interés 4 de 5' });
    await feedback.getByLabel('Comentario').fill('Le gustó la terraza; quiere volver con su pareja.');
    await axeCheck(page, violations, 'viewing-feedback', 'phone');
    await feedback.getByRole('button', { name: 'Guardar la valoración' }).click();
    await expect.poll(() => page.locator('.viewing-facts').textContent()).toContain('Interés 4 de 5');
    const done = (await stored())[1];
    expect([done.status, JSON.parse(done.feedback!)]).toEqual([
      'done',
      { interest: 4, comment: 'Le gustó la terraza; quiere volver con su pareja.' },
    ]);

    // The listing's page lists it too, with its own form (a lead to choose).
    await page.goto(`${origin}/console/properties/${done.property_id}`);
    const onListing = page.getByRole('region', { name: 'Visitas', exact: true });
    await expect.poll(() => onListing.getByRole('listitem').textContent()).toMatch(/11:00–11:30.*hecha.*Lucía Beatriz/s);
    expect(await onListing.getByLabel('Lead', { exact: true }).locator('option').allTextContents()).toContain(
      'Lucía Beatriz · +34612345678',
    );
    await axeCheck(page, violations, 'property-viewings', 'phone');
    await context.close();
    expect(violations).toEqual([]);
  }, 180_000);

  it("the owner's week at a desktop's width, in English", async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, locale: 'en-GB' });
    const page = await context.newPage();
    await logInToConsole(page, origin, 'ana@inmo.example', 'en');
    await page.goto(`${origin}/console/agenda?date=${DAY}&view=week`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Agenda');
    const tuesday = page.getByRole('region', {
      name: DateTime.fromISO(DAY).setLocale('en-GB').toLocaleString({ weekday: 'short', day: 'numeric', month: 'short' }),
    });
    await expect.poll(() => tuesday.getByRole('listitem').count()).toBe(2);
    expect(await tuesday.textContent()).toContain('with bea@inmo.example');
    expect(await tuesday.textContent()).toContain('done');
    await axeCheck(page, violations, 'agenda-week', 'desktop');
    await page.goto(`${origin}/console/leads/${lucia}`);
    await axeCheck(page, violations, 'lead-viewings', 'desktop');
    await page.goto(`${origin}/console/agenda?date=${DAY}`);
    await page.locator('a.when').first().click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toMatch(/^Viewing on /);
    await axeCheck(page, violations, 'viewing', 'desktop');
    await context.close();
    expect(violations).toEqual([]);
  }, 120_000);
});
