/**
 * Graceful shutdown (issue 6): SIGTERM stops accepting, lets the requests and jobs in flight
 * finish, closes the database and exits 0. Leads keep arriving across a restart; every lead
 * the API accepted (200) is in the database afterwards, and no job is left half-run.
 */
import { expect, it } from 'vitest';
import { createDb } from '../../../src/db/database.ts';
import { businessWithKey, freshDb } from '../../helpers/db.ts';
import { startServe } from '../../helpers/processes.ts';

const serve = (url: string) =>
  startServe({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn', INMO_RATE_LIMIT_POST_PER_IP: '0', INMO_WORKER_POLL_MS: '50' });

it('loses no accepted lead across a SIGTERM and a restart, and leaves no job half-run', async () => {
  const { db, url } = await freshDb();
  const { key } = await businessWithKey(db);
  let next = 0;
  const accepted: string[] = [];
  let refused = 0;
  const unexpected: number[] = [];
  let base = '';
  let sending = true;

  // 16 clients posting leads with distinct phones for as long as `sending` holds.
  const client = async () => {
    while (sending) {
      const phone = `6${String(50_000_000 + ++next * 7_919).padStart(8, '0')}`;
      try {
        const response = await fetch(`${base}/leads/ingest`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({
            id: 'x',
            createdAt: 'x',
            source: 's',
            sourcePage: 'p',
            contact: { name: 'Ana', phone },
            search: { budget: '900' },
          }),
        });
        await response.arrayBuffer();
        if (response.status === 200) accepted.push(`+34${phone}`);
        else unexpected.push(response.status);
      } catch {
        refused++; // not accepted: the server was down or closing
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };

  // Each server is stopped once it has accepted 20 leads more, however long a loaded machine takes.
  const untilAccepted = (count: number) => expect.poll(() => accepted.length, { timeout: 60_000, interval: 10 }).toBeGreaterThan(count);

  const first = await serve(url);
  base = first.base;
  const clients = Array.from({ length: 16 }, client);
  await untilAccepted(20);
  expect(await first.stop()).toBe(0);
  const acceptedBeforeRestart = accepted.length;

  const second = await serve(url);
  base = second.base;
  await untilAccepted(acceptedBeforeRestart + 20);
  sending = false;
  await Promise.all(clients);
  expect(await second.stop()).toBe(0);

  // The clients really hit the window where no server answered; every answer given was a 200
  // (a closing server finishes what reaches it, never Fastify's own 503).
  expect(refused).toBeGreaterThan(0);
  expect(unexpected).toEqual([]);
  const check = createDb(url);
  try {
    const stored = new Set((await check.selectFrom('leads').select('phone_number_1').execute()).map((l) => l.phone_number_1));
    expect(accepted.filter((phone) => !stored.has(phone))).toEqual([]);
    expect(await check.selectFrom('jobs').select('id').where('state', '=', 'running').execute()).toEqual([]);
  } finally {
    await check.destroy();
    await db.destroy();
  }
}, 180_000);
