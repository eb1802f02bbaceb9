/**
 * What a malicious or broken IMAP server can make an e-mail pull do (issue 55, item 2), against a
 * scripted server on loopback (test/helpers/fake-imap.ts): a pull is bounded in bytes (a literal
 * larger than the intake's limit is refused at its marker, whatever RFC822.SIZE said, and skipped
 * for good), in time (a deadline per run, and a lease that is not renewed past it), in round trips
 * (one SEARCH whatever UIDNEXT says), and pulls never take every worker slot.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { enqueueLeadJobs } from '../../../src/db/repositories/jobs.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { addEmailPull, listEmailPulls, runEmailPull } from '../../../src/services/leads/email-pulls.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { startFakeImap, type FakeImap } from '../../helpers/fake-imap.ts';
import { businessWithKey, freshDb, REPO_ROOT } from '../../helpers/db.ts';

const fixture = (name: string) => readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'email', name));
const outbound = { allowPrivateNetwork: true, channelHosts: [] };

let db: Db;
let businessId: number;
let fake: FakeImap | undefined;

beforeEach(async () => {
  ({ db } = await freshDb());
  ({ businessId } = await businessWithKey(db));
});

afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await db.destroy();
});

const emails = () => db.selectFrom('inbound_emails').select('id').execute();

describe('an IMAP pull against a hostile server', () => {
  it('a literal larger than the limit behind RFC822.SIZE 500 is refused at its marker and skipped for good', async () => {
    fake = await startFakeImap({
      messages: [
        { uid: 1, body: fixture('idealista.eml') },
        { uid: 2, size: 500, literal: 64 * 1024 * 1024 },
        { uid: 3, body: fixture('fotocasa.eml') },
      ],
    });
    const { id } = await addEmailPull(db, { businessId, url: fake.url }, outbound);
    const first = await runEmailPull(db, id, { outbound });
    // The client hung up on the literal before its end: it never held the 64 MiB.
    await expect.poll(() => fake!.literals.cutShort).toBe(1);
    expect(fake.bodyFetches.get(2)).toBe(1);
    expect(first).toMatchObject({ status: 'done', too_large: 1, stored: 1, more: true });
    // The next run goes past it without asking for it again; it stays unseen on the server.
    const second = await runEmailPull(db, id, { outbound });
    expect(second).toMatchObject({ status: 'done', too_large: 0, stored: 1, more: false });
    expect(fake.bodyFetches.get(2)).toBe(1);
    expect(await runEmailPull(db, id, { outbound })).toMatchObject({ status: 'done', found: 0, too_large: 0 });
    expect(fake.bodyFetches.get(2)).toBe(1);
    expect(fake.messages.map((m) => m.seen ?? false)).toEqual([true, false, true]);
    expect(await emails()).toHaveLength(2);
    const [listed] = await listEmailPulls(db, businessId);
    expect(listed.last_result).toMatchObject({ status: 'done', too_large: 0 });
  });

  it('a message larger than the limit that an honest server says is small is read up to the limit only, then skipped', async () => {
    const big = Buffer.concat([fixture('idealista.eml'), Buffer.alloc(11 * 1024 * 1024, 0x20)]);
    fake = await startFakeImap({ messages: [{ uid: 5, body: big, size: 500 }] });
    const { id } = await addEmailPull(db, { businessId, url: fake.url }, outbound);
    expect(await runEmailPull(db, id, { outbound })).toMatchObject({ status: 'done', too_large: 1, found: 0 });
    // A partial fetch: the server sent the limit and one byte, never the 11 MiB.
    expect(fake.bodyBytesSent).toBe(10 * 1024 * 1024 + 1);
    expect(await runEmailPull(db, id, { outbound })).toMatchObject({ status: 'done', too_large: 0, found: 0 });
    expect(fake.bodyFetches.get(5)).toBe(1);
  });

  it('a run ends at its deadline, a server sending a few bytes at a time or nothing at all; the lease is not renewed past it', async () => {
    fake = await startFakeImap({
      messages: [
        { uid: 1, body: fixture('idealista.eml') },
        { uid: 2, body: Buffer.alloc(1024 * 1024, 0x61), drip: { bytes: 16, everyMs: 50 } },
      ],
    });
    const { id } = await addEmailPull(db, { businessId, url: fake.url }, outbound);
    const running = runEmailPull(db, id, { outbound, timeoutMs: 1500 });
    await expect.poll(() => fake!.bodyFetches.get(2)).toBe(1);
    const row = await db.selectFrom('email_pulls').select('running_until').where('id', '=', id).executeTakeFirstOrThrow();
    // The lease lasts the deadline and a little to close: never the old 10 minutes renewed.
    expect(Date.parse(row.running_until!) - Date.now()).toBeLessThan(2 * 60_000);
    const result = await running;
    expect(result).toMatchObject({ status: 'failed', stored: 1 });
    expect(result.error).toMatch(/time limit/);
    await expect.poll(() => fake!.literals.cutShort).toBe(1);
    await expect.poll(() => fake!.open).toBe(0);
    // What was stored stays; the message cut short stays unseen for the next run.
    expect(await emails()).toHaveLength(1);
    expect(fake.messages.map((m) => m.seen ?? false)).toEqual([true, false]);

    await fake.close();
    fake = await startFakeImap({ hangAtLogin: true });
    const silent = await addEmailPull(db, { businessId, url: fake.url }, outbound);
    const hung = await runEmailPull(db, silent.id, { outbound, timeoutMs: 500 });
    expect(hung).toMatchObject({ status: 'failed' });
    expect(hung.error).toMatch(/time limit/);
    await expect.poll(() => fake!.open).toBe(0);
  });

  it('a server that never answers LOGOUT, talking all the while, still ends the run at its deadline', async () => {
    fake = await startFakeImap({ messages: [{ uid: 1, body: fixture('idealista.eml') }], dripAfterLogoutMs: 100 });
    const { id } = await addEmailPull(db, { businessId, url: fake.url }, outbound);
    const result = await runEmailPull(db, id, { outbound, timeoutMs: 1500 });
    expect(result).toMatchObject({ stored: 1 });
    // The connection is closed by inmo, not left to the server's goodwill.
    await expect.poll(() => fake!.open).toBe(0);
    const row = await db.selectFrom('email_pulls').select(['running_until', 'last_status']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.running_until).toBeNull();
  });

  it('UIDNEXT 4294967295 costs one SEARCH, and a run fetches at most its limit of messages', async () => {
    const top = 4_294_967_290;
    fake = await startFakeImap({
      uidNext: 4_294_967_295,
      maxSearches: 50,
      messages: [
        { uid: top, body: fixture('idealista.eml') },
        { uid: top + 1, body: fixture('fotocasa.eml') },
        { uid: top + 2, body: fixture('habitaclia.eml') },
      ],
    });
    const { id } = await addEmailPull(db, { businessId, url: fake.url }, outbound);
    expect(await runEmailPull(db, id, { outbound, maxMessages: 2 })).toMatchObject({ status: 'done', stored: 2, more: true });
    expect(fake.commands.get('SEARCH')).toBe(1);
    expect([...fake.bodyFetches.values()].reduce((a, b) => a + b, 0)).toBe(2);
    expect(await runEmailPull(db, id, { outbound, maxMessages: 2 })).toMatchObject({ status: 'done', stored: 1, more: false });
    expect(fake.commands.get('SEARCH')).toBe(2);
  });
});

describe('pulls and worker slots', () => {
  it('four pulls hung on a silent server leave a slot: a new lead is matched meanwhile', async () => {
    fake = await startFakeImap({ hangAtLogin: true });
    for (let i = 0; i < 4; i++) await addEmailPull(db, { businessId, url: fake.url }, outbound);
    const worker = new Worker({ db, outbound, settings: { concurrency: 4, pollMs: 20 } });
    worker.start();
    try {
      await fake.openCount(3);
      const lead = await createLeadByHand(db, { businessId, phone: '+34600111222' });
      await enqueueLeadJobs(db, businessId, lead.id, ['match_lead'], nowRfc3339());
      worker.wake();
      await expect
        .poll(async () => (await db.selectFrom('jobs').select('state').where('kind', '=', 'match_lead').executeTakeFirstOrThrow()).state)
        .toBe('done');
      // The pulls are still hung: at most concurrency - 1 of them hold a slot.
      expect(fake.open).toBe(3);
      expect(fake.connections).toBe(3);
    } finally {
      await fake.close();
      await worker.stop();
    }
  });

  it("a pull's run ends within half the job's lease: the job is never taken back and run again meanwhile", async () => {
    fake = await startFakeImap({ hangAtLogin: true });
    const { id } = await addEmailPull(db, { businessId, url: fake.url }, outbound);
    const worker = new Worker({ db, outbound, settings: { pollMs: 20, leaseMs: 2000, emailPullTimeoutMs: 10 * 60_000 } });
    worker.start();
    try {
      await expect
        .poll(
          async () => (await db.selectFrom('email_pulls').select('last_status').where('id', '=', id).executeTakeFirstOrThrow()).last_status,
        )
        .toBe('failed');
    } finally {
      await worker.stop();
    }
    const [listed] = await listEmailPulls(db, businessId);
    expect(listed.last_result?.error).toMatch(/time limit/);
    const pulls = await db.selectFrom('jobs').select(['state', 'attempts']).where('kind', '=', 'pull_email').orderBy('id').execute();
    expect(pulls[0]).toEqual({ state: 'done', attempts: 1 });
    // One connection: no second run of the same mailbox took another slot.
    expect(fake.connections).toBe(1);
  });
});
