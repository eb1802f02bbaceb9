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
  const db = createDb(config.databaseUrl);
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
  .option('--no-worker', 'run no background worker in this process (this build runs none yet: jobs wait in the jobs table)')
  .action(
    action(async (opts: { port: number; host: string; demo?: boolean }, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      const config = loadConfig();
      const db = createDb(config.databaseUrl);
      await migrate(db);
      const app = await buildApp({
        db,
        countCacheSize: config.countCacheSize,
        pageCacheMb: config.pageCacheMb,
        logger: { level: config.logLevel },
      });
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
      const stop = async () => {
        await app.close();
        await db.destroy();
        process.exit(0);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    }),
  );

program
  .command('migrate')
  .description('bring the database schema up to date')
  .action(
    action(async (_opts, command: Command) => {
      const json = Boolean(command.optsWithGlobals().json);
      const config = loadConfig();
      const db = createDb(config.databaseUrl);
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
