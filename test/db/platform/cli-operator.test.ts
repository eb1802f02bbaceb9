/**
 * The operator CLI as an operator meets it (CONTRACT §9, §11): help and version, refusals
 * that say what is wrong and change nothing, the import report and its exit status, and a
 * `serve` that exits when it cannot listen.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { EXIT_IMPORTED_WITH_REJECTIONS } from '../../../src/cli/properties.ts';
import { buildProgram } from '../../../src/cli/program.ts';
import { inmo, inmoBin, inmoProcess } from '../../helpers/cli.ts';
import { INMO_ENTRY } from '../../helpers/processes.ts';
import { ENGINE, freshDatabaseUrl, listing, REPO_ROOT } from '../../helpers/db.ts';

let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inmo-cli-'));
  env = { ...process.env, DATABASE_URL: await freshDatabaseUrl(), LOG_LEVEL: 'warn' };
  expect((await inmo(env, 'business', 'create', '--name', 'Inmobiliaria Sol', '--json')).code).toBe(0);
});

/** Every command that runs an action (`keys create`, `feeds publish`…), with its path. */
function leafCommands(command: Command = buildProgram(), path: string[] = []): Array<[string, Command]> {
  if (command.commands.length === 0) return [[path.join(' '), command]];
  // A command with subcommands may run an action of its own too (`feeds publish`).
  const own = (command as unknown as { _actionHandler: unknown })._actionHandler ? [[path.join(' '), command] as [string, Command]] : [];
  return [...own, ...command.commands.flatMap((sub) => leafCommands(sub, [...path, sub.name()]))];
}

describe('help and version', () => {
  it('a reader that stops early (`inmo … --help | head -1`) ends the command quietly, with status 0, not a crash on EPIPE', async () => {
    const child = spawn(process.execPath, [INMO_ENTRY, 'keys', 'create', '--help'], { env, cwd: REPO_ROOT });
    // The pipe is closed before the process has started, so its first write finds no reader.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'close')) as [number | null];
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('--version prints the version of package.json, from bin/inmo.mjs as operators run it', async () => {
    const { version } = (await import('../../../package.json', { with: { type: 'json' } })).default;
    const printed = await inmoBin(env, '--version');
    expect([printed.code, printed.stdout.trim()]).toEqual([0, version]);
  });

  it('every command has a description, takes --json, and marks its required options', () => {
    const leaves = leafCommands();
    expect(leaves.map(([name]) => name).sort()).toEqual(
      [
        'serve',
        'worker',
        'migrate',
        'business create',
        'keys create',
        'keys list',
        'keys revoke',
        'users create',
        'users list',
        'users rename',
        'users disable',
        'properties import',
        'leads create',
        'leads show',
        'leads erase',
        'audit list',
        'alerts run',
        'embed snippet',
        'jobs list',
        'jobs retry',
        'jobs schedules',
        'channel connect',
        'channel assistant',
        'conversations list',
        'conversations show',
        'conversations reply',
        'conversations resume',
        'conversations handoff',
        'webhooks add',
        'webhooks list',
        'webhooks disable',
        'webhooks rotate-secret',
        'webhooks deliveries',
        'webhooks replay',
        'followups rules',
        'followups due',
        'followups done',
        'feeds publish',
        'feeds publish list',
        'feeds publish revoke',
        'feeds pull add',
        'feeds pull list',
        'feeds pull run',
        'feeds pull remove',
        'feeds pull confirm',
        'feeds pull discard',
        'email connect',
        'email inbound',
        'email inbound list',
        'email inbound revoke',
        'email pull add',
        'email pull list',
        'email pull run',
        'email pull remove',
        'viewings calendar',
        'mandates list',
        'owners report run',
      ].sort(),
    );
    for (const [name, command] of leaves) {
      expect(command.description(), `${name} has a description`).toMatch(/\w{3}/);
      expect(
        command.options.map((o) => o.long),
        `${name} takes --json`,
      ).toContain('--json');
      for (const option of command.options.filter((o) => o.mandatory)) {
        expect(option.description, `${name} ${option.long} is marked required`).toMatch(/\(required\)$/);
      }
      expect(command.helpInformation(), name).not.toContain('(default: {})');
    }
    const connect = leaves.find(([name]) => name === 'channel connect')![1];
    expect(connect.helpInformation().replace(/\s+/g, ' ')).toContain('(default: es=es gb=en fr=fr ge=de it=it)');
  });

  it('the help of every command explains DATABASE_URL', async () => {
    for (const args of [['--help'], ['keys', 'create', '--help']]) {
      const help = await inmo(env, ...args);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(
        /DATABASE_URL {3}the database: sqlite:<path> or postgres:\/\/[^\n]*\(default sqlite:\.\/data\/inmo\.db\)/,
      );
    }
  });

  it('--json may come after the command or before it', async () => {
    expect((await inmo(env, 'keys', 'list', '--business', '1', '--json')).json).toEqual([]);
    expect((await inmo(env, '--json', 'keys', 'list', '--business', '1')).json).toEqual([]);
  });
});

describe('commands that only read', () => {
  it.skipIf(ENGINE !== 'sqlite')('refuse a SQLite file that does not exist, name it, and create nothing (sqlite only)', async () => {
    const missing = join(dir, 'typo', 'inmo.db');
    const typo = { ...env, DATABASE_URL: `sqlite:${missing}` };
    for (const args of [
      ['jobs', 'list'],
      ['keys', 'list', '--business', '1'],
      ['leads', 'show', '1'],
      ['followups', 'due'],
    ]) {
      const refused = await inmo(typo, ...args, '--json');
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.json.error).toBe(
        `No database at ${missing} (DATABASE_URL=sqlite:${missing}): check DATABASE_URL, or create it with inmo migrate`,
      );
    }
    const human = await inmo(typo, 'jobs', 'list');
    expect(human.stderr).toBe(
      `error: No database at ${missing} (DATABASE_URL=sqlite:${missing}): check DATABASE_URL, or create it with inmo migrate\n`,
    );
    expect(existsSync(join(dir, 'typo'))).toBe(false);
  });
});

describe('users and jobs', () => {
  it("users create prints CONTRACT §12's {id, email, role, set_password_url}; list and disable follow it", async () => {
    const created = await inmo(env, 'users', 'create', '--business', '1', '--email', 'Ana@Agencia.example', '--role', 'owner', '--json');
    expect(created.code).toBe(0);
    expect(Object.keys(created.json).sort()).toEqual(['email', 'id', 'role', 'set_password_url']);
    expect(created.json).toMatchObject({ email: 'ana@agencia.example', role: 'owner' });
    expect(created.json.set_password_url).toMatch(/^\/console\/set-password\/[A-Za-z0-9_-]{43}$/);
    const again = await inmo(env, 'users', 'create', '--business', '1', '--email', 'ana@agencia.example', '--json');
    expect(again.code).toBe(1);
    expect(again.json).toEqual({ error: 'A user with email ana@agencia.example already exists' });
    expect((await inmo(env, 'users', 'list', '--business', '1', '--json')).json).toEqual([
      expect.objectContaining({ id: created.json.id, email: 'ana@agencia.example', role: 'owner', state: 'invited' }),
    ]);
    expect((await inmo(env, 'users', 'disable', String(created.json.id), '--json')).json.state).toBe('disabled');
  });

  it('users create --name and users rename give the display name the console shows (CONTRACT §23)', async () => {
    const created = await inmo(
      env,
      'users',
      'create',
      '--business',
      '1',
      '--email',
      'eva@agencia.example',
      '--name',
      '  Eva   Ruiz ',
      '--json',
    );
    expect(Object.keys(created.json).sort()).toEqual(['email', 'id', 'role', 'set_password_url']);
    const listed = async () =>
      ((await inmo(env, 'users', 'list', '--business', '1', '--json')).json as Array<{ id: number; name: string | null }>).find(
        (u) => u.id === created.json.id,
      );
    expect((await listed())?.name).toBe('Eva Ruiz');
    const renamed = await inmo(env, 'users', 'rename', String(created.json.id), '--name', 'Eva Ruiz Soto', '--json');
    expect(renamed.json).toMatchObject({ id: created.json.id, name: 'Eva Ruiz Soto' });
    const tooLong = await inmo(env, 'users', 'rename', String(created.json.id), '--name', 'x'.repeat(81), '--json');
    expect(tooLong.code).toBe(1);
    expect(tooLong.json).toEqual({ error: '--name must be 1 to 80 characters of text, e.g. "Ana García"' });
    expect((await listed())?.name).toBe('Eva Ruiz Soto');
    expect((await inmo(env, 'users', 'rename', String(created.json.id), '--name', '', '--json')).json.name).toBeNull();
  });

  it('jobs retry says why it refuses', async () => {
    expect((await inmo(env, 'jobs', 'retry', '424242', '--json')).json).toEqual({ error: 'No job with id 424242' });
  });
});

describe('keys', () => {
  it('revoke takes the key id or the whole key, and says what a key id is', async () => {
    const one = (await inmo(env, 'keys', 'create', '--business', '1', '--scopes', 'leads:read', '--json')).json;
    const byKey = await inmo(env, 'keys', 'revoke', one.key, '--json');
    expect(byKey.code).toBe(0);
    expect(byKey.json).toMatchObject({ key_id: one.key_id, revoked_at: expect.stringMatching(/\+00:00$/) });
    const two = (await inmo(env, 'keys', 'create', '--business', '1', '--scopes', 'leads:read', '--json')).json;
    expect((await inmo(env, 'keys', 'revoke', two.key_id, '--json')).json.key_id).toBe(two.key_id);
    expect((await inmo(env, 'keys', 'revoke', 'nosuchkeyid12345', '--json')).json).toEqual({
      error: 'No key with id nosuchkeyid12345 (the key id is the part between AC_LIVE_ and the dot)',
    });
    expect((await inmo(env, 'keys', 'revoke', 'AC_LIVE_broken', '--json')).json).toEqual({
      error: 'AC_LIVE_brok… is not a whole key: the key id is the part between AC_LIVE_ and the dot',
    });
  });

  it('create refuses an expiry in the past, and creates nothing', async () => {
    const before = (await inmo(env, 'keys', 'list', '--business', '1', '--json')).json.length;
    const refused = await inmo(
      env,
      'keys',
      'create',
      '--business',
      '1',
      '--scopes',
      'leads:read',
      '--expires-at',
      '2020-01-01T00:00:00Z',
      '--json',
    );
    expect(refused.code).toBe(1);
    expect(refused.json).toEqual({ error: '--expires-at 2020-01-01T00:00:00Z is not in the future: the key would be dead on arrival' });
    expect((await inmo(env, 'keys', 'list', '--business', '1', '--json')).json).toHaveLength(before);
    const future = await inmo(
      env,
      'keys',
      'create',
      '--business',
      '1',
      '--scopes',
      'leads:read',
      '--expires-at',
      '2999-01-01T00:00:00Z',
      '--json',
    );
    expect(future.json.expires_at).toBe('2999-01-01T00:00:00.000+00:00');
  });
});

describe('follow-ups', () => {
  it('rules take the lead-type aliases of the API', async () => {
    const rule = await inmo(env, 'followups', 'rules', '--business', '1', '--type', 'Owner', '--every-days', '60', '--json');
    expect(rule.json).toEqual({ business_id: 1, type: 'propietario', every_days: 60 });
    const bad = await inmo(env, 'followups', 'rules', '--business', '1', '--type', 'vecino', '--every-days', '7', '--json');
    expect(bad.json.error).toBe(
      '--type must be one of: demandante, propietario, agencia-inmobiliaria, entidad-bancaria, proveedor-servicios (or an alias the API accepts: buyer, tenant, comprador, inquilino, owner)',
    );
  });

  it('done on an id that does not exist says so', async () => {
    const done = await inmo(env, 'followups', 'done', '99', '--json');
    expect([done.code, done.json]).toEqual([1, { error: 'No follow-up with id 99' }]);
  });
});

describe('properties import', () => {
  const write = (name: string, lines: Array<object | string>) => {
    const file = join(dir, name);
    writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
    return file;
  };

  it('counts lines that repeat an earlier external_ref, and exits with its own status when lines were rejected', async () => {
    const clean = write('clean.ndjson', [listing('r-1'), listing('r-2'), listing('r-1', { price: 5 }), listing('r-1', { price: 6 })]);
    const imported = await inmo(env, 'properties', 'import', '--business', '1', clean, '--json');
    expect(imported.code).toBe(0);
    expect(imported.json).toEqual({ format: 'ndjson', created: 2, updated: 2, repeated: 2, rejected: [] });
    const human = await inmo(env, 'properties', 'import', '--business', '1', clean);
    expect(human.stdout).toMatch(
      /^created 0, updated 4, rejected 0 in [\d.]+ s; 2 lines repeated an earlier external_ref \(the last one wins\)\n$/,
    );

    const partial = write('partial.ndjson', [listing('r-3'), '{"external_ref": "broken", ']);
    // The process's own exit status, not only the program's.
    const some = await inmoProcess(env, 'properties', 'import', '--business', '1', partial, '--json');
    expect(EXIT_IMPORTED_WITH_REJECTIONS).toBe(3);
    expect(some.code).toBe(EXIT_IMPORTED_WITH_REJECTIONS);
    expect(some.json).toMatchObject({ created: 1, updated: 0, repeated: 0, rejected: [{ line: 2 }] });
  });

  it('says why a file cannot be read', async () => {
    const missing = await inmo(env, 'properties', 'import', '--business', '1', join(dir, 'nope.ndjson'), '--json');
    expect([missing.code, missing.json]).toEqual([1, { error: `Cannot read ${join(dir, 'nope.ndjson')}: no such file` }]);
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    expect((await inmo(env, 'properties', 'import', '--business', '1', folder, '--json')).json).toEqual({
      error: `Cannot read ${folder}: it is a folder`,
    });
  });
});

describe('worker and serve', () => {
  it('worker --until-idle counts in words', async () => {
    const ran = await inmo(env, 'worker', '--until-idle');
    expect(ran.stdout).toMatch(/^ran (1 job|\d+ jobs); none is due\n$/);
    expect(ran.stdout).not.toMatch(/^ran 1 jobs/);
    // A database of its own: the imports above queue a re-match that comes due seconds later.
    const empty = { ...env, DATABASE_URL: await freshDatabaseUrl() };
    expect((await inmo(empty, 'migrate', '--json')).code).toBe(0);
    const json = await inmo(empty, 'worker', '--until-idle', '--json');
    expect(json.json).toEqual({ jobs_run: 0 });
    expect((await inmo(empty, 'worker', '--until-idle')).stdout).toBe('ran 0 jobs; none is due\n');
  });

  describe('serve on a port that is taken', () => {
    let taken: Server;
    let port: number;
    beforeAll(async () => {
      taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      port = (taken.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

    it.each([[[] as string[]], [['--no-worker']]])(
      'exits non-zero at once, printing the error once (%j)',
      async (extra) => {
        const human = await inmoProcess(env, 'serve', '--port', String(port), ...extra);
        expect(human.code).toBe(1);
        expect(human.stderr.match(/EADDRINUSE/g)).toHaveLength(1);
        expect(human.stderr).toContain(`error: cannot listen on 127.0.0.1:${port}: listen EADDRINUSE`);
        const json = await inmoProcess(env, 'serve', '--port', String(port), ...extra, '--json');
        expect(json.code).toBe(1);
        expect(json.stdout.trim().split('\n')).toHaveLength(1);
        expect(json.json.error).toMatch(new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: listen EADDRINUSE`));
      },
      30_000,
    );

    it('exits too when the metrics port of its own is taken', async () => {
      const refused = await inmoProcess({ ...env, INMO_METRICS_PORT: String(port) }, 'serve', '--port', '0', '--json');
      expect(refused.code).toBe(1);
      expect(refused.json.error).toMatch(new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: listen EADDRINUSE`));
    }, 30_000);
  });
});

describe('channel and conversations', () => {
  const secrets = { WA_TOKEN: 'EAAG-cli-token-never-printed', WA_APP_SECRET: 'cli-app-secret-never-printed' };

  it('connect takes the app secret from a variable, and prints a new verify token once with the callback URL', async () => {
    const args = [
      'channel',
      'connect',
      '--business',
      '1',
      '--provider',
      'whatsapp-cloud',
      '--phone-number-id',
      '777',
      '--token-env',
      'WA_TOKEN',
      '--template',
      'hola',
    ];
    const connected = await inmo(
      { ...env, ...secrets, INMO_PUBLIC_URL: 'https://inmo.agency.example' },
      ...args,
      '--app-secret-env',
      'WA_APP_SECRET',
      '--listing-url',
      'https://agency.example/inmueble/{id}',
      '--json',
    );
    expect(connected.code).toBe(0);
    expect(connected.json).toMatchObject({
      callback_url: 'https://inmo.agency.example/webhooks/whatsapp',
      app_secret: 'stored from WA_APP_SECRET',
      listing_url: 'https://agency.example/inmueble/{id}',
      webhooks: 'on',
    });
    expect(connected.json.verify_token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(connected.stdout + connected.stderr).not.toContain(secrets.WA_APP_SECRET);
    const human = await inmo({ ...env, ...secrets }, ...args);
    expect(human.stdout).toContain('Callback URL: http://127.0.0.1:8080/webhooks/whatsapp');
    expect(human.stdout).toMatch(/Verify token: [A-Za-z0-9_-]{32} {4}\(shown once\)/);
    expect(human.stdout).toContain('webhooks: on'); // the app secret was kept
    // A verify token differs on each connect.
    expect(human.stdout).not.toContain(connected.json.verify_token);

    const pasted = await inmo({ ...env, ...secrets }, ...args, '--app-secret-env', 'abc123:secret', '--json');
    expect([pasted.code, pasted.json.error]).toEqual([
      1,
      '--app-secret-env must be the NAME of an environment variable holding the secret, not the secret',
    ]);
    const badLink = await inmo({ ...env, ...secrets }, ...args, '--listing-url', 'https://agency.example/inmueble', '--json');
    expect(badLink.json.error).toBe(
      '--listing-url must be an http(s) URL with {id} (the property id) or {ref} (its external reference) in it',
    );
  });

  it('assistant: a chat-completions model or the built-in one, the key from a variable', async () => {
    const set = await inmo(
      { ...env, LLM_KEY: 'sk-never-printed' },
      'channel',
      'assistant',
      '--business',
      '1',
      '--url',
      'https://llm.example/v1',
      '--model',
      'small',
      '--key-env',
      'LLM_KEY',
      '--json',
    );
    expect(set.json).toEqual({
      business_id: 1,
      assistant: 'chat-completions',
      url: 'https://llm.example/v1',
      model: 'small',
      key: 'stored from LLM_KEY',
    });
    const back = await inmo(env, 'channel', 'assistant', '--business', '1', '--built-in', '--json');
    expect(back.json).toEqual({ business_id: 1, assistant: 'built-in' });
    const neither = await inmo(env, 'channel', 'assistant', '--business', '1', '--json');
    expect([neither.code, neither.json.error]).toEqual([1, 'give either --url and --model, or --built-in']);
    const noChannel = await inmo(env, 'channel', 'assistant', '--business', '99', '--built-in', '--json');
    expect(noChannel.json.error).toBe('Business 99 has no channel connected');
  });

  it('conversations: list, show, and refusals that say why', async () => {
    const lead = await inmo(env, 'leads', 'create', '--business', '1', '--phone', '+34611222333', '--name', 'Eva', '--json');
    const id = String(lead.json.id);
    const shown = await inmo(env, 'conversations', 'show', id, '--json');
    expect(shown.json).toEqual({ lead_id: lead.json.id, state: 'assistant', window_open_until: null, messages: [] });
    expect((await inmo(env, 'conversations', 'list', '--json')).json).toEqual({ data: [] });
    const reply = await inmo(env, 'conversations', 'reply', id, 'Hola Eva', '--json');
    expect([reply.code, reply.json.error]).toEqual([
      1,
      "The lead has not written: WhatsApp allows a free-form reply only within 24 hours of the lead's last message",
    ]);
    const resume = await inmo(env, 'conversations', 'resume', id, '--json');
    expect(resume.json.error).toBe(`Lead ${id} has no conversation: it has not written on WhatsApp`);
    expect((await inmo(env, 'conversations', 'show', '424242', '--json')).json.error).toBe('No lead with id 424242');
    const human = await inmo(env, 'leads', 'show', id);
    expect(human.stdout).toContain('no conversation');
  });
});
