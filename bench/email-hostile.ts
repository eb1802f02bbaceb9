/**
 * Hostile e-mails in (issue 55, hole 1), `npm run bench -- --only email-hostile`: messages built
 * to be slow to read, each POSTed to `POST /webhooks/email/<token>` of `inmo serve` (with its
 * in-process worker, which reads them in `process_email` jobs), on a fresh SQLite database, while
 * this process asks `GET /healthz` every 5 ms: the longest `/healthz` answer is the longest the
 * server was held. For each message: its size, the POST's answer time, the time until it settled
 * (the job done) and its state and reason, and `/healthz` p99 and max meanwhile. Baseline, same
 * run: the same probe while the server is idle.
 */
import { createDb } from '../src/db/database.ts';
import { createInboundAddress } from '../src/services/leads/email-intake.ts';
import { freshLeadsDb } from './leads.ts';
import { startProcess, stop } from './processes.ts';

/** What the part is given by bench/run.ts. */
export interface HostileBenchContext {
  root: string;
  work: string;
  bin: string;
}

const header = (from: string, id: string, extra = '') =>
  `From: ${from}\r\nSubject: Consulta\r\nMessage-ID: <${id}@bench.example>\r\n${extra}\r\n`;

/** The messages: the reproductions of issue 55, and the largest accepted size built to be slow. */
function hostileMessages(): Array<{ name: string; raw: Buffer }> {
  return [
    {
      name: 'Message-ID padded with 160,000 spaces',
      raw: Buffer.from(`From: a@b.example\r\nMessage-ID: <a${' '.repeat(160_000)}b>\r\n\r\nhola\r\n`),
    },
    {
      name: '128 KB of blank lines, fotocasa',
      raw: Buffer.from(`${header('x@messaging.fotocasa.es', 'blank')}${'\r\n'.repeat(65_536)}x\r\n`),
    },
    {
      name: '256 KB labelled value padded, generic',
      raw: Buffer.from(`${header('x@example.org', 'generic')}Nombre: a${' '.repeat(262_144)}b\r\n`),
    },
    {
      name: '200,000 nested <div> (1 MB)',
      raw: Buffer.from(`${header('x@example.org', 'div200k', 'Content-Type: text/html\r\n')}${'<div>'.repeat(200_000)}x\r\n`),
    },
    {
      name: '1,000,000 nested <div> (5 MB)',
      raw: Buffer.from(`${header('x@example.org', 'div1m', 'Content-Type: text/html\r\n')}${'<div>'.repeat(1_000_000)}x\r\n`),
    },
    {
      name: '10 MiB of blank lines and open quotations, fotocasa',
      raw: Buffer.from(`${header('x@messaging.fotocasa.es', 'quotes')}${'\u201c\r\n\r\n'.repeat(1_740_000)}`).subarray(0, 10 * 1024 * 1024),
    },
  ];
}

interface Probe {
  max: number;
  p99: number;
  samples: number;
}

/** Asks /healthz every 5 ms until `done`, timing each answer. */
async function probe(origin: string, done: () => boolean): Promise<Probe> {
  const times: number[] = [];
  while (!done()) {
    const started = performance.now();
    await fetch(`${origin}/healthz`).then((r) => r.arrayBuffer());
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  times.sort((a, b) => a - b);
  return { max: times.at(-1) ?? 0, p99: times[Math.floor(times.length * 0.99)] ?? 0, samples: times.length };
}

/** Runs the part. @returns the report's lines. */
export async function emailHostileBench({ work, bin }: HostileBenchContext): Promise<string[]> {
  const { url, businessId } = await freshLeadsDb(work, 'sqlite', 'hostile');
  const db = createDb(url);
  const { url: path } = await createInboundAddress(db, businessId);
  const { child, info } = await startProcess(
    [bin, 'serve', '--port', '0', '--json'],
    { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
    work,
  );
  const origin = new URL(info.url as string).origin;
  const lines = [
    'hostile e-mails to the webhook, read by the in-process worker (SQLite); /healthz asked every 5 ms meanwhile',
    '| message | bytes | POST ms | settled after ms | state (reason) | /healthz answers | /healthz p99 ms | /healthz max ms |',
    '|---|---|---|---|---|---|---|---|',
  ];
  try {
    // Warm: the first requests open connections and compile the routes.
    for (let i = 0; i < 50; i++) await fetch(`${origin}/healthz`).then((r) => r.arrayBuffer());
    let idleDone = false;
    const [idle] = await Promise.all([
      probe(origin, () => idleDone),
      new Promise((r) => setTimeout(r, 2000)).then(() => (idleDone = true)),
    ]);
    lines.push(`| idle | — | — | — | — | ${idle.samples} | ${idle.p99.toFixed(1)} | ${idle.max.toFixed(1)} |`);
    for (const { name, raw } of hostileMessages()) {
      let settled = false;
      const probing = probe(origin, () => settled);
      const started = performance.now();
      const response = await fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'message/rfc822' },
        body: new Uint8Array(raw),
      });
      const posted = performance.now() - started;
      if (response.status !== 202) throw new Error(`${name}: ${response.status} ${await response.text()}`);
      let row: { state: string; reason: string | null } | undefined;
      for (;;) {
        row = await db
          .selectFrom('inbound_emails')
          .select(['state', 'reason'])
          .where('business_id', '=', businessId)
          .orderBy('id', 'desc')
          .executeTakeFirst();
        if (row && row.state !== 'pending') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const took = performance.now() - started;
      settled = true;
      const health = await probing;
      const outcome = `${row.state}${row.reason ? ` (${row.reason})` : ''}`;
      lines.push(
        `| ${name} | ${raw.length.toLocaleString('en')} | ${posted.toFixed(0)} | ${took.toFixed(0)} | ${outcome} | ${health.samples} | ${health.p99.toFixed(1)} | ${health.max.toFixed(1)} |`,
      );
    }
  } finally {
    await stop(child);
    await db.destroy();
  }
  return lines;
}
