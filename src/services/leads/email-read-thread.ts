/**
 * Reading e-mails off the serving thread, with a deadline (issue 55, hole 1). Reading a message
 * (mailparser, html-to-text, the portal parsers: services/leads/email-reading.ts) is CPU work
 * on text written by anyone who can send mail to the agency; on the thread that also serves the
 * API and the console, one hostile message stopped every request for tens of seconds. Here it
 * runs on a thread of its own, and a message not read within `INMO_EMAIL_READ_TIMEOUT_MS` ends
 * that thread: the message is then `timed_out`, and the next one starts a new thread.
 *
 * One long-lived thread per process, started at the first message and kept (unreferenced: it
 * never keeps a process alive): starting one costs more than most readings (its bundle, then
 * mailparser and html-to-text to load, tens to hundreds of milliseconds), which a thread per
 * message would pay each time. Messages are read one at a time, in order; the deadline of each
 * runs from when the thread starts on it, so a message waiting behind a slow one is not
 * counted late.
 */
import { Worker } from 'node:worker_threads';
import { emailReadTimeoutFromEnv } from '../../config.ts';
import { inPackage } from '../../package-root.ts';
import { threadBundle } from '../../thread-bundle.ts';
import type { MessageRead } from './email-reading.ts';
import type { Belief } from '../../domain/leads/portal-emails/index.ts';

/**
 * What reading a message came to: `read` with what it says, `unreadable` (not a message
 * mailparser can read, or the thread ended by itself: out of memory), or `timed_out` (not read
 * within the deadline; the thread was stopped).
 */
export type ReadOutcome = { outcome: 'read'; read: MessageRead } | { outcome: 'unreadable' } | { outcome: 'timed_out' };

/**
 * The reading thread's heap, MiB: a 10 MiB message and its texts take a few hundred at most;
 * beyond it the thread dies alone (the message is then `unreadable`), not the server.
 */
const THREAD_HEAP_MB = 1024;

type Reply = { id: number; read: MessageRead | string } | { id: number; unreadable: true };

/** What reading a lead's answer came to (CONTRACT §25): its text without the quote, or why not. */
export type AnswerOutcome = { outcome: 'read'; text: string } | { outcome: 'unreadable' } | { outcome: 'timed_out' };

let thread: Promise<Worker> | null = null;
/** The end of the queue of messages to read: each waits for the one before. */
let queue: Promise<unknown> = Promise.resolve();
let lastId = 0;
/** Threads started in this process (a test's evidence that the deadline stops one). */
let started = 0;

/** The reading thread, started (and its libraries loaded) when there is none. */
function readingThread(): Promise<Worker> {
  thread ??= (async () => {
    const worker = new Worker(await threadBundle(inPackage('src', 'services', 'leads', 'email-read-thread-main.ts')), {
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
    started++;
    worker.unref();
    worker.once('exit', () => {
      if (current === worker) forget();
    });
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    current = worker;
    return worker;
  })();
  thread.catch(() => forget());
  return thread;
}
let current: Worker | null = null;
const forget = () => {
  thread = null;
  current = null;
};

/** Reads `raw` on the thread (as an answer with `answer`), at most `timeoutMs` once the thread starts on it. */
async function readOne(
  raw: Uint8Array,
  timeoutMs: number,
  belief: Belief,
  answer = false,
): Promise<{ outcome: 'read'; read: MessageRead | string } | { outcome: 'unreadable' } | { outcome: 'timed_out' }> {
  const worker = await readingThread();
  const id = ++lastId;
  type Outcome = { outcome: 'read'; read: MessageRead | string } | { outcome: 'unreadable' } | { outcome: 'timed_out' };
  return new Promise<Outcome>((resolve) => {
    const done = (outcome: Outcome) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      resolve(outcome);
    };
    const onMessage = (reply: Reply) => {
      if (reply.id !== id) return;
      done('read' in reply ? { outcome: 'read', read: reply.read } : { outcome: 'unreadable' });
    };
    // Ended by itself while reading (out of memory): the message cannot be read here.
    const onExit = () => done({ outcome: 'unreadable' });
    const timer = setTimeout(() => {
      forget();
      worker.off('exit', onExit);
      void worker.terminate();
      done({ outcome: 'timed_out' });
    }, timeoutMs);
    worker.on('message', onMessage);
    worker.on('exit', onExit);
    worker.postMessage(answer ? { id, raw, answer } : { id, raw, belief });
  });
}

/**
 * Reads a raw message on the e-mail reader's thread (see the module's comment), after the
 * messages already queued.
 * @param options.timeoutMs the deadline once the thread starts on it, ms; default
 *   `INMO_EMAIL_READ_TIMEOUT_MS` (config.ts), read at each call.
 * @param options.belief whom to believe (domain/leads/portal-emails/index.ts `Belief`); default:
 *   every sender (the parsers' own tests).
 * @returns the outcome; never throws for what the message holds.
 * @throws Error only when the thread cannot be started (its bundle does not build).
 */
export function readInThread(raw: Uint8Array, options: { timeoutMs?: number; belief?: Belief } = {}): Promise<ReadOutcome> {
  const timeoutMs = options.timeoutMs ?? emailReadTimeoutFromEnv();
  const reading = queue.then(() => readOne(raw, timeoutMs, options.belief ?? {}));
  queue = reading.catch(() => undefined);
  return reading as Promise<ReadOutcome>;
}

/**
 * Reads a lead's answer to an agent's e-mail on the e-mail reader's thread (CONTRACT §25), after
 * the messages already queued, within the same deadline as {@link readInThread}.
 * @returns its text without the part it quotes, or why it could not be read; never throws for
 *   what the message holds.
 * @throws Error only when the thread cannot be started.
 */
export function readAnswerInThread(raw: Uint8Array, options: { timeoutMs?: number } = {}): Promise<AnswerOutcome> {
  const timeoutMs = options.timeoutMs ?? emailReadTimeoutFromEnv();
  const reading = queue.then(() => readOne(raw, timeoutMs, {}, true));
  queue = reading.catch(() => undefined);
  return reading.then((r) => (r.outcome === 'read' ? { outcome: 'read', text: typeof r.read === 'string' ? r.read : r.read.text } : r));
}

/** How many reading threads this process has started (one, unless deadlines stopped some). */
export function readingThreadsStarted(): number {
  return started;
}

/** Stops the reading thread, if any (the next message starts another). */
export async function stopReadingThread(): Promise<void> {
  const running = thread;
  forget();
  if (running) await (await running.catch(() => null))?.terminate();
}
