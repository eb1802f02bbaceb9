/**
 * Map areas at their worst (issue 25), part of `npm run bench -- --only areas`: how long
 * `GET /properties` takes with the largest `locations` the limits allow (polygons of many
 * vertices filling the 64 KiB query), and how long other requests wait meanwhile, on the real
 * 20k catalogue.
 *
 * inmo runs as `inmo serve --no-worker` (CPU 0, `LOG_LEVEL=warn`). This process (CPU 1) sends
 * such queries one after another for 5 s while it asks `GET /healthz` every 5 ms: the longest
 * `/healthz` answer is the longest the event loop was held by one query (with more queries at
 * once, a request also waits its turn behind each). Baseline,
 * same run: the same `/healthz` probe while inmo is idle. Without the page cache
 * (`INMO_PAGE_CACHE_MB=0`, `INMO_COUNT_CACHE_SIZE=0`), so every query does the work.
 */
import { startProcess, stop } from './processes.ts';

/** A polygon of `n` vertices around central Zaragoza (a circle of 3 km), coordinates at 5 decimals. */
function polygon(n: number, shift: number): unknown {
  const coordinates = Array.from({ length: n }, (_, k) => {
    const a = (2 * Math.PI * k) / n;
    return { lat: +(41.6488 + 0.027 * Math.sin(a) + shift).toFixed(5), lng: +(-0.8891 + 0.036 * Math.cos(a)).toFixed(5) };
  });
  return { type: 'polygon', coordinates };
}

/** The `locations` parameter of `count` polygons that fits the 64 KiB limit, with as many vertices each as fit. */
function worstLocations(count: number): { text: string; vertices: number } {
  let n = 10;
  const build = (v: number) => JSON.stringify(Array.from({ length: count }, (_, i) => polygon(v, i * 0.001)));
  while (build(n + 10).length <= 65_536 && n + 10 <= 1000) n += 10;
  return { text: build(n), vertices: n * count };
}

interface Probe {
  max: number;
  p99: number;
  samples: number;
}

/** Asks /healthz every 5 ms until `done`, timing each answer. */
async function probe(origin: string, done: () => boolean): Promise<Probe> {
  const times: number[] = [];
  while (!done()) {
    const started = performance.now();
    await fetch(`${origin}/healthz`).then((r) => r.arrayBuffer());
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  times.sort((a, b) => a - b);
  return { max: times.at(-1) ?? 0, p99: times[Math.floor(times.length * 0.99)] ?? 0, samples: times.length };
}

/** Runs the part; returns the report's lines. */
export async function areasBench(root: string, dbPath: string, key: string): Promise<string[]> {
  const env = { ...process.env, DATABASE_URL: `sqlite:${dbPath}`, LOG_LEVEL: 'warn', INMO_PAGE_CACHE_MB: '0', INMO_COUNT_CACHE_SIZE: '0' };
  const { child, info } = await startProcess(['bin/inmo.mjs', 'serve', '--no-worker', '--port', '0', '--json'], env, root);
  const base = info.url as string;
  const origin = new URL(base).origin;
  const lines = ['map areas at the 64 KiB limit of locations, real 20k catalogue, caches off; /healthz asked every 5 ms meanwhile'];
  lines.push(
    '| areas | vertices | queries | query p50 ms | query max ms | /healthz p99 ms | /healthz max ms |',
    '|---|---|---|---|---|---|---|',
  );
  try {
    let finished = false;
    const idle = await Promise.all([probe(origin, () => finished), new Promise((r) => setTimeout(r, 2000)).then(() => (finished = true))]);
    lines.push(`| idle | — | — | — | — | ${idle[0].p99.toFixed(1)} | ${idle[0].max.toFixed(1)} |`);
    for (const count of [1, 8, 50]) {
      const { text, vertices } = worstLocations(count);
      const url = `${base}/properties?limit=20&locations=${encodeURIComponent(text)}`;
      const first = await fetch(url, { headers: { 'x-api-key': key } });
      if (first.status !== 200) throw new Error(`${count} polygons: ${first.status} ${await first.text()}`);
      const durations: number[] = [];
      let stopAt = performance.now() + 5000;
      const client = async () => {
        while (performance.now() < stopAt) {
          const started = performance.now();
          await fetch(url, { headers: { 'x-api-key': key } }).then((r) => r.arrayBuffer());
          durations.push(performance.now() - started);
        }
      };
      finished = false;
      const [seen] = await Promise.all([probe(origin, () => finished), client().then(() => (finished = true))]);
      stopAt = 0;
      durations.sort((a, b) => a - b);
      lines.push(
        `| ${count} | ${vertices} | ${durations.length} | ${durations[Math.floor(durations.length / 2)].toFixed(0)} | ${durations.at(-1)!.toFixed(0)} | ${seen.p99.toFixed(1)} | ${seen.max.toFixed(1)} |`,
      );
    }
  } finally {
    await stop(child);
  }
  return lines;
}
