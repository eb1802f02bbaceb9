/** A drawn signature as the console's canvas sends it (assets/signature.js), for visit sheets and mandates. */
import sharp from 'sharp';

/** A signature as the canvas sends it: a stroke on white, PNG, as a data URL. */
export async function drawnSignature(): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="200"><rect width="600" height="200" fill="#fff"/><path d="M40 150 C 120 20, 200 180, 280 60 S 460 160, 560 40" stroke="#10233f" stroke-width="5" fill="none"/></svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}
