/**
 * Health, readiness and metrics (CONTRACT §11): outside /v1/ext, no key, and Prometheus text
 * that tells requests by route and status, jobs by kind and state, the oldest due job's
 * wait, and message sends by outcome, per process.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config.ts';
import { createDb } from '../../../src/db/database.ts';
import { migrationProvider } from '../../../src/db/migrations/index.ts';
import { enqueueJob } from '../../../src/db/repositories/jobs.ts';
import { toRfc3339 } from '../../../src/domain/time.ts';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { serveMetricsOn } from '../../../src/http/operability.ts';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { startFakeGraph, type FakeGraph } from '../../helpers/fake-graph.ts';
import { ENGINE, freshDatabaseUrl } from '../../helpers/db.ts';
import { get, post, withApp } from '../../helpers/http.ts';

const t = withApp();
let graph: FakeGraph;
beforeAll(async () => {
  graph = await startFakeGraph();
});
afterAll(() => graph.close());

/** The value of one series of the exposition (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

async function scrape(on: FastifyInstance = t.app): Promise<string> {
  const response = await on.inject({ method: 'GET', url: '/metrics' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.body;
}

describe('GET /healthz and /readyz', () => {
  it('answer without a key, outside /v1/ext', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect([health.statusCode, health.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect([ready.statusCode, ready.json()]).toEqual([200, { status: 'ready' }]);
    expect((await t.app.inject({ method: 'GET', url: '/v1/ext/healthz' })).statusCode).toBe(404);
  });

  it('an icon for every page: /favicon.ico, and the one the console links', async () => {
    const icon = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
    expect([icon.statusCode, icon.headers['content-type']]).toEqual([200, 'image/svg+xml']);
    expect(icon.body).toMatch(/^<svg /);
    const login = await t.app.inject({ method: 'GET', url: '/console/login' });
    const href = /<link rel="icon" href="([^"]+)"/.exec(login.body)?.[1];
    expect(href).toBe('/console/assets/favicon.svg');
    const linked = await t.app.inject({ method: 'GET', url: href! });
    expect([linked.statusCode, linked.body]).toEqual([200, icon.body]);
  });

  it('/readyz is 503 while migrations are behind, naming them', async () => {
    const unmigrated = createDb(await freshDatabaseUrl());
    const behind = await buildApp({ db: unmigrated });
    try {
      const ready = await behind.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      const migrations = Object.keys(await migrationProvider.getMigrations());
      expect(migrations[0]).toBe('0001_initial');
      expect(ready.json()).toEqual({
        status: 'unavailable',
        reason: `migrations behind: ${migrations.join(', ')} not applied (run inmo migrate)`,
      });
      // Alive all the same.
      expect((await behind.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await behind.close();
      await unmigrated.destroy();
    }
  });

  // An embedded SQLite file cannot be "down" while the process holds it open: PostgreSQL only.
  it.skipIf(ENGINE !== 'postgres')('/readyz is 503 when the PostgreSQL server cannot be reached (postgres only)', async () => {
    const unreachable = createDb('postgres://postgres@127.0.0.1:1/test');
    const down = await buildApp({ db: unreachable });
    try {
      const ready = await down.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().reason).toMatch(/^the database does not answer: .*ECONNREFUSED/);
    } finally {
      await down.close();
      await unreachable.destroy();
    }
  });
});

describe('GET /metrics', () => {
  it('counts requests by method, route template and status, with a latency histogram, per process', async () => {
    const before = await scrape();
    const route = { method: 'GET', route: '/v1/ext/properties/:property_id' };
    expect((await get(t.app, '/properties/424242', t.key)).status).toBe(404);
    expect((await get(t.app, '/properties/424243', t.key)).status).toBe(404);
    expect((await get(t.app, '/properties/1')).status).toBe(401);
    await t.app.inject({ method: 'GET', url: '/no/such/route' });
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('inmo_http_requests_total', { ...route, status: '404' })).toBe(2);
    expect(delta('inmo_http_requests_total', { ...route, status: '401' })).toBe(1);
    expect(delta('inmo_http_request_duration_seconds_count', { ...route, status: '404' })).toBe(2);
    expect(delta('inmo_http_request_duration_seconds_bucket', { ...route, status: '404', le: '+Inf' })).toBe(2);
    // Ids never become labels; unknown paths share one.
    expect(after).not.toContain('424242');
    expect(delta('inmo_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(after).toMatch(new RegExp(`^inmo_http_requests_total\\{[^}]*process="[^"]+:${process.pid}"`, 'm'));
    expect(after).toContain('inmo_process_resident_memory_bytes');
  });

  it('tells jobs by kind and state, the wait of the oldest due job, and message sends by outcome', async () => {
    await connectChannel(
      t.db,
      {
        businessId: t.businessId,
        provider: 'whatsapp-cloud',
        phoneNumberId: '1099887766',
        tokenEnv: 'WA_TOKEN',
        template: 'bienvenida',
        baseUrl: graph.baseUrl,
      },
      { WA_TOKEN: 'EAAG-metrics-token' },
    );
    const before = await scrape();
    graph.script.push({ status: 503 });
    const body = (phone: string) => ({
      id: 's',
      createdAt: '2026-11-22T10:00:00Z',
      source: 'landing',
      sourcePage: 'https://example.com',
      contact: { name: 'Lucía', phone },
      search: {},
    });
    expect((await post(t.app, '/leads/ingest', t.key, body('666100001'))).status).toBe(200);
    expect((await post(t.app, '/leads/ingest', t.key, body('666100002'))).status).toBe(200);
    const queued = await scrape();
    expect(sample(queued, 'inmo_jobs', { kind: 'match_lead', state: 'pending' })).toBe(2);
    expect(sample(queued, 'inmo_jobs', { kind: 'send_welcome', state: 'pending' })).toBe(2);

    const clock = new ManualClock(new Date(Date.now() + 5 * 60_000));
    const worker = new Worker({ db: t.db, clock, settings: { pollMs: 20, backoffMs: 60_000, leaseMs: 60_000 } });
    await worker.drain();
    const after = await scrape();
    const sends = (outcome: string) =>
      sample(after, 'inmo_message_sends_total', { outcome }) - sample(before, 'inmo_message_sends_total', { outcome });
    expect([sends('sent'), sends('retry'), sends('rejected'), sends('unknown')]).toEqual([1, 1, 0, 0]);
    expect(sample(after, 'inmo_jobs', { kind: 'match_lead', state: 'done' })).toBe(2);
    expect(sample(after, 'inmo_jobs', { kind: 'send_welcome', state: 'done' })).toBe(1);
    expect(sample(after, 'inmo_jobs', { kind: 'match_lead', state: 'pending' })).toBe(0);
    // The retried send waits for its backoff: pending, but not due, so nothing is late.
    expect(sample(after, 'inmo_jobs', { kind: 'send_welcome', state: 'pending' })).toBe(1);
    expect(sample(after, 'inmo_jobs_oldest_due_pending_age_seconds', {})).toBe(0);

    const tenMinutesAgo = toRfc3339(new Date(Date.now() - 600_000));
    await enqueueJob(t.db, { businessId: t.businessId, leadId: null, kind: 'rematch_catalogue', runAt: tenMinutesAgo, now: tenMinutesAgo });
    const late = sample(await scrape(), 'inmo_jobs_oldest_due_pending_age_seconds', {});
    expect(late).toBeGreaterThanOrEqual(600);
    expect(late).toBeLessThan(700);
  });

  it('can be turned off, or served on a port of its own', async () => {
    const off = await buildApp({ db: t.db, metrics: 'off' });
    const counted = await buildApp({ db: t.db, metrics: 'counted' });
    const own = await serveMetricsOn(t.db, '127.0.0.1', 0);
    try {
      expect((await off.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
      expect((await off.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect((await counted.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
      const before = await scrape(own);
      await counted.inject({ method: 'GET', url: '/healthz' });
      await off.inject({ method: 'GET', url: '/healthz' });
      const after = await scrape(own);
      const healthz = { route: '/healthz', status: '200' };
      // The `counted` app counted its request for the other port; the `off` app did not.
      expect(sample(after, 'inmo_http_requests_total', healthz) - sample(before, 'inmo_http_requests_total', healthz)).toBe(1);
      const address = own.server.address() as { port: number };
      const response = await fetch(`http://127.0.0.1:${address.port}/metrics`);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('inmo_jobs');
    } finally {
      await Promise.all([off.close(), counted.close(), own.close()]);
    }
  });

  it("on the API's port, answers loopback clients, and others only with INMO_METRICS_TOKEN; else the 404 of no route", async () => {
    const TOKEN = 'scrape-me-please-0123456789';
    const open = await buildApp({ db: t.db });
    const tokened = await buildApp({ db: t.db, metricsToken: TOKEN });
    const proxied = await buildApp({ db: t.db, trustProxy: true });
    const from = (app: FastifyInstance, remoteAddress: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'GET', url: '/metrics', remoteAddress, headers });
    try {
      for (const loopback of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])
        expect((await from(open, loopback)).statusCode, loopback).toBe(200);
      for (const outsider of ['203.0.113.9', '10.0.0.7', '2001:db8::1']) {
        const refused = await from(open, outsider);
        expect([refused.statusCode, refused.json()], outsider).toEqual([404, { detail: 'Not Found' }]);
      }
      expect((await from(tokened, '203.0.113.9', { authorization: `Bearer ${TOKEN}` })).statusCode).toBe(200);
      expect((await from(tokened, '203.0.113.9', { authorization: `Bearer ${TOKEN}x` })).statusCode).toBe(404);
      expect((await from(tokened, '203.0.113.9', { authorization: TOKEN })).statusCode).toBe(404);
      expect((await from(open, '203.0.113.9', { authorization: `Bearer ${TOKEN}` })).statusCode).toBe(404);
      // Behind a reverse proxy on the same host, the client is the one the proxy names.
      expect((await from(proxied, '127.0.0.1', { 'x-forwarded-for': '198.51.100.4' })).statusCode).toBe(404);
      expect((await from(proxied, '127.0.0.1')).statusCode).toBe(200);
      expect(() => loadConfig({ INMO_METRICS_TOKEN: 'short' })).toThrow('INMO_METRICS_TOKEN must be at least 16 characters long');
      expect(() => loadConfig({ INMO_PUBLIC_URL: 'inmo.agency.example' })).toThrow('INMO_PUBLIC_URL must be an http(s) URL');
    } finally {
      await Promise.all([open.close(), tokened.close(), proxied.close()]);
    }
  });

  it('is not part of the /v1/ext OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/ext/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p) => /healthz|readyz|metrics/.test(p))).toEqual([]);
  });
});
