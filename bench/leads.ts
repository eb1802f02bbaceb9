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
import { SCOPES } from '../src/domain/api-key.ts';
import { nowRfc3339 } from '../src/domain/time.ts';
import { createApiKey } from '../src/services/api-keys.ts';
import { recordLeadEvent } from '../src/services/events.ts';
import { addWebhook } from '../src/services/webhook-endpoints.ts';
import { startProcess, stop } from './processes.ts';
import type { Load } from './wrk.ts';

export interface LeadBenchRow {
  endpoint: string;
  /** inmo with default settings (one request log line each). */
  logsOn: Load;
  /** inmo with LOG_LEVEL=warn. */
  logsOff: Load;
  /** The same rows inserted directly, one transaction per lead, leads/s. */
  rawRate: number;
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
 * records its `lead.created` event (services/events.ts), and with `'webhook'` the business has
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
type LoadFn = (url: string, headers: Record<string, string>, options: { script: string; scriptArgs: string[] }) => Promise<Load>;

/**
 * Runs the benchmark in `work` (a scratch folder) with the CLI at `bin`: each endpoint on two
 * servers, request logs on (default settings) and off, then the raw rate of the same rows.
 */
export async function leadBench(work: string, bin: string, script: string, load: LoadFn): Promise<LeadBenchRow[]> {
  const serve = async (name: string, logLevel: string) => {
    const dbPath = join(work, `leads-${name}.db`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
    const db = createDb(`sqlite:${dbPath}`);
    await migrate(db);
    const { id: businessId } = await insertBusiness(db, 'Bench leads', nowRfc3339());
    const { key } = await createApiKey(db, { businessId, scopes: [...SCOPES] });
    await db.destroy();
    // The server gets CPU 0 to itself (bench/processes.ts); its worker is off, so that this
    // measures taking leads in (bench/background.ts measures the rest).
    const server = await startProcess(
      [bin, 'serve', '--no-worker', '--port', '0', '--json'],
      { ...process.env, DATABASE_URL: `sqlite:${dbPath}`, LOG_LEVEL: logLevel },
      work,
    );
    return { ...server, key };
  };
  const on = await serve('logs-on', 'info');
  const off = await serve('logs-off', 'warn');
  const rows: LeadBenchRow[] = [];
  let run = 0;
  try {
    let raw = 0;
    for (const [endpoint, kind] of [
      ['/leads/inquiries', 'inquiry'],
      ['/leads/inquiries', 'inquiry-idempotent'],
      ['/leads/ingest', 'ingest'],
    ] as const) {
      const results: Load[] = [];
      for (const server of [on, off]) {
        results.push(
          await load(`${String(server.info.url)}${endpoint}`, { 'x-api-key': server.key }, { script, scriptArgs: [kind, String(++run)] }),
        );
      }
      // The idempotent inquiry stores the same rows as the plain one: one raw rate serves both.
      if (kind !== 'inquiry-idempotent') raw = await rawRate(join(work, 'leads-raw.db'), 10_000);
      const label = kind === 'inquiry-idempotent' ? `${endpoint} + Idempotency-Key` : endpoint;
      rows.push({ endpoint: label, logsOn: results[0], logsOff: results[1], rawRate: raw });
    }
  } finally {
    await stop(on.child);
    await stop(off.child);
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
