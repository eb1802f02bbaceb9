/**
 * Portal feeds (issue 28), part of `npm run bench -- --only feeds`, on the real 20k catalogue:
 *
 * - **Export**: `GET /feeds/<token>/kyero.xml` of `inmo serve --no-worker` (CPU 0): time to the
 *   first byte and to the whole document, cold (first request after the catalogue changed) and
 *   warm; then a 304 (`If-None-Match`) under wrk beside a cached `GET /properties?limit=20` of the
 *   same server, same run.
 * - **Import**: that document imported into an empty database (`importCatalogueFile`), listings
 *   a second, beside the NDJSON import of the same listings (the API's Property objects written
 *   back as import lines), same run.
 * - **A 200 MB feed**: the document's properties repeated under new ids until it is 200 MB, pulled
 *   by `inmo serve` (its worker's `pull_feed` job) from a local HTTP server into an empty
 *   catalogue: the server's resident memory sampled every 50 ms, from its level after 2,000
 *   requests to its peak during the pull.
 */
import { createReadStream, createWriteStream, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { createDb, migrate } from '../src/db/database.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { nowRfc3339 } from '../src/domain/time.ts';
import { importCatalogueFile } from '../src/services/catalogue/import/import.ts';
import { threadBundle } from '../src/thread-bundle.ts';
import { inPackage } from '../src/package-root.ts';
import { outboundPolicy } from '../src/config.ts';
import { createApiKey } from '../src/services/access/api-keys.ts';
import { addFeedSource } from '../src/services/catalogue/feeds/pulls.ts';
import { publishFeed } from '../src/services/catalogue/feeds/published-feeds.ts';
import { onEveryCpu, startProcess, stop } from './processes.ts';
import { wrk } from './wrk.ts';

const ms = (n: number) => n.toFixed(0);

/** Time to the first byte and to the end of a GET, ms. */
export async function timed(url: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  const response = await fetch(url, { headers });
  const reader = response.body!.getReader();
  let first = 0;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (first === 0) first = performance.now() - started;
    if (done) break;
    bytes += value.length;
  }
  return { status: response.status, first, total: performance.now() - started, bytes, etag: response.headers.get('etag') };
}

/** Imports `path` into a new empty database. @returns listings a second. */
async function importRate(work: string, name: string, path: string): Promise<{ rate: number; created: number }> {
  const dbPath = join(work, `${name}.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  const db = createDb(`sqlite:${dbPath}`);
  await migrate(db);
  const business = await insertBusiness(db, name, nowRfc3339());
  // The reader thread's code is bundled once per process: not by the first import measured.
  await threadBundle(inPackage('src', 'services', 'catalogue', 'import', 'reader-thread-main.ts'));
  const started = performance.now();
  // Both cores, as in a server: the reader thread beside the writing one.
  const summary = await onEveryCpu(() => importCatalogueFile(db, business.id, path));
  const seconds = (performance.now() - started) / 1000;
  await db.destroy();
  return { rate: (summary.created + summary.updated) / seconds, created: summary.created };
}

/** Runs the part; returns the report's lines. */
export async function feedsBench(
  root: string,
  work: string,
  realDb: string,
  key: string,
  pin: boolean,
  duration: number,
): Promise<string[]> {
  const db = createDb(`sqlite:${realDb}`);
  // A benchmark database built by an earlier release gets this one's tables.
  await migrate(db);
  const { business_id: businessId } = await db.selectFrom('properties').select('business_id').executeTakeFirstOrThrow();
  const { url: path } = await publishFeed(db, businessId);
  await db.destroy();
  const env = { ...process.env, DATABASE_URL: `sqlite:${realDb}`, LOG_LEVEL: 'warn' };
  const { child, info } = await startProcess(['bin/inmo.mjs', 'serve', '--no-worker', '--port', '0', '--json'], env, root);
  const origin = new URL(info.url as string).origin;
  const lines: string[] = [];
  let document: Buffer;
  try {
    const cold = await timed(origin + path);
    const warm = await timed(origin + path);
    document = Buffer.from(await (await fetch(origin + path)).arrayBuffer());
    const properties = (document.toString().match(/<property>/g) ?? []).length;
    const notModified = await wrk(`${origin}${path}`, { 'if-none-match': cold.etag! }, { connections: 32, duration, pin });
    const page = await wrk(`${origin}/v1/ext/properties?limit=20`, { 'x-api-key': key }, { connections: 32, duration, pin });
    lines.push(
      `Kyero feed export of the real catalogue: ${properties.toLocaleString('en')} <property> (${(cold.bytes / 1024 / 1024).toFixed(1)} MB), inmo serve on CPU 0`,
      '| | first byte ms | whole ms | listings/s |',
      '| --- | --- | --- | --- |',
      `| cold (built) | ${ms(cold.first)} | ${ms(cold.total)} | ${Math.round(properties / (cold.total / 1000)).toLocaleString('en')} |`,
      `| warm (kept for the catalogue version) | ${ms(warm.first)} | ${ms(warm.total)} | ${Math.round(properties / (warm.total / 1000)).toLocaleString('en')} |`,
      '',
      `| wrk, 32 connections, ${duration} s | req/s | p50 ms | p99 ms |`,
      '| --- | --- | --- | --- |',
      `| feed 304 (If-None-Match) | ${Math.round(notModified.rps).toLocaleString('en')} | ${notModified.p50.toFixed(2)} | ${notModified.p99.toFixed(2)} |`,
      `| baseline: cached GET /properties?limit=20 | ${Math.round(page.rps).toLocaleString('en')} | ${page.p50.toFixed(2)} | ${page.p99.toFixed(2)} |`,
    );
  } finally {
    await stop(child);
  }

  // Import: the feed, and the same listings as NDJSON.
  const feedPath = join(work, 'real.kyero.xml');
  writeFileSync(feedPath, document);
  const kyero = await importRate(work, 'kyero-import', feedPath);
  const ndjsonPath = join(work, 'real.roundtrip.ndjson');
  const verify = createDb(`sqlite:${join(work, 'kyero-import.db')}`);
  const rows = await verify.selectFrom('properties').selectAll().execute();
  // The same listings: their images and postal codes too, as the feed carried them.
  const images = new Map<number, Array<{ url: string; order: number; is_primary: boolean; title: string | null; public: boolean }>>();
  for (const i of await verify.selectFrom('property_images').selectAll().orderBy('property_id').orderBy('sort_order').execute()) {
    const list = images.get(i.property_id) ?? [];
    list.push({ url: i.url, order: i.sort_order, is_primary: i.is_primary === 1, title: i.title, public: i.public === 1 });
    images.set(i.property_id, list);
  }
  await verify.destroy();
  writeFileSync(
    ndjsonPath,
    rows
      .map((r) =>
        JSON.stringify({
          external_ref: r.external_ref,
          public: r.public === 1,
          status: r.status,
          operation: r.operation,
          rental_type: r.rental_type,
          type: r.type,
          subtype: r.subtype,
          title: r.title,
          description: r.description,
          price: r.price,
          price_rent: r.price_rent,
          size_total: r.size_total,
          bedrooms: r.bedrooms,
          bathrooms: r.bathrooms,
          address_approximate: r.address_approximate,
          city: r.city,
          province: r.province,
          postal_code: r.postal_code,
          country: r.country,
          lat: r.lat,
          lon: r.lon,
          address_privacy: r.address_privacy,
          features: r.features === null ? null : JSON.parse(r.features),
          specs: r.specs === null ? null : JSON.parse(r.specs),
          images: images.get(r.id) ?? [],
          updated_at: r.updated_at,
        }),
      )
      .join('\n') + '\n',
  );
  const ndjson = await importRate(work, 'ndjson-import', ndjsonPath);
  // A second round, in turn: a few seconds' measurement on two cores varies by a quarter.
  const kyeroAgain = await importRate(work, 'kyero-import-2', feedPath);
  const ndjsonAgain = await importRate(work, 'ndjson-import-2', ndjsonPath);
  const rates = (a: number, b: number) => `${Math.round(a).toLocaleString('en')}, ${Math.round(b).toLocaleString('en')}`;
  const best = (a: number, b: number) => Math.max(a, b);
  lines.push(
    '',
    `import into an empty database: ${kyero.created.toLocaleString('en')} listings, twice each in turn (Kyero, NDJSON, Kyero, NDJSON)`,
    '| Kyero listings/s | NDJSON listings/s (same listings) | NDJSON / Kyero, best of each |',
    '| --- | --- | --- |',
    `| ${rates(kyero.rate, kyeroAgain.rate)} | ${rates(ndjson.rate, ndjsonAgain.rate)} | ${(best(ndjson.rate, ndjsonAgain.rate) / best(kyero.rate, kyeroAgain.rate)).toFixed(2)} |`,
  );

  // A 200 MB feed imported by the CLI: its resident memory.
  const bigPath = join(work, 'big.kyero.xml');
  const body = document.toString();
  const start = body.indexOf('<property>');
  const end = body.lastIndexOf('</property>') + '</property>\n'.length;
  const chunk = body.slice(start, end);
  const out = createWriteStream(bigPath);
  out.write(body.slice(0, start));
  let written = start;
  let round = 0;
  while (written < 200 * 1024 * 1024) {
    const copy = chunk.replace(/<id>([^<]+)<\/id>/g, `<id>$1-r${round}</id>`);
    out.write(copy);
    written += Buffer.byteLength(copy);
    round++;
  }
  out.end(body.slice(end));
  await new Promise<void>((resolve) => out.on('finish', () => resolve()));
  lines.push('', ...(await pullMemory(root, work, bigPath, written)));
  for (const p of [feedPath, ndjsonPath, bigPath]) rmSync(p, { force: true });
  for (const name of ['kyero-import', 'ndjson-import', 'kyero-import-2', 'ndjson-import-2'])
    for (const suffix of ['', '-wal', '-shm']) rmSync(join(work, `${name}.db${suffix}`), { force: true });
  return lines;
}

/**
 * A feed of `bytes` pulled by a running `inmo serve` into an empty catalogue.
 * @returns the report's lines: the pull's time and the server's resident memory (MiB) before and at its peak.
 */
async function pullMemory(root: string, work: string, feedFile: string, bytes: number): Promise<string[]> {
  const dbPath = join(work, 'pull.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  const db = createDb(`sqlite:${dbPath}`);
  await migrate(db);
  const business = await insertBusiness(db, 'Pull', nowRfc3339());
  const { key } = await createApiKey(db, { businessId: business.id, scopes: ['properties:read'] });
  const origin = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/xml', 'content-length': statSync(feedFile).size });
    createReadStream(feedFile).pipe(response);
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', () => resolve()));
  const env = {
    ...process.env,
    DATABASE_URL: `sqlite:${dbPath}`,
    LOG_LEVEL: 'warn',
    INMO_ALLOW_PRIVATE_NETWORK: '1',
    INMO_FEED_MAX_BYTES: String(2 * bytes),
  };
  const { child, info } = await startProcess(['bin/inmo.mjs', 'serve', '--port', '0', '--json'], env, root);
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  try {
    // A server that has answered requests, not one that just started.
    const api = new URL(info.url as string).origin;
    for (let i = 0; i < 2000; i++)
      await (await fetch(`${api}/v1/ext/properties?limit=20`, { headers: { 'x-api-key': key } })).arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = rss();
    let peak = before;
    const started = performance.now();
    const { port } = origin.address() as { port: number };
    const source = await addFeedSource(
      db,
      { businessId: business.id, url: `http://127.0.0.1:${port}/kyero.xml` },
      outboundPolicy({ INMO_ALLOW_PRIVATE_NETWORK: '1' }),
    );
    let result = '';
    while (!result) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      peak = Math.max(peak, rss());
      const row = await db.selectFrom('feed_sources').select('last_result').where('id', '=', source.id).executeTakeFirstOrThrow();
      result = row.last_result ?? '';
    }
    const seconds = (performance.now() - started) / 1000;
    const { created } = JSON.parse(result) as { created: number };
    return [
      `a ${(bytes / 1024 / 1024).toFixed(0)} MB Kyero feed (${created.toLocaleString('en')} listings) pulled by inmo serve into an empty catalogue`,
      '| seconds | listings/s | server RSS before MiB | peak MiB | growth MiB |',
      '| --- | --- | --- | --- | --- |',
      `| ${seconds.toFixed(1)} | ${Math.round(created / seconds).toLocaleString('en')} | ${before.toFixed(0)} | ${peak.toFixed(0)} | ${(peak - before).toFixed(0)} |`,
    ];
  } finally {
    await stop(child);
    origin.close();
    await db.destroy();
  }
}
