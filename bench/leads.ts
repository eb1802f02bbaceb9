/**
 * Lead-creation benchmark (issues 3, 14, 16): POST /leads/inquiries (plain, and with an
 * Idempotency-Key of its own per request) and POST /leads/ingest under wrk with a distinct
 * phone per request (bench/post-leads.lua), request logs on and off,
 * against the raw rate of inserting the same rows (lead, notes, jobs; one transaction per
 * lead, as the service does) into the same kind of database, measured in the same run.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createDb, migrate } from '../src/db/database.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { enqueueLeadJobs } from '../src/db/repositories/jobs.ts';
import { insertLeadId, insertNote } from '../src/db/repositories/leads.ts';
import { SCOPES } from '../src/domain/access/api-key.ts';
import { nowRfc3339 } from '../src/domain/time.ts';
import { createApiKey } from '../src/services/access/api-keys.ts';
import { recordLeadEvent } from '../src/services/integrations/events.ts';
import { addWebhook } from '../src/services/integrations/outgoing-webhooks.ts';
import pg from 'pg';
import { POSTGRES_URL } from './engines.ts';
import { startProcess, stop } from './processes.ts';
import type { Load } from './wrk.ts';

export interface LeadBenchRow {
  engine: 'sqlite' | 'postgres';
  endpoint: string;
  /** inmo with default settings (one request log line each). */
  logsOn: Load;
  /** inmo with LOG_LEVEL=warn. */
  logsOff: Load;
  /** A bare node:http server inserting the lead, its note and jobs on a raw connection (bench/baseline-leads.mjs). */
  bare: Load;
  /** The same rows inserted directly, one transaction per lead, leads/s (SQLite). */
  rawRate: number | null;
}

// The request bodies, with a distinct phone each, are built by bench/post-leads.lua.

/** The row of bench lead `i` (phone `+346` and `i` in 8 digits), as the intake service would store it. */
export function benchLead(businessId: number, i: number, at: string) {
  return {
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
  };
}

/**
 * Inserts `count` leads like the service's, one transaction each; with `events`, each also
 * records its `lead.created` event (services/integrations/events.ts), and with `'webhook'` the business has
 * one webhook endpoint, so the event also queues its delivery and job. @returns leads per second.
 */
async function rawRate(dbPath: string, count: number, events: 'none' | 'event' | 'webhook' = 'none'): Promise<number> {
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  const db = createDb(`sqlite:${dbPath}`);
  await migrate(db);
  const { id: businessId } = await insertBusiness(db, 'raw', nowRfc3339());
  if (events === 'webhook') await addWebhook(db, { businessId, url: 'https://crm.example/hooks' });
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    await db.transaction().execute(async (trx) => {
      const at = nowRfc3339();
      const leadId = await insertLeadId(trx, benchLead(businessId, i, at));
      await insertNote(trx, leadId, 'Consulta recibida por la web.\nOperaciones: venta', at);
      await enqueueLeadJobs(trx, businessId, leadId, ['match_lead', 'send_welcome', 'schedule_follow_ups'], at);
      if (events !== 'none') await recordLeadEvent(trx, businessId, leadId, 'lead.created', at);
    });
  }
  const rate = count / ((performance.now() - started) / 1000);
  await db.destroy();
  return rate;
}

/** Loads one URL with wrk and a Lua script (bench/run.ts's `load`). */
type LoadFn = (
  url: string,
  headers: Record<string, string>,
  options: { script: string; scriptArgs: string[]; duration?: number },
) => Promise<Load>;

/** A fresh database of `engine` with one business and a key: its URL, business id and key. */
export async function freshLeadsDb(work: string, engine: 'sqlite' | 'postgres', name: string) {
  let url: string;
  if (engine === 'sqlite') {
    const dbPath = join(work, `leads-${name}.db`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
    url = `sqlite:${dbPath}`;
  } else {
    const schema = `inmo_bench_leads_${name.replace(/[^a-z0-9]/g, '_')}`;
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`drop schema if exists "${schema}" cascade; create schema "${schema}"`);
    await admin.end();
    url = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`;
  }
  const db = createDb(url);
  await migrate(db);
  const { id: businessId } = await insertBusiness(db, 'Bench leads', nowRfc3339());
  const { key } = await createApiKey(db, { businessId, scopes: [...SCOPES] });
  await db.destroy();
  return { url, businessId, key };
}

/** Whether the benchmark's PostgreSQL answers. */
export async function postgresHere(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs the benchmark in `work` (a scratch folder) with the CLI at `bin`, on SQLite and (when it
 * answers) PostgreSQL: each endpoint on inmo with request logs on (default settings) and off,
 * and on the bare node:http server inserting the same rows (bench/baseline-leads.mjs), each on
 * a fresh database and after a warm-up run of its own (2 s: the first seconds of a process are
 * its JIT compiling, p99 above 200 ms); then, on SQLite, the raw rate of the same rows.
 */
export async function leadBench(work: string, bin: string, script: string, load: LoadFn): Promise<LeadBenchRow[]> {
  let run = 0;
  const measure = async (url: string, key: string | null, endpoint: string, kind: string) => {
    const headers: Record<string, string> = key === null ? {} : { 'x-api-key': key };
    await load(`${url}${endpoint}`, headers, { script, scriptArgs: [kind, String(++run)], duration: 2 });
    return load(`${url}${endpoint}`, headers, { script, scriptArgs: [kind, String(++run)] });
  };
  const rows: LeadBenchRow[] = [];
  const engines: Array<'sqlite' | 'postgres'> = (await postgresHere()) ? ['sqlite', 'postgres'] : ['sqlite'];
  for (const engine of engines) {
    for (const [endpoint, kind] of [
      ['/leads/inquiries', 'inquiry'],
      ['/leads/inquiries', 'inquiry-idempotent'],
      ['/leads/ingest', 'ingest'],
    ] as const) {
      const results: Load[] = [];
      for (const logLevel of ['info', 'warn']) {
        const { url, key } = await freshLeadsDb(work, engine, `${kind}-${logLevel}`);
        // The server gets CPU 0 to itself (bench/processes.ts); its worker is off, so that this
        // measures taking leads in (bench/background.ts measures the rest).
        const server = await startProcess(
          [bin, 'serve', '--no-worker', '--port', '0', '--json'],
          { ...process.env, DATABASE_URL: url, LOG_LEVEL: logLevel },
          work,
        );
        try {
          results.push(await measure(String(server.info.url), key, endpoint, kind));
        } finally {
          await stop(server.child);
        }
      }
      const { url, businessId } = await freshLeadsDb(work, engine, `${kind}-bare`);
      const bare = await startProcess([join(import.meta.dirname, 'baseline-leads.mjs'), url, String(businessId)], process.env, work);
      let bareLoad: Load;
      try {
        bareLoad = await measure(`http://127.0.0.1:${String(bare.info.port)}`, null, '', kind);
      } finally {
        await stop(bare.child);
      }
      // The idempotent inquiry stores the same rows as the plain one: one raw rate serves both.
      const raw = engine === 'sqlite' ? await rawRate(join(work, 'leads-raw.db'), 10_000) : null;
      const label = kind === 'inquiry-idempotent' ? `${endpoint} + Idempotency-Key` : endpoint;
      rows.push({ engine, endpoint: label, logsOn: results[0], logsOff: results[1], bare: bareLoad, rawRate: raw });
    }
  }
  return rows;
}

/**
 * What the event log adds to taking a lead in (CONTRACT §13): the raw rate of 10,000 leads
 * without their event, with it, and with it and one webhook endpoint (its delivery and job),
 * median of three interleaved runs. @returns the report's lines.
 */
export async function eventCostBench(work: string, count = 10_000): Promise<string[]> {
  const kinds = ['none', 'event', 'webhook'] as const;
  const runs: Record<(typeof kinds)[number], number[]> = { none: [], event: [], webhook: [] };
  for (let round = 0; round < 3; round++) {
    for (const kind of kinds) runs[kind].push(await rawRate(join(work, 'leads-raw-events.db'), count, kind));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[1];
  const base = median(runs.none);
  return [
    `the event log on the lead path: ${count} leads inserted directly, one transaction each (median of 3 interleaved runs)`,
    ...kinds.map((kind) => {
      const label = {
        none: 'lead, notes, jobs',
        event: '+ its lead.created event',
        webhook: '+ event, one webhook endpoint (delivery, job)',
      }[kind];
      return `  ${label.padEnd(46)} ${median(runs[kind]).toFixed(0).padStart(6)} leads/s  ${(median(runs[kind]) / base).toFixed(2)}×`;
    }),
  ];
}
