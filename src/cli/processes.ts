/**
 * What `inmo serve` does (CONTRACT §9, §11): the server, its worker and the demo. Loaded only
 * when it runs (cli/serve.ts registers it), so that the other commands start without the
 * server's code; `inmo worker` and `inmo migrate` are in cli/worker-process.ts.
 */
import { mediaStoreOf } from '../media/store.ts';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../app.ts';
import { derivedKey } from '../secrets.ts';
import { loadConfig } from '../config.ts';
import type { Db } from '../db/database.ts';
import { demoSeeded, seedDemo } from '../demo/seed.ts';
import { storeDemoPhotos } from '../demo/photos.ts';
import type { MediaStore } from '../media/store.ts';
import { PUBLISHABLE_SCOPES, SCOPES } from '../domain/access/api-key.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../services/access/api-keys.ts';
import { serveMetricsOn } from '../http/operability.ts';
import { Worker } from '../jobs/worker.ts';
import { checkpointOffThread } from '../db/checkpoints.ts';
import { cli, CliError, openDb, print } from './common.ts';
import { followMediaBase } from '../services/catalogue/media-base.ts';
import { nowRfc3339 } from '../domain/time.ts';
import { metricsAddress, onShutdownSignal } from './worker-process.ts';
import type { InboundSmtp } from '../channels/smtp-inbound.ts';

/**
 * Bytes of log lines gathered before they are written to stdout, and the most written at once.
 * Each write is a trip through libuv's thread pool: at 4 KiB (20 request lines) it cost about
 * 0.9 µs a line more than at 32 KiB, a twentieth of a cached read (issue 32).
 */
const LOG_WRITE_BYTES = 32 * 1024;
const LOG_MAX_WRITE = 64 * 1024;
/** Longest a log line waits in memory before it is written, ms. */
const LOG_FLUSH_MS = 250;

/** Longest wait for the log lines still buffered to be written when stopping, ms. */
const LOG_DRAIN_MS = 5000;

/**
 * Writes out every log line still buffered, including one whose write is waiting for a full
 * pipe to drain (which `flushSync` would skip), then closes the destination.
 */
function endLogs(logs: ReturnType<typeof pino.destination>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, LOG_DRAIN_MS);
    logs.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    logs.end();
  });
}

/**
 * Listens on the API's address, then on the metrics port when it has its own.
 * @throws CliError naming the address that failed, once everything opened is closed again:
 *   nothing may keep a process alive that cannot serve, or a supervisor never restarts it.
 */
async function listenOrClose(
  app: FastifyInstance,
  db: Db,
  api: { host: string; port: number },
  metricsAt: { host: string; port: number } | null,
): Promise<{ address: string; metrics: FastifyInstance | null }> {
  let metrics: FastifyInstance | null = null;
  let where = api;
  try {
    const address = await app.listen(api);
    if (metricsAt) {
      where = metricsAt;
      metrics = await serveMetricsOn(db, metricsAt.host, metricsAt.port);
    }
    return { address, metrics };
  } catch (error) {
    await Promise.allSettled([app.close(), metrics?.close()]);
    await db.destroy();
    throw new CliError(`cannot listen on ${where.host}:${where.port}: ${(error as Error).message}`);
  }
}

/** `inmo serve`: migrates, serves /v1/ext and the console, runs the worker; returns once it listens. */
export async function serve(opts: { port?: number; host?: string; demo?: boolean; worker: boolean }): Promise<void> {
  const config = loadConfig(cli.env);
  const listenOn = { host: opts.host ?? config.listen.host, port: opts.port ?? config.listen.port };
  const db = await openDb(config);
  let worker: Worker | null = null;
  // Log lines are written to stdout asynchronously, off the request path, up to 32 KiB at a
  // time (one write per line cost a quarter of a cached read, issue 32), and at least every
  // LOG_FLUSH_MS; and flushed before the process exits (below), so a SIGTERM loses none.
  const logs = pino.destination({ dest: 1, sync: false, minLength: LOG_WRITE_BYTES, maxWrite: LOG_MAX_WRITE });
  // Stopped before the destination ends (below): a flush after that throws.
  const flushLogs = setInterval(() => logs.flush(), LOG_FLUSH_MS).unref();
  process.once('exit', () => {
    try {
      logs.flushSync();
    } catch {
      // Nothing written yet (the destination not open): nothing to lose.
    }
  });
  const store = mediaStoreOf(config.media);
  const app = await buildApp({
    db,
    countCacheSize: config.countCacheSize,
    pageCacheMb: config.pageCacheMb,
    // Request logs never carry a key, even if a serializer someday logs headers.
    logger: { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers["x-api-key"]'], stream: logs },
    rateLimits: config.rateLimits,
    limits: config.limits,
    trustProxy: config.trustProxy,
    onJobsQueued: () => worker?.wake(),
    metrics: !config.metrics.enabled ? 'off' : config.metrics.port === null ? 'served' : 'counted',
    metricsToken: config.metrics.token,
    publicUrl: config.publicUrl,
    consoleCsrfKey: derivedKey('inmo console CSRF binding', cli.env),
    outbound: config.outbound,
    development: config.development,
    media: { store, publicUrl: config.media.publicUrl },
    feedMaxBytes: config.worker.feedMaxBytes,
    pullWithdrawMaxShare: config.worker.pullWithdrawMaxShare,
    inboundSmtp: config.inboundSmtp,
  });
  const { port: metricsPort, host: metricsHost } = config.metrics;
  const metricsAt = config.metrics.enabled && metricsPort !== null ? { host: metricsHost, port: metricsPort } : null;
  const { address, metrics } = await listenOrClose(app, db, listenOn, metricsAt);
  // E-mail by SMTP (CONTRACT §25), when configured: started once HTTP listens, stopped with it.
  let inboundSmtp: InboundSmtp | null = null;
  if (config.inboundSmtp) {
    const { startInboundMail } = await import('../services/leads/inbound-smtp.ts');
    try {
      inboundSmtp = await startInboundMail(db, config.inboundSmtp, {
        host: listenOn.host,
        onJobsQueued: () => worker?.wake(),
        onError: (error) => app.log.error({ err: error, component: 'smtp-inbound' }, 'an e-mail received by SMTP could not be stored'),
      });
    } catch (error) {
      await Promise.allSettled([app.close(), metrics?.close()]);
      await db.destroy();
      const where = `${config.inboundSmtp.host ?? listenOn.host}:${config.inboundSmtp.port}`;
      throw new CliError(`cannot receive e-mail by SMTP on ${where}: ${(error as Error).message}`);
    }
  }
  // Links are written with the address a connection reached when no public URL is set
  // (http/origin.ts): right on this machine, an internal address for anyone else. Said on
  // stderr at once, for the operator starting it (a log line could still be buffered).
  if (config.publicUrl === null && !/^(127\.|localhost$|::1$|\[::1\]$)/.test(listenOn.host)) {
    cli.stderr.write(
      'warning: INMO_PUBLIC_URL is not set: photo URLs, set-password links and feed URLs are written with the address each connection reached; set it to the public origin\n',
    );
  }
  // The demo is seeded once the server's address is known: its photos are linked there
  // (src/demo/photos.ts). It is in place before the address is printed.
  const origin = address.replace('0.0.0.0', '127.0.0.1');
  // Photos stored under an earlier address (another port, host or bucket URL) are linked under
  // this one before anyone is told where to look (services/catalogue/media-base.ts).
  const mediaBase = config.media.publicUrl ?? `${config.publicUrl ?? origin}/media`;
  const moved = await followMediaBase(db, store, mediaBase, nowRfc3339());
  if (moved.photos > 0) app.log.info({ ...moved, to: mediaBase }, 'photo links moved to the media address of this start');
  const seeded = opts.demo ? await seedDemoWithPhotos(db, store, mediaBase) : null;
  const demo = seeded ?? {};
  // SQLite's WAL is copied back by a thread, not inside the commits of requests (db/checkpoints.ts);
  // without the thread, SQLite checkpoints in the commits as it always does.
  const onStopped = (reason: string) => app.log.warn({ reason }, 'SQLite checkpoints are back in the commits');
  const checkpoints = await checkpointOffThread(db, { onStopped }).catch((error: Error) => {
    onStopped(`the checkpoint thread did not start: ${error.message}`);
    return null;
  });
  if (opts.worker) {
    worker = new Worker({ db, settings: config.worker, outbound: config.outbound, logger: app.log.child({ component: 'worker' }) });
    worker.start();
  }
  const base = `${origin}/v1/ext`;
  const metricsUrl = !config.metrics.enabled ? undefined : (metricsAddress(metrics) ?? `${origin}/metrics`);
  // The website kit's demo page needs a publishable key for this server's own origin, on every
  // start: the port or host may have changed since the last one.
  const embedKey = seeded && seeded.business_id !== null ? await demoWebsiteKey(db, seeded.business_id, origin) : null;
  const info: Record<string, unknown> = {
    url: base,
    docs: `${base}/docs`,
    console: `${origin}/console`,
    health: `${origin}/healthz`,
    metrics: metricsUrl,
    ...(inboundSmtp && config.inboundSmtp ? { smtp_inbound: { port: inboundSmtp.port, domain: config.inboundSmtp.domain } } : {}),
    ...demo,
    ...(embedKey ? { embed_demo: `${origin}/embed/demo?key=${embedKey.key}` } : {}),
  };
  const lines = [
    `inmo is serving ${base}`,
    `  docs:    ${base}/docs`,
    `  console: ${origin}/console (a user for it: npx inmo users create --business ID --email E --role owner)`,
    `  health:  ${origin}/healthz, ${origin}/readyz`,
  ];
  if (metricsUrl) lines.push(`  metrics: ${metricsUrl}`);
  if (inboundSmtp && config.inboundSmtp)
    lines.push(
      `  e-mail:  SMTP on port ${inboundSmtp.port} for <address>@${config.inboundSmtp.domain} (each business's on its console e-mail page)`,
    );
  if (opts.demo && info.key) {
    lines.push(
      `  demo business #${info.business_id} with ${info.properties} properties`,
      `  demo key (all scopes, shown once): ${info.key}`,
      `  console owner ${info.owner_email}: choose a password at ${origin}${info.set_password_url} (once, within 24 h)`,
      `  website kit demo: ${info.embed_demo}`,
      '',
      `  try:  curl -H 'X-Api-Key: ${info.key}' '${base}/properties?limit=2'`,
    );
  } else if (opts.demo) {
    if (info.embed_demo) lines.push(`  website kit demo: ${info.embed_demo}`);
    lines.push(
      `  the database already has data; create a key with:`,
      `    npx inmo keys create --business ${info.business_id ?? 1} --scopes ${SCOPES.join(',')}`,
    );
  }
  print(info, lines.join('\n'));
  // SIGTERM: stop taking requests and jobs, let the running ones finish, then exit.
  onShutdownSignal(async () => {
    try {
      // Requests in flight and their writes finish (onClose), running jobs finish.
      // SMTP sessions under way end (cut after 30 s) and the messages being stored are stored.
      const results = await Promise.allSettled([app.close(), metrics?.close(), inboundSmtp?.close(), worker?.stop()]);
      for (const r of results) if (r.status === 'rejected') app.log.error({ err: r.reason }, 'error while stopping');
      process.exitCode = results.some((r) => r.status === 'rejected') ? 1 : 0;
    } finally {
      await checkpoints?.stop();
      await db.destroy();
      clearInterval(flushLogs);
      await endLogs(logs);
      process.exit();
    }
  });
}

/** `inmo worker`: runs background jobs until SIGTERM, or `--until-idle` until none is due. */
/**
 * The demo of `--demo` on an empty database, its photos stored and linked under `mediaBase`
 * (`…/media` on this server, or `INMO_MEDIA_PUBLIC_URL`); a database with data is left alone.
 */
/** The label of the demo's website kit key, made again at each start. */
const DEMO_WEBSITE_KEY = 'demo website';

/**
 * A publishable key for the website kit's demo page on this server's `origin` (and its
 * `localhost` spelling): the previous start's is revoked, so a moved port or host never leaves
 * the demo answering 403, and keys do not pile up.
 */
async function demoWebsiteKey(db: Db, businessId: number, origin: string) {
  for (const key of await listApiKeys(db, businessId)) {
    if (key.name === DEMO_WEBSITE_KEY && key.kind === 'publishable' && key.revoked_at === null)
      await revokeApiKey(db, key.key_id, businessId);
  }
  return createApiKey(db, {
    businessId,
    scopes: [...PUBLISHABLE_SCOPES],
    label: DEMO_WEBSITE_KEY,
    origins: [origin, origin.replace('127.0.0.1', 'localhost')],
  });
}

async function seedDemoWithPhotos(db: Db, store: MediaStore, mediaBase: string) {
  if (await demoSeeded(db)) return seedDemo(db);
  const keys = await storeDemoPhotos(store);
  return seedDemo(db, { photoUrls: keys.map((key) => `${mediaBase.replace(/\/+$/, '')}/${key}`) });
}
