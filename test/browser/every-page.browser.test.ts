/**
 * Every page fits (issue 57 item 6, CONTRACT §23 "usable at 390 px without scrolling sideways"):
 * every console page, filled with demo-like data (test/helpers/console-pages.ts: the same pages
 * and examples the words test walks, so a page added later is measured too), is no wider than a
 * phone's 390 px, and at a laptop's 1366 px no page is wider than the window and no table is
 * wider than the box it is in (a table's last column cut off). On a phone every table is a list.
 *
 * One Chromium, one context per width, the pages visited in a loop: the pages for nobody (login,
 * set password) first, then the owner's, after logging in. Measured: the document's
 * `scrollWidth` against the window's width, and at 1366 px each table's right edge against its
 * container's.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumHere, logInToConsole, WIDTHS } from '../helpers/browser.ts';
import { consoleRoutes, PAGES_OWNER, seedConsolePages, type PageExample } from '../helpers/console-pages.ts';
import { withApp } from '../helpers/http.ts';

const here = chromiumHere('every page at 390 px and 1366 px');

/** A laptop's window. */
const LAPTOP = { width: 1366, height: 768 };

describe.skipIf(!here)('every console page fits its window', () => {
  const t = withApp({ listen: true });
  let examples: Record<string, PageExample>;
  let browser: Browser;
  let origin = '';

  beforeAll(async () => {
    examples = await seedConsolePages(t);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    origin = new URL(t.base).origin;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  /** The pages to open, those for nobody first: `[name, path]`. */
  const pages = () => {
    const open = Object.entries(examples).filter(
      (entry): entry is [string, Exclude<PageExample, 'not a page'>] => entry[1] !== 'not a page',
    );
    return [...open.filter(([, e]) => e.as === 'nobody'), ...open.filter(([, e]) => e.as === 'owner')];
  };

  /** Opens every page at `viewport`, logging in when the owner's start; `measure` says what is wrong with each. */
  async function walk(viewport: { width: number; height: number }, measure: (page: Page, name: string) => Promise<string[]>) {
    const context = await browser.newContext({ viewport, locale: 'es-ES' });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const faults: string[] = [];
    let loggedIn = false;
    let walked = 0;
    for (const [name, example] of pages()) {
      if (example.as === 'owner' && !loggedIn) {
        await logInToConsole(page, origin, PAGES_OWNER);
        loggedIn = true;
      }
      const response = await page.goto(origin + example.url);
      expect(response?.status(), `${name}: ${example.url}`).toBe(200);
      walked += 1;
      faults.push(...(await measure(page, name)));
    }
    await context.close();
    expect(walked).toBeGreaterThan(20);
    return faults;
  }

  it('has an example of every console page', () => {
    const routes = consoleRoutes(t.app.printRoutes({ commonPrefix: false, method: 'GET' }));
    expect(routes.filter((route) => !(route in examples))).toEqual([]);
  });

  it('no page is wider than a phone’s 390 px', async () => {
    let tables = 0;
    const faults = await walk(WIDTHS.phone, async (page, name) => {
      const { width, rows } = await page.evaluate(() => ({
        width: document.documentElement.scrollWidth,
        // How each table's rows are laid out: a list's rows are blocks or grids, never table rows.
        rows: [...document.querySelectorAll('.table-wrap > table')].map((table) => {
          const row = table.querySelector('tbody > tr');
          return row === null ? null : getComputedStyle(row).display;
        }),
      }));
      tables += rows.length;
      return [
        ...(width > WIDTHS.phone.width ? [`${name}: ${width} px wide`] : []),
        ...rows.filter((display) => display === 'table-row').map(() => `${name}: a table shown as a table, not a list`),
      ];
    });
    // The leads, the listings, keys, users, jobs, the audit trail and an import's report.
    expect(tables).toBeGreaterThanOrEqual(6);
    expect(faults).toEqual([]);
  }, 180_000);

  it('at 1366 px no page is wider than the window, and no table is wider than its container', async () => {
    const faults = await walk(LAPTOP, async (page, name) => {
      const { width, tables } = await page.evaluate(() => ({
        width: document.documentElement.scrollWidth,
        // A table whose right edge passes its container's content box: its last columns cut off or out of the page.
        tables: [...document.querySelectorAll('table')].flatMap((table) => {
          const box = table.parentElement!;
          const inner = box.getBoundingClientRect().right - parseFloat(getComputedStyle(box).paddingRight);
          const over = Math.round(table.getBoundingClientRect().right - inner);
          return over > 0 ? [`${table.className || table.id || 'a table'} passes its container by ${over} px`] : [];
        }),
      }));
      return [...(width > LAPTOP.width ? [`${name}: ${width} px wide`] : []), ...tables.map((t) => `${name}: ${t}`)];
    });
    expect(faults).toEqual([]);
  }, 180_000);
});
