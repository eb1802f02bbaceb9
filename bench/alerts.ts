/**
 * Alerts (issue 45 "Speed", CONTRACT §21), `npm run bench -- --only alerts`: a catalogue change
 * that matches MATCHING searching leads of LEADS (10,000 of 100,000 by default;
 * `INMO_BENCH_ALERT_LEADS` sets LEADS, a tenth of them match), on SQLite and (when it answers)
 * PostgreSQL, in this process.
 *
 * - **Seed**: a generated catalogue of 1,000 listings (src/demo/catalogue-generator.ts: Madrid,
 *   Barcelona, Valencia, Sevilla…) and LEADS leads searching, each taking alerts (`wants_alerts`)
 *   and matched once already at the catalogue's version (nothing found), the business's leads
 *   brought up to it. MATCHING of them look for a five-bedroom flat for sale in Teruel, the others
 *   in Soria for less: neither town has a listing yet, so no lead stores anything before the
 *   change.
 * - **Queue**: one listing in Teruel imported (as the console or a feed writes one), its
 *   `rematch_catalogue` job made due at once (its 2 s debounce left out), then an in-process
 *   Worker drains the queue: the one job matches again the leads the listing reaches
 *   (services/leads/rematch.ts), recording it as an alert candidate of each. Timed from the
 *   import to the drained queue, with the event loop's delay sampled meanwhile
 *   (`monitorEventLoopDelay`: in `inmo serve` the API answers on that loop). Target: under 10 s,
 *   loop delay p99 under 50 ms.
 * - **Baseline, same run**: the matching alone, every lead's searches against the catalogue's
 *   snapshot in a loop (services/leads/matching.ts `matchSearchPreferences`), with no job, read
 *   or write: what matching every lead whole costs before the database is touched.
 * - **Compose**: the round's digests written (services/leads/alerts.ts `composeDigests`: one
 *   message, its items and a `send_alert` job per lead), timed.
 * - **Send**: the composed digests sent by the worker through a real SMTP server on loopback
 *   (smtp-server), against that server's pace with nodemailer alone; peak RSS meanwhile.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'kysely';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { createDb, migrate, type Db } from '../src/db/database.ts';
import { insertBusiness } from '../src/db/repositories/businesses.ts';
import { generateCatalogue } from '../src/demo/catalogue-generator.ts';
import { matchRunDigest } from '../src/domain/leads/matching.ts';
import { nowRfc3339 } from '../src/domain/time.ts';
import { Worker } from '../src/jobs/worker.ts';
import { importCatalogueLines } from '../src/services/catalogue/import/import.ts';
import { composeDigests } from '../src/services/leads/alerts.ts';
import { connectEmail } from '../src/services/messaging/email.ts';
import { CatalogueSnapshots, matchSearchPreferences } from '../src/services/leads/matching.ts';
import { emptyPostgresSchema } from './engines.ts';

const LEADS = Number(process.env.INMO_BENCH_ALERT_LEADS) || 100_000;
const MATCHING = Math.round(LEADS / 10);
const CATALOGUE = 1_000;
const BATCH = 1_000;

/**
 * A search that no generated listing matches or misses by one criterion only (none has 5
 * bedrooms), so that no lead stores anything before the change. Teruel's leads pay up to
 * 250,000 €, the others up to 100,000 €: the new flat (150,000 €) misses theirs by two criteria,
 * so it is not even a near miss of theirs, and the change reaches a tenth of the leads.
 */
const search = (town: string, priceMax: number) =>
  JSON.stringify([
    {
      operations: ['venta'],
      property_types: ['apartamento'],
      locations: [{ name: town }],
      apartamento: { price_max: priceMax, bedrooms_min: 5 },
    },
  ]);

/** The listing the change brings: a flat for sale in Teruel that every MATCHING lead wants. */
const TERUEL = {
  external_ref: 'ALERT-TERUEL-1',
  public: true,
  status: 'disponible',
  operation: 'venta',
  type: 'apartamento',
  subtype: 'piso',
  title: 'Piso en Teruel',
  description: '<p>Piso céntrico.</p>',
  price: 150_000,
  size_total: 85,
  bedrooms: 5,
  bathrooms: 2,
  address: 'Calle Amantes 3',
  city: 'Teruel',
  province: 'Teruel',
  postal_code: '44001',
  images: [],
};

/**
 * LEADS searching leads, every tenth (and so MATCHING of them) after Teruel; each already matched
 * at the catalogue's version (nothing found: a run whose digest is the empty result's), and the
 * business's leads brought up to that version, as the re-match of the seed's import leaves them.
 */
async function seedLeads(db: Db, businessId: number): Promise<void> {
  const at = nowRfc3339();
  const { catalogue_version: version } = await db
    .selectFrom('businesses')
    .select('catalogue_version')
    .where('id', '=', businessId)
    .executeTakeFirstOrThrow();
  const nothing = matchRunDigest([], { matches_total: 0, near_misses_total: 0 });
  for (let first = 0; first < LEADS; first += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, LEADS - first) }, (_, k) => {
      const i = first + k;
      return {
        business_id: businessId,
        name: `Lead ${i}`,
        type: 'demandante',
        status: 'searching_property',
        active: 1,
        rating: 3,
        phone_number_1: `+346${String(10_000_000 + i).padStart(8, '0')}`,
        personal_email: `lead${i}@example.com`,
        search_preferences: i % 10 === 0 ? search('Teruel', 250_000) : search('Soria', 100_000),
        wants_alerts: 1,
        created_at: at,
        updated_at: at,
      };
    });
    const ids = await db.insertInto('leads').values(rows).returning('id').execute();
    await db
      .insertInto('lead_match_runs')
      .values(
        ids.map(({ id }) => ({
          lead_id: id,
          catalogue_version: version,
          matched_at: at,
          matches_total: 0,
          near_misses_total: 0,
          result_hash: nothing.hash,
          truncated: nothing.truncated,
        })),
      )
      .execute();
  }
  await db.updateTable('businesses').set({ rematched_version: version }).where('id', '=', businessId).execute();
}

const ms = (n: number) => `${n.toFixed(0)} ms`;

/** Where the bench's e-mail may go: its own server on loopback. */
const OUTBOUND = { allowPrivateNetwork: true, channelHosts: [] };
/** Messages the baseline sends, and at once (as many as the worker's default concurrency). */
const BASELINE_MESSAGES = 1000;
const SENDERS = 4;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/**
 * A real SMTP server on loopback (smtp-server) that reads every message whole and keeps only a
 * count. It greets a new connection 100 ms after it opens (smtp-server's fixed wait for clients
 * that talk too soon), so a connection a message sends at most 10 messages a second.
 */
async function smtpSink(): Promise<{ port: number; count: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS', 'AUTH'],
    disableReverseLookup: true,
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        count++;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    count: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The composed digests sent by the worker through a real SMTP server, against the server's own
 * pace: nodemailer sending {@link BASELINE_MESSAGES} messages of the same size to it, {@link SENDERS}
 * at a time, a connection each (as the worker's sends are). The process's peak RSS is sampled
 * every 100 ms.
 */
async function sendDigests(db: Db, businessId: number, digests: number): Promise<string[]> {
  const sink = await smtpSink();
  try {
    await connectEmail(db, { businessId, url: `smtp://127.0.0.1:${sink.port}`, from: 'hola@agencia.example', replyTo: null }, OUTBOUND);
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: sink.port, secure: false, ignoreTLS: true });
    const text = 'Piso en Teruel: 150.000 €, 85 m², 5 habitaciones.\n'.repeat(40);
    let next = 0;
    const baselineStarted = performance.now();
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        while (next++ < BASELINE_MESSAGES) {
          await transport.sendMail({
            from: 'hola@agencia.example',
            to: 'lead@example.com',
            subject: 'Inmuebles para usted',
            text,
            html: `<p>${text}</p>`,
          });
        }
      }),
    );
    const baselineRate = BASELINE_MESSAGES / ((performance.now() - baselineStarted) / 1000);
    transport.close();

    const before = process.memoryUsage().rss;
    let peak = before;
    const rss = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
    const counted = sink.count();
    const started = performance.now();
    const worker = new Worker({ db, settings: { pollMs: 20 }, outbound: OUTBOUND });
    worker.start();
    while (sink.count() - counted < digests) await new Promise((resolve) => setTimeout(resolve, 100));
    const took = performance.now() - started;
    await worker.stop();
    clearInterval(rss);
    const rate = digests / (took / 1000);
    return [
      `  sent: ${digests.toLocaleString('en')} digests through a real SMTP server in ${ms(took)} (${rate.toFixed(0)}/s); the server's pace with nodemailer, ${SENDERS} at a time: ${baselineRate.toFixed(0)}/s, so ${(rate / baselineRate).toFixed(2)}× it; RSS ${mib(before)} before, peak ${mib(peak)}`,
    ];
  } finally {
    await sink.close();
  }
}

/** One engine's lines of the report. */
async function onEngine(engine: string, url: string): Promise<string[]> {
  const db = createDb(url);
  try {
    await migrate(db);
    const business = await insertBusiness(db, 'Agencia de las alertas', nowRfc3339());
    const catalogue = [...generateCatalogue(CATALOGUE)].map((record) => JSON.stringify(record));
    await importCatalogueLines(db, business.id, catalogue);
    await seedLeads(db, business.id);
    // The business sends e-mail (its own server's settings; nothing is sent here).
    const at = nowRfc3339();
    await db
      .insertInto('email_settings')
      .values({
        business_id: business.id,
        host: 'smtp.example.com',
        port: 587,
        security: 'starttls',
        username: null,
        password: null,
        from_address: 'hola@agencia.example',
        reply_to: null,
        connected_at: at,
        updated_at: at,
      })
      .execute();
    // The seed's own catalogue change queued a re-match of everyone: not the change measured.
    await db.deleteFrom('jobs').execute();
    if (engine === 'postgres') await sql`analyze`.execute(db);

    // Baseline: every lead's searches against the snapshot the change will give, in a loop.
    const leads = await db.selectFrom('leads').select('search_preferences').where('business_id', '=', business.id).execute();

    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    // A timer's lateness too, sampled every 10 ms: what a request arriving meanwhile waits.
    const late: number[] = [];
    let expected = performance.now() + 10;
    const sampler = setInterval(() => {
      const now = performance.now();
      late.push(Math.max(0, now - expected));
      expected = now + 10;
    }, 10);
    const started = performance.now();
    await importCatalogueLines(db, business.id, [JSON.stringify(TERUEL)]);
    await db.updateTable('jobs').set({ run_at: nowRfc3339() }).where('kind', '=', 'rematch_catalogue').execute();
    // The worker's own loop, as `inmo serve` runs it beside the API, until no job is left.
    const worker = new Worker({ db, settings: { pollMs: 20 } });
    worker.start();
    await new Promise<void>((resolve) => {
      const look = setInterval(async () => {
        const [{ n }] = await db
          .selectFrom('jobs')
          .select(sql<number>`count(*)`.as('n'))
          .where('state', 'in', ['pending', 'running'])
          .where('kind', 'in', ['rematch_catalogue', 'match_lead'])
          .execute();
        if (Number(n) === 0) {
          clearInterval(look);
          resolve();
        }
      }, 50);
    });
    const queued = performance.now() - started;
    delay.disable();
    clearInterval(sampler);
    late.sort((x, y) => x - y);
    await worker.stop();
    const [{ n: ran }] = await db
      .selectFrom('jobs')
      .select(sql<number>`count(*)`.as('n'))
      .where('state', '=', 'done')
      .execute();
    const [{ n: candidates }] = await db
      .selectFrom('alert_candidates')
      .select(sql<number>`count(*)`.as('n'))
      .execute();

    const snapshot = await new CatalogueSnapshots().get(db, business.id);
    const matchStarted = performance.now();
    let matched = 0;
    for (const lead of leads) if (matchSearchPreferences(lead.search_preferences, snapshot, 200).matches.length > 0) matched++;
    const matchOnly = performance.now() - matchStarted;

    const composeStarted = performance.now();
    const digests = await composeDigests(db, business.id, '2026-11-28', nowRfc3339());
    const composed = performance.now() - composeStarted;

    const send = await sendDigests(db, business.id, digests.length);

    const p99 = delay.percentile(99) / 1e6;
    return [
      `${engine}: ${LEADS.toLocaleString('en')} searching leads, ${CATALOGUE.toLocaleString('en')} listings; one listing imported that ${MATCHING.toLocaleString('en')} of them want`,
      `  queued: ${ms(queued)} from the import to a drained queue (${Number(ran).toLocaleString('en')} jobs, ${(Number(ran) / (queued / 1000)).toFixed(0)} jobs/s), ${Number(candidates).toLocaleString('en')} alert candidates (target: under 10 s)`,
      `  event loop delay meanwhile: p99 ${p99.toFixed(1)} ms, max ${(delay.max / 1e6).toFixed(1)} ms (${delay.count} samples); a 10 ms timer late by p99 ${(late[Math.floor(late.length * 0.99)] ?? 0).toFixed(1)} ms, max ${(late.at(-1) ?? 0).toFixed(1)} ms (${late.length} samples; target: p99 under 50 ms)`,
      `  baseline, the matching alone (${leads.length.toLocaleString('en')} leads against the snapshot, no job, read or write): ${ms(matchOnly)}, ${matched.toLocaleString('en')} matched; the queue took ${(queued / matchOnly).toFixed(1)}× that`,
      `  composed: ${digests.length.toLocaleString('en')} digests (message, items, send_alert job each) in ${ms(composed)}`,
      ...send,
    ];
  } finally {
    await db.destroy();
  }
}

/** The report: SQLite, then PostgreSQL when it answers. */
export async function alertsBench(work: string): Promise<string[]> {
  const sqlitePath = join(work, 'alerts.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(sqlitePath + suffix, { force: true });
  const engines: Array<[string, string | null]> = [
    ['sqlite', `sqlite:${sqlitePath}`],
    ['postgres', await emptyPostgresSchema('alerts')],
  ];
  const lines = [`alerts: a catalogue change reaching ${MATCHING.toLocaleString('en')} of ${LEADS.toLocaleString('en')} searching leads`];
  for (const [engine, url] of engines) {
    lines.push('');
    if (url === null) lines.push(`${engine}: skipped, the server did not answer (INMO_BENCH_POSTGRES_URL)`);
    else lines.push(...(await onEngine(engine, url)));
  }
  return lines;
}
