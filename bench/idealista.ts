/**
 * The idealista feed (issue 46), `npm run bench -- --only idealista`, on a generated catalogue
 * of 20,000 listings of every type (src/demo/catalogue-generator.ts, seed 46: most of them are
 * published, a hidden address or a transfer alone leaves the others out), in .bench/:
 *
 * - **Cold**: `GET /feeds/<token>/idealista.json` of `inmo serve --no-worker` (CPU 0), time to
 *   the first byte and to the whole document: the first request of the process (idealista's
 *   schemas compiled then), and the first after a catalogue change (the business's catalogue
 *   version bumped in the database), three times, beside the Kyero feed's after the same change.
 * - **304**: `If-None-Match` under wrk, beside the Kyero feed's 304, a cached `GET
 *   /properties?limit=20` of the same server, and a bare node:http server answering an empty
 *   200 (bench/baseline-server.mjs), in the same run: three interleaved rounds, the median of each.
 * - **Memory**: the same document built in this process (services/catalogue/feeds/published-feeds.ts),
 *   its heap sampled every 5 ms and at every step: before, at its peak while it is made, and
 *   after, beside the document's size; and the server's resident memory before and at its peak
 *   during a cold request.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createDb, migrate, type Db } from '../src/db/database.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { generateCatalogue } from '../src/demo/catalogue-generator.ts';
import { nowRfc3339 } from '../src/domain/time.ts';
import { createApiKey } from '../src/services/access/api-keys.ts';
import { importCatalogueFile } from '../src/services/catalogue/import/import.ts';
import { feedDocument, feedVersion, publishFeed } from '../src/services/catalogue/feeds/published-feeds.ts';
import { timed } from './feeds.ts';
import { onEveryCpu, startProcess, stop } from './processes.ts';
import { wrk, type Load } from './wrk.ts';

/** Listings of the benchmark's catalogue. */
const LISTINGS = 20_000;
/** A customer code of idealista's shape. */
const CUSTOMER_CODE = `ilc${'46'.repeat(20)}`;
/** Cold builds after a catalogue change, per feed. */
const COLD_RUNS = 3;
/** Rounds of the 304 and baseline loads, interleaved; the median run of each is reported. */
const LOAD_ROUNDS = 3;

const ms = (n: number) => n.toFixed(0);
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** The benchmark's database (built once, reused unless `fresh`): one business, its key and the catalogue. */
async function prepare(work: string, fresh: boolean): Promise<{ dbPath: string; key: string }> {
  const dbPath = join(work, 'idealista-20k.db');
  const keyPath = join(work, 'idealista-20k.key');
  if (!fresh && existsSync(dbPath) && existsSync(keyPath)) return { dbPath, key: readFileSync(keyPath, 'utf8') };
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  const source = join(work, 'idealista-20k.ndjson');
  writeFileSync(source, [...generateCatalogue(LISTINGS, 46, 'idealista')].map((r) => JSON.stringify(r)).join('\n') + '\n');
  const db = createDb(`sqlite:${dbPath}`);
  await migrate(db);
  const business = await insertBusiness(db, 'Inmobiliaria Bench', nowRfc3339());
  await onEveryCpu(() => importCatalogueFile(db, business.id, source));
  const { key } = await createApiKey(db, { businessId: business.id, scopes: ['properties:read'] });
  await db.destroy();
  rmSync(source, { force: true });
  writeFileSync(keyPath, key);
  return { dbPath, key };
}

/** Makes the next read of the business's feeds a cold one: a new catalogue version, nothing else changed. */
async function bumpCatalogue(db: Db, businessId: number): Promise<void> {
  await db
    .updateTable('businesses')
    .set((eb) => ({ catalogue_version: eb('catalogue_version', '+', 1) }))
    .where('id', '=', businessId)
    .execute();
}

/** Resident memory of a process, MiB. */
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** A full garbage collection, so that heap figures count what is live (V8's `gc`, exposed for this process). */
function collect(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * A feed's document built in this process, cold: time, size and heap (MiB): before, the highest
 * seen while it is made (garbage not yet collected included), and after, the document kept (its
 * bytes are outside the heap). With `liveEachStep`, a full collection after every step of 500
 * listings gives the live heap's peak instead (and a time that means nothing).
 */
async function buildHere(db: Db, token: string, liveEachStep = false) {
  const live = (await feedVersion(db, token))!;
  const document = (await feedDocument(db, live.feed))!;
  if (!('chunks' in document)) throw new Error('the document was already built: bump the catalogue first');
  const heap = () => process.memoryUsage().heapUsed;
  collect();
  const before = heap();
  let peak = before;
  const sampler = liveEachStep ? undefined : setInterval(() => (peak = Math.max(peak, heap())), 5);
  const started = performance.now();
  let bytes = 0;
  for await (const chunk of document.chunks()) {
    bytes += Buffer.byteLength(chunk);
    if (liveEachStep) collect();
    peak = Math.max(peak, heap());
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  collect();
  return { seconds, bytes, before: before / 2 ** 20, peak: peak / 2 ** 20, after: heap() / 2 ** 20 };
}

/** Runs the part; returns the report's lines. */
export async function idealistaBench(root: string, work: string, pin: boolean, duration: number, fresh: boolean): Promise<string[]> {
  const { dbPath, key } = await prepare(work, fresh);
  const db = createDb(`sqlite:${dbPath}`);
  await migrate(db);
  const { id: businessId } = await db.selectFrom('businesses').select('id').orderBy('id').executeTakeFirstOrThrow();
  const idealista = await publishFeed(db, businessId, 'idealista', { customerCode: CUSTOMER_CODE });
  const kyero = await publishFeed(db, businessId, 'kyero');
  const env = { ...process.env, DATABASE_URL: `sqlite:${dbPath}`, LOG_LEVEL: 'warn' };
  const { child, info } = await startProcess(['bin/inmo.mjs', 'serve', '--no-worker', '--port', '0', '--json'], env, root);
  const origin = new URL(info.url as string).origin;
  const lines: string[] = [];
  try {
    // The server's first idealista request: its schemas are compiled, then the document built.
    const rssBefore = rssOf(child.pid!);
    let rssPeak = rssBefore;
    const rssSampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssOf(child.pid!))), 20);
    const first = await timed(origin + idealista.url);
    clearInterval(rssSampler);
    const warm = await timed(origin + idealista.url);
    const document = JSON.parse(Buffer.from(await (await fetch(origin + idealista.url)).arrayBuffer()).toString()) as {
      customerProperties: unknown[];
    };
    const published = document.customerProperties.length;
    const cold: Record<'idealista' | 'kyero', Array<Awaited<ReturnType<typeof timed>>>> = { idealista: [], kyero: [] };
    for (let run = 0; run < COLD_RUNS; run++) {
      await bumpCatalogue(db, businessId);
      cold.idealista.push(await timed(origin + idealista.url));
      cold.kyero.push(await timed(origin + kyero.url));
    }
    const etag = (await timed(origin + idealista.url)).etag!;
    const kyeroEtag = (await timed(origin + kyero.url)).etag!;
    const emptyBody = join(work, 'idealista-empty-body');
    writeFileSync(emptyBody, '');
    const bare = await startProcess([join(root, 'bench', 'baseline-server.mjs'), emptyBody], process.env, root);
    const targets: Array<[string, string, Record<string, string>]> = [
      ['idealista feed 304 (If-None-Match)', origin + idealista.url, { 'if-none-match': etag }],
      ['Kyero feed 304 (If-None-Match)', origin + kyero.url, { 'if-none-match': kyeroEtag }],
      ['cached GET /v1/ext/properties?limit=20', `${origin}/v1/ext/properties?limit=20`, { 'x-api-key': key }],
      ['bare node:http, an empty 200', `http://127.0.0.1:${bare.info.port}/`, {}],
    ];
    const runs = new Map<string, Load[]>(targets.map(([name]) => [name, []]));
    try {
      // Interleaved rounds, after a short warm-up of each: a loaded machine drifts within a run.
      for (const [, url, headers] of targets) await wrk(url, headers, { connections: 32, duration: 1, pin });
      for (let round = 0; round < LOAD_ROUNDS; round++)
        for (const [name, url, headers] of targets) runs.get(name)!.push(await wrk(url, headers, { connections: 32, duration, pin }));
    } finally {
      await stop(bare.child);
    }
    const median = (list: Load[]) => [...list].sort((a, b) => a.rps - b.rps)[Math.floor(list.length / 2)];
    const loads: Array<[string, Load]> = targets.map(([name]) => [name, median(runs.get(name)!)]);
    const baseline = loads[loads.length - 1][1].rps;
    const best = (runs: Array<{ total: number }>) => Math.min(...runs.map((r) => r.total));
    lines.push(
      `idealista feed of ${LISTINGS.toLocaleString('en')} generated listings: ${published.toLocaleString('en')} published, ` +
        `${(first.bytes / 1024 / 1024).toFixed(1)} MB; inmo serve --no-worker on CPU 0`,
      '| request | first byte ms | whole ms | listings/s |',
      '| --- | --- | --- | --- |',
      `| first of the process (schemas compiled, document built) | ${ms(first.first)} | ${ms(first.total)} | ${Math.round(LISTINGS / (first.total / 1000)).toLocaleString('en')} |`,
      ...cold.idealista.map(
        (c, i) =>
          `| cold after a catalogue change, run ${i + 1} | ${ms(c.first)} | ${ms(c.total)} | ${Math.round(LISTINGS / (c.total / 1000)).toLocaleString('en')} |`,
      ),
      `| warm (kept for the version) | ${ms(warm.first)} | ${ms(warm.total)} | |`,
      ...cold.kyero.map((c, i) => `| Kyero feed, cold after the same change, run ${i + 1} | ${ms(c.first)} | ${ms(c.total)} | |`),
      `idealista / Kyero cold, best of each: ${(best(cold.idealista) / best(cold.kyero)).toFixed(2)}; target for idealista cold: under 2,000 ms`,
      `server resident memory during the first request: ${rssBefore.toFixed(0)} MiB before, ${rssPeak.toFixed(0)} MiB at its peak`,
      '',
      `| wrk, 32 connections, median of ${LOAD_ROUNDS} interleaved ${duration} s runs | req/s | p50 ms | p99 ms | / bare node:http | wrk CPU |`,
      '| --- | --- | --- | --- | --- | --- |',
      ...loads.map(
        ([name, l]) =>
          `| ${name} | ${Math.round(l.rps).toLocaleString('en')} | ${l.p50.toFixed(2)} | ${l.p99.toFixed(2)} | ${(l.rps / baseline).toFixed(2)} | ${Number.isNaN(l.generatorCpu) ? '?' : `${Math.round(l.generatorCpu * 100)}%`} |`,
      ),
    );
  } finally {
    await stop(child);
  }

  // The same documents built here, cold, with this process's heap watched.
  const token = (url: string) => url.split('/')[2];
  const built: Array<[string, Awaited<ReturnType<typeof buildHere>>]> = [];
  for (const [name, url, liveEachStep] of [
    ['idealista', idealista.url, false],
    ['idealista, live heap (collected at every step)', idealista.url, true],
    ['Kyero', kyero.url, false],
    ['Kyero, live heap (collected at every step)', kyero.url, true],
  ] as const) {
    await bumpCatalogue(db, businessId);
    built.push([name, await buildHere(db, token(url), liveEachStep)]);
  }
  await db.destroy();
  lines.push(
    '',
    'built in the bench process, cold (heap MiB: before, highest while made, after with the document kept outside the heap)',
    '| document | seconds | MB | heap before | peak | after | peak growth MiB |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...built.map(
      ([name, b]) =>
        `| ${name} | ${b.seconds.toFixed(2)} | ${mib(b.bytes)} | ${b.before.toFixed(0)} | ${b.peak.toFixed(0)} | ${b.after.toFixed(0)} | ${(b.peak - b.before).toFixed(1)} |`,
    ),
  );
  return lines;
}
