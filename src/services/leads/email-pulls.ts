/**
 * Mailboxes pulled over IMAP for portal e-mails (CONTRACT §19): the other way, besides
 * `POST /webhooks/email/<token>`, for a business's forwarded portal e-mails to come in.
 *
 * - A pull names a mailbox (`imaps://user:pass@host[:port]/INBOX`); its password is sealed at
 *   rest (secrets.ts) and never shown again: the URL is kept and shown without it. Plain
 *   `imap://` and private addresses only with `INMO_ALLOW_PRIVATE_NETWORK=1` (channels/imap-mailbox.ts).
 * - A durable `pull_email` job runs it every `every_minutes` (a scheduled pull,
 *   services/scheduled-pulls.ts: {@link EMAIL_PULLS}; jobs/tasks/pull-email.ts), or
 *   `inmo email pull run` at once. One run at a time per pull: a run holds the pull's lease
 *   (a crashed run's lapses), and another run meanwhile is `busy`.
 * - A run reads the messages not seen (one SEARCH, at most `maxMessages` of them, one message's
 *   bytes at a time), stores each as the webhook does (email-intake.ts `acceptInboundEmail`: once
 *   per business, then its `process_email` job), and only then marks it `\Seen`. A crash between
 *   the two reads it again next time, and storing it again is a no-op. A message that could not be
 *   stored stays unseen and ends the run (`failed`); one larger than {@link EMAIL_MAX_BYTES}
 *   (whatever size the server announced: never held past the limit) or empty stays unseen, is
 *   counted once, and is skipped for good (its UID remembered, migration 0046).
 * - A run ends at its deadline (`INMO_EMAIL_PULL_TIMEOUT_MS`, 2 minutes): the connection is closed,
 *   what was stored stays, the rest comes with the next run; its lease lasts the deadline and 30 s
 *   and is never renewed. The worker runs pulls in all its slots but one (jobs/worker.ts).
 * - Each run's outcome is kept for `list`: counts, and an error in words without personal data.
 * - Added and removed by the CLI or by owners on the console's e-mail page (CONTRACT §25), each in
 *   the audit trail by the pull's id; the console also tests one ({@link testEmailPull}).
 */
import { randomUUID } from 'node:crypto';
import type { OutboundPolicy } from '../../config.ts';
import {
  imapFailure,
  imapFailureKind,
  imapUrlWithoutPassword,
  openImapMailbox,
  parseImapUrl,
  RUN_DEADLINE,
  type ImapFailureKind,
  type ImapMailbox,
} from '../../channels/imap-mailbox.ts';
import { CLI, recordAudit, type AuditActor } from '../access/audit.ts';
import type { Db } from '../../db/database.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import * as repo from '../../db/repositories/email-pulls.ts';
import { transact } from '../../db/transaction.ts';
import { nowRfc3339, toRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { openSecret, sealSecret } from '../../secrets.ts';
import { acceptInboundEmail, EMAIL_MAX_BYTES } from './email-intake.ts';
import { checkedPullPeriod, queueFirstPull, type PullKind } from '../scheduled-pulls.ts';

/** Minutes between a pull's runs: 5 by default, 1 to 10,080 (a week). */
export const EMAIL_PULL_MINUTES = { default: 5, min: 1, max: 10_080 } as const;

/** Mailboxes as scheduled pulls (services/scheduled-pulls.ts): `pull_email` jobs, `{"pull_id": …}`. */
export const EMAIL_PULLS: PullKind = {
  job: 'pull_email',
  key: 'pull_id',
  table: 'email_pulls',
  minutes: EMAIL_PULL_MINUTES,
  periodError: 'EMAIL_PULL_PERIOD',
  find: (db, id) => repo.findEmailPull(db, id),
};

/** A run's deadline by default, ms (`INMO_EMAIL_PULL_TIMEOUT_MS`): 2 minutes. */
export const EMAIL_PULL_TIMEOUT_MS = 2 * 60_000;

/** How long a run's lease outlasts its deadline, ms: the time to close the connection and record the outcome. */
const CLOSE_GRACE_MS = 30_000;

/** What one run came to. */
export interface EmailPullResult {
  /** `busy`: another run holds the pull; nothing was read. */
  status: 'done' | 'failed' | 'busy';
  /** Messages not seen that were read. */
  found: number;
  /** Of those, stored (a `process_email` job each). */
  stored: number;
  /** Of those, stored before (a message seen again: nothing new). */
  already: number;
  /** Left unseen and skipped from now on: larger than 10 MiB (found in this run). */
  too_large: number;
  /** Left unseen and skipped from now on: empty (found in this run). */
  skipped: number;
  /** The run stopped at its limit of messages: the rest come with the next run, queued at once. */
  more: boolean;
  /** Why it failed, in words (no personal data). */
  error?: string;
}

/** A pull as the operator sees it (never its password). */
export function presentEmailPull(row: NonNullable<Awaited<ReturnType<typeof repo.findEmailPull>>>) {
  return {
    id: row.id,
    url: row.url,
    every_minutes: row.every_minutes,
    created_at: row.created_at,
    last_run_at: row.last_run_at,
    last_status: row.last_status,
    last_result: row.last_result === null ? null : (JSON.parse(row.last_result) as EmailPullResult),
    running: row.running_until !== null && row.running_until > nowRfc3339(),
  };
}

/**
 * Adds a pull of a business's mailbox and queues its first run at once; recorded in the audit
 * trail as `email.pull_add` (the pull's id only).
 * @param options.url `imaps://user:pass@host[:port]/MAILBOX` (see the module's comment).
 * @param options.everyMinutes minutes between runs ({@link EMAIL_PULL_MINUTES}, default 5).
 * @param actor who adds it (the console's owner, or the CLI by default).
 * @returns `{id, url, every_minutes}`, the URL without its password.
 * @throws InmoError EMAIL_PULL_URL, EMAIL_PULL_PERIOD, UNKNOWN_BUSINESS.
 */
export async function addEmailPull(
  db: Db,
  options: { businessId: number; url: string; everyMinutes?: number },
  outbound: OutboundPolicy,
  actor: AuditActor = CLI,
) {
  const everyMinutes = checkedPullPeriod(EMAIL_PULLS, options.everyMinutes);
  const target = parseImapUrl(options.url, outbound);
  if (!(await findBusiness(db, options.businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: options.businessId });
  const url = imapUrlWithoutPassword(target);
  const now = nowRfc3339();
  const id = await transact(db, async (trx) => {
    const pullId = await repo.insertEmailPull(trx, {
      business_id: options.businessId,
      url,
      password_sealed: sealSecret(target.password),
      every_minutes: everyMinutes,
      created_at: now,
    });
    await queueFirstPull(trx, EMAIL_PULLS, options.businessId, pullId, now);
    await recordAudit(trx, options.businessId, actor, 'email.pull_add', pullId, now);
    return pullId;
  });
  return { id, url, every_minutes: everyMinutes };
}

/** The business's pulls, oldest first. @throws InmoError UNKNOWN_BUSINESS. */
export async function listEmailPulls(db: Db, businessId: number) {
  if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  return (await repo.listEmailPulls(db, businessId)).map(presentEmailPull);
}

/**
 * Removes a pull: it runs no more (a run under way ends with its current message); the messages
 * it stored stay. Recorded in the audit trail as `email.pull_remove`.
 * @param businessId the business whose pull alone may be removed, or null for any (the CLI).
 * @param actor who removes it (the console's owner, or the CLI by default).
 * @throws InmoError EMAIL_PULL_NOT_FOUND (a removed pull too).
 */
export async function removeEmailPull(db: Db, id: number, businessId: number | null, actor: AuditActor = CLI): Promise<void> {
  const pull = await repo.findEmailPull(db, id, businessId);
  if (!pull || pull.removed_at !== null) throw new InmoError('EMAIL_PULL_NOT_FOUND', { id });
  const at = nowRfc3339();
  await transact(db, async (trx) => {
    await repo.updateEmailPull(trx, id, { removed_at: at });
    await recordAudit(trx, pull.business_id, actor, 'email.pull_remove', id, at);
  });
}

/** A connection test's outcome: `ok`, or what failed ({@link ImapFailureKind}). */
export type EmailPullTest = { ok: true } | { ok: false; failure: ImapFailureKind };

/** A test's deadline, ms: the console waits for it. */
const TEST_TIMEOUT_MS = 20_000;

/**
 * Tests a business's pull now (CONTRACT §25, the console's "Test" button): connects with the
 * stored password, logs in and opens its mailbox, reading and marking nothing, within
 * `timeoutMs` (default 20 s), under the same outbound rules as a run (no private addresses
 * unless `INMO_ALLOW_PRIVATE_NETWORK=1`).
 * @returns `{ok: true}`, or `{ok: false, failure}`: what failed as a word, never what the server said.
 * @throws InmoError EMAIL_PULL_NOT_FOUND (another business's, or a removed one).
 */
export async function testEmailPull(
  db: Db,
  id: number,
  businessId: number,
  outbound: OutboundPolicy,
  timeoutMs = TEST_TIMEOUT_MS,
): Promise<EmailPullTest> {
  const pull = await repo.findEmailPull(db, id, businessId);
  if (!pull || pull.removed_at !== null) throw new InmoError('EMAIL_PULL_NOT_FOUND', { id });
  let target;
  try {
    target = parseImapUrl(pull.url, outbound, openSecret(pull.password_sealed));
  } catch {
    return { ok: false, failure: 'private' };
  }
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  let mailbox: ImapMailbox | undefined;
  try {
    mailbox = await openImapMailbox(target, outbound, { maxBytes: EMAIL_MAX_BYTES, timeoutMs, signal: deadline.signal });
    return { ok: true };
  } catch (error) {
    return { ok: false, failure: deadline.signal.aborted ? 'timeout' : imapFailureKind(error) };
  } finally {
    await mailbox?.close().catch(() => undefined);
    clearTimeout(timer);
  }
}

/** What a run is given. */
export interface EmailPullOptions {
  outbound: OutboundPolicy;
  /** Messages looked at most in one run (default 500): the rest wait for the next, queued at once. */
  maxMessages?: number;
  /**
   * The run's deadline, ms (`INMO_EMAIL_PULL_TIMEOUT_MS`, default 2 minutes): then the connection
   * is closed and the run ends; what was stored stays, the rest comes with the next run.
   */
  timeoutMs?: number;
  /**
   * How a message is stored (default: the webhook's `acceptInboundEmail`); a test's seam for a
   * failing store. Throws when it could not be stored.
   */
  store?: (db: Db, businessId: number, raw: Buffer) => Promise<{ stored: boolean }>;
}

/** A run's failure while storing: the database's words are not the operator's. */
class StoreFailed extends Error {}

/** The messages a pull skips for good (too large or empty), by UID within one UIDVALIDITY. */
interface Skipped {
  validity: string;
  uids: number[];
}

/** UIDs remembered at most per pull (the newest kept). */
const SKIPPED_MAX = 1000;

function skippedOf(stored: string | null, validity: string): Set<number> {
  if (stored === null) return new Set();
  try {
    const parsed = JSON.parse(stored) as Skipped;
    return parsed.validity === validity && Array.isArray(parsed.uids) ? new Set(parsed.uids) : new Set();
  } catch {
    return new Set();
  }
}

/**
 * Runs pull `id` now (see the module's comment) and records its outcome. The run is bounded
 * whatever the server says (issue 55): in time by `timeoutMs` (the pull's lease lasts that and
 * {@link CLOSE_GRACE_MS}, never renewed), in round trips by one `UID SEARCH UNSEEN`, one FETCH of
 * sizes and at most `maxMessages` messages, and in bytes by {@link EMAIL_MAX_BYTES} per message
 * (channels/imap-mailbox.ts). A message too large or empty is skipped for good: its UID is
 * remembered, and it stays unseen on the server.
 * @returns the run's counts; `busy` when another run holds the pull. A failed run does not throw:
 *   its result says why.
 * @throws InmoError EMAIL_PULL_NOT_FOUND (a removed pull too).
 */
export async function runEmailPull(db: Db, id: number, options: EmailPullOptions): Promise<EmailPullResult> {
  const pull = await repo.findEmailPull(db, id);
  if (!pull || pull.removed_at !== null) throw new InmoError('EMAIL_PULL_NOT_FOUND', { id });
  const result: EmailPullResult = { status: 'done', found: 0, stored: 0, already: 0, too_large: 0, skipped: 0, more: false };
  const run = randomUUID();
  const timeoutMs = options.timeoutMs ?? EMAIL_PULL_TIMEOUT_MS;
  const started = Date.now();
  if (!(await repo.takeEmailPullLease(db, id, run, nowRfc3339(), toRfc3339(new Date(started + timeoutMs + CLOSE_GRACE_MS)))))
    return { ...result, status: 'busy' };
  const store = options.store ?? acceptInboundEmail;
  const max = options.maxMessages ?? 500;
  const at = nowRfc3339();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  let mailbox: ImapMailbox | undefined;
  let skipped: Skipped | null = null;
  try {
    const target = parseImapUrl(pull.url, options.outbound, openSecret(pull.password_sealed));
    mailbox = await openImapMailbox(target, options.outbound, { maxBytes: EMAIL_MAX_BYTES, timeoutMs, signal: deadline.signal });
    const known = skippedOf(pull.skipped_uids, mailbox.uidValidity);
    skipped = { validity: mailbox.uidValidity, uids: [...known] };
    const skip = (uid: number) => skipped!.uids.push(uid);
    const unseen = (await mailbox.unseenUids()).filter((uid) => !known.has(uid));
    const uids = unseen.slice(0, max);
    result.more = unseen.length > max;
    const sizes = await mailbox.sizes(uids);
    for (const [index, uid] of uids.entries()) {
      if (deadline.signal.aborted) throw Object.assign(new Error('deadline'), { code: RUN_DEADLINE });
      if ((sizes.get(uid) ?? 0) > EMAIL_MAX_BYTES) {
        result.too_large++;
        skip(uid);
        continue;
      }
      const raw = await mailbox.source(uid);
      if (raw === null) continue;
      if (raw === 'too_large' || raw.length === 0) {
        if (raw === 'too_large') result.too_large++;
        else result.skipped++;
        skip(uid);
        // A literal refused at its marker closed the connection: the rest with the next run, at once.
        if (mailbox.closed) {
          result.more = true;
          break;
        }
        continue;
      }
      result.found++;
      let stored: boolean;
      try {
        ({ stored } = await store(db, pull.business_id, raw));
      } catch {
        throw new StoreFailed();
      }
      if (stored) result.stored++;
      else result.already++;
      // Only once it is kept: a crash before this line reads it again, and storing it again is a no-op.
      await mailbox.markSeen(uid);
      if ((index + 1) % 50 === 0) {
        const still = await repo.findEmailPull(db, id);
        if (!still || still.removed_at !== null || still.running_run !== run) break;
      }
    }
  } catch (error) {
    result.status = 'failed';
    result.error =
      error instanceof StoreFailed
        ? 'a message could not be stored (it stays unseen and is read again next time)'
        : error instanceof InmoError
          ? 'the stored mailbox URL is no longer allowed (INMO_ALLOW_PRIVATE_NETWORK)'
          : deadline.signal.aborted
            ? 'the mail server was too slow: the run stopped at its time limit (INMO_EMAIL_PULL_TIMEOUT_MS); what was stored stays, the rest comes with the next run'
            : imapFailure(error);
  } finally {
    // Closed while the deadline can still cut it short: a server that never answers LOGOUT ends with it.
    await mailbox?.close();
    clearTimeout(timer);
  }
  await repo.finishEmailPullRun(db, id, run, {
    last_run_at: at,
    last_status: result.status,
    last_result: JSON.stringify(result),
    last_error: result.error ?? null,
    ...(skipped
      ? { skipped_uids: JSON.stringify({ validity: skipped.validity, uids: skipped.uids.sort((a, b) => a - b).slice(-SKIPPED_MAX) }) }
      : {}),
  });
  return result;
}
