/**
 * WhatsApp webhook benchmark (CONTRACT §10), part of `npm run bench -- --only webhooks`:
 *
 * 1. `inmo serve` (on CPU 0) with its in-process worker on a copy of the real 20k catalogue,
 *    its channel pointed at a fake Graph API in this process; 1,000 signed deliveries, one
 *    inbound message each from a new number, posted by 32 connections: the acknowledgement
 *    latency (p50, p99; target p99 < 20 ms), the POSTs acknowledged per second, and the time
 *    until every assistant reply has reached the fake provider.
 * 2. `--no-worker`: 1,000 deliveries at 4 connections (latency at the concurrency Meta
 *    delivers with), then 5,000 at 32 (the acknowledgement rate of one process alone).
 * 3. Baseline, same run and same client: a bare node:http server (bench/baseline-webhook.mjs,
 *    on CPU 0 like inmo) that checks the same HMAC and answers 200 without storing anything.
 *    It is also the client's ceiling: a rate near it means the client, not inmo, was the limit.
 *    The client is Node's fetch, not wrk: every delivery is a distinct body with its own
 *    signature, which wrk's Lua cannot compute.
 */
import { copyFileSync, rmSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDb } from '../src/db/database.ts';
import { connectChannel } from '../src/services/messaging/channels.ts';
import { startFakeGraph } from '../test/helpers/fake-graph.ts';
import { startProcess, stop } from './processes.ts';

const SECRET = 'bench-app-secret';
const PHONE_NUMBER_ID = '1099887766';

/** A signed delivery of one inbound text message from number `i`. */
function delivery(i: number): { body: string; signature: string } {
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '1',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '34910000000', phone_number_id: PHONE_NUMBER_ID },
              contacts: [{ profile: { name: `Cliente ${i}` }, wa_id: `3461${String(i).padStart(7, '0')}` }],
              messages: [
                {
                  from: `3461${String(i).padStart(7, '0')}`,
                  id: `wamid.bench${i}`,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: 'text',
                  text: { body: 'Sí, me interesa' },
                },
              ],
            },
          },
        ],
      },
    ],
  });
  return { body, signature: `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Posts `count` deliveries (numbers from `first`) with `connections` at a time. */
async function post(url: string, first: number, count: number, connections: number) {
  const bodies = Array.from({ length: count }, (_, i) => delivery(first + i));
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const { body, signature } = bodies[next++];
      const t0 = performance.now();
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
        body,
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`webhook answered ${response.status}`);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { seconds, rate: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), started };
}

/** Runs the webhook benchmark on a copy of `sourceDb`. @returns the report's lines. */
export async function webhookBench(work: string, bin: string, sourceDb: string, deliveries = 1000, connections = 32): Promise<string[]> {
  const lines: string[] = [];
  const graph = await startFakeGraph();
  const prepare = async (name: string) => {
    const dbPath = join(work, name);
    for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
    copyFileSync(sourceDb, dbPath);
    const db = createDb(`sqlite:${dbPath}`);
    await db.deleteFrom('jobs').execute();
    await connectChannel(
      db,
      {
        businessId: 1,
        provider: 'whatsapp-cloud',
        phoneNumberId: PHONE_NUMBER_ID,
        tokenEnv: 'T',
        appSecretEnv: 'S',
        template: 'hola',
        baseUrl: graph.baseUrl,
        listingUrl: 'https://agency.example/inmueble/{id}',
      },
      { T: 'bench', S: SECRET },
    );
    await db.destroy();
    return dbPath;
  };
  // The fake provider listens on loopback.
  const env = { ...process.env, LOG_LEVEL: 'warn', INMO_ALLOW_PRIVATE_NETWORK: '1' };
  try {
    const withWorker = await prepare('webhooks.db');
    const { child, info } = await startProcess(
      [bin, 'serve', '--port', '0', '--json'],
      { ...env, DATABASE_URL: `sqlite:${withWorker}` },
      process.cwd(),
    );
    try {
      const url = `${String(info.url).replace(/\/v1\/ext$/, '')}/webhooks/whatsapp`;
      const acked = await post(url, 0, deliveries, connections);
      while (graph.requests.filter((r) => r.body?.type === 'text').length < deliveries) {
        if (performance.now() - acked.started > 300_000) throw new Error('not every reply reached the provider within 300 s');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const total = (performance.now() - acked.started) / 1000;
      lines.push(
        `${deliveries} signed deliveries (one inbound message each), ${connections} connections, with the in-process worker:`,
        `  acknowledged in ${acked.seconds.toFixed(2)} s → ${acked.rate.toFixed(0)} POST/s; ack latency p50 ${acked.p50.toFixed(1)} ms, p99 ${acked.p99.toFixed(1)} ms (target < 20 ms)`,
        `  every assistant reply at the fake provider ${total.toFixed(2)} s after the first POST → ${(deliveries / total).toFixed(0)} conversations answered per second`,
      );
    } finally {
      await stop(child);
    }

    const noWorker = await prepare('webhooks-ack.db');
    const ackOnly = await startProcess(
      [bin, 'serve', '--port', '0', '--no-worker', '--json'],
      { ...env, DATABASE_URL: `sqlite:${noWorker}` },
      process.cwd(),
    );
    const bare = await startProcess([fileURLToPath(new URL('baseline-webhook.mjs', import.meta.url)), SECRET], env, process.cwd());
    try {
      const url = `${String(ackOnly.info.url).replace(/\/v1\/ext$/, '')}/webhooks/whatsapp`;
      const many = deliveries * 5;
      const bareUrl = `http://127.0.0.1:${String(bare.info.port)}/webhooks/whatsapp`;
      // Meta delivers a number's webhooks a few at a time: latency at 4 connections, then the rate at 32.
      const few = await post(url, 50_000, deliveries, 4);
      const fewBare = await post(bareUrl, 50_000, deliveries, 4);
      const inmo = await post(url, 100_000, many, connections);
      const baseline = await post(bareUrl, 100_000, many, connections);
      lines.push(
        `${deliveries} deliveries to inmo serve --no-worker, 4 connections: ack p50 ${few.p50.toFixed(1)} ms, p99 ${few.p99.toFixed(1)} ms, ${few.rate.toFixed(0)} POST/s` +
          ` (bare node:http: p50 ${fewBare.p50.toFixed(1)} ms, p99 ${fewBare.p99.toFixed(1)} ms)`,
        `${many} deliveries to inmo serve --no-worker (acknowledging only): ${inmo.rate.toFixed(0)} POST/s, p50 ${inmo.p50.toFixed(1)} ms, p99 ${inmo.p99.toFixed(1)} ms`,
        `  baseline, same client: bare node:http checking the same HMAC, storing nothing: ${baseline.rate.toFixed(0)} POST/s (p99 ${baseline.p99.toFixed(1)} ms)` +
          ` → inmo ${(inmo.rate / baseline.rate).toFixed(2)}× of it${inmo.rate > baseline.rate * 0.9 ? ' (within 10 %: the client may be the limit)' : ''}`,
      );
    } finally {
      await stop(ackOnly.child);
      await stop(bare.child);
    }
  } finally {
    await graph.close();
  }
  return lines;
}
