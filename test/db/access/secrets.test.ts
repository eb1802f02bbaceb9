/**
 * Secrets (issue 6): API keys are stored as hashes and channel tokens sealed (src/secrets.ts).
 * A run creates a key and a channel token, uses the API and the worker with debug logs, then
 * scans the database files (or every row, on PostgreSQL) and the logs: no secret in clear.
 */
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../../src/db/database.ts';
import { openSecret, sealSecret, SecretKeyMismatchError, secretKey } from '../../../src/secrets.ts';
import { startFakeGraph } from '../../helpers/fake-graph.ts';
import { inmo } from '../../helpers/cli.ts';
import { freshDatabaseUrl, snapshot } from '../../helpers/db.ts';
import { startServe } from '../../helpers/processes.ts';

describe('sealing', () => {
  it('opens what it sealed, only with the same key; a value stored before sealing reads as it is', () => {
    const key = secretKey({ INMO_SECRET_KEY: 'a long enough passphrase' });
    const sealed = sealSecret('EAAG-token', key);
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain('EAAG-token');
    expect(sealSecret('EAAG-token', key)).not.toBe(sealed);
    expect(openSecret(sealed, key)).toBe('EAAG-token');
    expect(() => openSecret(sealed, secretKey({ INMO_SECRET_KEY: 'another long passphrase' }))).toThrow(SecretKeyMismatchError);
    expect(openSecret('EAAG-legacy', key)).toBe('EAAG-legacy');
    expect(() => secretKey({ INMO_SECRET_KEY: 'short' })).toThrow('INMO_SECRET_KEY must be at least 16 characters long');
  });

  it('without INMO_SECRET_KEY, makes a key file once (mode 0600) and keeps using it', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'inmo-key-')), 'nested', 'secret.key');
    const first = secretKey({ INMO_SECRET_KEY_FILE: file });
    expect(first).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(secretKey({ INMO_SECRET_KEY_FILE: file })).toEqual(first);
  });
});

it('no secret in clear in the database or the logs after using the API and the worker', async () => {
  const url = await freshDatabaseUrl();
  const token = `EAAG${'Zx9'.repeat(30)}`;
  const env = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'debug', INMO_WORKER_POLL_MS: '50' };
  const graph = await startFakeGraph();
  let logs = '';
  const run = async (...args: string[]) => {
    const result = await inmo(env, ...args);
    logs += result.stderr;
    return result;
  };
  try {
    await run('business', 'create', '--name', 'Sol', '--json');
    const key = (await run('keys', 'create', '--business', '1', '--scopes', 'properties:read,leads:read,leads:ingest', '--json')).json
      .key as string;
    const secret = key.split('.')[1];
    const connected = await inmo(
      { ...env, WA_TOKEN: token },
      'channel',
      'connect',
      '--business',
      '1',
      '--provider',
      'whatsapp-cloud',
      '--phone-number-id',
      '7',
      '--token-env',
      'WA_TOKEN',
      '--template',
      'hola',
      '--base-url',
      graph.baseUrl,
      '--json',
    );
    expect(connected.code).toBe(0);
    logs += connected.stdout + connected.stderr;

    const server = await startServe(env);
    const base = server.base;
    const call = (path: string, init: RequestInit = {}) =>
      fetch(`${base}${path}`, { ...init, headers: { 'x-api-key': key, 'content-type': 'application/json', ...init.headers } });
    expect((await call('/me')).status).toBe(200);
    expect((await call('/properties?limit=1')).status).toBe(200);
    expect((await call('/leads', { headers: { authorization: `ApiKey ${key}`, 'x-api-key': '' } })).status).toBe(200);
    expect(
      (
        await call('/leads/inquiries', {
          method: 'POST',
          body: JSON.stringify({ name: 'Ana', phone_number_1: '612345678', type: 'buyer' }),
        })
      ).status,
    ).toBe(200);
    expect((await call('/leads?limit=0')).status).toBe(422);
    await expect.poll(() => graph.requests.length, { interval: 25 }).toBeGreaterThan(0);
    await server.stop();
    logs += server.output();
    // The worker did open the token: the provider got it.
    expect(graph.requests.map((r) => r.authorization)).toEqual([`Bearer ${token}`]);
    expect(logs).toContain('"msg":"request"'); // the request logs were on

    let stored: string;
    if (url.startsWith('sqlite:')) {
      const path = url.slice('sqlite:'.length);
      stored = ['', '-wal', '-shm']
        .filter((suffix) => existsSync(path + suffix))
        .map((suffix) => readFileSync(path + suffix).toString('latin1'))
        .join('\n');
    } else {
      const db = createDb(url);
      stored = await snapshot(db);
      await db.destroy();
    }
    for (const [what, value] of [
      ['API key', key],
      ['key secret', secret],
      ['channel token', token],
    ]) {
      expect(stored.includes(value), `${what} in the database`).toBe(false);
      expect(logs.includes(value), `${what} in the logs`).toBe(false);
    }
  } finally {
    await graph.close();
  }
}, 90_000);
