/**
 * An owner's report page `/o/<token>` in Chromium (CONTRACT §24, issue 58 item 4): in the owner's
 * language (German here), with its figures as composed; axe-core clean at 1280 px and 390 px,
 * with no sideways scrolling on a phone; an unknown token is a 404.
 */
import { createHash } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOwnerReport } from '../../src/db/repositories/owner-reports.ts';
import type { OwnerReportFigures } from '../../src/domain/owners/owner-report.ts';
import { axeCheck, CHROMIUM, chromiumHere, WIDTHS } from '../helpers/browser.ts';
import { importRecords, listing, propertyId } from '../helpers/db.ts';
import { withApp } from '../helpers/http.ts';
import { leadOfType } from '../helpers/leads.ts';

const here = chromiumHere('owner report browser test');
const TOKEN = 'T3duZXItcmVwb3J0LW9mLXRoZS1icm93c2VyLXRlc3Q';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe.skipIf(!here)("an owner's report page in Chromium", () => {
  const t = withApp({
    listen: true,
    surfaces: ['api', 'pages'],
    seed: async ({ db, businessId }) => {
      await importRecords(db, businessId, [
        listing('CASA-1', { title: 'Piso luminoso con terraza en el barrio de Delicias', price: 240_000 }),
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

  it('shows the figures in the owner’s language and reads well at 1280 and 390 px', async () => {
    const owner = await leadOfType(t.db, t.businessId, 'propietario', '+34612800099', 'Hans Eigentümer');
    const house = await propertyId(t.db, 'CASA-1');
    // A report as composed (services/owners/owner-reports.ts) and claimed: only the token's hash kept.
    const figures: OwnerReportFigures = {
      from: '2030-03-01T09:00:00.000+00:00',
      to: '2030-03-09T10:00:00.000+00:00',
      listings: [
        {
          property_id: house,
          external_ref: 'CASA-1',
          title: 'Piso luminoso con terraza en el barrio de Delicias',
          operation: 'venta',
          days_on_market: 36,
          views: { page: 31, kit: 12, page_total: 140, kit_total: 52 },
          leads: [
            { source: 'idealista', period: 2, total: 5 },
            { source: 'manual', period: 0, total: 1 },
          ],
          viewings: [{ on: '2030-03-04', interest: 4, comment: 'Le gusta la luz, duda del precio' }],
          viewings_total: 3,
          matching: { leads: 5, sent: 2 },
          price_history: [
            { from: '2030-02-01T10:00:00.000+00:00', price: 250_000 },
            { from: '2030-03-08T09:00:00.000+00:00', price: 240_000 },
          ],
          price_m2: 2400,
          comparables: { count: 4, median_m2: 2650 },
        },
      ],
    };
    await insertOwnerReport(t.db, {
      business_id: t.businessId,
      lead_id: owner,
      period_from: figures.from,
      period_to: figures.to,
      figures: JSON.stringify(figures),
      language: 'de',
      message_id: null,
      page_token_hash: sha256(TOKEN),
      created_at: figures.to,
    });
    const origin = new URL(t.base).origin;
    const context = await browser.newContext({ viewport: WIDTHS.desktop, locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto(`${origin}/o/${TOKEN}`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Bericht für den Eigentümer');
    await expect(page.getByRole('heading', { level: 2 }).textContent()).resolves.toBe('Piso luminoso con terraza en el barrio de Delicias');
    await expect(page.getByRole('row', { name: /Seite der Immobilie\s*31\s*140/ }).count()).resolves.toBe(1);
    await expect(page.getByText(/240\.000\s€/).count()).resolves.toBe(1);
    await expect(page.getByText(/Median von 4 ähnlichen Immobilien.*2\.650\s€\/m²/).count()).resolves.toBe(1);
    await expect(page.getByText('Direkt über die Agentur').count()).resolves.toBe(1);
    await axeCheck(page, violations, 'owner-report', 'desktop');
    await page.setViewportSize(WIDTHS.phone);
    await axeCheck(page, violations, 'owner-report', 'phone');
    const missing = await page.goto(`${origin}/o/${'x'.repeat(43)}`);
    expect(missing?.status()).toBe(404);
    expect(violations).toEqual([]);
    await context.close();
  });
});
