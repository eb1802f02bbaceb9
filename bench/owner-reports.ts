/**
 * Owner reports at scale (issue 58: "the reports of 10,000 owners with 20,000 listings composed in
 * under 60 s on both engines without stalling the API (loop delay p99 < 50 ms meanwhile)"),
 * `npm run bench -- --only owner-reports [--owners N]`: one business with 2 × N listings (10,000
 * owners by default), each owner's two under a mandate signed 8 days ago, an e-mail address each;
 * 2,000 searching leads matching 5 listings each, views of every listing over the week, and a
 * price change on one listing in ten; seeded so runs compare. Then on SQLite and (when it answers)
 * PostgreSQL:
 *
 * - **compose**: services/owners/owner-reports.ts `composeDueReports`, every owner due at once
 *   (the figures read, stored and each report's e-mail queued): total seconds, owners a second;
 * - **loop delay** meanwhile (perf_hooks' histogram, 10 ms resolution): p99 and max, what a request
 *   arriving during the run would wait before it is read;
 * - **baseline**: one owner's listings read alone (db/repositories/owner-reports.ts
 *   `listListingsUnderMandate`) per owner, the floor of any per-owner work, in the same run.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createDb, migrate, type Db } from '../src/db/database.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { listListingsUnderMandate } from '../src/db/repositories/owner-reports.ts';
import { toRfc3339 } from '../src/domain/time.ts';
import { importCatalogueLines } from '../src/services/catalogue/import/import.ts';
import { connectEmail } from '../src/services/messaging/email.ts';
import { composeDueReports } from '../src/services/owners/owner-reports.ts';
import { emptyPostgresSchema } from './engines.ts';
import { random } from './valuation.ts';

const BATCH = 500;
const DAY_MS = 86_400_000;

async function insertRows<T extends object>(db: Db, table: string, rows: T[]): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await (db as any)
      .insertInto(table)
      .values(rows.slice(i, i + BATCH))
      .execute();
  }
}

async function seed(db: Db, owners: number, now: number): Promise<number> {
  await migrate(db);
  const at = toRfc3339(new Date(now - 30 * DAY_MS));
  const signedAt = toRfc3339(new Date(now - 8 * DAY_MS));
  const business = await insertBusiness(db, 'Bench owner reports', at, 'Europe/Madrid');
  await connectEmail(
    db,
    { businessId: business.id, url: 'smtp://127.0.0.1:2525', from: 'hola@agency.example', replyTo: null },
    { allowPrivateNetwork: true, channelHosts: [] },
  );
  const r = random(4);
  const listings = owners * 2;
  for (let start = 0; start < listings; start += 5000) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(listings, start + 5000); i++) {
      const lat = 41.6 + r() * 0.09;
      const lon = -0.95 + r() * 0.12;
      const size = Math.round(40 + r() * 160);
      lines.push(
        JSON.stringify({
          external_ref: `own-${i}`,
          public: true,
          status: 'disponible',
          operation: 'venta',
          type: i % 3 === 0 ? 'casa' : 'apartamento',
          title: `Vivienda ${i}`,
          price: Math.round(size * (1500 + r() * 2500)),
          size_total: size,
          bedrooms: 2,
          postal_code: `50${String(Math.floor((lat - 41.6) * 111)).padStart(2, '0')}${Math.floor((lon + 0.95) * 83)}`,
          city: 'Zaragoza',
          lat,
          lon,
          created_at: at,
        }),
      );
    }
    await importCatalogueLines(db, business.id, lines);
  }
  const ids = (await db.selectFrom('properties').select('id').where('business_id', '=', business.id).orderBy('id').execute()).map(
    (p) => p.id,
  );
  const lead = (i: number, type: string, status: string) => ({
    business_id: business.id,
    name: `Persona ${i}`,
    type,
    status,
    active: 1,
    source: 'manual',
    phone_number_1: `+3460${String(i).padStart(7, '0')}`,
    personal_email: `persona${i}@example.com`,
    preferred_language: 'es',
    rating: 0,
    created_at: at,
    updated_at: at,
  });
  await insertRows(
    db,
    'leads',
    Array.from({ length: owners }, (_, i) => lead(i, 'propietario', 'new')),
  );
  await insertRows(
    db,
    'leads',
    Array.from({ length: 2000 }, (_, i) => lead(owners + i, 'demandante', 'searching_property')),
  );
  const leads = await db.selectFrom('leads').select(['id', 'type']).where('business_id', '=', business.id).orderBy('id').execute();
  const ownerIds = leads.filter((l) => l.type === 'propietario').map((l) => l.id);
  const searcherIds = leads.filter((l) => l.type === 'demandante').map((l) => l.id);
  const mandates = ids.map((propertyId, i) => ({
    business_id: business.id,
    property_id: propertyId,
    owner_lead_id: ownerIds[Math.floor(i / 2)],
    version: 1,
    kind: 'exclusive',
    operation: 'venta',
    asking_price: 200000,
    starts_on: signedAt.slice(0, 10),
    ends_on: toRfc3339(new Date(now + 300 * DAY_MS)).slice(0, 10),
    fee_percent_bp: 300,
    vat: 'excluded',
    status: 'signed',
    signed_at: signedAt,
    signed_how: 'screen',
    created_at: signedAt,
    updated_at: signedAt,
  }));
  await insertRows(db, 'mandates', mandates);
  await db.transaction().execute(async (trx) => {
    for (const [i, owner] of ownerIds.entries()) {
      await trx
        .updateTable('properties')
        .set({ owner_lead_id: owner })
        .where('id', 'in', [ids[2 * i], ids[2 * i + 1]])
        .execute();
    }
  });
  const matches = searcherIds.flatMap((leadId) =>
    Array.from({ length: 5 }, () => ({ lead_id: leadId, search_index: 0, property_id: ids[Math.floor(r() * ids.length)] })),
  );
  const unique = [...new Map(matches.map((m) => [`${m.lead_id}:${m.property_id}`, m])).values()];
  await insertRows(db, 'lead_matches', unique);
  const views = ids.flatMap((propertyId) =>
    Array.from({ length: 7 }, (_, d) => ({
      property_id: propertyId,
      source: 'page',
      hour: toRfc3339(new Date(now - d * DAY_MS)).slice(0, 13),
      views: 1 + Math.floor(r() * 20),
    })),
  );
  await insertRows(db, 'listing_views', views);
  for (let i = 0; i < ids.length; i += 10) {
    await db
      .updateTable('properties')
      .set({ price: 150000, updated_at: toRfc3339(new Date(now - 2 * DAY_MS)) })
      .where('id', '=', ids[i])
      .execute();
  }
  return business.id;
}

/** Runs the benchmark (see the module's comment). @returns the lines to print. */
export async function ownerReportsBench(work: string, owners = 10_000): Promise<string[]> {
  const out = [`owner reports: ${owners.toLocaleString('en')} owners, ${(owners * 2).toLocaleString('en')} listings under mandate`];
  const engines: Array<[string, string | null]> = [
    ...(process.env.BENCH_PG_ONLY ? [] : [['sqlite', `sqlite:${join(work, 'owner-reports.sqlite')}`] as [string, string | null]]),
    ...(process.env.BENCH_SQLITE_ONLY ? [] : [['postgres', await emptyPostgresSchema('owner_reports')] as [string, string | null]]),
  ];
  const now = Date.now();
  for (const [engine, url] of engines) {
    if (url === null) {
      out.push(`  ${engine}: skipped (no PostgreSQL)`);
      continue;
    }
    if (engine === 'sqlite') rmSync(join(work, 'owner-reports.sqlite'), { force: true });
    const db = createDb(url);
    try {
      const seeding = performance.now();
      const businessId = await seed(db, owners, now);
      const seeded = (performance.now() - seeding) / 1000;
      // The floor: each owner's listings read alone.
      const ownerIds = (await db.selectFrom('leads').select('id').where('type', '=', 'propietario').orderBy('id').execute()).map(
        (l) => l.id,
      );
      let started = performance.now();
      for (const id of ownerIds) await listListingsUnderMandate(db, [id]);
      const floor = (performance.now() - started) / 1000;

      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      started = performance.now();
      const { messages } = await composeDueReports(db, new Date(now), { ownerReportDays: 7, alertHour: 0 }, { businessId, anyHour: true });
      const seconds = (performance.now() - started) / 1000;
      delay.disable();
      const p99 = delay.percentile(99) / 1e6;
      const max = delay.max / 1e6;
      out.push(
        `  ${engine}: ${messages.length.toLocaleString('en')} reports in ${seconds.toFixed(1)} s (target < 60), ${(messages.length / seconds).toFixed(0)} owners/s; loop delay p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms (target p99 < 50); one read per owner alone ${floor.toFixed(1)} s (ratio ${(seconds / floor).toFixed(1)}); seeded in ${seeded.toFixed(0)} s`,
      );
    } finally {
      await db.destroy();
    }
  }
  return out;
}
