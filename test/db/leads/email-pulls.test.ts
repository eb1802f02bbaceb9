/**
 * Portal e-mails pulled over IMAP (CONTRACT §19), against a real IMAP server (Debian's dovecot,
 * test/helpers/dovecot.ts): `inmo email pull add|list|run|remove`; a run stores each unseen message
 * as the webhook does (once, with its `process_email` job) and marks it \Seen only once stored;
 * a second run stores nothing new; a message whose storing failed stays unseen; the durable
 * `pull_email` job runs it and queues exactly one next run; one run at a time per pull.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { imapFailure, openImapMailboxAt, parseImapUrl } from '../../../src/channels/imap-mailbox.ts';
import { outboundPolicy } from '../../../src/config.ts';
import type { Db } from '../../../src/db/database.ts';
import { takeEmailPullLease } from '../../../src/db/repositories/email-pulls.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { addEmailPull, runEmailPull } from '../../../src/services/leads/email-pulls.ts';
import { acceptInboundEmail } from '../../../src/services/leads/email-intake.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { inmo } from '../../helpers/cli.ts';
import { REPO_ROOT } from '../../helpers/db.ts';
import { dovecotHere, startDovecot, type Dovecot } from '../../helpers/dovecot.ts';
import { withApp, API_ONLY } from '../../helpers/http.ts';

const HERE = dovecotHere('email pulls (IMAP)');
const t = withApp({ surfaces: API_ONLY, each: true });
const fixture = (name: string) => readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'email', name));
const outbound = { allowPrivateNetwork: true, channelHosts: [] };

let dovecot: Dovecot;

beforeAll(async () => {
  if (HERE) dovecot = await startDovecot();
}, 60_000);

afterAll(async () => {
  await dovecot?.stop();
});

/** Runs `fn` with a logged-in client, logged out after. */
async function withMailbox<T>(fn: (client: Awaited<ReturnType<Dovecot['client']>>) => Promise<T>): Promise<T> {
  const client = await dovecot.client();
  try {
    const lock = await client.getMailboxLock('INBOX');
    try {
      return await fn(client);
    } finally {
      lock.release();
    }
  } finally {
    await client.logout();
  }
}

/** Appends fixtures to the INBOX (unseen unless `seen`). */
async function append(names: string[], seen = false): Promise<void> {
  const client = await dovecot.client();
  try {
    for (const name of names) await client.append('INBOX', fixture(name), seen ? ['\\Seen'] : []);
  } finally {
    await client.logout();
  }
}

/** The INBOX's messages: UID and whether seen, in UID order. */
const inbox = () =>
  withMailbox(async (client) => {
    const found: Array<{ uid: number; seen: boolean }> = [];
    if (!client.mailbox || client.mailbox.exists === 0) return found;
    for await (const m of client.fetch('1:*', { uid: true, flags: true }))
      found.push({ uid: m.uid, seen: m.flags?.has('\\Seen') ?? false });
    return found.sort((a, b) => a.uid - b.uid);
  });

const emails = (db: Db) => db.selectFrom('inbound_emails').select(['id', 'message_key', 'state']).orderBy('id').execute();
const jobs = (db: Db, kind: string) =>
  db.selectFrom('jobs').select(['kind', 'payload', 'state', 'run_at']).where('kind', '=', kind).orderBy('id').execute();
const drain = () => new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
const envOf = (extra: Record<string, string> = {}) => ({
  ...process.env,
  DATABASE_URL: t.url,
  LOG_LEVEL: 'warn',
  INMO_ALLOW_PRIVATE_NETWORK: '1',
  ...extra,
});

describe.skipIf(!HERE)('email pulls over IMAP (dovecot)', () => {
  beforeEach(async () => {
    // Each test starts from an empty INBOX.
    await withMailbox(async (client) => {
      if (client.mailbox && client.mailbox.exists > 0) await client.messageDelete('1:*');
    });
  });

  it('inmo email pull add|list|remove: the password sealed and never printed; imap:// only with INMO_ALLOW_PRIVATE_NETWORK=1', async () => {
    const env = envOf();
    const added = await inmo(env, 'email', 'pull', 'add', '--business', String(t.businessId), '--url', dovecot.url, '--json');
    expect(added.code).toBe(0);
    expect(added.json).toEqual({
      id: expect.any(Number),
      url: `imap://agent%40example.test@127.0.0.1:${dovecot.port}/INBOX`,
      every_minutes: 5,
    });
    expect(added.stdout).not.toContain(dovecot.password);
    const row = await t.db.selectFrom('email_pulls').selectAll().executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(dovecot.password);
    expect(row.password_sealed).toMatch(/^v1:/);
    expect(await jobs(t.db, 'pull_email')).toEqual([
      expect.objectContaining({ payload: JSON.stringify({ pull_id: added.json.id }), state: 'pending' }),
    ]);

    const listed = await inmo(env, 'email', 'pull', 'list', '--business', String(t.businessId), '--json');
    expect(listed.json).toEqual([expect.objectContaining({ id: added.json.id, url: added.json.url, every_minutes: 5, last_result: null })]);
    expect(listed.stdout).not.toContain(dovecot.password);
    expect((await inmo(env, 'email', 'pull', 'list', '--business', String(t.businessId))).stdout).not.toContain(dovecot.password);

    const closed = envOf({ INMO_ALLOW_PRIVATE_NETWORK: '0' });
    const refused = await inmo(closed, 'email', 'pull', 'add', '--business', String(t.businessId), '--url', dovecot.url, '--json');
    expect(refused.code).not.toBe(0);
    expect(`${refused.stdout}${refused.stderr}`).toContain('imaps://');
    expect(`${refused.stdout}${refused.stderr}`).not.toContain(dovecot.password);
    const privateTls = dovecot.url.replace('imap://', 'imaps://');
    expect((await inmo(closed, 'email', 'pull', 'add', '--business', String(t.businessId), '--url', privateTls)).code).not.toBe(0);
    expect((await inmo(env, 'email', 'pull', 'add', '--business', String(t.businessId), '--url', 'https://x.example/')).code).not.toBe(0);
    expect(
      (await inmo(env, 'email', 'pull', 'add', '--business', String(t.businessId), '--url', dovecot.url, '--every-minutes', '20000')).code,
    ).not.toBe(0);

    expect((await inmo(env, 'email', 'pull', 'remove', String(added.json.id), '--json')).json).toEqual({
      id: added.json.id,
      removed: true,
    });
    expect((await inmo(env, 'email', 'pull', 'list', '--business', String(t.businessId), '--json')).json).toEqual([]);
    expect((await inmo(env, 'email', 'pull', 'run', String(added.json.id))).code).not.toBe(0);
    // The queued run finds the pull removed: it does nothing and queues no other.
    await drain();
    expect((await jobs(t.db, 'pull_email')).map((j) => j.state)).toEqual(['done']);
  });

  it('stores each unseen message once with its job, marks it seen only then, and a second run stores nothing new', async () => {
    await append(['idealista.eml'], true); // seen already: left alone
    await append(['fotocasa.eml', 'habitaclia.eml']);
    const { id } = await addEmailPull(t.db, { businessId: t.businessId, url: dovecot.url }, outbound);

    const env = envOf();
    const first = await inmo(env, 'email', 'pull', 'run', String(id), '--json');
    expect(first.code).toBe(0);
    expect(first.json).toEqual({ status: 'done', found: 2, stored: 2, already: 0, too_large: 0, skipped: 0, more: false });
    expect((await inbox()).map((m) => m.seen)).toEqual([true, true, true]);
    const kept = await emails(t.db);
    expect(kept).toHaveLength(2);
    expect(kept.every((e) => e.state === 'pending')).toBe(true);
    expect((await jobs(t.db, 'process_email')).map((j) => j.payload)).toEqual(kept.map((e) => JSON.stringify({ email_id: e.id })));

    const second = await runEmailPull(t.db, id, { outbound });
    expect(second).toMatchObject({ status: 'done', found: 0, stored: 0 });
    expect(await emails(t.db)).toHaveLength(2);

    // A crash between storing and marking seen: the message is read again, and storing it again is a no-op.
    const uid = (await inbox())[1].uid;
    await withMailbox((client) => client.messageFlagsRemove(String(uid), ['\\Seen'], { uid: true }));
    expect(await runEmailPull(t.db, id, { outbound })).toMatchObject({ status: 'done', found: 1, stored: 0, already: 1 });
    expect((await inbox()).every((m) => m.seen)).toBe(true);
    expect(await emails(t.db)).toHaveLength(2);

    // The process_email jobs make the leads, as the webhook's do.
    await drain();
    expect((await emails(t.db)).map((e) => e.state)).toEqual(['lead', 'lead']);
    // The worker runs jobs side by side, so the leads' order is not the messages'.
    const sources = (await t.db.selectFrom('leads').select(['source']).execute()).map((l) => l.source).sort();
    expect(sources).toEqual(['fotocasa', 'habitaclia']);

    const listed = await inmo(env, 'email', 'pull', 'list', '--business', String(t.businessId), '--json');
    // The run the pull's first job made (the drain above) is the last one.
    expect(listed.json[0]).toMatchObject({ last_status: 'done', last_result: { found: 0 }, running: false });
  });

  it('a message whose storing failed stays unseen, the run says so in words, and the next run stores it', async () => {
    await append(['idealista.eml', 'fotocasa.eml']);
    const { id } = await addEmailPull(t.db, { businessId: t.businessId, url: dovecot.url }, outbound);
    let calls = 0;
    const failing = async (db: Db, businessId: number, raw: Buffer) => {
      if (++calls === 2) throw new Error('database unavailable: Ana García +34600000000');
      return acceptInboundEmail(db, businessId, raw);
    };
    const failed = await runEmailPull(t.db, id, { outbound, store: failing });
    expect(failed).toMatchObject({ status: 'failed', found: 2, stored: 1 });
    expect(failed.error).toBe('a message could not be stored (it stays unseen and is read again next time)');
    expect((await inbox()).map((m) => m.seen)).toEqual([true, false]);
    const row = await t.db.selectFrom('email_pulls').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ last_status: 'failed', last_error: failed.error, running_until: null });

    expect(await runEmailPull(t.db, id, { outbound })).toMatchObject({ status: 'done', found: 1, stored: 1 });
    expect((await inbox()).map((m) => m.seen)).toEqual([true, true]);
    expect(await emails(t.db)).toHaveLength(2);
  });

  it('the pull_email job runs the pull and queues exactly one next run, every_minutes later', async () => {
    await append(['pisos-com.eml']);
    const { id } = await addEmailPull(t.db, { businessId: t.businessId, url: dovecot.url, everyMinutes: 7 }, outbound);
    await drain();
    expect(await emails(t.db)).toHaveLength(1);
    const pulls = await jobs(t.db, 'pull_email');
    expect(pulls.map((j) => j.state)).toEqual(['done', 'pending']);
    const wait = Date.parse(pulls[1].run_at) - Date.now();
    expect(wait).toBeGreaterThan(5 * 60_000);
    expect(wait).toBeLessThanOrEqual(7 * 60_000);
    expect((await inbox()).map((m) => m.seen)).toEqual([true]);
    // A run while another holds the pull reads nothing.
    expect(await takeEmailPullLease(t.db, id, 'another-run', nowRfc3339(), new Date(Date.now() + 60_000).toISOString())).toBe(true);
    await append(['habitaclia.eml']);
    expect(await runEmailPull(t.db, id, { outbound })).toMatchObject({ status: 'busy', found: 0 });
    expect((await inbox()).map((m) => m.seen)).toEqual([true, false]);
  });

  it('reads at most maxMessages in one run and says more are waiting', async () => {
    await append(['idealista.eml', 'fotocasa.eml', 'habitaclia.eml']);
    const { id } = await addEmailPull(t.db, { businessId: t.businessId, url: dovecot.url }, outbound);
    expect(await runEmailPull(t.db, id, { outbound, maxMessages: 2 })).toMatchObject({ status: 'done', found: 2, stored: 2, more: true });
    expect(await runEmailPull(t.db, id, { outbound, maxMessages: 2 })).toMatchObject({ status: 'done', found: 1, stored: 1, more: false });
  });

  it('a wrong password fails the run in words, without the user or the password', async () => {
    const url = dovecot.url.replace(dovecot.password, 'wrong-password');
    const { id } = await addEmailPull(t.db, { businessId: t.businessId, url }, outbound);
    const failed = await runEmailPull(t.db, id, { outbound });
    expect(failed).toMatchObject({ status: 'failed', found: 0, error: 'the mail server refused the user or password' });
    const row = await t.db.selectFrom('email_pulls').selectAll().executeTakeFirstOrThrow();
    expect(`${row.last_error} ${row.last_result}`).not.toMatch(/agent|wrong-password/);
  });
});

describe.skipIf(!HERE)('email pulls over TLS (dovecot with a self-signed certificate)', () => {
  let secure: Dovecot;

  beforeAll(async () => {
    if (HERE) secure = await startDovecot({ tls: true });
  }, 60_000);

  afterAll(async () => {
    await secure?.stop();
  });

  /** Appends a fixture to the TLS server's INBOX, unseen. */
  async function appendTo(server: Dovecot, name: string): Promise<void> {
    const client = await server.client();
    try {
      await client.append('INBOX', fixture(name), []);
    } finally {
      await client.logout();
    }
  }

  it('with INMO_ALLOW_PRIVATE_NETWORK=1 an imaps:// pull reads the mailbox over TLS without verifying the certificate', async () => {
    await appendTo(secure, 'idealista.eml');
    const env = envOf();
    const added = await inmo(env, 'email', 'pull', 'add', '--business', String(t.businessId), '--url', secure.tls!.url, '--json');
    expect(added.json.url).toBe(`imaps://agent%40example.test@127.0.0.1:${secure.tls!.port}/INBOX`);
    const run = await inmo(env, 'email', 'pull', 'run', String(added.json.id), '--json');
    expect(run.json).toEqual({ status: 'done', found: 1, stored: 1, already: 0, too_large: 0, skipped: 0, more: false });
    expect((await emails(t.db)).map((e) => e.message_key)).toEqual(['<20260302091500.4f3a9c1e@mail-out.idealista.com>']);

    // A plain imap:// pull of the same server goes over TLS too: the server offers STARTTLS.
    await appendTo(secure, 'fotocasa.eml');
    const { id } = await addEmailPull(t.db, { businessId: t.businessId, url: secure.url }, outbound);
    expect(await runEmailPull(t.db, id, { outbound })).toMatchObject({ status: 'done', found: 1, stored: 1 });
  });

  it('without it the certificate is verified: a self-signed one is refused, in words, and nothing is read', async () => {
    await appendTo(secure, 'habitaclia.eml');
    // The certificate names localhost, so only its issuer fails. The address check is passed by
    // hand: without INMO_ALLOW_PRIVATE_NETWORK a pull never reaches a loopback address at all.
    const target = parseImapUrl(secure.tls!.url.replace('@127.0.0.1:', '@localhost:'), outbound);
    const closed = outboundPolicy({});
    expect(closed.allowPrivateNetwork).toBe(false);
    const refused = await openImapMailboxAt(target, '127.0.0.1', closed).then(
      async (mailbox) => {
        await mailbox.close();
        return null;
      },
      (error: unknown) => error,
    );
    expect(refused).not.toBeNull();
    expect(imapFailure(refused)).toBe("the mail server's TLS certificate could not be verified");
    expect(imapFailure(refused)).not.toContain(secure.password);

    // With the setting, the same address opens, and the message was left unseen.
    const mailbox = await openImapMailboxAt(target, '127.0.0.1', outbound);
    try {
      expect(await mailbox.unseenUids()).toHaveLength(1);
    } finally {
      await mailbox.close();
    }
  });
});
