/**
 * A listing's photos in the console (issue 27, CONTRACT §14), on this process's engine, with the
 * folder store: several uploaded at once, re-encoded without EXIF, published in
 * `Property.images[].url` under `/media/` and served with immutable cache headers; made primary,
 * moved, titled, hidden and deleted (the stored widths with it); a file that is not a photo
 * refuses the whole upload and stores nothing; another business's listing is a 404.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { saveListing, listingInFull } from '../../../src/services/catalogue/listings.ts';
import { FolderMediaStore } from '../../../src/media/store.ts';
import { MAX_PHOTO_BYTES } from '../../../src/media/photos.ts';
import { Browser, loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';
import { phonePhoto, transparentPng } from '../../helpers/images.ts';

const mediaDir = mkdtempSync(join(tmpdir(), 'inmo-media-'));

/** Every file the folder store holds, relative to it. */
const storedFiles = (): string[] =>
  readdirSync(mediaDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();

describe("a listing's photos in the console", () => {
  let ours = 0;
  let theirs = 0;
  const t = withApp({
    app: { media: { store: new FolderMediaStore(mediaDir), publicUrl: null } },
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agent@uno.example', 'agent');
      await importRecords(db, businessId, [listing('FOTO-1', { address_privacy: 'hidden' })]);
      ours = await propertyId(db, 'FOTO-1');
      const other = await insertBusiness(db, 'Agencia Dos', nowRfc3339());
      await importRecords(db, other.id, [listing('DOS-1')]);
      theirs = await propertyId(db, 'DOS-1');
    },
  });

  const agent = () => loggedIn(t.app, 'agent@uno.example');
  const upload = async (browser: Browser, id: number, files: Array<{ name: string; content: Buffer | string; type: string }>) =>
    browser.upload(
      `/console/properties/${id}/images`,
      { _csrf: await browser.token(`/console/properties/${id}`) },
      files.map((f) => ({ ...f, field: 'image' })),
    );
  const images = async () =>
    (await get(t.app, `/properties/${ours}`, t.key)).body.data.images as Array<{
      id: number;
      url: string;
      order: number;
      is_primary: boolean;
      title: string | null;
    }>;
  /** The photo at `url` as /media/ serves it. */
  const served = (url: string) => t.app.inject({ method: 'GET', url: new URL(url).pathname });

  it('uploads several photos at once: re-encoded without EXIF, linked under /media/, served immutable', async () => {
    const browser = await agent();
    const answer = await upload(browser, ours, [
      { name: 'salon.jpg', content: await phonePhoto(), type: 'image/jpeg' },
      { name: 'plano.png', content: await transparentPng(), type: 'image/png' },
    ]);
    expect(answer.statusCode).toBe(303);
    expect(answer.headers.location).toBe(`/console/properties/${ours}?added=1#h-photos`);
    const published = await images();
    expect(published.map((i) => [i.order, i.is_primary])).toEqual([
      [0, true],
      [1, false],
    ]);
    for (const image of published)
      expect(image.url).toMatch(new RegExp(`^http://localhost(:80)?/media/p/${ours}/[0-9a-f-]{36}-1600\\.jpg$`));
    // Three widths of each: the 1200-pixel plan fills the 1600 slot at its own width.
    expect(storedFiles()).toHaveLength(6);
    const photo = await served(published[0].url);
    expect(photo.statusCode).toBe(200);
    expect(photo.headers['content-type']).toBe('image/jpeg');
    expect(photo.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const metadata = await sharp(photo.rawPayload).metadata();
    expect([metadata.format, metadata.width, metadata.exif]).toEqual(['jpeg', 1600, undefined]);
    expect(photo.rawPayload.includes(Buffer.from('TestPhone'))).toBe(false);
    expect((await served(published[0].url.replace('-1600.jpg', '-480.jpg'))).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/media/../../etc/passwd' })).statusCode).toBe(404);
  });

  it('makes a photo primary, moves it, titles it, hides it and deletes it with its stored widths', async () => {
    const browser = await agent();
    const act = async (imageId: number, form: Record<string, string>) =>
      browser.submit(`/console/properties/${ours}`, `/console/properties/${ours}/images/${imageId}`, form);
    let [first, second] = await images();
    expect((await act(second.id, { action: 'primary' })).statusCode).toBe(303);
    [first, second] = await images();
    expect([first.is_primary, second.is_primary]).toEqual([false, true]);
    await act(second.id, { action: 'up' });
    const moved = await images();
    expect(moved[0].url).toBe(second.url);
    await act(moved[0].id, { action: 'title', title: 'Plano de la vivienda' });
    expect((await images())[0].title).toBe('Plano de la vivienda');
    await act((await images())[1].id, { action: 'hide' });
    expect((await images()).map((i) => i.url)).toEqual([second.url]);
    expect((await browser.get(`/console/properties/${ours}`)).body).toContain('oculta');
    const before = storedFiles().length;
    const stored = await t.db
      .selectFrom('property_images')
      .select(['id', 'url'])
      .where('property_id', '=', ours)
      .orderBy('sort_order')
      .execute();
    await act(stored[0].id, { action: 'delete' });
    expect(storedFiles().length).toBe(before - 3);
    expect((await served(second.url)).statusCode).toBe(404);
    // The photo left is the primary one now (hidden, so the API shows none).
    const left = await t.db.selectFrom('property_images').select(['is_primary', 'public']).where('property_id', '=', ours).execute();
    expect(left).toEqual([{ is_primary: 1, public: 0 }]);
  });

  it('refuses the whole upload when one file is not a photo, and stores nothing', async () => {
    const browser = await agent();
    const before = await snapshot(t.db);
    const files = storedFiles();
    const answer = await upload(browser, ours, [
      { name: 'bien.jpg', content: await phonePhoto(800, 600), type: 'image/jpeg' },
      { name: 'virus.jpg', content: '#!/bin/sh\necho not a photo', type: 'image/jpeg' },
    ]);
    expect(answer.statusCode).toBe(422);
    expect(answer.body).toContain('virus.jpg: no es una foto JPEG, PNG o WebP. No se ha guardado ninguna foto.');
    // 15 MB each at most (CONTRACT §14): one byte more is refused while it is read.
    const huge = Buffer.concat([await phonePhoto(800, 600), Buffer.alloc(MAX_PHOTO_BYTES)]);
    const tooLarge = await upload(browser, ours, [{ name: 'enorme.jpg', content: huge, type: 'image/jpeg' }]);
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.body).toContain('Una de las fotos pasa de 15 MB. No se ha guardado ninguna foto.');
    // A JPEG cut short (an upload that broke off), closed with an end marker: refused, with the reason.
    const photo = await phonePhoto(800, 600);
    const cut = Buffer.concat([photo.subarray(0, photo.length >> 1), Buffer.from([0xff, 0xd9])]);
    const truncated = await upload(browser, ours, [{ name: 'cortada.jpg', content: cut, type: 'image/jpeg' }]);
    expect(truncated.statusCode).toBe(422);
    expect(truncated.body).toContain('cortada.jpg: el archivo está incompleto o dañado');
    const none = await upload(browser, ours, []);
    expect(none.statusCode).toBe(422);
    expect(none.body).toContain('Elige al menos una foto.');
    expect(await snapshot(t.db)).toBe(before);
    expect(storedFiles()).toEqual(files);
  });

  it("answers another business's listing or photo as a missing one, and needs the form's token", async () => {
    const browser = await agent();
    const before = await snapshot(t.db);
    const files = storedFiles();
    for (const id of [theirs, 999_999]) {
      expect((await upload(browser, id, [{ name: 'a.jpg', content: await phonePhoto(600, 400), type: 'image/jpeg' }])).statusCode).toBe(
        404,
      );
    }
    const [theirImage] = await t.db
      .insertInto('property_images')
      .values({ property_id: theirs, url: 'https://img.example/x.jpg', sort_order: 0, is_primary: 1, title: null, public: 1 })
      .returning('id')
      .execute();
    const mark = await snapshot(t.db);
    for (const [id, image] of [
      [theirs, theirImage.id],
      [ours, theirImage.id],
    ]) {
      expect(
        (await browser.submit(`/console/properties/${ours}`, `/console/properties/${id}/images/${image}`, { action: 'delete' })).statusCode,
      ).toBe(404);
    }
    expect(await snapshot(t.db)).toBe(mark);
    const noToken = await browser.upload(`/console/properties/${ours}/images`, {}, [
      { name: 'a.jpg', field: 'image', content: await phonePhoto(600, 400), type: 'image/jpeg' },
    ]);
    expect(noToken.statusCode).toBe(403);
    expect(storedFiles()).toEqual(files);
    expect(before).not.toBe(mark);
  });
});

/**
 * Issue 41: stored photos are owned. A listing of another business (or any listing) whose image
 * URL merely ends in a media key names no stored photo of its own, and deleting that image in
 * the console removes no object; two uploads to one listing at once both stay; a photo action
 * keeps the ids of the images it did not remove.
 */
describe('stored photos belong to their business and listing (issue 41)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'inmo-media-'));
  let a = 0;
  let b = 0;
  const t = withApp({
    app: { media: { store: new FolderMediaStore(dir), publicUrl: null } },
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agente@a.example', 'agent');
      await importRecords(db, businessId, [listing('A-1')]);
      a = await propertyId(db, 'A-1');
      const other = await insertBusiness(db, 'Agencia B', nowRfc3339());
      await userWithPassword(db, other.id, 'agente@b.example', 'agent');
      await importRecords(db, other.id, [listing('B-1')]);
      b = await propertyId(db, 'B-1');
    },
  });
  const upload = async (browser: Browser, id: number, names: string[]) =>
    browser.upload(
      `/console/properties/${id}/images`,
      { _csrf: await browser.token(`/console/properties/${id}`) },
      await Promise.all(names.map(async (name) => ({ name, field: 'image', content: await phonePhoto(1200, 900), type: 'image/jpeg' }))),
    );
  const rows = (id: number) =>
    t.db.selectFrom('property_images').select(['id', 'url', 'title']).where('property_id', '=', id).orderBy('sort_order').execute();
  const served = async (url: string) => (await t.app.inject({ method: 'GET', url: new URL(url).pathname })).statusCode;

  it("a business deleting an imported image whose URL ends in another's key removes none of the other's objects", async () => {
    const agentA = await loggedIn(t.app, 'agente@a.example');
    expect((await upload(agentA, a, ['a.jpg'])).statusCode).toBe(303);
    const [photo] = await rows(a);
    const key = new URL(photo.url).pathname.replace('/media/', '');
    const widths = [480, 960, 1600].map((w) => photo.url.replace(/-1600\.jpg$/, `-${w}.jpg`));
    for (const url of widths) expect(await served(url)).toBe(200);
    // Business B imports its listing again, its image's URL ending in A's key (on any host).
    const other = (await t.db.selectFrom('properties').select('business_id').where('id', '=', b).executeTakeFirstOrThrow()).business_id;
    for (const url of [`https://elsewhere.example/${key}`, photo.url]) {
      await importRecords(t.db, other, [listing('B-1', { images: [{ url, order: 0, is_primary: true }] })]);
      const [theirs] = await rows(b);
      const agentB = await loggedIn(t.app, 'agente@b.example');
      const deleted = await agentB.submit(`/console/properties/${b}`, `/console/properties/${b}/images/${theirs.id}`, { action: 'delete' });
      expect(deleted.statusCode).toBe(303);
      expect(await rows(b)).toEqual([]);
      for (const url of widths) expect(await served(url), url).toBe(200);
    }
    // A's own listing, naming the same URL twice (an import can), keeps the objects while one image names them.
    const aBusiness = t.businessId;
    await importRecords(t.db, aBusiness, [
      listing('A-1', {
        images: [
          { url: photo.url, order: 0, is_primary: true },
          { url: photo.url, order: 1 },
        ],
      }),
    ]);
    const [, copy] = await rows(a);
    await agentA.submit(`/console/properties/${a}`, `/console/properties/${a}/images/${copy.id}`, { action: 'delete' });
    for (const url of widths) expect(await served(url), url).toBe(200);
    // Deleting the last image that names it removes A's own stored widths.
    const [last] = await rows(a);
    await agentA.submit(`/console/properties/${a}`, `/console/properties/${a}/images/${last.id}`, { action: 'delete' });
    for (const url of widths) expect(await served(url), url).toBe(404);
  });

  it('keeps both of two uploads sent to one listing at the same time', async () => {
    const [one, two] = await Promise.all([loggedIn(t.app, 'agente@a.example'), loggedIn(t.app, 'agente@a.example')]);
    const before = (await rows(a)).length;
    const answers = await Promise.all([upload(one, a, ['uno.jpg']), upload(two, a, ['dos.jpg', 'tres.jpg'])]);
    expect(answers.map((r) => r.statusCode)).toEqual([303, 303]);
    expect(await rows(a)).toHaveLength(before + 3);
  });

  it('an edit of the listing read before an upload keeps the uploaded photo (its images are read when it is written)', async () => {
    const agentA = await loggedIn(t.app, 'agente@a.example');
    // The edit form's line, read before the upload (the console's form posts no photos).
    const { images: _images, videos: _videos, ...form } = (await listingInFull(t.db, t.businessId, a))!.record;
    expect((await upload(agentA, a, ['nueva.jpg'])).statusCode).toBe(303);
    const withUpload = await rows(a);
    await saveListing(t.db, t.businessId, a, { ...form, title: 'Piso reformado' }, null);
    expect(await rows(a)).toEqual(withUpload);
    expect((await listingInFull(t.db, t.businessId, a))!.record.title).toBe('Piso reformado');
  });

  it('keeps the ids of the images a photo action does not remove', async () => {
    const agentA = await loggedIn(t.app, 'agente@a.example');
    await upload(agentA, a, ['cuatro.jpg']);
    const act = async (imageId: number, form: Record<string, string>) =>
      agentA.submit(`/console/properties/${a}`, `/console/properties/${a}/images/${imageId}`, form);
    const ids = async () => (await rows(a)).map((r) => r.id).sort((x, y) => x - y);
    const start = await ids();
    expect(start.length).toBeGreaterThanOrEqual(3);
    const forms: Array<Record<string, string>> = [
      { action: 'down' },
      { action: 'up' },
      { action: 'title', title: 'Salón' },
      { action: 'primary' },
      { action: 'hide' },
    ];
    for (const form of forms) {
      expect((await act(start[1], form)).statusCode).toBe(303);
      expect(await ids(), form.action).toEqual(start);
    }
    expect((await rows(a)).find((r) => r.id === start[1])?.title).toBe('Salón');
    await act(start[0], { action: 'delete' });
    expect(await ids()).toEqual(start.slice(1));
  });
});
