/**
 * The accessibility check every browser test relies on (test/helpers/browser.ts) can fail: a page
 * with an unlabelled field and grey-on-grey text is reported, the same page made right is not.
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck, CHROMIUM, chromiumHere, WIDTHS } from '../helpers/browser.ts';

const here = chromiumHere('axe check browser tests');

const page = (body: string) =>
  `<!doctype html><html lang="es"><head><meta charset="utf-8"><title>Prueba</title></head><body><main><h1>Buscar</h1>${body}</main></body></html>`;

describe.skipIf(!here)('the axe check', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('reports serious and critical violations by rule, and none on a page that has them fixed', async () => {
    const context = await browser.newContext({ viewport: WIDTHS.desktop });
    const tab = await context.newPage();
    const violations: string[] = [];

    await tab.setContent(
      page('<form><input name="q"><p style="color:#bbb;background:#ccc">Casi invisible</p><button>Buscar</button></form>'),
    );
    await axeCheck(tab, violations, 'axe-bad');
    expect(violations.map((v) => v.split(' ')[2]).sort()).toEqual(['color-contrast', 'label']);

    violations.length = 0;
    await tab.setContent(page('<form><label>Texto <input name="q"></label><p>Bien visible</p><button>Buscar</button></form>'));
    await axeCheck(tab, violations, 'axe-good');
    expect(violations).toEqual([]);

    // At a phone's width a page wider than the screen is reported too.
    await tab.setViewportSize(WIDTHS.phone);
    await tab.setContent(page('<div style="width:900px">Ancho</div>'));
    await axeCheck(tab, violations, 'axe-wide', 'phone');
    expect(violations).toEqual([expect.stringMatching(/^axe-wide \(phone\): the page scrolls sideways by \d+ px$/)]);
    await context.close();
  });
});
