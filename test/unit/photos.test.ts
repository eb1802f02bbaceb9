/**
 * Photos as uploaded (media/photos.ts, CONTRACT §14): read by their content, turned upright,
 * re-encoded as JPEG in the standard widths, with no EXIF (the phone's GPS position), ICC, XMP
 * or IPTC left; anything but a JPEG, PNG or WebP image, or one over 50 megapixels, refused.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import exifReader from 'exif-reader';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { PHOTO_WIDTHS, PhotoRefusedError, renderPhoto } from '../../src/media/photos.ts';
import { FolderMediaStore, MEDIA_KEY } from '../../src/media/store.ts';
import { storeDemoPhotos } from '../../src/demo/photos.ts';
import { flatPng16, phonePhoto, transparentPng } from '../helpers/images.ts';

const dir = mkdtempSync(join(tmpdir(), 'inmo-photos-'));
const file = (name: string, bytes: Buffer | string) => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};

describe('renderPhoto', () => {
  it('strips the GPS position and every other metadata, turns the photo upright and stores the three widths', async () => {
    const original = await phonePhoto();
    // The input really carries the position (so its absence below means something).
    expect(exifReader((await sharp(original).metadata()).exif!).GPSInfo).toMatchObject({
      GPSLatitudeRef: 'N',
      GPSLatitude: [40, 25, 12.34],
    });
    const { variants } = await renderPhoto(file('phone.jpg', original), 'phone.jpg');
    expect(variants.map((v) => [v.slot, v.width, v.height])).toEqual([
      [480, 480, 640],
      [960, 960, 1280],
      [1600, 1600, 2133],
    ]);
    for (const v of variants) {
      const m = await sharp(v.body).metadata();
      expect(m.format).toBe('jpeg');
      expect([m.exif, m.icc, m.xmp, m.iptc, m.orientation]).toEqual([undefined, undefined, undefined, undefined, undefined]);
      expect(v.body.includes(Buffer.from('TestPhone'))).toBe(false);
    }
  });

  it('keeps a small photo at its own width, in the first slot only, and flattens transparency', async () => {
    const { variants } = await renderPhoto(file('small.png', await transparentPng(300, 200)), 'small.png');
    expect(variants.map((v) => [v.slot, v.width, v.height])).toEqual([[480, 300, 200]]);
    expect((await sharp(variants[0].body).metadata()).format).toBe('jpeg');
  });

  it('takes WebP', async () => {
    const webp = await sharp({ create: { width: 1000, height: 500, channels: 3, background: '#123456' } })
      .webp()
      .toBuffer();
    expect((await renderPhoto(file('a.webp', webp), 'a.webp')).variants.map((v) => v.slot)).toEqual([480, 960, 1600]);
  });

  it.each([
    ['text named .jpg', 'notes.jpg', 'hello, I am not a photo'],
    ['a GIF', 'anim.gif', null],
  ])('refuses %s by its content', async (_what, name, content) => {
    let bytes: Buffer | string = content ?? '';
    if (name.endsWith('.gif'))
      bytes = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } })
        .gif()
        .toBuffer();
    await expect(renderPhoto(file(name, bytes), name)).rejects.toMatchObject({ reason: 'format', fileName: name });
  });

  it('refuses a JPEG cut short, closed with an end marker or not, rather than padding it with grey (issue 41)', async () => {
    const photo = await phonePhoto(1200, 900);
    const half = photo.subarray(0, photo.length >> 1);
    // The input is still a JPEG by its header (so the refusal below is about its pixels).
    expect((await sharp(half).metadata()).format).toBe('jpeg');
    for (const [name, bytes] of [
      ['cut.jpg', half],
      ['cut-closed.jpg', Buffer.concat([half, Buffer.from([0xff, 0xd9])])],
      ['start.jpg', photo.subarray(0, 2000)],
    ] as const) {
      await expect(renderPhoto(file(name, bytes), name), name).rejects.toMatchObject({ reason: 'truncated', fileName: name });
    }
    // The whole photo is taken.
    expect((await renderPhoto(file('whole.jpg', photo), 'whole.jpg')).variants).toHaveLength(2);
  });

  it('refuses from the header alone the 25,000,000 × 2 16-bit PNG of issue 41, a side over 12,000, a strip, and 16-bit pixels over 200 MB', async () => {
    const wide = await flatPng16(25_000_000, 2);
    // 50 megapixels exactly (the pixel cap lets it through) in a few hundred kilobytes.
    expect(wide.length).toBeLessThan(1_000_000);
    const cases: Array<[string, Buffer]> = [
      ['wide.png', wide],
      ['side.png', await flatPng16(12_001, 10)],
      ['strip.png', await flatPng16(2_100, 100)],
      // 7,000 × 7,000 × 3 samples × 2 bytes: 294 MB decoded, under 50 megapixels.
      ['deep.png', await flatPng16(7_000, 7_000)],
    ];
    for (const [name, bytes] of cases) {
      await expect(renderPhoto(file(name, bytes), name), name).rejects.toMatchObject({ reason: 'too_large_dimensions', fileName: name });
    }
    // Just inside each bound: taken.
    for (const [name, bytes] of [
      ['panorama.png', await flatPng16(2_000, 100)],
      ['long.png', await flatPng16(12_000, 1_000)],
    ] as const) {
      expect((await renderPhoto(file(name, bytes), name)).variants.length, name).toBeGreaterThan(0);
    }
  });

  it('refuses an image over 50 megapixels before decoding it', async () => {
    // 60 megapixels of one colour: a few kilobytes of PNG (a decompression bomb's shape).
    const huge = await sharp({ create: { width: 10_000, height: 6_000, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    expect(huge.length).toBeLessThan(1_000_000);
    const refused = await renderPhoto(file('huge.png', huge), 'huge.png').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PhotoRefusedError);
    expect(refused).toMatchObject({ reason: 'too_many_pixels' });
  });
});

describe('the demo catalogue’s photos', () => {
  it('are stored once in every width, as JPEG, under p/0/', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'inmo-demo-photos-'));
    const store = new FolderMediaStore(dir);
    const keys = await storeDemoPhotos(store);
    expect(keys).toHaveLength(6);
    for (const key of keys) {
      expect(key).toMatch(MEDIA_KEY);
      expect(key).toMatch(/^p\/0\/.+-1600\.jpg$/);
      for (const width of PHOTO_WIDTHS) {
        const object = await store.get(key.replace(/-1600\.jpg$/, `-${width}.jpg`));
        const chunks: Buffer[] = [];
        for await (const chunk of object!.body) chunks.push(chunk as Buffer);
        const meta = await sharp(Buffer.concat(chunks)).metadata();
        expect([meta.format, meta.width]).toEqual(['jpeg', width]);
      }
    }
    // Stored again: nothing rewritten, the same keys.
    expect(await storeDemoPhotos(store)).toEqual(keys);
  });
});
