/**
 * What the browser tests share: Debian's Chromium (never a downloaded one), the two widths every
 * page is checked at, and the axe-core check that collects serious and critical violations.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { PASSWORD } from './console.ts';
import { ENGINE, REPO_ROOT } from './db.ts';

export const CHROMIUM = process.env.INMO_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(REPO_ROOT, 'test-results', 'screenshots');
export const WIDTHS = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } };

/** Whether Chromium is here; when not, says so (and fails under `INMO_REQUIRE_BROWSER=1`, which `.ci/run` sets). */
export function chromiumHere(suite: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.INMO_REQUIRE_BROWSER)
    throw new Error(`${CHROMIUM} is missing and INMO_REQUIRE_BROWSER is set (.ci/run): apt-get install -y chromium`);
  process.stdout.write(`[inmo] ${suite}: skipped (${CHROMIUM} is missing: apt-get install -y chromium)\n`);
  return false;
}

/**
 * One Chromium for the tests of a file (Debian's, never a download): launched before them and
 * closed after them. Call it in the file's `describe`.
 * @returns the browser, once launched.
 */
export function chromiumForFile(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser!;
}

/**
 * Runs axe on the page as it is now, adding each serious or critical violation to `violations`
 * (and, at a phone's width, a page that scrolls sideways), and saves its screenshot to
 * test-results/screenshots. On SQLite only: a journey run again on PostgreSQL checks its data, not its HTML.
 */
export async function axeCheck(page: Page, violations: string[], name: string, width: keyof typeof WIDTHS = 'desktop'): Promise<void> {
  // A journey run on PostgreSQL by hand (INMO_TEST_ENGINE=postgres) shows the same HTML as on
  // SQLite, where it is checked: it is run for its queries, and axe took a third of its time.
  if (ENGINE === 'postgres') return;
  const result = await runAxe(page);
  // axe ran its rules on the page (a page it could not read would pass nothing).
  expect(result.passes.length, name).toBeGreaterThan(10);
  for (const v of result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'))
    violations.push(`${name} (${width}): ${v.id} ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  // At a phone's width nothing scrolls the page sideways (issue 47): what is wider scrolls in its own box.
  if (width === 'phone') {
    const wider = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    if (wider > 0) violations.push(`${name} (${width}): the page scrolls sideways by ${wider} px`);
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: width === 'phone' });
}

/**
 * axe-core's rules run on the page's document as it is now: its script is put into the document
 * once (a navigation brings a new one), and only violations carry their nodes. This is axe-core's
 * own API (`axe.source`, `axe.run`); @axe-core/playwright's builder did the same at 4 times the
 * cost (about 850 ms a page against 160 ms: it opened a second page to finish every run).
 * inmo's pages hold no frames, so none is waited for.
 */
async function runAxe(page: Page): Promise<axe.AxeResults> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  return page.evaluate(() => (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'], iframes: false }));
}

/**
 * Opens each page at a phone's width and checks it with axe-core (see {@link axeCheck}).
 * @param pages `[name, path]` pairs, paths under `origin`.
 */
export async function checkAtPhoneWidth(page: Page, origin: string, pages: Array<[string, string]>, violations: string[]): Promise<void> {
  await page.setViewportSize(WIDTHS.phone);
  for (const [name, path] of pages) {
    await page.goto(origin + path);
    await axeCheck(page, violations, name, 'phone');
  }
}

/** An agency's own site for the browser tests: one page, on another origin than inmo's (`http://localhost:P`). */
export interface Site {
  origin: string;
  /** The page it serves from now on, at any path. */
  serve(html: string): void;
  close(): Promise<void>;
}

/** Starts a {@link Site} on a free port. */
export async function startSite(): Promise<Site> {
  let page = '';
  const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://localhost:${(server.address() as AddressInfo).port}`,
    serve: (html) => (page = html),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The login form's words in each console language. */
const LOGIN_WORDS = {
  es: { email: 'Correo electrónico', password: 'Contraseña', submit: 'Entrar' },
  en: { email: 'Email', password: 'Password', submit: 'Log in' },
};

/** Logs `page` in to the console at `origin` as `email` (with the test password), in the page's language; waits for "Hoy". */
export async function logInToConsole(page: Page, origin: string, email: string, lang: keyof typeof LOGIN_WORDS = 'es'): Promise<void> {
  const words = LOGIN_WORDS[lang];
  await page.goto(`${origin}/console/login`);
  await page.getByLabel(words.email).fill(email);
  await page.getByLabel(words.password).fill(PASSWORD);
  await page.getByRole('button', { name: words.submit }).click();
  await expect.poll(() => page.url()).toBe(`${origin}/console`);
}

/** Draws a signature on the page's signature box (assets/signature.js) with the mouse: three strokes across it. */
export async function drawSignature(page: Page): Promise<void> {
  const canvas = page.getByRole('img', { name: /Recuadro de firma|Signature box/ });
  await canvas.scrollIntoViewIfNeeded();
  const box = (await canvas.boundingBox())!;
  const at = (x: number, y: number) => [box.x + box.width * x, box.y + box.height * y] as const;
  for (const stroke of [
    [
      [0.1, 0.7],
      [0.2, 0.3],
      [0.3, 0.75],
      [0.4, 0.35],
    ],
    [
      [0.45, 0.6],
      [0.6, 0.25],
      [0.7, 0.7],
    ],
    [
      [0.72, 0.5],
      [0.9, 0.45],
    ],
  ]) {
    await page.mouse.move(...at(stroke[0][0], stroke[0][1]));
    await page.mouse.down();
    for (const [x, y] of stroke.slice(1)) await page.mouse.move(...at(x, y), { steps: 8 });
    await page.mouse.up();
  }
}
