/**
 * Listings kept in the console (issue 27), part of `npm run bench -- --only listings`, on a copy
 * of the real 20k catalogue:
 *
 * - **Save to visibility**: this process saves a listing (a new price) through the same service
 *   the console uses (services/catalogue/listings.ts), 50 times; `inmo serve --no-worker` (another
 *   process, CPU 0) is asked `GET /v1/ext/properties/{id}` every 2 ms until it shows the new price.
 *   Baseline, same run: one such GET's round trip.
 * - **Photo uploads**: a 12-megapixel JPEG (4000×3000, noisy like a photo) uploaded through the
 *   console's form: time to stored (303) and to served (`/media/` of the widest width); then ten
 *   uploads at once, with the server's resident memory sampled every 20 ms. Baseline, same run:
 *   the server's resident memory idle.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { createDb } from '../src/db/database.ts';
import { createUser, setPasswordWithLink } from '../src/services/access/console-users.ts';
import { saveListing, listingInFull } from '../src/services/catalogue/listings.ts';
import { startProcess, stop } from './processes.ts';

const PASSWORD = 'tejado-azul-sobre-Zaragoza';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const ms = (n: number) => n.toFixed(1);

/** Resident memory of a process, MiB. */
function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return kb / 1024;
}

/** A console session on `origin`: its cookies, and the CSRF token of a page. */
async function session(origin: string, email: string) {
  const cookies = new Map<string, string>();
  const keep = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
  };
  const header = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const token = async (path: string) => {
    const page = await fetch(origin + path, { headers: { cookie: header() } });
    keep(page);
    return /name="_csrf" value="([^"]+)"/.exec(await page.text())![1];
  };
  const csrf = await token('/console/login');
  const login = await fetch(`${origin}/console/login`, {
    method: 'POST',
    headers: { cookie: header(), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email, password: PASSWORD }),
    redirect: 'manual',
  });
  keep(login);
  if (login.status !== 303) throw new Error(`login answered ${login.status}`);
  return { header, token };
}

/** Runs the part; returns the report's lines. */
export async function listingsBench(root: string, work: string, realDb: string, key: string): Promise<string[]> {
  const dbPath = join(work, 'listings.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  copyFileSync(realDb, dbPath);
  const mediaDir = join(work, 'media');
  rmSync(mediaDir, { recursive: true, force: true });
  mkdirSync(mediaDir, { recursive: true });
  const db = createDb(`sqlite:${dbPath}`);
  const { business_id: businessId, id } = await db
    .selectFrom('properties')
    .select(['business_id', 'id'])
    .where('listed', '=', 1)
    .orderBy('id')
    .executeTakeFirstOrThrow();
  const user = await createUser(db, { businessId, email: 'bench@agencia.example', role: 'agent' });
  await setPasswordWithLink(db, user.set_password_url.split('/').pop()!, PASSWORD);

  const env = { ...process.env, DATABASE_URL: `sqlite:${dbPath}`, LOG_LEVEL: 'warn', INMO_MEDIA_DIR: mediaDir };
  const { child, info } = await startProcess(['bin/inmo.mjs', 'serve', '--no-worker', '--port', '0', '--json'], env, root);
  const base = info.url as string;
  const origin = new URL(base).origin;
  const lines: string[] = [];
  try {
    // Save to visibility in another process.
    const listing = (await listingInFull(db, businessId, id))!;
    const priceOf = async () => {
      const response = await fetch(`${base}/properties/${id}`, { headers: { 'x-api-key': key } });
      return ((await response.json()) as { data: { price: number } }).data.price;
    };
    const roundTrips: number[] = [];
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      await priceOf();
      roundTrips.push(performance.now() - started);
    }
    const visible: number[] = [];
    for (let i = 1; i <= 50; i++) {
      const price = 100_000 + i;
      await saveListing(db, businessId, id, { ...listing.record, price }, null);
      const saved = performance.now();
      while ((await priceOf()) !== price) await new Promise((resolve) => setTimeout(resolve, 2));
      visible.push(performance.now() - saved);
    }
    roundTrips.sort((a, b) => a - b);
    visible.sort((a, b) => a - b);
    lines.push(
      'listings: a console save seen by GET /properties/{id} of another process (inmo serve), 50 saves, real 20k catalogue (SQLite)',
      `| save → visible p50 ms | p99 ms | max ms | baseline: one GET round trip p50 ms |`,
      `| --- | --- | --- | --- |`,
      `| ${ms(percentile(visible, 0.5))} | ${ms(percentile(visible, 0.99))} | ${ms(visible.at(-1)!)} | ${ms(percentile(roundTrips, 0.5))} |`,
    );

    // Photo uploads.
    const photo = await sharp({
      create: { width: 4000, height: 3000, channels: 3, background: '#7a8c9e', noise: { type: 'gaussian', mean: 120, sigma: 40 } },
    })
      .jpeg({ quality: 88 })
      .toBuffer();
    const console_ = await session(origin, 'bench@agencia.example');
    const upload = async () => {
      const form = new FormData();
      form.append('image', new Blob([photo], { type: 'image/jpeg' }), 'salon.jpg');
      const token = await console_.token(`/console/properties/${id}`);
      const started = performance.now();
      const answer = await fetch(`${origin}/console/properties/${id}/images?_csrf=${encodeURIComponent(token)}`, {
        method: 'POST',
        headers: { cookie: console_.header() },
        body: form,
        redirect: 'manual',
      });
      if (answer.status !== 303) throw new Error(`upload answered ${answer.status}`);
      return performance.now() - started;
    };
    const idle = rssMiB(child.pid!);
    const single: number[] = [];
    let served = 0;
    for (let i = 0; i < 5; i++) {
      single.push(await upload());
      const started = performance.now();
      const images = (
        (await (await fetch(`${base}/properties/${id}`, { headers: { 'x-api-key': key } })).json()) as {
          data: { images: Array<{ url: string }> };
        }
      ).data.images;
      await (await fetch(images.at(-1)!.url)).arrayBuffer();
      served = performance.now() - started;
    }
    single.sort((a, b) => a - b);
    let peak = idle;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, rssMiB(child.pid!));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const started = performance.now();
    // Ten at once: each needs its own page token first, so the uploads overlap on the server.
    const concurrent = await Promise.all(Array.from({ length: 10 }, () => upload()));
    const wall = performance.now() - started;
    sampling = false;
    await sampler;
    concurrent.sort((a, b) => a - b);
    lines.push(
      '',
      `photo uploads: a 12-megapixel JPEG (${(photo.length / 1024 / 1024).toFixed(1)} MB) through the console's form, stored in 3 widths (inmo serve, CPU 0)`,
      '| one upload p50 ms | max ms | then served (fetch of the widest) ms | 10 at once: wall ms | slowest ms | server RSS idle MiB | peak MiB |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      `| ${ms(percentile(single, 0.5))} | ${ms(single.at(-1)!)} | ${ms(served)} | ${ms(wall)} | ${ms(concurrent.at(-1)!)} | ${idle.toFixed(0)} | ${peak.toFixed(0)} |`,
    );
  } finally {
    await stop(child);
    await db.destroy();
  }
  return lines;
}
