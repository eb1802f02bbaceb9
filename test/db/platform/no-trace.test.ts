/**
 * Tests leave no trace outside the repository: the suite's processes, and every process they
 * spawn, see a temporary `HOME` (test/global-setup.ts), so what the code writes by default
 * (the secret key file that seals channel tokens, src/secrets.ts) lands in a temp folder and
 * never in the user's home.
 */
import { existsSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_SECRET_KEY_FILE, sealSecret } from '../../../src/secrets.ts';
import { buildApp } from '../../../src/app.ts';
import type { Db } from '../../../src/db/database.ts';
import { inmoProcess } from '../../helpers/cli.ts';
import { businessWithKey, freshDb } from '../../helpers/db.ts';

const realHome = process.env.INMO_TEST_REAL_HOME!;
const realKeyFile = join(realHome, '.config', 'inmo', 'secret.key');
const stateOf = (path: string) => (existsSync(path) ? statSync(path).mtimeMs : 'absent');
const inside = (path: string, folder: string) => !relative(folder, path).startsWith('..');

let db: Db;
let url: string;
let businessId: number;
let before: number | 'absent';

beforeAll(async () => {
  before = stateOf(realKeyFile);
  ({ db, url } = await freshDb());
  ({ businessId } = await businessWithKey(db));
});
afterAll(() => db.destroy());

it('runs with a temporary home, not the user’s', () => {
  expect(realHome).toBeTruthy();
  expect(homedir()).not.toBe(realHome);
  expect(inside(homedir(), tmpdir())).toBe(true);
  expect(inside(process.env.XDG_CONFIG_HOME!, tmpdir())).toBe(true);
  expect(inside(DEFAULT_SECRET_KEY_FILE, tmpdir())).toBe(true);
});

it('sealing a token in this process and in a spawned CLI writes the key file in the temporary home only', async () => {
  sealSecret('a token');
  expect(existsSync(DEFAULT_SECRET_KEY_FILE)).toBe(true);
  const connected = await inmoProcess(
    { ...process.env, DATABASE_URL: url, WA_TOKEN: 'EAAG-no-trace-token' },
    'channel',
    'connect',
    ...['--business', String(businessId), '--provider', 'whatsapp-cloud', '--phone-number-id', '123', '--token-env', 'WA_TOKEN'],
    ...['--template', 'bienvenida', '--json'],
  );
  expect(connected.code, connected.stdout + connected.stderr).toBe(0);
  expect(stateOf(realKeyFile)).toBe(before);
});

it('building the app and serving console pages reads no key file, as npm run openapi and scripts do', async () => {
  const keyFile = join(tmpdir(), `inmo-no-key-${process.pid}`, 'secret.key');
  const saved = process.env.INMO_SECRET_KEY_FILE;
  process.env.INMO_SECRET_KEY_FILE = keyFile;
  try {
    const app = await buildApp({ db });
    expect((await app.inject({ url: '/console/login' })).statusCode).toBe(200);
    await app.close();
    expect(existsSync(keyFile)).toBe(false);
  } finally {
    if (saved === undefined) delete process.env.INMO_SECRET_KEY_FILE;
    else process.env.INMO_SECRET_KEY_FILE = saved;
  }
});
