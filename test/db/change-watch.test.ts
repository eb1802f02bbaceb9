/**
 * The request path caches keys' verification, catalogue versions and channels (issue 14);
 * a change made by another process must be seen within 1 s (db/change-watch.ts): revocation
 * and import by `inmo` as a separate process, expiry and scope changes through another
 * connection, and on PostgreSQL with the notification connection cut off.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ChangeWatch, POLL_INTERVAL_MS, signalChange } from '../../src/db/change-watch.ts';
import { createDb } from '../../src/db/database.ts';
import { inmoProcess } from '../helpers/cli.ts';
import { ENGINE, importRecords, listing } from '../helpers/db.ts';
import { get, withApp } from '../helpers/http.ts';

const t = withApp({ each: true, seed: (t) => importRecords(t.db, t.businessId, [listing('one'), listing('two')]).then(() => undefined) });

/** The bound of issue 14: another process's change is seen within this, ms. */
const BOUND_MS = 1000;

/**
 * Polls `request` until `done` holds, and returns how long that took after the change, ms.
 * @throws when it does not hold within twice the bound (the assertion then shows by how much).
 */
async function msUntil<T>(request: () => Promise<T>, done: (value: T) => boolean): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < 2 * BOUND_MS) {
    if (done(await request())) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Infinity;
}

const env = () => ({ ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn' });

describe('changes made by another process are seen within 1 s', () => {
  it('a key revoked by `inmo keys revoke` is refused', async () => {
    expect((await get(t.app, '/me', t.key)).status).toBe(200);
    expect((await get(t.app, '/me', t.key)).status).toBe(200); // served from the cache now
    const revoked = await inmoProcess(env(), 'keys', 'revoke', t.keyId);
    expect(revoked.code).toBe(0);
    const ms = await msUntil(
      () => get(t.app, '/me', t.key),
      (r) => r.status === 401,
    );
    expect(ms).toBeLessThan(BOUND_MS);
    expect((await get(t.app, '/me', t.key)).body).toEqual({ detail: 'API key has been revoked' });
  });

  it('a catalogue imported by `inmo properties import` is served, not the cached page', async () => {
    expect((await get(t.app, '/properties', t.key)).body.total).toBe(2);
    const file = join(mkdtempSync(join(tmpdir(), 'inmo-watch-')), 'more.ndjson');
    writeFileSync(file, `${JSON.stringify(listing('three'))}\n`);
    const imported = await inmoProcess(env(), 'properties', 'import', '--business', String(t.businessId), file);
    expect(imported.code).toBe(0);
    const ms = await msUntil(
      () => get(t.app, '/properties', t.key),
      (r) => r.body.total === 3,
    );
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('an expiry and a scope change made through another connection', async () => {
    const other = createDb(t.url);
    try {
      expect((await get(t.app, '/leads', t.key)).status).toBe(200);
      await other.updateTable('api_keys').set({ scopes: 'properties:read' }).where('key_id', '=', t.keyId).execute();
      const lostScope = await msUntil(
        () => get(t.app, '/leads', t.key),
        (r) => r.status === 403 || r.status === 401,
      );
      expect(lostScope).toBeLessThan(BOUND_MS);
      expect((await get(t.app, '/leads', t.key)).body.detail).toMatch(/requires: leads:read/);

      await other.updateTable('api_keys').set({ expires_at: '2020-01-01T00:00:00.000+00:00' }).where('key_id', '=', t.keyId).execute();
      const expired = await msUntil(
        () => get(t.app, '/me', t.key),
        (r) => r.status === 401,
      );
      expect(expired).toBeLessThan(BOUND_MS);
      expect((await get(t.app, '/me', t.key)).body).toEqual({ detail: 'API key has expired' });
    } finally {
      await other.destroy();
    }
  });

  it.runIf(ENGINE === 'postgres')('on PostgreSQL, with the notification connection cut off, the periodic check still sees it', async () => {
    const watch = new ChangeWatch(t.db);
    try {
      const first = watch.stamp();
      // Wait for the listener, then cut it off from the server's side, as a failover would.
      const pid = await waitFor(() => watch.listenerPid());
      const reconnected = watch.stamp();
      expect(reconnected).toBeGreaterThan(first);
      await sql`select pg_terminate_backend(${pid})`.execute(t.db);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(watch.listenerPid()).toBeNull();
      const before = watch.stamp();
      const other = createDb(t.url);
      try {
        await other.updateTable('api_keys').set({ revoked_at: '2026-01-01T00:00:00.000+00:00' }).where('key_id', '=', t.keyId).execute();
      } finally {
        await other.destroy();
      }
      const ms = await msUntil(
        async () => watch.stamp(),
        (stamp) => stamp !== before,
      );
      expect(ms).toBeLessThan(POLL_INTERVAL_MS + 200);
    } finally {
      await watch.close();
    }
  });
});

describe('the change stamp', () => {
  it('moves when this process signals a change, and stays put otherwise', async () => {
    const watch = new ChangeWatch(t.db);
    try {
      const a = watch.stamp();
      expect(watch.stamp()).toBe(a);
      signalChange(t.db);
      expect(watch.stamp()).not.toBe(a);
    } finally {
      await watch.close();
    }
  });

  it('does not move for writes that change no cached thing (leads, key use)', async () => {
    const watch = new ChangeWatch(t.db);
    const other = createDb(t.url);
    try {
      watch.stamp();
      await new Promise((resolve) => setTimeout(resolve, ENGINE === 'postgres' ? 300 : 0)); // the listener is up
      const before = watch.stamp();
      await other.updateTable('api_keys').set({ last_used_at: '2026-01-01T00:00:00.000+00:00' }).where('key_id', '=', t.keyId).execute();
      await other.insertInto('businesses').values({ name: 'Another', created_at: '2026-01-01T00:00:00.000+00:00' }).execute();
      await new Promise((resolve) => setTimeout(resolve, ENGINE === 'postgres' ? 2 * POLL_INTERVAL_MS : 0));
      expect(watch.stamp()).toBe(before);
    } finally {
      await other.destroy();
      await watch.close();
    }
  });
});

async function waitFor<T>(read: () => T | null): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = read();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('timed out');
}
