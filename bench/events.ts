/**
 * Outgoing webhook benchmark (CONTRACT §13; services/integrations/outgoing-webhooks.ts), part of
 * `npm run bench -- --only events`:
 *
 * 1. **Events.** `inmo serve --no-worker` on an empty catalogue takes 10,000 ingests (32
 *    connections), which write 10,000 `lead.created` events, each with its pending delivery and
 *    its `deliver_webhook` job. The leads' other jobs (matching, follow-ups) are deleted, so what
 *    follows measures delivery alone.
 * 2. **Delivery.** `inmo worker --concurrency C` (on CPU 0), on a copy of that database for each
 *    C (4, the default, then 16), delivers them to a receiver in this process (CPU 1) that checks
 *    every signature with the `standardwebhooks` reference implementation and counts repeats.
 *    Timed from the worker's start and from the first delivery to the last.
 * 3. **Baseline**, same run and receiver: bench/baseline-deliver.mjs (on CPU 0) signs the same
 *    10,000 bodies with the same package and POSTs them C at a time with fetch, with no
 *    database: what one Node process can deliver at all. inmo / baseline is the cost of the log.
 * 4. **Latency.** `inmo serve` with its worker on a copy of the real 20k catalogue, 1,000 ingests
 *    (32 connections): from each POST's answer to its `lead.created` at the receiver (p50, p99),
 *    while the same worker also matches every lead.
 */
import { outboundPolicy } from '../src/config.ts';
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { createDb, migrate } from '../src/db/database.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { SCOPES } from '../src/domain/access/api-key.ts';
import { nowRfc3339 } from '../src/domain/time.ts';
import { createApiKey } from '../src/services/access/api-keys.ts';
import { eventId } from '../src/services/integrations/events.ts';
import { addWebhook } from '../src/services/integrations/outgoing-webhooks.ts';
import { spawnOnCpu0, startProcess, stop } from './processes.ts';

const EVENTS = 10_000;
const LATENCY_LEADS = 1_000;
const CONCURRENCIES = [4, 16];
const POST_CONNECTIONS = 32;
const TIMEOUT_MS = 300_000;
/** The receiver is on loopback: allowed for the bench's own processes only. */
const ALLOW_PRIVATE = { INMO_ALLOW_PRIVATE_NETWORK: '1' };

/** The local receiver: verifies every delivery, records when each event id first arrived. */
class Receiver {
  server!: Server;
  url = '';
  private webhook: Webhook | null = null;
  /** Event id → arrival (performance.now()) of its first delivery. */
  readonly arrived = new Map<string, number>();
  /** Phone (E.164) of each `lead.created` lead → its arrival. */
  readonly leadCreated = new Map<string, number>();
  repeats = 0;
  badSignatures = 0;
  first = Number.POSITIVE_INFINITY;
  last = 0;

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const now = performance.now();
        const verified = this.verify(body, request.headers as Record<string, string>);
        const id = String(request.headers['webhook-id']);
        if (verified) {
          if (this.arrived.has(id)) this.repeats++;
          else {
            this.arrived.set(id, now);
            const phone = verified.data.lead?.phone_number_1;
            if (verified.type === 'lead.created' && phone) this.leadCreated.set(phone, now);
            this.first = Math.min(this.first, now);
            this.last = Math.max(this.last, now);
          }
        }
        response.writeHead(verified ? 200 : 400, { 'content-type': 'text/plain' }).end(verified ? 'ok' : 'bad signature');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** The delivery, if its signature is good (else counted as bad). */
  private verify(body: string, headers: Record<string, string>): { type: string; data: { lead?: { phone_number_1?: string } } } | null {
    try {
      return this.webhook!.verify(body, headers) as { type: string; data: { lead?: { phone_number_1?: string } } };
    } catch {
      this.badSignatures++;
      return null;
    }
  }

  /** Forgets what arrived; verifies with `secret` from now on. */
  reset(secret: string): void {
    this.webhook = new Webhook(secret.slice('whsec_'.length));
    this.arrived.clear();
    this.leadCreated.clear();
    this.repeats = 0;
    this.badSignatures = 0;
    this.first = Number.POSITIVE_INFINITY;
    this.last = 0;
  }

  /** Resolves once `what()` (by default the distinct events arrived) reaches `count`; throws after 300 s from `since`. */
  async waitFor(count: number, since: number, what = () => this.arrived.size): Promise<void> {
    while (what() < count) {
      if (performance.now() - since > TIMEOUT_MS) throw new Error(`only ${what()} of ${count} deliveries after ${TIMEOUT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Removes a SQLite database and its WAL files. */
function removeDb(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
}

/**
 * POSTs `count` Zaragoza rental ingests (numbered from `first`) with `connections` at a time.
 * @returns when each answer came (performance.now()), by the lead's phone (E.164).
 */
async function postIngests(baseUrl: string, key: string, first: number, count: number, connections: number): Promise<Map<string, number>> {
  const answered = new Map<string, number>();
  let next = 0;
  const post = async () => {
    while (next < count) {
      const i = first + next++;
      const digits = String(i).padStart(8, '0');
      const response = await fetch(`${baseUrl}/leads/ingest`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({
          id: `evt-bench-${i}`,
          createdAt: '2026-11-22T10:00:00Z',
          source: 'bench',
          sourcePage: 'https://bench.example/alquiler',
          contact: { name: 'Cliente', phone: `+34 6${digits}` },
          search: { budget: '700-900', habs: '2', location: { name: 'Zaragoza' } },
        }),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`ingest answered ${response.status}`);
      answered.set(`+346${digits}`, performance.now());
    }
  };
  await Promise.all(Array.from({ length: connections }, post));
  return answered;
}

/** A database with one business, a key and a webhook to `receiverUrl`. @returns the key and the webhook's secret. */
async function prepareBusiness(url: string, receiverUrl: string, fresh: boolean): Promise<{ key: string; secret: string }> {
  const db = createDb(url);
  try {
    if (fresh) {
      await migrate(db);
      await insertBusiness(db, 'Bench events', nowRfc3339());
    }
    await db.deleteFrom('jobs').execute();
    const { key } = await createApiKey(db, { businessId: 1, scopes: [...SCOPES] });
    const { secret } = await addWebhook(db, { businessId: 1, url: receiverUrl }, outboundPolicy(ALLOW_PRIVATE));
    return { key, secret };
  } finally {
    await db.destroy();
  }
}

/**
 * Runs the benchmark in `work`, with `realDb` (the real 20k catalogue) for the latency part.
 * @returns the report's lines.
 */
export async function eventBench(work: string, bin: string, realDb: string): Promise<string[]> {
  const lines: string[] = [];
  const receiver = new Receiver();
  await receiver.start();
  const env = { ...process.env, LOG_LEVEL: 'warn', ...ALLOW_PRIVATE };
  try {
    // 1. Events: 10,000 ingests, nothing delivered yet.
    const source = join(work, 'events-source.db');
    removeDb(source);
    const { key, secret } = await prepareBusiness(`sqlite:${source}`, receiver.url, true);
    const server = await startProcess(
      [bin, 'serve', '--port', '0', '--no-worker', '--json'],
      { ...env, DATABASE_URL: `sqlite:${source}` },
      work,
    );
    const postStarted = performance.now();
    try {
      await postIngests(String(server.info.url), key, 0, EVENTS, POST_CONNECTIONS);
    } finally {
      await stop(server.child);
    }
    const postSeconds = (performance.now() - postStarted) / 1000;
    const db = createDb(`sqlite:${source}`);
    const dropped = await db.deleteFrom('jobs').where('kind', '!=', 'deliver_webhook').executeTakeFirst();
    const pending = await db
      .selectFrom('jobs')
      .select((e) => e.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const events = await db.selectFrom('events').select(['id', 'type', 'created_at', 'data']).orderBy('id').execute();
    await sql`pragma wal_checkpoint(truncate)`.execute(db);
    await db.destroy();
    if (Number(pending.n) !== EVENTS || events.length !== EVENTS) {
      throw new Error(`expected ${EVENTS} events and delivery jobs, found ${events.length} and ${pending.n}`);
    }
    lines.push(
      `${EVENTS} ingests (${POST_CONNECTIONS} connections, no worker) in ${postSeconds.toFixed(2)} s wrote ${EVENTS} lead.created events and their delivery jobs; their ${Number(dropped.numDeletedRows)} other jobs were deleted`,
      `${'delivery'.padEnd(44)} ${'total s'.padStart(8)} ${'1st→last'.padStart(8)} ${'events/s'.padStart(9)} ${'vs base'.padStart(8)} repeats  bad sig`,
    );
    // The baseline's bodies are the bytes the worker sends.
    const bodies = events.map((e) => ({
      id: eventId(e.id),
      body: JSON.stringify({ type: e.type, timestamp: e.created_at, data: JSON.parse(e.data) as unknown }),
    }));

    // 2 and 3. Delivery by the worker, then by the baseline, at each concurrency.
    for (const concurrency of CONCURRENCIES) {
      const copy = join(work, `events-c${concurrency}.db`);
      removeDb(copy);
      copyFileSync(source, copy);
      receiver.reset(secret);
      const started = performance.now();
      const worker = spawnOnCpu0([bin, 'worker', '--concurrency', String(concurrency)], { ...env, DATABASE_URL: `sqlite:${copy}` }, work);
      worker.stdout!.resume();
      let total: number;
      try {
        await receiver.waitFor(EVENTS, started);
        total = (performance.now() - started) / 1000;
      } finally {
        await stop(worker);
      }
      const span = (receiver.last - receiver.first) / 1000;
      const stats = { repeats: receiver.repeats, bad: receiver.badSignatures };

      const file = join(work, 'events-baseline.json');
      writeFileSync(file, JSON.stringify({ url: receiver.url, secret, concurrency, events: bodies }));
      receiver.reset(secret);
      const baseline = await startProcess([fileURLToPath(new URL('baseline-deliver.mjs', import.meta.url)), file], env, work);
      await stop(baseline.child);
      const baseSeconds = Number(baseline.info.seconds);
      if (receiver.arrived.size !== EVENTS) throw new Error(`the baseline delivered ${receiver.arrived.size} of ${EVENTS}`);
      lines.push(
        `${`inmo worker --concurrency ${concurrency}`.padEnd(44)} ${total.toFixed(2).padStart(8)} ${span.toFixed(2).padStart(8)} ${(EVENTS / span).toFixed(0).padStart(9)} ${(baseSeconds / span).toFixed(2).padStart(8)} ${String(stats.repeats).padStart(7)} ${String(stats.bad).padStart(8)}`,
        `${`baseline: sign + fetch, ${concurrency} at a time, no database`.padEnd(44)} ${''.padStart(8)} ${baseSeconds.toFixed(2).padStart(8)} ${(EVENTS / baseSeconds).toFixed(0).padStart(9)} ${'1.00'.padStart(8)} ${String(receiver.repeats).padStart(7)} ${String(receiver.badSignatures).padStart(8)}`,
      );
      removeDb(copy);
    }
    // events-source.db stays in .bench/ (ignored): a worker can be profiled on a copy of it.

    // 4. Latency from a lead's POST to its signed webhook, with matching on the same worker.
    const live = join(work, 'events-live.db');
    removeDb(live);
    copyFileSync(realDb, live);
    const liveKeys = await prepareBusiness(`sqlite:${live}`, receiver.url, false);
    receiver.reset(liveKeys.secret);
    const serving = await startProcess([bin, 'serve', '--port', '0', '--json'], { ...env, DATABASE_URL: `sqlite:${live}` }, work);
    try {
      const started = performance.now();
      const answered = await postIngests(String(serving.info.url), liveKeys.key, EVENTS, LATENCY_LEADS, POST_CONNECTIONS);
      await receiver.waitFor(LATENCY_LEADS, started, () => receiver.leadCreated.size);
      const total = (performance.now() - started) / 1000;
      const latencies = [...answered].map(([phone, at]) => receiver.leadCreated.get(phone)! - at).sort((a, b) => a - b);
      lines.push(
        '',
        `latency, inmo serve with its worker (concurrency 4, also matching each lead) on the real 20k catalogue, ${LATENCY_LEADS} ingests at ${POST_CONNECTIONS} connections:`,
        `  POST answered → lead.created verified at the receiver: p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${latencies.at(-1)!.toFixed(0)} ms; all ${LATENCY_LEADS} within ${total.toFixed(2)} s of the first POST`,
        `  events delivered meanwhile: ${receiver.arrived.size} (lead.created and match.found), repeats ${receiver.repeats}, bad signatures ${receiver.badSignatures}`,
      );
    } finally {
      await stop(serving.child);
      removeDb(live);
    }
  } finally {
    await receiver.close();
  }
  return lines;
}
