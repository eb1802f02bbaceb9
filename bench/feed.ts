/**
 * The changes-feed benchmark (CONTRACT §13, services/catalogue/changes.ts), part of
 * `npm run bench -- --only feed`: a client that syncs a whole catalogue from the start with
 * `GET /properties/changes?limit=500`, one page after another as a website's sync job does,
 * until `has_more` is false. Target: the real 20k catalogue in under 2 s over HTTP on SQLite.
 *
 * inmo runs as `inmo serve --no-worker` (CPU 0, `LOG_LEVEL=warn`); the client is Node's fetch in
 * this process (CPU 1). Baseline, same run and same client: a bare node:http server
 * (bench/baseline-pages.mjs, CPU 0) sending the very pages inmo sent, so the ratio is what
 * building the pages costs beyond moving their bytes. Median of three runs of each, interleaved.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProcess, stop } from './processes.ts';

const LIMIT = 500;
const RUNS = 3;

/** A prepared catalogue database and its key (bench/run.ts). */
export interface FeedCatalogue {
  name: string;
  dbPath: string;
  key: string;
}

interface Sync {
  seconds: number;
  pages: string[];
  upserts: number;
}

/** Follows the feed from no cursor to `has_more: false`. `pageUrl(i, cursor)` names each request. */
async function follow(pageUrl: (page: number, cursor: string | null) => string, key: string): Promise<Sync> {
  const pages: string[] = [];
  let upserts = 0;
  let cursor: string | null = null;
  const started = performance.now();
  for (;;) {
    const response = await fetch(pageUrl(pages.length, cursor), { headers: { 'x-api-key': key } });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`the feed answered ${response.status}: ${text.slice(0, 200)}`);
    const page = JSON.parse(text) as { data: Array<{ change: string }>; next_cursor: string; has_more: boolean };
    pages.push(text);
    upserts += page.data.filter((c) => c.change === 'upsert').length;
    cursor = page.next_cursor;
    if (!page.has_more) break;
  }
  return { seconds: (performance.now() - started) / 1000, pages, upserts };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Runs the feed benchmark on each catalogue. @returns the report's lines. */
export async function feedBench(root: string, work: string, catalogues: FeedCatalogue[]): Promise<string[]> {
  const lines = [
    `changes feed from the start, limit=${LIMIT}, one request at a time; median of ${RUNS} interleaved runs`,
    `${'catalogue'.padEnd(15)} ${'upserts'.padStart(8)} ${'pages'.padStart(6)} ${'MB'.padStart(6)} ${'inmo s'.padStart(7)} ${'node:http s'.padStart(11)} ${'ratio'.padStart(6)}  target`,
  ];
  const bin = join(root, 'bin', 'inmo.mjs');
  for (const catalogue of catalogues) {
    const inmo = await startProcess(
      [bin, 'serve', '--port', '0', '--no-worker', '--json'],
      { ...process.env, DATABASE_URL: `sqlite:${catalogue.dbPath}`, LOG_LEVEL: 'warn' },
      root,
    );
    let bare: Awaited<ReturnType<typeof startProcess>> | null = null;
    try {
      const base = String(inmo.info.url);
      const feedUrl = (_page: number, cursor: string | null) =>
        `${base}/properties/changes?limit=${LIMIT}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      // A first sync warms the process; its pages are what the baseline sends.
      const first = await follow(feedUrl, catalogue.key);
      const file = join(work, `feed-pages-${catalogue.name}.json`);
      writeFileSync(file, JSON.stringify(first.pages));
      bare = await startProcess([fileURLToPath(new URL('baseline-pages.mjs', import.meta.url)), file], process.env, root);
      const bareUrl = (page: number) => `http://127.0.0.1:${String(bare!.info.port)}/${page}`;
      await follow(bareUrl, catalogue.key);
      const inmoRuns: number[] = [];
      const bareRuns: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const run = await follow(feedUrl, catalogue.key);
        if (run.upserts !== first.upserts) throw new Error(`a sync saw ${run.upserts} listings, the first ${first.upserts}`);
        inmoRuns.push(run.seconds);
        bareRuns.push((await follow(bareUrl, catalogue.key)).seconds);
      }
      const megabytes = first.pages.reduce((n, p) => n + Buffer.byteLength(p), 0) / 1e6;
      const inmoS = median(inmoRuns);
      const bareS = median(bareRuns);
      const target = catalogue.name === 'real-20k' ? (inmoS < 2 ? '< 2 s: met' : '< 2 s: MISSED') : '';
      lines.push(
        `${catalogue.name.padEnd(15)} ${String(first.upserts).padStart(8)} ${String(first.pages.length).padStart(6)} ${megabytes.toFixed(1).padStart(6)} ${inmoS.toFixed(2).padStart(7)} ${bareS.toFixed(2).padStart(11)} ${(inmoS / bareS).toFixed(2).padStart(6)}  ${target}`,
      );
    } finally {
      await stop(inmo.child);
      if (bare) await stop(bare.child);
    }
  }
  return lines;
}
