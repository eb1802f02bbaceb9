/**
 * A lead's one-click link of a viewing notice's e-mail in Chromium (CONTRACT §20, issue 44): the
 * page names the viewing in the lead's language with one button, which confirms it and says so;
 * axe-core clean at 1366 px and 390 px, with no sideways scrolling on a phone.
 */
import { createHash } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/services/access/console-users.ts';
import { axeCheck, CHROMIUM, chromiumHere, WIDTHS } from '../helpers/browser.ts';
import { importRecords, listing, propertyId } from '../helpers/db.ts';
import { withApp } from '../helpers/http.ts';

const here = chromiumHere('viewing link browser test');
const TOKEN = 'Zk9uZS1jbGljay1saW5rLW9mLXRoZS1icm93c2VyLXQ';

describe.skipIf(!here)("a viewing notice's link in Chromium", () => {
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      await importRecords(db, businessId, [listing('PISO-1', { title: 'Piso luminoso con terraza en el barrio de Delicias' })]);
      await createUser(db, { businessId, email: 'bea@inmo.example', role: 'agent' });
    },
  });
  let browser: Browser;
  const violations: string[] = [];

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the viewing with one button that confirms it, and reads well at 1366 and 390 px', async () => {
    const headers = { 'x-api-key': t.key, 'content-type': 'application/json' };
    const property = await propertyId(t.db, 'PISO-1');
    const from = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    const slots = await (await fetch(`${t.base}/viewings/availability?property_id=${property}&from=${from}&days=7`, { headers })).json();
    const booked = await fetch(`${t.base}/viewings`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        property_id: property,
        starts_at: slots.data[0].starts_at,
        lead: { name: 'Lucía', phone_number_1: '+34612800001', consent: { marketing: false, whatsapp: true, text: 'Sí', version: 'v1' } },
      }),
    });
    expect(booked.status).toBe(201);
    const viewing = await t.db.selectFrom('viewings').selectAll().executeTakeFirstOrThrow();
    // The link an e-mail would carry (services/viewings/notices.ts keeps only its token's hash).
    await t.db
      .insertInto('viewing_links')
      .values({
        business_id: viewing.business_id,
        lead_id: viewing.lead_id,
        viewing_id: viewing.id,
        action: 'confirm',
        starts_at: viewing.starts_at,
        token_hash: createHash('sha256').update(TOKEN).digest('hex'),
        created_at: viewing.created_at,
      })
      .execute();

    const origin = new URL(t.base).origin;
    const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, locale: 'es-ES' });
    const page = await context.newPage();
    await page.goto(`${origin}/v/${TOKEN}`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Confirmar la visita');
    await expect(page.getByText('¿Confirmas tu visita a Piso luminoso con terraza en el barrio de Delicias').count()).resolves.toBe(1);
    await axeCheck(page, violations, 'viewing-link', 'desktop');
    await page.setViewportSize(WIDTHS.phone);
    await axeCheck(page, violations, 'viewing-link', 'phone');

    await page.getByRole('button', { name: 'Confirmar la visita' }).click();
    await page.getByText('queda confirmada').waitFor();
    await expect(page.getByRole('button').count()).resolves.toBe(0);
    await axeCheck(page, violations, 'viewing-link-done', 'phone');
    await page.setViewportSize({ width: 1366, height: 860 });
    await axeCheck(page, violations, 'viewing-link-done', 'desktop');
    const after = await t.db.selectFrom('viewings').select('status').executeTakeFirstOrThrow();
    expect(after.status).toBe('confirmed');
    expect(violations).toEqual([]);
    await context.close();
  });
});
