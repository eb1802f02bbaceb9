/**
 * The operator CLI `inmo` (CONTRACT §9). Every command takes `--json`: one JSON document on
 * stdout, and on failure `{"error": "..."}` with exit code 1. The database comes from
 * `DATABASE_URL` (default `sqlite:./data/inmo.db`).
 */
import { stat } from 'node:fs/promises';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import cliProgress from 'cli-progress';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createDb, migrate, type Db } from './db/database.ts';
import { insertBusiness } from './db/repositories/businesses.ts';
import { parseScopes, SCOPES } from './domain/api-key.ts';
import { nowRfc3339, parseRfc3339 } from './domain/time.ts';
import { seedDemo } from './demo/seed.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './services/api-keys.ts';
import { importCatalogueFile } from './services/catalogue-import.ts';
import { createLeadByHand, showLead } from './services/leads.ts';
import { connectChannel, PROVIDERS } from './services/channels.ts';
import { dueFollowUps, LEAD_TYPES, markFollowUpDone, setFollowUpRule } from './services/follow-ups.ts';
import { listJobs } from './db/repositories/jobs.ts';
import { Worker } from './jobs/worker.ts';
import pino from 'pino';

/** An error to show the operator as it is (no stack trace). */
class CliError extends Error {}

const port = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number (0 picks a free one)');
  return n;
};

const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};

function print(json: boolean, value: unknown, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

/** Opens and migrates the database, runs `work`, closes the database. */
async function withDb<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = createDb(config.databaseUrl, config.pool);
  try {
    await migrate(db);
    return await work(db);
  } finally {
    await db.destroy();
  }
}

/** Runs a command's action, turning failures into the documented error output. */
function action<A extends unknown[]>(fn: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    const command = args[args.length - 1] as Command;
    const json = Boolean(command.optsWithGlobals().json);
    try {
      await fn(...args);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (json) process.stdout.write(`${JSON.stringify({ error: message })}\n`);
      else process.stderr.write(`error: ${message}\n`);
      process.exitCode = 1;
    }
  };
}

/** Commander's own errors (unknown option, missing argument) follow `--json` too. */
const wantsJson = process.argv.includes('--json');

const program = new Command('inmo')
  .description('Operator CLI of inmo, the external API of a real-estate agency workspace')
  .option('--json', 'print one JSON document on stdout')
  .exitOverride()
  .configureOutput({ writeErr: (text) => (wantsJson ? undefined : process.stderr.write(text)) })
  .showHelpAfterError();

program
  .command('serve')
  .description('migrate the database and serve /v1/ext')
  .option('--port <port>', 'TCP port', port, 8080)
  .option('--host <host>', 'interface to listen on', '127.0.0.1')
  .option('--demo', 'on an empty database, create a demo business, catalogue and key')
  .option('--no-worker', 'run no background worker in this process (run `inmo worker` elsewhere)')
  .action(
    action(async (opts: { port: number; host: string; demo?: boolean; worker: boolean }, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      const config = loadConfig();
      const db = createDb(config.databaseUrl, config.pool);
      await migrate(db);
      let worker: Worker | null = null;
      const app = await buildApp({
        db,
        countCacheSize: config.countCacheSize,
        pageCacheMb: config.pageCacheMb,
        // Request logs never carry a key, even if a serializer someday logs headers.
        logger: { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers["x-api-key"]'] },
        rateLimits: config.rateLimits,
        trustProxy: config.trustProxy,
        onJobsQueued: () => worker?.wake(),
      });
      if (opts.worker) {
        worker = new Worker({ db, settings: config.worker, logger: app.log.child({ component: 'worker' }) });
        worker.start();
      }
      // The demo is in place before the first request can arrive.
      const demo = opts.demo ? await seedDemo(db) : {};
      const address = await app.listen({ port: opts.port, host: opts.host });
      const base = `${address.replace('0.0.0.0', '127.0.0.1')}/v1/ext`;
      const info: Record<string, unknown> = { url: base, docs: `${base}/docs`, ...demo };
      const lines = [`inmo is serving ${base}`, `  docs:    ${base}/docs`];
      if (opts.demo && info.key) {
        lines.push(
          `  demo business #${info.business_id} with ${info.properties} properties`,
          `  demo key (all scopes, shown once): ${info.key}`,
          '',
          `  try:  curl -H 'X-Api-Key: ${info.key}' '${base}/properties?limit=2'`,
        );
      } else if (opts.demo) {
        lines.push(
          `  the database already has data; create a key with:`,
          `    npx inmo keys create --business ${info.business_id ?? 1} --scopes ${SCOPES.join(',')}`,
        );
      }
      print(json, info, lines.join('\n'));
      // SIGTERM: stop taking requests and jobs, let the running ones finish, then exit. A second
      // signal while stopping is ignored: it must not cut a commit short.
      let stopping = false;
      const stop = async () => {
        if (stopping) return;
        stopping = true;
        try {
          // Requests in flight and their writes finish (onClose), running jobs finish.
          const results = await Promise.allSettled([app.close(), worker?.stop()]);
          for (const r of results) if (r.status === 'rejected') app.log.error({ err: r.reason }, 'error while stopping');
          process.exitCode = results.some((r) => r.status === 'rejected') ? 1 : 0;
        } finally {
          await db.destroy();
          process.exit();
        }
      };
      process.on('SIGINT', () => void stop());
      process.on('SIGTERM', () => void stop());
    }),
  );

program
  .command('worker')
  .description('run background jobs only (any number of workers may share a database)')
  .option('--until-idle', 'exit once no job is due or running, instead of waiting for more')
  .option('--concurrency <n>', 'jobs run at once (default INMO_WORKER_CONCURRENCY or 4)', positiveInt)
  .action(
    action(async (opts: { untilIdle?: boolean; concurrency?: number }, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      const config = loadConfig();
      const db = createDb(config.databaseUrl, config.pool);
      await migrate(db);
      const logger = pino({ level: config.logLevel });
      const settings = { ...config.worker, ...(opts.concurrency ? { concurrency: opts.concurrency } : {}) };
      const worker = new Worker({ db, settings, logger });
      if (opts.untilIdle) {
        const ran = await worker.drain();
        await db.destroy();
        print(json, { jobs_run: ran }, `ran ${ran} jobs; none is due`);
        return;
      }
      logger.info({ worker: worker.id, concurrency: settings.concurrency }, 'worker started');
      worker.start();
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      logger.info({ worker: worker.id }, 'worker stopping: letting running jobs finish');
      await worker.stop();
      await db.destroy();
    }),
  );

const jobs = program.command('jobs').description('background jobs');
jobs
  .command('list')
  .option('--state <state>', 'only jobs in this state: pending, running, done, failed')
  .option('--business <id>', 'only this business', positiveInt)
  .option('--limit <n>', 'most jobs listed, newest first', positiveInt, 100)
  .action(
    action(async (opts: { state?: string; business?: number; limit: number }, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      if (opts.state !== undefined && !['pending', 'running', 'done', 'failed'].includes(opts.state)) {
        throw new CliError('--state must be one of: pending, running, done, failed');
      }
      const list = await withDb((db) => listJobs(db, { state: opts.state, businessId: opts.business, limit: opts.limit }));
      const human = list
        .map(
          (j) =>
            `#${j.id}  ${j.kind.padEnd(19)} lead ${String(j.lead_id ?? '-').padEnd(6)} ${j.state.padEnd(7)} attempts ${j.attempts}  run at ${j.run_at}` +
            (j.last_error ? `\n    ${j.last_error}` : ''),
        )
        .join('\n');
      print(json, list, human || 'no jobs');
    }),
  );

const channel = program.command('channel').description('the messaging channel of a business');
channel
  .command('connect')
  .description('connect a WhatsApp Cloud API channel; each new lead gets the template once')
  .requiredOption('--business <id>', 'business id', positiveInt)
  .requiredOption('--provider <provider>', PROVIDERS.join(', '))
  .requiredOption('--phone-number-id <id>', 'the WhatsApp business phone number id')
  .requiredOption('--token-env <var>', 'name of the environment variable holding the access token (the token is never printed)')
  .requiredOption('--template <name>', 'approved template name')
  .option('--base-url <url>', 'Graph API base, version included (default https://graph.facebook.com/v21.0)')
  .option(
    '--language <code=lang>',
    'template language for a preferred_language, e.g. gb=en_GB (repeatable; defaults es=es gb=en fr=fr ge=de it=it)',
    (value: string, previous: Record<string, string>) => {
      const match = /^([a-z]{2})=([A-Za-z_]{2,10})$/.exec(value);
      if (!match) throw new InvalidArgumentError('must look like gb=en_GB');
      return { ...previous, [match[1]]: match[2] };
    },
    {},
  )
  .action(
    action(
      async (
        opts: {
          business: number;
          provider: string;
          phoneNumberId: string;
          tokenEnv: string;
          template: string;
          baseUrl?: string;
          language: Record<string, string>;
        },
        command: Command,
      ) => {
        const json = Boolean(command.optsWithGlobals().json);
        const connected = await withDb((db) =>
          connectChannel(db, {
            businessId: opts.business,
            provider: opts.provider,
            phoneNumberId: opts.phoneNumberId,
            tokenEnv: opts.tokenEnv,
            template: opts.template,
            baseUrl: opts.baseUrl,
            languages: opts.language,
          }),
        ).catch((error: Error) => {
          throw new CliError(error.message);
        });
        print(
          json,
          connected,
          `connected ${connected.provider} for business #${connected.business_id}: template ${connected.template}, ${connected.token}`,
        );
      },
    ),
  );

const followups = program.command('followups').description('follow-ups of inquiry leads');
followups
  .command('rules')
  .description('set the follow-up period of a lead type (searching demandantes follow 30/90 days)')
  .requiredOption('--business <id>', 'business id', positiveInt)
  .requiredOption('--type <type>', LEAD_TYPES.join(', '))
  .requiredOption('--every-days <n>', 'days between follow-ups', positiveInt)
  .action(
    action(async (opts: { business: number; type: string; everyDays: number }, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      const rule = await withDb((db) => setFollowUpRule(db, opts.business, opts.type, opts.everyDays)).catch((error: Error) => {
        throw new CliError(error.message);
      });
      print(json, rule, `business #${rule.business_id}: ${rule.type} leads are followed up every ${rule.every_days} days`);
    }),
  );
followups
  .command('due')
  .description('follow-ups that have come due, oldest first')
  .option('--business <id>', 'only this business', positiveInt)
  .action(
    action(async (opts: { business?: number }, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      const due = await withDb((db) => dueFollowUps(db, { businessId: opts.business }));
      const human = due
        .map(
          (f) => `#${f.id}  due ${f.due_at}  lead #${f.lead_id} ${f.name ?? '(no name)'} ${f.phone_number_1}  every ${f.every_days} days`,
        )
        .join('\n');
      print(json, due, human || 'no follow-up is due');
    }),
  );
followups
  .command('done')
  .description('mark a due follow-up as done')
  .argument('<follow_up_id>', 'follow-up id', positiveInt)
  .action(
    action(async (id: number, _opts, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      if (!(await withDb((db) => markFollowUpDone(db, id)))) throw new CliError(`Follow-up ${id} is not due`);
      print(json, { id, state: 'done' }, `follow-up #${id} done`);
    }),
  );

program
  .command('migrate')
  .description('bring the database schema up to date')
  .action(
    action(async (_opts, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      const config = loadConfig();
      const db = createDb(config.databaseUrl, config.pool);
      try {
        const applied = await migrate(db);
        print(json, { applied }, applied.length ? `applied: ${applied.join(', ')}` : 'the schema is up to date');
      } finally {
        await db.destroy();
      }
    }),
  );

const business = program.command('business').description('businesses (workspaces)');
business
  .command('create')
  .requiredOption('--name <name>', 'business name')
  .action(
    action(async (opts: { name: string }, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      if (!opts.name.trim()) throw new CliError('--name must not be blank');
      const row = await withDb((db) => insertBusiness(db, opts.name.trim(), nowRfc3339()));
      print(json, row, `created business #${row.id} ${row.name}`);
    }),
  );

const keys = program.command('keys').description('API keys');
keys
  .command('create')
  .requiredOption('--business <id>', 'business id', positiveInt)
  .requiredOption('--scopes <list>', `comma-separated: ${SCOPES.join(',')}`)
  .option('--name <label>', 'a label for the key')
  .option('--expires-at <iso>', 'RFC 3339 expiry, e.g. 2027-01-01T00:00:00Z')
  .action(
    action(async (opts: { business: number; scopes: string; name?: string; expiresAt?: string }, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      let scopes;
      try {
        scopes = parseScopes(opts.scopes);
      } catch (error) {
        throw new CliError((error as Error).message);
      }
      let expiresAt: string | null = null;
      if (opts.expiresAt !== undefined) {
        expiresAt = parseRfc3339(opts.expiresAt);
        if (expiresAt === null) throw new CliError('--expires-at must be an RFC 3339 timestamp with an offset');
      }
      const key = await withDb((db) => createApiKey(db, { businessId: opts.business, scopes, label: opts.name, expiresAt }));
      print(json, key, `${key.key}\n(key id ${key.key_id}; scopes ${key.scopes.join(', ')}; shown once: store it now)`);
    }),
  );
keys
  .command('list')
  .requiredOption('--business <id>', 'business id', positiveInt)
  .action(
    action(async (opts: { business: number }, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      const list = await withDb((db) => listApiKeys(db, opts.business));
      const human = list
        .map((k) => {
          const state = k.revoked_at ? 'revoked' : k.expires_at && Date.parse(k.expires_at) <= Date.now() ? 'expired' : 'active';
          return `${k.key_id}  ${state.padEnd(7)}  ${k.scopes.join(',')}  ${k.name ?? ''}  last used ${k.last_used_at ?? 'never'}`;
        })
        .join('\n');
      print(json, list, human || 'no keys');
    }),
  );
keys
  .command('revoke')
  .argument('<key_id>', 'the key id (the 16 characters after AC_LIVE_)')
  .action(
    action(async (keyId: string, _opts, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      const key = await withDb((db) => revokeApiKey(db, keyId));
      if (!key) throw new CliError(`No key with id ${keyId}`);
      print(json, key, `revoked ${key.key_id} at ${key.revoked_at}`);
    }),
  );

const properties = program.command('properties').description('the property catalogue');
properties
  .command('import')
  .requiredOption('--business <id>', 'business id', positiveInt)
  .argument('<file>', 'NDJSON file in the import format')
  .action(
    action(async (file: string, opts: { business: number }, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      const size = (
        await stat(file).catch(() => {
          throw new CliError(`Cannot read ${file}`);
        })
      ).size;
      const bar =
        process.stderr.isTTY && !json
          ? new cliProgress.SingleBar(
              { format: 'importing |{bar}| {percentage}% | {lines} lines | {eta_formatted} left', stream: process.stderr },
              cliProgress.Presets.shades_classic,
            )
          : null;
      bar?.start(size, 0, { lines: 0 });
      const started = performance.now();
      const summary = await withDb((db) =>
        importCatalogueFile(db, opts.business, file, (lines, bytes) => bar?.update(Math.min(bytes, size), { lines })),
      ).finally(() => bar?.stop());
      const seconds = (performance.now() - started) / 1000;
      const rejected = summary.rejected.map((r) => `  line ${r.line}: ${r.reason}`).join('\n');
      print(
        json,
        summary,
        `created ${summary.created}, updated ${summary.updated}, rejected ${summary.rejected.length} in ${seconds.toFixed(1)} s` +
          (rejected ? `\n${rejected}` : ''),
      );
    }),
  );

const leads = program.command('leads').description('leads');
leads
  .command('create')
  .description('record a lead by hand (it may have no name)')
  .requiredOption('--business <id>', 'business id', positiveInt)
  .requiredOption('--phone <phone>', 'phone; without + it is read as Spanish')
  .option('--name <name>', 'contact name')
  .action(
    action(async (opts: { business: number; phone: string; name?: string }, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      const lead = await withDb((db) => createLeadByHand(db, { businessId: opts.business, phone: opts.phone, name: opts.name }));
      const shown = { ...lead, active: lead.active === 1 };
      print(json, shown, `created lead #${lead.id} ${lead.phone_number_1}${lead.name ? ` ${lead.name}` : ''}`);
    }),
  );
leads
  .command('show')
  .argument('<lead_id>', 'lead id', positiveInt)
  .action(
    action(async (id: number, _opts, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      const shown = await withDb((db) => showLead(db, id));
      if (!shown) throw new CliError(`No lead with id ${id}`);
      const l = shown.lead;
      const human = [
        `lead #${l.id} ${l.name ?? '(no name)'} ${l.phone_number_1}`,
        `  type ${l.type}, status ${l.status}, rating ${l.rating}, source ${l.source ?? '-'}, created ${l.created_at}`,
        ...shown.notes.map((n) => `  note ${n.created_at}:\n    ${n.text.replace(/\n/g, '\n    ')}`),
        shown.matching
          ? `  matched ${shown.matching.matched_at} (catalogue v${shown.matching.catalogue_version}): ${shown.matching.matches_total} matches, ${shown.matching.near_misses_total} near misses` +
            (shown.matches.length ? `\n    properties ${shown.matches.map((m) => m.property_id).join(', ')}` : '')
          : '  not matched yet',
        shown.message
          ? `  message ${shown.message.state} (template ${shown.message.template}, ${shown.message.language})${shown.message.last_error ? `: ${shown.message.last_error}` : ''}`
          : '  no message (no channel was connected)',
        ...shown.follow_ups.map((f) => `  follow-up due ${f.due_at} (every ${f.every_days} days): ${f.state}`),
      ].join('\n');
      print(json, shown, human);
    }),
  );

await program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return;
    if (wantsJson) process.stdout.write(`${JSON.stringify({ error: error.message.replace(/^error: /, '') })}\n`);
    process.exitCode = error.exitCode || 1;
    return;
  }
  process.stderr.write(`error: ${(error as Error).message}\n`);
  process.exitCode = 1;
});
