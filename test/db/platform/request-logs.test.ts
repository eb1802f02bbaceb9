/**
 * Request logs (issue 14): one JSON line per request with method, route, status, ms, request id
 * and key id, never the key; written asynchronously and flushed on exit, so a SIGTERM right
 * after a burst of requests loses no line.
 */
import { Agent, request } from 'undici';
import { expect, it } from 'vitest';
import { businessWithKey, freshDb } from '../../helpers/db.ts';
import { startServe } from '../../helpers/processes.ts';

it('writes one line per request, and none is lost when SIGTERM follows at once', async () => {
  const { db, url } = await freshDb();
  const { key, keyId } = await businessWithKey(db);
  await db.destroy();
  const served = await startServe({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'info', INMO_RATE_LIMIT_PER_KEY: '0' }, '--no-worker');
  // stdout is not read while the requests run and the process stops: the pipe fills, and the
  // lines wait in the process's buffer, which only the flush on exit can still write.
  served.child.stdout!.pause();
  const count = 1500;
  // All sent at once, over 64 connections: 1,500 connections at once would outrun the listen
  // backlog (511) and undici's 10 s to connect on a loaded machine, which is no concern here.
  const agent = new Agent({ connections: 64 });
  const statuses = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const response = await request(`${served.base}/${i % 3 === 0 ? 'properties/999' : 'me'}`, {
        dispatcher: agent,
        headers: { 'x-api-key': key, 'x-request-id': `req-${i}` },
      });
      await response.body.dump();
      return response.statusCode;
    }),
  ).finally(() => agent.close());
  expect(statuses.filter((s) => s === 200)).toHaveLength(1000);
  const stopped = served.stop();
  await new Promise((resolve) => setTimeout(resolve, 500));
  served.child.stdout!.resume();
  expect(await stopped).toBe(0);
  // 'exit' may come before the last of stdout has been read.
  if (!served.child.stdout!.readableEnded) await new Promise((resolve) => served.child.stdout!.once('end', resolve));

  const lines = served
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{"level"'))
    .map((l) => JSON.parse(l));
  const requests = lines.filter((l) => l.msg === 'request');
  expect(requests).toHaveLength(count);
  expect(new Set(requests.map((l) => l.reqId)).size).toBe(count);
  const me = requests.find((l) => l.reqId === 'req-1');
  expect(me).toMatchObject({ method: 'GET', route: '/v1/ext/me', status: 200, key_id: keyId });
  expect(me.ms).toBeGreaterThan(0);
  expect(requests.find((l) => l.reqId === 'req-0')).toMatchObject({
    route: '/v1/ext/properties/:property_id',
    status: 404,
    error: 'PROPERTY_NOT_FOUND',
  });
  // One line per request and no other: not Fastify's pair, not one more for a client's error.
  expect(lines.filter((l) => 'reqId' in l)).toHaveLength(count);
  // No line carries the key.
  expect(served.output()).not.toContain(key.split('.')[1]);
});
