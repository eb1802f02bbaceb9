/**
 * One run of an e-mail pull in a process of its own, for bench/email-pull.ts: its time and its
 * memory. Usage:
 *
 *     node --expose-gc bin/run-ts.mjs bench/email-pull-run.ts DATABASE_URL PULL_ID MAX store|floor
 *
 * `store` runs the pull as the `pull_email` job does (services/leads/email-pulls.ts
 * `runEmailPull`), reading at most MAX messages; `floor` runs the same reading of the mailbox
 * (windows of UIDs, sizes, each message's bytes, `\Seen` set) with a store that keeps nothing:
 * what IMAP alone costs. The outbound policy is the environment's (INMO_ALLOW_PRIVATE_NETWORK=1
 * for a local server). Once the modules are loaded and the database opened, a full garbage
 * collection, then the resident set and the V8 heap in use are sampled every 10 ms during the
 * run; and every 500 messages a full garbage collection gives the heap still live then (what a
 * run holds, without the garbage a collection would free). Prints one JSON line: `{"seconds",
 * "result", "rss": {"before", "peak"}, "heap": {"before", "peak"}, "live": [MiB after each 500
 * messages]}`, memory in MiB.
 */
import { outboundPolicy } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { acceptInboundEmail } from '../src/services/leads/email-intake.ts';
import { runEmailPull } from '../src/services/leads/email-pulls.ts';

const [url, pullId, max, mode] = process.argv.slice(2);
if (!url || !pullId || !max || (mode !== 'store' && mode !== 'floor'))
  throw new Error('usage: email-pull-run.ts DATABASE_URL PULL_ID MAX store|floor');

const db = createDb(url);
// The database's connection is made before the baseline is taken.
await db.selectFrom('email_pulls').select('id').execute();
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
gc();
const mib = (bytes: number) => bytes / 1024 / 1024;
const before = process.memoryUsage();
let peakRss = before.rss;
let peakHeap = before.heapUsed;
const sample = () => {
  const now = process.memoryUsage();
  peakRss = Math.max(peakRss, now.rss);
  peakHeap = Math.max(peakHeap, now.heapUsed);
};
const live: number[] = [];
let read = 0;
const sampler = setInterval(sample, 10);
const started = performance.now();
const result = await runEmailPull(db, Number(pullId), {
  outbound: outboundPolicy(),
  maxMessages: Number(max),
  store: async (...args) => {
    const stored = mode === 'floor' ? { stored: true } : await acceptInboundEmail(...args);
    if (++read % 500 === 0) {
      sample();
      gc();
      live.push(mib(process.memoryUsage().heapUsed));
    }
    return stored;
  },
});
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
sample();
await db.destroy();
process.stdout.write(
  `${JSON.stringify({
    seconds,
    result,
    rss: { before: mib(before.rss), peak: mib(peakRss) },
    heap: { before: mib(before.heapUsed), peak: mib(peakHeap) },
    live,
  })}\n`,
);
