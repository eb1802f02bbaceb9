/**
 * The page of an alert digest sent by WhatsApp in Chromium (CONTRACT §21, issue 45): its
 * listings in the lead's language, each with its link and a "No me interesa" button that
 * dismisses it (then the page says so); one gone from the catalogue says it is no longer
 * available; axe-core clean at 1280 px and 390 px, with no sideways scrolling on a phone.
 */
import { createHash } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeadByHand } from '../../src/services/leads/leads.ts';
import { dismissTokenOf } from '../../src/services/leads/alert-pages.ts';
import { nowRfc3339 } from '../../src/domain/time.ts';
import { axeCheck, CHROMIUM, chromiumHere, WIDTHS } from '../helpers/browser.ts';
import { importRecords, listing, propertyId } from '../helpers/db.ts';
import { withApp } from '../helpers/http.ts';

const here = chromiumHere('alert page browser test');
const TOKEN = 'QWxlcnQtcGFnZS1vZi10aGUtYnJvd3Nlci10ZXN0LTQ';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe.skipIf(!here)("an alert digest's page in Chromium", () => {
  const t = withApp({
    listen: true,
    seed: async ({ db, businessId }) => {
      await importRecords(db, businessId, [
        listing('PISO-1', {
          title: 'Piso luminoso con terraza en el barrio de Delicias',
          titles: { es: 'Piso luminoso con terraza en el barrio de Delicias', fr: 'Appartement lumineux avec terrasse à Delicias' },
          price: 245_000,
          size_total: 98,
          bedrooms: 3,
        }),
        listing('PISO-2', { title: 'Ático exterior', price: 1_200, operation: 'alquiler', price_rent: 1_200 }),
        listing('PISO-3', { title: 'Estudio vendido' }),
      ]);
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

  /** A digest of the three listings sent to a French-speaking lead, as a claimed WhatsApp send leaves it (only hashes kept). */
  async function digest(): Promise<number> {
    const now = nowRfc3339();
    const lead = (await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34612800077', name: 'Claire Martin' })).id;
    await t.db.updateTable('leads').set({ preferred_language: 'fr' }).where('id', '=', lead).execute();
    const message = await t.db
      .insertInto('messages')
      .values({
        business_id: t.businessId,
        lead_id: lead,
        direction: 'out',
        kind: 'template',
        author: 'alert',
        template: 'alerta_inmuebles',
        language: 'fr',
        recipient: '+34612800077',
        state: 'sent',
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const { id } = await t.db
      .insertInto('alert_digests')
      .values({
        business_id: t.businessId,
        lead_id: lead,
        round: now.slice(0, 10),
        message_id: message.id,
        user_id: null,
        page_token_hash: sha256(TOKEN),
        created_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const [ref, price, field] of [
      ['PISO-1', 245_000, 'price'],
      ['PISO-2', 1_200, 'price_rent'],
      ['PISO-3', 100_000, 'price'],
    ] as const) {
      const item = await t.db
        .insertInto('alert_items')
        .values({
          business_id: t.businessId,
          lead_id: lead,
          digest_id: id,
          property_id: await propertyId(t.db, ref),
          reason: 'new',
          price,
          price_field: field,
          latest: 1,
          token_hash: null,
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await t.db
        .updateTable('alert_items')
        .set({ token_hash: sha256(dismissTokenOf(TOKEN, item.id)) })
        .where('id', '=', item.id)
        .execute();
    }
    // Sold since the digest was sent.
    await t.db
      .updateTable('properties')
      .set({ listed: 0 })
      .where('id', '=', await propertyId(t.db, 'PISO-3'))
      .execute();
    return lead;
  }

  it('shows the listings in the lead’s language, dismisses one with its button, and reads well at 1280 and 390 px', async () => {
    const lead = await digest();
    const origin = new URL(t.base).origin;
    const context = await browser.newContext({ viewport: WIDTHS.desktop, locale: 'fr-FR' });
    const page = await context.newPage();
    await page.goto(`${origin}/d/${TOKEN}`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Des biens pour vous');
    await expect(page.getByRole('link', { name: 'Appartement lumineux avec terrasse à Delicias', exact: true }).count()).resolves.toBe(1);
    await expect(page.getByText(/245\.000\s€ · 98 m² · 3 chambres · Madrid/).count()).resolves.toBe(1);
    await expect(page.getByText(/1\.?200\s€\/mois/).count()).resolves.toBe(1);
    await expect(page.getByText('N’est plus disponible.').count()).resolves.toBe(1);
    await expect(page.getByRole('button').count()).resolves.toBe(2);
    await axeCheck(page, violations, 'alert-page', 'desktop');
    await page.setViewportSize(WIDTHS.phone);
    await axeCheck(page, violations, 'alert-page', 'phone');

    // The listing's own page follows the link, in the same language.
    await page.getByRole('link', { name: 'Appartement lumineux avec terrasse à Delicias', exact: true }).click();
    await page.waitForURL(/\/l\/[A-Za-z0-9_-]{43}\?lang=fr$/);
    await page.goBack();

    await page.getByRole('button', { name: /Ático exterior/ }).click();
    await page.getByText('nous ne vous enverrons plus « Ático exterior »').waitFor();
    const dismissed = await t.db.selectFrom('lead_dismissals').select(['lead_id', 'property_id']).execute();
    expect(dismissed).toEqual([{ lead_id: lead, property_id: await propertyId(t.db, 'PISO-2') }]);

    await page.goto(`${origin}/d/${TOKEN}`);
    await expect(page.getByRole('button').count()).resolves.toBe(1);
    await expect(page.getByText('Vous nous avez dit que cela ne vous intéresse pas').count()).resolves.toBe(1);
    await axeCheck(page, violations, 'alert-page-dismissed', 'phone');
    await page.setViewportSize(WIDTHS.desktop);
    await axeCheck(page, violations, 'alert-page-dismissed', 'desktop');

    const missing = await page.goto(`${origin}/d/${'x'.repeat(43)}`);
    expect(missing?.status()).toBe(404);
    expect(violations).toEqual([]);
    await context.close();
  });
});
