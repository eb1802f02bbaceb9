/** Images for the photo tests, made by sharp: a phone photo with its GPS position, and others. */
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
