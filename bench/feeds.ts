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
 * - **A 200 MB feed**: the document's properties repeated under new ids until it is 200 MB,
 *   imported by `inmo properties import` in a child process whose resident memory is sampled
 *   every 50 ms.
 */
import { createWriteStream, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDb, migrate } from '../src/db/database.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { nowRfc3339 } from '../src/domain/time.ts';
import { importCatalogueFile } from '../src/services/catalogue-import.ts';
import { publishFeed } from '../src/services/feeds.ts';
import { spawnOnCpu0, startProcess, stop } from './processes.ts';
import { wrk } from './wrk.ts';

const ms = (n: number) => n.toFixed(0);

/** Time to the first byte and to the end of a GET, ms. */
async function timed(url: string, headers: Record<string, string> = {}) {
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
  const started = performance.now();
  const summary = await importCatalogueFile(db, business.id, path);
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
          country: r.country,
          lat: r.lat,
          lon: r.lon,
          address_privacy: r.address_privacy,
          features: r.features === null ? null : JSON.parse(r.features),
          specs: r.specs === null ? null : JSON.parse(r.specs),
          updated_at: r.updated_at,
        }),
      )
      .join('\n') + '\n',
  );
  const ndjson = await importRate(work, 'ndjson-import', ndjsonPath);
  lines.push(
    '',
    `import into an empty database: ${kyero.created.toLocaleString('en')} listings`,
    '| Kyero listings/s | NDJSON listings/s (same listings) | NDJSON / Kyero |',
    '| --- | --- | --- |',
    `| ${Math.round(kyero.rate).toLocaleString('en')} | ${Math.round(ndjson.rate).toLocaleString('en')} | ${(ndjson.rate / kyero.rate).toFixed(2)} |`,
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
  const bigDb = join(work, 'big-import.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(bigDb + suffix, { force: true });
  const bin = join(root, 'bin', 'inmo.mjs');
  const setup = spawnOnCpu0([bin, 'business', 'create', '--name', 'Big'], { ...process.env, DATABASE_URL: `sqlite:${bigDb}` }, root);
  await new Promise((resolve) => setup.once('exit', resolve));
  const started = performance.now();
  const importer = spawnOnCpu0(
    [bin, 'properties', 'import', '--business', '1', bigPath, '--json'],
    { ...process.env, DATABASE_URL: `sqlite:${bigDb}` },
    root,
  );
  let peak = 0;
  let first = 0;
  const sampler = setInterval(() => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${importer.pid}/status`, 'utf8'))?.[1] ?? 0);
      if (first === 0) first = kb;
      peak = Math.max(peak, kb);
    } catch {
      // exited
    }
  }, 50);
  let output = '';
  importer.stdout!.on('data', (d: Buffer) => (output += d));
  await new Promise((resolve) => importer.once('exit', resolve));
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  const summary = JSON.parse(output.trim().split('\n').pop()!) as { created: number; rejected: unknown[] };
  lines.push(
    '',
    `a ${(written / 1024 / 1024).toFixed(0)} MB Kyero feed (${summary.created.toLocaleString('en')} listings) imported by inmo properties import`,
    '| seconds | listings/s | RSS first sample MiB | peak MiB |',
    '| --- | --- | --- | --- |',
    `| ${seconds.toFixed(1)} | ${Math.round(summary.created / seconds).toLocaleString('en')} | ${(first / 1024).toFixed(0)} | ${(peak / 1024).toFixed(0)} |`,
  );
  for (const p of [feedPath, ndjsonPath, bigPath]) rmSync(p, { force: true });
  return lines;
}
