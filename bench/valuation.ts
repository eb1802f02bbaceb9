/**
 * A valuation over a large catalogue (issue 58: "a valuation over 200,000 listings in under 200 ms"),
 * `npm run bench -- --only valuation [--listings N]`: one business with N listings (200,000 by
 * default) spread over a city of about 10 × 10 km, six types, sizes 30–300 m², a postal code per
 * 1 km square, seeded so runs compare; then on SQLite and (when it answers) PostgreSQL:
 *
 * - **valuation**: services/owners/valuations.ts `valuateHome` of 50 homes across the city (the read
 *   and the domain's ranking), median and p99;
 * - **baseline**: the same candidates' one query alone (db/repositories/valuations.ts), the floor a
 *   valuation cannot go under, in the same run; the ratio valuation / baseline.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createDb, migrate, type Db } from '../src/db/database.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { listValuationCandidates } from '../src/db/repositories/valuations.ts';
import { nowRfc3339 } from '../src/domain/time.ts';
import { searchBox, sizeBounds, type ValuedHome } from '../src/domain/owners/valuation.ts';
import { importCatalogueLines } from '../src/services/catalogue/import/import.ts';
import { valuateHome } from '../src/services/owners/valuations.ts';
import { emptyPostgresSchema } from './engines.ts';

const TYPES = ['apartamento', 'casa', 'atico', 'duplex', 'estudio', 'local'] as const;
const HOMES = 50;
const BATCH = 5000;

/** A seeded pseudo-random sequence (mulberry32), so runs compare. */
export function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const at = (r: () => number) => ({ lat: 41.6 + r() * 0.09, lon: -0.95 + r() * 0.12 });
const postalOf = (p: { lat: number; lon: number }) =>
  `50${String(Math.floor((p.lat - 41.6) * 111)).padStart(2, '0')}${Math.floor((p.lon + 0.95) * 83)}`;

async function seed(db: Db, listings: number): Promise<number> {
  await migrate(db);
  const business = await insertBusiness(db, 'Bench valuation', nowRfc3339(), 'Europe/Madrid');
  const r = random(58);
  for (let start = 0; start < listings; start += BATCH) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(listings, start + BATCH); i++) {
      const p = at(r);
      const size = Math.round(30 + r() * 270);
      lines.push(
        JSON.stringify({
          external_ref: `val-${i}`,
          public: true,
          status: r() < 0.9 ? 'disponible' : 'reservada',
          operation: 'venta',
          type: TYPES[i % TYPES.length],
          title: `Vivienda ${i}`,
          price: Math.round(size * (1500 + r() * 3000)),
          size_total: size,
          bedrooms: Math.max(0, Math.round(size / 35)),
          postal_code: postalOf(p),
          city: 'Zaragoza',
          lat: p.lat,
          lon: p.lon,
          address_privacy: 'approximate',
        }),
      );
    }
    await importCatalogueLines(db, business.id, lines);
  }
  return business.id;
}

const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

async function measure(db: Db, businessId: number) {
  const r = random(59);
  const homes: ValuedHome[] = Array.from({ length: HOMES }, (_, i) => {
    const p = at(r);
    return {
      id: null,
      type: TYPES[i % TYPES.length],
      operation: 'venta',
      size: 60 + Math.round(r() * 120),
      bedrooms: 2,
      postal_code: postalOf(p),
      ...p,
    };
  });
  // A first pass warms the caches and the statements.
  for (const home of homes.slice(0, 5)) await valuateHome(db, businessId, home);
  const full: number[] = [];
  const floor: number[] = [];
  let comparables = 0;
  for (const home of homes) {
    let started = performance.now();
    const { min, max } = sizeBounds(home.size);
    await listValuationCandidates(db, businessId, {
      type: home.type,
      operation: 'venta',
      minSize: min,
      maxSize: max,
      postalCode: home.postal_code,
      box: searchBox({ lat: home.lat!, lon: home.lon! }),
      limit: 5000,
    });
    floor.push(performance.now() - started);
    started = performance.now();
    comparables += (await valuateHome(db, businessId, home)).comparables.length;
    full.push(performance.now() - started);
  }
  full.sort((a, b) => a - b);
  floor.sort((a, b) => a - b);
  return { median: pct(full, 0.5), p99: pct(full, 0.99), floor: pct(floor, 0.5), comparables: comparables / HOMES };
}

/** Runs the benchmark (see the module's comment). @returns the lines to print. */
export async function valuationBench(work: string, listings = 200_000): Promise<string[]> {
  const out = [`valuation over ${listings.toLocaleString('en')} listings, ${HOMES} homes (ms)`];
  const engines: Array<[string, string | null]> = [
    ['sqlite', `sqlite:${join(work, 'valuation.sqlite')}`],
    ['postgres', await emptyPostgresSchema('valuation')],
  ];
  for (const [engine, url] of engines) {
    if (url === null) {
      out.push(`  ${engine}: skipped (no PostgreSQL)`);
      continue;
    }
    if (engine === 'sqlite') rmSync(join(work, 'valuation.sqlite'), { force: true });
    const db = createDb(url);
    try {
      const seeding = performance.now();
      const businessId = await seed(db, listings);
      const seeded = (performance.now() - seeding) / 1000;
      const m = await measure(db, businessId);
      out.push(
        `  ${engine}: median ${m.median.toFixed(1)}, p99 ${m.p99.toFixed(1)} (target < 200); candidates' query alone ${m.floor.toFixed(1)} (ratio ${(m.median / m.floor).toFixed(2)}); ${m.comparables.toFixed(1)} comparables a home; seeded in ${seeded.toFixed(0)} s`,
      );
    } finally {
      await db.destroy();
    }
  }
  return out;
}
