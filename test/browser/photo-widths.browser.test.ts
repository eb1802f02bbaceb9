/**
 * The website kit's photos narrower than 1,600 pixels (issue 57 item 9, CONTRACT §14, §17), in
 * Debian's Chromium on a high-density screen (2 device pixels per CSS pixel, where a browser
 * takes the widest candidate of a `srcset`): a 800-pixel photo is stored at 480 and in the 960
 * slot, a 500-pixel one the same, a 400-pixel one in the 480 slot alone (media/photos.ts). Every
 * URL `<inmo-listings>` and `<inmo-property>` give an `<img>` names a width stored and answers
 * 200 with a JPEG, and every photo shown is drawn. The console's URLs: test/db/catalogue/photo-widths.test.ts.
 *
 * Skipped, saying so, where /usr/bin/chromium is missing, except under `INMO_REQUIRE_BROWSER=1`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Locator } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FolderMediaStore } from '../../src/media/store.ts';
import { createApiKey } from '../../src/services/access/api-keys.ts';
import { addPhotos } from '../../src/services/catalogue/photos.ts';
import { embedSnippet } from '../../src/services/integrations/website-kit-bundle.ts';
import { importRecords, listing, propertyId } from '../helpers/db.ts';
import { withApp } from '../helpers/http.ts';
import { transparentPng } from '../helpers/images.ts';
import { CHROMIUM, chromiumHere, startSite, type Site, WIDTHS } from '../helpers/browser.ts';

const here = chromiumHere('website kit photo widths browser test');
const store = new FolderMediaStore(mkdtempSync(join(tmpdir(), 'inmo-kit-media-')));

describe.skipIf(!here)("the website kit's narrow photos", () => {
  const t = withApp({ listen: true, app: { media: { store, publicUrl: null } } });
  let browser: Browser;
  let site: Site;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    site = await startSite();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  /** The `src` and each `srcset` candidate of the `<img>` elements inside `element`'s shadow root. */
  const urlsOf = (element: Locator) =>
    element.locator('img').evaluateAll((images) =>
      images.flatMap((img) => [
        img.getAttribute('src') ?? '',
        ...(img.getAttribute('srcset') ?? '')
          .split(',')
          .map((c) => c.trim().split(/\s+/)[0])
          .filter(Boolean),
      ]),
    );
  /** Whether every `<img>` inside `element` is drawn (loaded, with pixels). */
  const drawn = (element: Locator) =>
    element
      .locator('img')
      .evaluateAll((images) => images.every((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0));
  /** The JPEG at `url` as inmo serves it. */
  const served = async (url: string) => {
    const response = await fetch(url);
    if (!response.ok) return { url, status: response.status };
    const metadata = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
    return { url, status: response.status, type: response.headers.get('content-type'), width: metadata.width };
  };

  it('gives only stored widths, the widest as src, and every photo is drawn on a high-density screen', async () => {
    const server = new URL(t.base).origin;
    await importRecords(t.db, t.businessId, [listing('ESTRECHA', { title: 'Piso con fotos pequeñas' })]);
    const id = await propertyId(t.db, 'ESTRECHA');
    const folder = mkdtempSync(join(tmpdir(), 'inmo-kit-upload-'));
    const files = [];
    for (const width of [800, 500, 400]) {
      const path = join(folder, `${width}.png`);
      writeFileSync(path, await transparentPng(width, (width * 3) / 4));
      files.push({ path, fileName: `${width}.png` });
    }
    await addPhotos(t.db, store, t.businessId, id, files, (key) => `${server}/media/${key}`);
    const key = (
      await createApiKey(t.db, { businessId: t.businessId, scopes: ['properties:read', 'leads:ingest'], origins: [site.origin] })
    ).key;
    const { html: snippet } = await embedSnippet(t.db, { businessId: t.businessId, key, baseUrl: server });
    site.serve(`<!doctype html><html lang="es"><head><meta charset="utf-8"><title>Inmuebles</title><meta name="viewport" content="width=device-width"></head>
<body><main><h1>Nuestros inmuebles</h1>${snippet.split('\n')[0]}
<inmo-listings api="${server}/v1/ext" key="${key}"></inmo-listings>
<inmo-property api="${server}/v1/ext" key="${key}" lang="es" property-id="${id}"></inmo-property></main></body></html>`);

    const context = await browser.newContext({ viewport: WIDTHS.desktop, deviceScaleFactor: 2 });
    const tab = await context.newPage();
    await tab.goto(`${site.origin}/inmuebles`);
    const card = tab.locator('inmo-listings article').first();
    await card.waitFor();
    const property = tab.locator('inmo-property');
    await property.locator('h2').waitFor();

    const urls = new Set(await urlsOf(card));
    // The gallery shows one photo at a time: each of the three in turn.
    for (const shown of [1, 2, 3]) {
      await expect.poll(() => property.getByText(`Foto ${shown} de 3`).count()).toBe(1);
      for (const url of await urlsOf(property)) urls.add(url);
      await expect.poll(() => drawn(property)).toBe(true);
      await property.getByRole('button', { name: 'Foto siguiente' }).click();
    }
    await card.scrollIntoViewIfNeeded();
    await expect.poll(() => drawn(card)).toBe(true);

    // The 800- and 500-pixel photos at 480 and in the 960 slot (as wide as they are); the 400-pixel one at its own width.
    const widths = [...urls].map((u) => /-(\d+)\.jpg$/.exec(u)?.[1]);
    expect(widths.filter((w) => w === '1600')).toEqual([]);
    expect(urls.size).toBe(5);
    const answers = await Promise.all([...urls].map(served));
    expect(answers.map((a) => [a.status, a.type]).every(([status, type]) => status === 200 && type === 'image/jpeg')).toBe(true);
    expect(answers.map((a) => a.width).sort()).toEqual([400, 480, 480, 500, 800]);
    // The card's src is the widest stored of the primary photo: the 800-pixel one, in the 960 slot.
    const src = await card.locator('img').getAttribute('src');
    expect((await served(src!)).width).toBe(800);
    await context.close();
  }, 120_000);
});
