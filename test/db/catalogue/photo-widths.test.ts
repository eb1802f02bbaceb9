/**
 * Photos narrower than the widest stored width (issue 57 item 9, CONTRACT §14, §17, §23), on this
 * process's engine, with the folder store: a 800-pixel photo is stored at 480 and in the 960 slot,
 * a 500-pixel one the same, a 400-pixel one in the 480 slot alone (media/photos.ts). Every URL the
 * console (the kit's preview, the photos, the listings' thumbnails), the listing's page and the API
 * give for them names a width stored, and answers 200 with a JPEG; the widest stored is the `src`.
 * The website kit builds its URLs with the same function in Chromium: test/browser/photo-widths.browser.test.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { FolderMediaStore } from '../../../src/media/store.ts';
import { listingPageToken } from '../../../src/services/catalogue/listing-page.ts';
import { addPhotos } from '../../../src/services/catalogue/photos.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';
import { transparentPng } from '../../helpers/images.ts';

const mediaDir = mkdtempSync(join(tmpdir(), 'inmo-narrow-media-'));
const store = new FolderMediaStore(mediaDir);

/** Every URL of the `<img>` tags of an HTML page: their `src` and each candidate of their `srcset`. */
function imageUrls(html: string): string[] {
  const urls: string[] = [];
  for (const [tag] of html.matchAll(/<img\b[^>]*>/g)) {
    const src = /\ssrc="([^"]+)"/.exec(tag)?.[1];
    if (src) urls.push(src);
    const srcset = /\ssrcset="([^"]+)"/.exec(tag)?.[1];
    if (srcset) urls.push(...srcset.split(',').map((candidate) => candidate.trim().split(/\s+/)[0]));
  }
  return urls.map((u) => u.replaceAll('&amp;', '&'));
}

describe('photos narrower than 1,600 pixels', () => {
  let id = 0;
  const t = withApp({
    app: { media: { store, publicUrl: null } },
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agent@estrecha.example', 'agent');
      await importRecords(db, businessId, [listing('ESTRECHA', { title: 'Piso con fotos pequeñas' })]);
      id = await propertyId(db, 'ESTRECHA');
    },
  });

  /** The JPEG at `url` as /media/ serves it: its width, or the status when it is not served. */
  const served = async (url: string) => {
    const response = await t.app.inject({ method: 'GET', url: new URL(url, 'http://localhost').pathname });
    if (response.statusCode !== 200) return { url, status: response.statusCode };
    const metadata = await sharp(response.rawPayload).metadata();
    return { url, status: 200, type: response.headers['content-type'], format: metadata.format, width: metadata.width };
  };

  it('names only the widths stored of each photo, the widest as src, and every URL answers with the photo', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'inmo-narrow-upload-'));
    const files = [];
    for (const [name, width] of [
      ['ochocientos.png', 800],
      ['quinientos.png', 500],
      ['cuatrocientos.png', 400],
    ] as const) {
      const path = join(folder, name);
      writeFileSync(path, await transparentPng(width, (width * 3) / 4));
      files.push({ path, fileName: name });
    }
    expect(await addPhotos(t.db, store, t.businessId, id, files, (key) => `http://localhost/media/${key}`)).toBe(3);
    const images = (await get(t.app, `/properties/${id}`, t.key)).body.data.images as Array<{ url: string }>;
    // The listing links to the widest stored of each: the 960 slot of the 800- and 500-pixel ones, the 480 one of the 400-pixel one.
    expect(images.map((i) => /-(\d+)\.jpg$/.exec(i.url)?.[1])).toEqual(['960', '960', '480']);
    const [eight, five, four] = images.map((i) => new URL(i.url).pathname);

    const agent = await loggedIn(t.app, 'agent@estrecha.example');
    const page = (await agent.get(`/console/properties/${id}`)).body;
    // The kit's preview: src the widest stored, srcset the stored widths only.
    const at = (path: string, width: number) => path.replace(/-\d+\.jpg$/, `-${width}.jpg`);
    const srcset = (path: string) => new RegExp(`src="[^"]*${path}" srcset="[^"]*${at(path, 480)} 480w, [^"]*${path} 960w"`);
    expect(page).toMatch(srcset(eight));
    expect(page).toMatch(srcset(five));
    expect(page).toMatch(new RegExp(`<img src="[^"]*${four}" alt`));
    expect(page).not.toMatch(/-1600\.jpg/);
    const table = (await agent.get('/console/properties')).body;
    const token = await listingPageToken(t.db, t.businessId, id);
    const listingPage = await t.app.inject({ method: 'GET', url: `/l/${token}` });
    expect(listingPage.statusCode).toBe(200);

    const urls = new Set([...imageUrls(page), ...imageUrls(table), ...imageUrls(listingPage.body), ...images.map((i) => i.url)]);
    // The three photos in every stored width: 480 and 960 of two, 480 of the third.
    expect(new Set([...urls].map((u) => new URL(u, 'http://localhost').pathname))).toEqual(
      new Set([at(eight, 480), eight, at(five, 480), five, four]),
    );
    const widths: Record<string, number> = { [at(eight, 480)]: 480, [eight]: 800, [at(five, 480)]: 480, [five]: 500, [four]: 400 };
    for (const url of urls) {
      expect(await served(url)).toEqual({
        url,
        status: 200,
        type: 'image/jpeg',
        format: 'jpeg',
        width: widths[new URL(url, 'http://localhost').pathname],
      });
    }
  });
});
