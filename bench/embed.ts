/**
 * `--only embed` (issue 30): the website kit's time to the first card. `inmo serve --no-worker`
 * on the real 20k catalogue serves `/embed/demo` (the page a site would be, with the kit's two
 * tags) and Debian's Chromium opens it, measured from the navigation's start to the first
 * `<inmo-listings>` card in the DOM: **cold** in a new browser context each time (nothing cached:
 * the script is downloaded and compiled, the page of listings read), **warm** on a reload in the
 * same context (the immutable script from the cache). Baseline in the same run: the same page's
 * first `GET /properties?limit=12` from the page's context, the floor of what a card needs.
 */
import { chromium } from 'playwright-core';
import { createDb } from '../src/db/database.ts';
import { PUBLISHABLE_SCOPES } from '../src/domain/access/api-key.ts';
import { createApiKey } from '../src/services/access/api-keys.ts';
import { startProcess, stop } from './processes.ts';

const CHROMIUM = process.env.INMO_CHROMIUM ?? '/usr/bin/chromium';
const RUNS = 15;

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

/** Runs the part; returns the report's lines. */
export async function embedBench(root: string, realDb: string): Promise<string[]> {
  const env = { ...process.env, DATABASE_URL: `sqlite:${realDb}`, LOG_LEVEL: 'warn' };
  const { child, info } = await startProcess(['bin/inmo.mjs', 'serve', '--no-worker', '--port', '0', '--json'], env, root);
  const origin = new URL(info.url as string).origin;
  const db = createDb(`sqlite:${realDb}`);
  const { business_id: businessId } = await db.selectFrom('properties').select('business_id').executeTakeFirstOrThrow();
  const { key } = await createApiKey(db, { businessId, scopes: [...PUBLISHABLE_SCOPES], origins: [origin], label: 'bench embed' });
  await db.destroy();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const page = `${origin}/embed/demo?key=${key}`;
  /** ms from the navigation's start to the first card. */
  const firstCard = async (tab: import('playwright-core').Page, load: () => Promise<unknown>) => {
    await load();
    await tab.locator('inmo-listings article').first().waitFor();
    return tab.evaluate(() => performance.now());
  };
  try {
    // The server's first answers (the script's build, the first page) are not what a visitor meets.
    const warmup = await browser.newContext();
    const first = await warmup.newPage();
    await firstCard(first, () => first.goto(page));
    await warmup.close();
    const cold: number[] = [];
    const warm: number[] = [];
    const api: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext();
      const tab = await context.newPage();
      cold.push(await firstCard(tab, () => tab.goto(page)));
      warm.push(await firstCard(tab, () => tab.reload()));
      api.push(
        await tab.evaluate(
          async ({ url, key: k }) => {
            const started = performance.now();
            await (await fetch(url, { headers: { 'X-Api-Key': k } })).json();
            return performance.now() - started;
          },
          { url: `${origin}/v1/ext/properties?limit=12`, key },
        ),
      );
      await context.close();
    }
    const row = (name: string, values: number[]) =>
      `| ${name} | ${quantile(values, 0.5).toFixed(0)} | ${quantile(values, 0.9).toFixed(0)} | ${Math.max(...values).toFixed(0)} |`;
    return [
      `website kit: time to the first <inmo-listings> card on /embed/demo over the real catalogue, Chromium, ${RUNS} runs`,
      '| | p50 ms | p90 ms | max ms |',
      '| --- | --- | --- | --- |',
      row('cold (new browser context: nothing cached)', cold),
      row('warm (reload: the script from the cache)', warm),
      row('baseline: GET /properties?limit=12 from the page', api),
    ];
  } finally {
    await browser.close();
    await stop(child);
  }
}
