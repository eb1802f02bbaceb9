/** Images for the photo tests, made by sharp: a phone photo with its GPS position, and others. */
import { once } from 'node:events';
import { crc32, createDeflate } from 'node:zlib';
import sharp from 'sharp';

/** The position the phone photo carries (Puerta del Sol), as EXIF writes it. */
export const GPS = { GPSLatitudeRef: 'N', GPSLatitude: '40/1 25/1 1234/100', GPSLongitudeRef: 'W', GPSLongitude: '3/1 42/1 2/1' };

/**
 * A JPEG as a phone takes it: `width`×`height` pixels stored sideways with EXIF orientation 6
 * (upright it is `height` wide), the phone's make and its GPS position.
 */
export function phonePhoto(width = 4000, height = 3000): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#6a8caf' } })
    .jpeg({ quality: 90 })
    .withMetadata({ orientation: 6 })
    .withExif({ IFD0: { Make: 'TestPhone', Model: 'X' }, IFD3: GPS })
    .toBuffer();
}

/** A PNG with transparency. */
export function transparentPng(width = 1200, height = 800): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 200, g: 50, b: 50, alpha: 0.5 } } })
    .png()
    .toBuffer();
}

/**
 * A PNG of one grey, 16 bits a sample (RGB), `width`×`height`, written here row by row with
 * node's zlib: a few hundred kilobytes however large the image (a decompression bomb's shape).
 * sharp would hold whole rows to write it (2 GB for the 25,000,000-pixel rows of issue 41).
 */
export async function flatPng16(width: number, height: number): Promise<Buffer> {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([16, 2, 0, 0, 0], 8); // 16 bits, RGB, deflate, no filter method, not interlaced
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (data: Buffer) => out.push(data));
  const grey = Buffer.alloc(1 << 20, 0x80);
  for (let row = 0; row < height; row++) {
    deflate.write(Buffer.from([0])); // filter: none
    for (let left = width * 6; left > 0; left -= grey.length) {
      if (!deflate.write(grey.subarray(0, Math.min(left, grey.length)))) await once(deflate, 'drain');
    }
  }
  deflate.end();
  await once(deflate, 'end');
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', Buffer.concat(out)), chunk('IEND', Buffer.alloc(0))]);
}
