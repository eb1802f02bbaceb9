/**
 * Renders the photos named on the command line all at once, as that many console uploads
 * arriving together would (media/photos.ts `renderPhoto`), then prints what happened and the
 * peak memory of the process: `{"rendered", "refused": [reasons], "maxRssMb"}`. Run in a child
 * process of its own (test/unit/photos.test.ts), so that its peak is the renders' alone.
 */
import { PhotoRefusedError, renderPhoto } from '../../src/media/photos.ts';

const limitMb = Number(process.env.INMO_TEST_RSS_LIMIT_MB ?? 1024);
const files = process.argv.slice(2);
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
setInterval(() => {
  const rss = process.memoryUsage.rss();
  if (mb(rss) > limitMb) {
    console.log(JSON.stringify({ stopped: true, maxRssMb: mb(rss) }));
    process.exit(0);
  }
}, 5).unref();
let rendered = 0;
const refused: string[] = [];
await Promise.all(
  files.map(async (path, i) => {
    try {
      await renderPhoto(path, `photo-${i}`);
      rendered++;
    } catch (error) {
      if (!(error instanceof PhotoRefusedError)) throw error;
      refused.push(error.reason);
    }
  }),
);
// resourceUsage().maxRSS is in kilobytes.
console.log(JSON.stringify({ rendered, refused, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) }));
