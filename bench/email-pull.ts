/**
 * Portal e-mails pulled over IMAP (issue 43, CONTRACT §19), `npm run bench -- --only email-pull`:
 * a dovecot mailbox (Debian's dovecot-imapd, started as the tests start it: test/helpers/dovecot.ts,
 * on loopback, on CPU 1 with this process) holding 1,000, then 5,000 unseen copies of the real
 * portal e-mails (bench/portal-emails.ts), written straight into its Maildir and indexed by
 * dovecot before the clock starts. Each is read by one pull run reading them all
 * (bench/email-pull-run.ts, a process of its own on CPU 0), on SQLite and on PostgreSQL (when
 * it answers), each into a fresh database: the run's time, messages a second, and the process's
 * resident set and V8 heap in use, sampled every 10 ms, before and at their peak, and the heap
 * still live after a full collection every 500 messages. Baseline, same run: the same reading of
 * the mailbox with a store that keeps nothing (IMAP alone). The figures at 5,000 over those at
 * 1,000 show whether memory grows with the mailbox.
 *
 * A scheduled run reads at most 500 messages and queues the next at once (jobs/tasks/pull-email.ts);
 * here one run reads the whole mailbox, so that it would show any growth.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDb } from '../src/db/database.ts';
import { addEmailPull, type EmailPullResult } from '../src/services/leads/email-pulls.ts';
import { startDovecot, type Dovecot } from '../test/helpers/dovecot.ts';
import { freshLeadsDb, postgresHere } from './leads.ts';
import { portalEmails } from './portal-emails.ts';
import { spawnOnCpu0 } from './processes.ts';

/** What one run in bench/email-pull-run.ts printed. */
interface RunFigures {
  seconds: number;
  result: EmailPullResult;
  rss: { before: number; peak: number };
  heap: { before: number; peak: number };
  /** The heap live after a full garbage collection every 500 messages, MiB. */
  live: number[];
}

const PRIVATE = { INMO_ALLOW_PRIVATE_NETWORK: '1' };

/**
 * Fills the dovecot's INBOX with `messages`, unseen, as files of its Maildir's `cur/` with their
 * sizes in their names (`,S=` and `,W=`, as dovecot's own delivery writes them), and lets dovecot
 * index them. Not in `new/`: there dovecot moves each message to `cur/` when its first flag is
 * set, and rescans `new/` after each such move, which made setting `\Seen` 3–5× slower per
 * message at 1,000 (dovecot's cost, not the pull's).
 */
async function fill(dovecot: Dovecot, messages: Buffer[]): Promise<void> {
  // The first login makes the INBOX's Maildir (as dovecot's user, who must own it).
  const client = await dovecot.client();
  try {
    await client.mailboxOpen('INBOX');
    const at = Math.floor(Date.now() / 1000);
    messages.forEach((message, i) =>
      writeFileSync(join(dovecot.maildir, 'cur', `${at}.M${i}P${process.pid}.bench,S=${message.length},W=${message.length}:2,`), message, {
        mode: 0o644,
      }),
    );
    await client.mailboxClose();
    const status = await client.status('INBOX', { messages: true, unseen: true });
    if (!status || status.messages !== messages.length || status.unseen !== messages.length)
      throw new Error(`dovecot holds ${status && status.messages} messages, ${status && status.unseen} unseen, not ${messages.length}`);
  } finally {
    await client.logout();
  }
}

/** Makes every message of the INBOX unseen again. */
async function unsee(dovecot: Dovecot): Promise<void> {
  const client = await dovecot.client();
  try {
    await client.mailboxOpen('INBOX');
    await client.messageFlagsRemove('1:*', ['\\Seen']);
  } finally {
    await client.logout();
  }
}

/** Runs bench/email-pull-run.ts on CPU 0. @throws Error when it fails or its run did not read all `count` messages. */
async function run(root: string, url: string, pullId: number, count: number, mode: 'store' | 'floor'): Promise<RunFigures> {
  const child = spawnOnCpu0(
    ['--expose-gc', join(root, 'bin', 'run-ts.mjs'), join(root, 'bench', 'email-pull-run.ts'), url, String(pullId), String(count), mode],
    { ...process.env, ...PRIVATE, LOG_LEVEL: 'warn' },
    root,
  );
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`email-pull-run.ts ${mode} exited ${code}: ${out}`);
  const figures = JSON.parse(out.trim().split('\n').pop()!) as RunFigures;
  const { result } = figures;
  if (result.status !== 'done' || result.found !== count || (mode === 'store' && result.stored !== count))
    throw new Error(`the ${mode} run of ${count} messages came to ${JSON.stringify(result)}`);
  return figures;
}

/** A fresh database of `engine` with a pull of the dovecot's INBOX: its URL and the pull's id. */
async function freshPull(work: string, engine: 'sqlite' | 'postgres', name: string, dovecot: Dovecot) {
  const { url, businessId } = await freshLeadsDb(work, engine, name);
  const db = createDb(url);
  try {
    const { id } = await addEmailPull(db, { businessId, url: dovecot.url }, { allowPrivateNetwork: true, channelHosts: [] });
    return { url, id };
  } finally {
    await db.destroy();
  }
}

/** The mailboxes' sizes, messages. */
const SIZES = [1000, 5000];

/**
 * Runs the part.
 * @param options.sizes the mailboxes' sizes (default 1,000 and 5,000); `engines: false`
 *   runs the baseline alone.
 * @returns the report's lines.
 */
export async function emailPullBench(options: { root: string; work: string; sizes?: number[]; engines?: boolean }): Promise<string[]> {
  const { root, work } = options;
  const sizes = options.sizes ?? SIZES;
  if (spawnSync('/usr/sbin/dovecot', ['--version'], { stdio: 'ignore' }).status !== 0)
    throw new Error('the e-mail pull benchmark needs dovecot: apt-get install dovecot-imapd');
  const engines: Array<'sqlite' | 'postgres'> =
    options.engines === false ? [] : (await postgresHere()) ? ['sqlite', 'postgres'] : ['sqlite'];
  const rows: Array<{ count: number; what: string; figures: RunFigures; floor: RunFigures }> = [];
  for (const count of sizes) {
    const dovecot = await startDovecot();
    try {
      const messages = await portalEmails(root, count, `pull-${count}`);
      process.stderr.write(`email-pull: ${count} messages into dovecot's Maildir\n`);
      await fill(dovecot, messages);
      const floorPull = await freshPull(work, 'sqlite', 'email-pull-floor', dovecot);
      process.stderr.write(`email-pull: ${count} messages, IMAP alone\n`);
      const floor = await run(root, floorPull.url, floorPull.id, count, 'floor');
      for (const engine of engines) {
        await unsee(dovecot);
        const pull = await freshPull(work, engine, `email-pull-${engine}`, dovecot);
        process.stderr.write(`email-pull: ${count} messages, stored on ${engine}\n`);
        rows.push({ count, what: engine, figures: await run(root, pull.url, pull.id, count, 'store'), floor });
      }
      rows.push({ count, what: 'IMAP alone (stores nothing)', figures: floor, floor });
    } finally {
      await dovecot.stop();
    }
  }

  const n = (value: number) => Math.round(value).toLocaleString('en');
  const mib = (value: number) => value.toFixed(1);
  const lines = [
    "one pull run reading a whole dovecot mailbox of unseen portal e-mails (loopback, dovecot on CPU 1, the run's process on CPU 0),",
    'each message stored with its process_email job into a fresh database; baseline: the same reading, storing nothing; memory in MiB,',
    'sampled every 10 ms from after a full GC (modules loaded, database open) to the end of the run; live heap: after a full GC',
    'every 500 messages, at the first and the last of them',
    '',
    '| messages | stored on | seconds | messages/s | × IMAP alone | RSS before | RSS peak | heap before | heap peak | live heap |',
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const { count, what, figures, floor } of rows) {
    const rate = count / figures.seconds;
    lines.push(
      `| ${n(count)} | ${what} | ${figures.seconds.toFixed(2)} | ${n(rate)} | ${(rate / (count / floor.seconds)).toFixed(2)} | ${mib(figures.rss.before)} | ${mib(figures.rss.peak)} | ${mib(figures.heap.before)} | ${mib(figures.heap.peak)} | ${mib(figures.live[0])} → ${mib(figures.live[figures.live.length - 1])} |`,
    );
  }
  lines.push('', "the largest mailbox's run against the smaller ones':");
  const largest = sizes[sizes.length - 1];
  for (const what of [...engines, 'IMAP alone (stores nothing)']) {
    const of = (count: number) => rows.find((r) => r.count === count && r.what === what)!.figures;
    const last = (f: RunFigures) => f.live[f.live.length - 1];
    const ratios = (value: (f: RunFigures) => number) =>
      sizes
        .slice(0, -1)
        .map((count) => `${(value(of(largest)) / value(of(count))).toFixed(2)}× ${n(count)}'s`)
        .join(', ');
    lines.push(
      `  ${what}, ${n(largest)} messages: peak heap ${ratios((f) => f.heap.peak)}; live heap at the end ${ratios(last)}; peak RSS ${ratios((f) => f.rss.peak)}`,
    );
  }
  return lines;
}
