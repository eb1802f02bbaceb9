/**
 * Lead-creation benchmark (issue 3): POST /leads/inquiries and POST /leads/ingest with 32
 * connections and a distinct phone per request, against the raw rate of inserting the same
 * rows (lead, notes, jobs; one transaction per lead, as the service does) into the same kind
 * of database, measured in the same run.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createDb, migrate } from '../src/db/database.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { enqueueLeadJobs } from '../src/db/repositories/jobs.ts';
import { insertLeadId, insertNote } from '../src/db/repositories/leads.ts';
import { SCOPES } from '../src/domain/api-key.ts';
import { nowRfc3339 } from '../src/domain/time.ts';
import { createApiKey } from '../src/services/api-keys.ts';
import { startProcess, stop } from './processes.ts';

export interface LeadBenchRow {
  endpoint: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  rawRate: number;
}

/** A valid Spanish mobile number for request `i` of run `run`: distinct within a run. */
const phoneFor = (run: number, i: number) => `+34 6${String(run)}${String(i).padStart(7, '0')}`;

const inquiry = (phone: string) =>
  JSON.stringify({
    name: 'Cliente Bench',
    type: 'buyer',
    phone_number_1: phone,
    source: 'bench',
    sourcePage: 'https://bench.example/form',
    search_preferences: [
      { operations: ['venta'], property_types: ['apartamento'], locations: [{ name: 'Madrid' }], apartamento: { bedrooms_min: 2 } },
    ],
  });
const ingest = (phone: string) =>
  JSON.stringify({
    id: 'x',
    createdAt: '2026-11-20T10:00:00Z',
    source: 'bench',
    sourcePage: 'https://bench.example/alquiler',
    contact: { name: 'Cliente Bench', phone },
    search: { budget: '700-900', habs: '2', location: { name: 'Zaragoza' }, freeText: 'hola' },
  });

/** Inserts `count` leads like the service's, one transaction each. @returns leads per second. */
async function rawRate(dbPath: string, count: number): Promise<number> {
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  const db = createDb(`sqlite:${dbPath}`);
  await migrate(db);
  const { id: businessId } = await insertBusiness(db, 'raw', nowRfc3339());
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    await db.transaction().execute(async (trx) => {
      const at = nowRfc3339();
      const leadId = await insertLeadId(trx, {
        business_id: businessId,
        name: 'Cliente Bench',
        type: 'demandante',
        status: 'searching_property',
        active: 1,
        rating: 3,
        captured_by: 'Web',
        source: 'bench',
        phone_number_1: `+346${String(i).padStart(8, '0')}`,
        profile_category: 'potencial',
        urgency_profile: 'poca-urgencia',
        search_preferences: '[{"operations":["venta"],"property_types":["apartamento"],"locations":[{"name":"Madrid"}]}]',
        created_at: at,
        updated_at: at,
      });
      await insertNote(trx, leadId, 'Consulta recibida por la web.\nOperaciones: venta', at);
      await enqueueLeadJobs(trx, businessId, leadId, ['match_lead', 'send_welcome', 'schedule_follow_ups'], at);
    });
  }
  const rate = count / ((performance.now() - started) / 1000);
  await db.destroy();
  return rate;
}

/** Runs the benchmark in `work` (a scratch folder) with the CLI at `bin`. */
export async function leadBench(work: string, bin: string, duration: number, connections: number): Promise<LeadBenchRow[]> {
  const dbPath = join(work, 'leads.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  const db = createDb(`sqlite:${dbPath}`);
  await migrate(db);
  const { id: businessId } = await insertBusiness(db, 'Bench leads', nowRfc3339());
  const { key } = await createApiKey(db, { businessId, scopes: [...SCOPES] });
  await db.destroy();

  // The server gets CPU 0 to itself, as in the read benchmark (bench/processes.ts); its worker
  // is off, so that this measures taking leads in (bench/background.ts measures the rest).
  const { child, info } = await startProcess(
    [bin, 'serve', '--no-worker', '--port', '0', '--json'],
    { ...process.env, DATABASE_URL: `sqlite:${dbPath}`, LOG_LEVEL: 'warn' },
    work,
  );
  const rows: LeadBenchRow[] = [];
  try {
    for (const [run, endpoint, build] of [
      [1, '/leads/inquiries', inquiry],
      [2, '/leads/ingest', ingest],
    ] as const) {
      let i = 0;
      const result = await autocannon({
        url: `${String(info.url)}${endpoint}`,
        connections,
        duration,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        requests: [{ setupRequest: (req) => ({ ...req, body: build(phoneFor(run, i++)) }) }],
      });
      const created = result.requests.total;
      const raw = await rawRate(join(work, 'leads-raw.db'), Math.min(Math.max(created, 2000), 20000));
      rows.push({
        endpoint,
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        errors: result.errors + result.timeouts,
        non2xx: result.non2xx,
        rawRate: raw,
      });
    }
  } finally {
    await stop(child);
  }
  return rows;
}
