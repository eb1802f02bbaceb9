/**
 * Portal e-mails in by webhook (issue 43, CONTRACT §19), `npm run bench -- --only email-inbound`:
 * copies of the real portal e-mails (bench/portal-emails.ts, a new contact and `Message-ID`
 * each) POSTed to `POST /webhooks/email/<token>` by wrk (one thread, 32 connections, on CPU 1,
 * a Lua script posting the messages of a folder in turn: bench/post-emails.lua), the servers on
 * CPU 0, on SQLite and on PostgreSQL (when it answers), each on a fresh database:
 *
 * 1. **To leads**: `inmo serve` with its in-process worker; 200 messages of warm-up (their leads
 *    awaited), then 1,000: the acknowledgements (202, at once: the work runs in jobs) per second
 *    and their p50/p99 while the messages arrive, and the time from the first POST until every
 *    message is a stored lead (its `process_email` job done), as messages per second.
 * 2. **Acknowledging only**: `inmo serve --no-worker`, 1,000 of warm-up, then 5,000.
 * 3. **Baselines**, same run and client: a bare node:http server and a minimal Fastify app
 *    reading each message and answering 202 without storing it (bench/baseline-email.mjs), 2,000
 *    answers of warm-up, then 20,000 over the same 5,000 bodies.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDb } from '../src/db/database.ts';
import { createInboundAddress } from '../src/services/leads/email-intake.ts';
import { freshLeadsDb, postgresHere } from './leads.ts';
import { portalEmails } from './portal-emails.ts';
import { startProcess, stop } from './processes.ts';
import { wrk, type Load } from './wrk.ts';

/** What the part is given by bench/run.ts. */
export interface EmailBenchContext {
  root: string;
  work: string;
  bin: string;
  /** wrk pinned to CPU 1. */
  pin: boolean;
  connections: number;
}

/** One measured run: wrk's figures and the answers per second up to the last one counted. */
interface Posted {
  load: Load;
  seconds: number;
  rate: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes `messages` as `0.eml`… in a new folder `work/name`. @returns the folder. */
function writeFolder(work: string, name: string, messages: Buffer[]): string {
  const folder = join(work, name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  messages.forEach((message, i) => writeFileSync(join(folder, `${i}.eml`), message));
  return folder;
}

/**
 * Posts the folder's `count` messages in turn to `url` until `answers` answers came.
 * @throws Error when they have not come within 300 s.
 */
async function post(context: EmailBenchContext, url: string, folder: string, count: number, answers: number): Promise<Posted> {
  const doneFile = join(context.work, 'post-emails.done');
  rmSync(doneFile, { force: true });
  let timedOut = false;
  const done = (async () => {
    const deadline = performance.now() + 300_000;
    while (!existsSync(doneFile)) {
      if (performance.now() > deadline) {
        timedOut = true;
        return;
      }
      await sleep(10);
    }
  })();
  const load = await wrk(
    url,
    {},
    {
      connections: context.connections,
      duration: 600,
      pin: context.pin,
      script: join(context.root, 'bench', 'post-emails.lua'),
      scriptArgs: [folder, String(count), String(answers), doneFile],
      until: done,
    },
  );
  if (timedOut) throw new Error(`${answers} answers from ${url} did not come within 300 s`);
  const seconds = Number(readFileSync(doneFile, 'utf8')) / 1000;
  return { load, seconds, rate: answers / seconds };
}

/** A fresh database of `engine` with an inbound address: its URL and the address's path. */
async function freshInbound(work: string, engine: 'sqlite' | 'postgres', name: string) {
  const { url, businessId } = await freshLeadsDb(work, engine, name);
  const db = createDb(url);
  try {
    return { url, path: (await createInboundAddress(db, businessId)).url };
  } finally {
    await db.destroy();
  }
}

/** Waits until the database at `url` holds `count` leads. @returns when (performance.now()). @throws Error after 600 s. */
async function leadsStored(url: string, count: number): Promise<number> {
  const db = createDb(url);
  try {
    const deadline = performance.now() + 600_000;
    for (;;) {
      const { n } = await db
        .selectFrom('leads')
        .select((e) => e.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      if (Number(n) >= count) return performance.now();
      if (performance.now() > deadline) throw new Error(`${n} of ${count} leads after 600 s`);
      await sleep(20);
    }
  } finally {
    await db.destroy();
  }
}

/** The messages' states in the database at `url`, as `lead 1200`. */
async function states(url: string): Promise<string> {
  const db = createDb(url);
  try {
    const rows = await db
      .selectFrom('inbound_emails')
      .select('state')
      .select((e) => e.fn.countAll<number>().as('n'))
      .groupBy('state')
      .execute();
    return rows.map((r) => `${r.state} ${r.n}`).join(', ');
  } finally {
    await db.destroy();
  }
}

const env = () => ({ ...process.env, LOG_LEVEL: 'warn' });

/** Runs the part. @returns the report's lines. */
export async function emailInboundBench(context: EmailBenchContext, ceiling: Load, generator: string): Promise<string[]> {
  const { root, work, bin } = context;
  const WARM_LEADS = 200;
  const LEADS = 1000;
  const WARM_ACKS = 1000;
  const ACKS = 5000;
  const BASELINE_ANSWERS = 20_000;
  const folders = {
    warmLeads: writeFolder(work, 'emails-warm-leads', await portalEmails(root, WARM_LEADS, 'warm-leads')),
    // Numbered after the warm-up's: other phones and addresses, so that each makes a new lead.
    leads: writeFolder(work, 'emails-leads', (await portalEmails(root, WARM_LEADS + LEADS, 'leads')).slice(WARM_LEADS)),
    warmAcks: writeFolder(work, 'emails-warm-acks', await portalEmails(root, WARM_ACKS, 'warm-acks')),
    acks: writeFolder(work, 'emails-acks', await portalEmails(root, ACKS, 'acks')),
  };
  const averageBytes =
    Array.from({ length: 7 }, (_, i) => readFileSync(join(folders.acks, `${i}.eml`)).length).reduce((a, b) => a + b, 0) / 7;

  const rows: Array<{ engine: string; server: string; messages: number; posted: Posted; leadsPerSecond?: number; states?: string }> = [];
  const engines: Array<'sqlite' | 'postgres'> = (await postgresHere()) ? ['sqlite', 'postgres'] : ['sqlite'];
  for (const engine of engines) {
    process.stderr.write(`email-inbound: ${engine}, ${LEADS} e-mails to leads\n`);
    const toLeads = await freshInbound(work, engine, 'email-leads');
    const serve = await startProcess([bin, 'serve', '--port', '0', '--json'], { ...env(), DATABASE_URL: toLeads.url }, work);
    try {
      const url = `${new URL(String(serve.info.url)).origin}${toLeads.path}`;
      await post(context, url, folders.warmLeads, WARM_LEADS, WARM_LEADS);
      await leadsStored(toLeads.url, WARM_LEADS);
      const started = performance.now();
      const stored = leadsStored(toLeads.url, WARM_LEADS + LEADS);
      const posted = await post(context, url, folders.leads, LEADS, LEADS);
      const seconds = ((await stored) - started) / 1000;
      rows.push({
        engine,
        server: 'inmo serve, worker in-process',
        messages: LEADS,
        posted,
        leadsPerSecond: LEADS / seconds,
        states: await states(toLeads.url),
      });
    } finally {
      await stop(serve.child);
    }

    process.stderr.write(`email-inbound: ${engine}, ${ACKS} e-mails acknowledged only\n`);
    const ackOnly = await freshInbound(work, engine, 'email-acks');
    const noWorker = await startProcess(
      [bin, 'serve', '--no-worker', '--port', '0', '--json'],
      { ...env(), DATABASE_URL: ackOnly.url },
      work,
    );
    try {
      const url = `${new URL(String(noWorker.info.url)).origin}${ackOnly.path}`;
      await post(context, url, folders.warmAcks, WARM_ACKS, WARM_ACKS);
      rows.push({ engine, server: 'inmo serve --no-worker', messages: ACKS, posted: await post(context, url, folders.acks, ACKS, ACKS) });
    } finally {
      await stop(noWorker.child);
    }
  }

  const baselines: Record<'node' | 'fastify', Posted> = {} as never;
  for (const kind of ['node', 'fastify'] as const) {
    process.stderr.write(`email-inbound: baseline ${kind}\n`);
    const server = await startProcess([join(root, 'bench', 'baseline-email.mjs'), kind], process.env, work);
    try {
      const url = `http://127.0.0.1:${String(server.info.port)}/webhooks/email/${'x'.repeat(43)}`;
      await post(context, url, folders.acks, ACKS, 2000);
      baselines[kind] = await post(context, url, folders.acks, ACKS, BASELINE_ANSWERS);
    } finally {
      await stop(server.child);
    }
  }

  const n = (value: number) => Math.round(value).toLocaleString('en');
  const errorsOf = (load: Load) => load.errors + load.non2xx;
  const ms = (value: number) => value.toFixed(1);
  const lines = [
    `portal e-mails POSTed to /webhooks/email/<token> (message/rfc822, copies of the 7 fixtures with a contact, ${n(averageBytes)} bytes on average, each a new lead);`,
    `wrk, 1 thread, ${context.connections} connections${context.pin ? ', on CPU 1, servers on CPU 0' : ' (not pinned: taskset missing)'}; inmo with LOG_LEVEL=warn, a fresh database per server`,
    `load generator: ${generator}; its ceiling is at least ${n(ceiling.rps)} req/s (a bare node:http server answering {} to GETs, wrk at ${(ceiling.generatorCpu * 100).toFixed(0)} % of its core)`,
    '',
    '| engine | server | messages | acknowledged/s | p50 ms | p99 ms | errors | × node:http | × Fastify | all stored as leads, messages/s |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.engine} | ${r.server} | ${n(r.messages)} | ${n(r.posted.rate)} | ${ms(r.posted.load.p50)} | ${ms(r.posted.load.p99)} | ${errorsOf(r.posted.load)} | ${(r.posted.rate / baselines.node.rate).toFixed(2)} | ${(r.posted.rate / baselines.fastify.rate).toFixed(2)} | ${r.leadsPerSecond === undefined ? '-' : n(r.leadsPerSecond)} |`,
    );
  }
  for (const [label, b] of [
    ['bare node:http, 202, nothing stored', baselines.node],
    ['minimal Fastify, 202, nothing stored', baselines.fastify],
  ] as const) {
    lines.push(
      `| - | ${label} | ${n(BASELINE_ANSWERS)} | ${n(b.rate)} | ${ms(b.load.p50)} | ${ms(b.load.p99)} | ${errorsOf(b.load)} | | | |`,
    );
  }
  lines.push('');
  for (const r of rows.filter((row) => row.states))
    lines.push(`${r.engine}: the messages' states at the end (warm-up included): ${r.states}`);
  lines.push("errors: wrk's socket errors (it counts a request unanswered after 2 s as a timeout) and answers other than 2xx");
  for (const folder of Object.values(folders)) rmSync(folder, { recursive: true, force: true });
  return lines;
}
