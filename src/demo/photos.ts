/**
 * The demo catalogue's photos (issue 30): a few drawn rooms and façades, rendered by sharp into
 * the media store once, in the widths of uploaded photos (src/media/photos.ts), so that the demo's
 * cards, listing pages and console show real images served by inmo instead of links to a host
 * that does not exist. They are kept under `p/0/` (no listing has id 0): every demo listing links
 * to the same few, and deleting one listing's photo never deletes them (services/catalogue/photos.ts).
 */
import sharp from 'sharp';
import { PHOTO_WIDTHS } from '../media/photos.ts';
import type { MediaStore } from '../media/store.ts';

/** A drawn scene: the wall, floor and accent colours, and where its window is. */
interface Scene {
  wall: string;
  floor: string;
  accent: string;
  window: [number, number, number, number];
}

const SCENES: Scene[] = [
  { wall: '#e9e2d3', floor: '#a47551', accent: '#4f6d7a', window: [900, 180, 420, 360] },
  { wall: '#dfe8e1', floor: '#8c6d4f', accent: '#c8553d', window: [260, 160, 380, 420] },
  { wall: '#f2efe9', floor: '#6b5b4b', accent: '#2d6a4f', window: [620, 140, 520, 300] },
  { wall: '#e6e1ef', floor: '#9c8062', accent: '#3d5a80', window: [160, 200, 300, 300] },
  { wall: '#f0e4d7', floor: '#7a6450', accent: '#bc6c25', window: [1000, 160, 360, 380] },
  { wall: '#dde5ed', floor: '#8a7560', accent: '#6d597a', window: [520, 120, 560, 340] },
];

/** A scene as SVG, 1600 × 1200: wall, floor, a window with the sky, a sofa and a lamp. */
function svgOf({ wall, floor, accent, window: [x, y, w, h] }: Scene): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="1200" viewBox="0 0 1600 1200">
<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#8ecae6"/><stop offset="1" stop-color="#e0f4ff"/></linearGradient>
<linearGradient id="floor" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${floor}"/><stop offset="1" stop-color="#3b2f25"/></linearGradient></defs>
<rect width="1600" height="1200" fill="${wall}"/>
<rect y="820" width="1600" height="380" fill="url(#floor)"/>
<rect x="${x - 16}" y="${y - 16}" width="${w + 32}" height="${h + 32}" fill="#ffffff"/>
<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="url(#sky)"/>
<rect x="${x + w / 2 - 6}" y="${y}" width="12" height="${h}" fill="#ffffff"/>
<rect x="420" y="640" width="760" height="200" rx="40" fill="${accent}"/>
<rect x="380" y="600" width="120" height="260" rx="40" fill="${accent}"/>
<rect x="1100" y="600" width="120" height="260" rx="40" fill="${accent}"/>
<rect x="1340" y="420" width="16" height="420" fill="#333333"/>
<ellipse cx="1348" cy="410" rx="70" ry="50" fill="#f4d35e"/>
<rect x="560" y="900" width="480" height="140" rx="20" fill="#ffffff" opacity="0.35"/>
</svg>`;
}

/** A scene's key in the store, width `w`: fixed, so that a second demo reuses what the first stored. */
const keyOf = (scene: number, w: number) => `p/0/00000000-0000-4000-8000-${String(scene + 1).padStart(12, '0')}-${w}.jpg`;

/**
 * Stores the demo photos (each in every width of {@link PHOTO_WIDTHS}) unless they are there.
 * @returns the key of each photo's widest copy, as listings link them.
 */
export async function storeDemoPhotos(store: MediaStore): Promise<string[]> {
  const keys: string[] = [];
  for (const [n, scene] of SCENES.entries()) {
    const widest = keyOf(n, PHOTO_WIDTHS.at(-1)!);
    const stored = await store.get(widest);
    // Only whether it is there: the body is not read.
    (stored?.body as { destroy?: () => void } | undefined)?.destroy?.();
    if (!stored) {
      const drawn = Buffer.from(svgOf(scene));
      for (const w of PHOTO_WIDTHS) {
        await store.put(keyOf(n, w), await sharp(drawn).resize({ width: w }).jpeg({ quality: 78, mozjpeg: true }).toBuffer(), 'image/jpeg');
      }
    }
    keys.push(widest);
  }
  return keys;
}
