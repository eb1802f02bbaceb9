/**
 * A mailbox read over IMAP (imapflow), for the pulls of portal e-mails (CONTRACT §19,
 * services/leads/email-pulls.ts).
 *
 * - **Where**: `imaps://user:pass@host[:port]/MAILBOX` (TLS from the start, port 993 by default);
 *   plain `imap://` (port 143) and hosts at private, loopback or link-local addresses only with
 *   `INMO_ALLOW_PRIVATE_NETWORK=1`. A host name is resolved first and every address it gives is
 *   checked; the connection goes to the address checked (SNI and the certificate still name the
 *   host), so a DNS answer that changes between the check and the connection cannot slip past.
 *   The certificate is verified unless `INMO_ALLOW_PRIVATE_NETWORK=1` (as SMTP's, §19).
 * - **Reading**: one `UID SEARCH UNSEEN` (never a walk over UIDs up to what UIDNEXT claims), one
 *   FETCH of sizes, then a message's bytes one message at a time (`BODY.PEEK[]<0.limit+1>`:
 *   reading does not mark it seen, and an honest server sends at most the limit and one byte).
 * - **Bounds** ({@link ImapBounds}, issue 55): nothing the server announces is trusted. imapflow
 *   refuses a literal larger than the message limit at its marker (`{629145600}`), a line longer
 *   than 8 MiB and an answer of more than 10,000 tokens, before holding them, and the connection
 *   is closed; every wait (connecting, the greeting, an answer) has a timeout, and the run's
 *   deadline (`signal`) closes the connection and fails every call waiting on it.
 * - **Errors** in words ({@link imapFailure}): what the server said is never repeated (it may
 *   name the user or the mailbox).
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { ImapFlow as ImapFlowClient } from 'imapflow';
import type { OutboundPolicy } from '../config.ts';
import { InmoError } from '../errors.ts';
import { isPrivateHost, isPublicAddress, PRIVATE_ADDRESS } from './outbound.ts';

/** A mailbox's address, its password included. */
export interface ImapTarget {
  secure: boolean;
  host: string;
  port: number;
  user: string;
  password: string;
  mailbox: string;
}

/**
 * Reads an `imaps://` (or `imap://`) URL: user and password URL-decoded, the mailbox the path
 * (`INBOX` when none).
 * @param password the password of a URL kept without it (the stored one, opened).
 * @throws InmoError EMAIL_PULL_URL when it is not such a URL with a user and a password, or it
 *   breaks the outbound policy (plain `imap://`, or a private host, without `INMO_ALLOW_PRIVATE_NETWORK=1`).
 */
export function parseImapUrl(url: string, outbound: OutboundPolicy, password?: string): ImapTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InmoError('EMAIL_PULL_URL');
  }
  const secure = parsed.protocol === 'imaps:';
  if (!secure && !(parsed.protocol === 'imap:' && outbound.allowPrivateNetwork)) throw new InmoError('EMAIL_PULL_URL');
  if (!parsed.hostname || !parsed.username || !(parsed.password || password !== undefined) || parsed.search || parsed.hash)
    throw new InmoError('EMAIL_PULL_URL');
  if (!outbound.allowPrivateNetwork && isPrivateHost(parsed.hostname)) throw new InmoError('EMAIL_PULL_URL');
  let user: string, secret: string, mailbox: string;
  try {
    user = decodeURIComponent(parsed.username);
    secret = password ?? decodeURIComponent(parsed.password);
    mailbox = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'INBOX';
  } catch {
    throw new InmoError('EMAIL_PULL_URL');
  }
  const port = parsed.port ? Number(parsed.port) : secure ? 993 : 143;
  return { secure, host: parsed.hostname.replace(/^\[|\]$/g, ''), port, user, password: secret, mailbox };
}

/** A target's URL without its password: `imaps://user@host:993/INBOX` (what is stored and shown). */
export function imapUrlWithoutPassword(target: Omit<ImapTarget, 'password'>): string {
  const host = isIP(target.host) === 6 ? `[${target.host}]` : target.host;
  return `${target.secure ? 'imaps' : 'imap'}://${encodeURIComponent(target.user)}@${host}:${target.port}/${encodeURIComponent(target.mailbox)}`;
}

/** An open mailbox (see the module's comment). */
export interface ImapMailbox {
  /** The mailbox's UIDVALIDITY: UIDs name the same messages while it stays the same (RFC 3501 §2.3.1.1). */
  readonly uidValidity: string;
  /** The UIDs of the messages not seen, ascending: one `UID SEARCH UNSEEN`, whatever UIDNEXT says. */
  unseenUids(): Promise<number[]>;
  /** The sizes in bytes the server announces (RFC822.SIZE) of messages `uids`, by UID: one FETCH. */
  sizes(uids: number[]): Promise<Map<number, number>>;
  /**
   * Message `uid`'s bytes, without marking it seen, read up to the limit and one byte more
   * (`BODY.PEEK[]<0.limit+1>`): `too_large` when there were more, or when the server announced a
   * larger literal than asked for (refused at its marker: the connection is then closed, and
   * {@link ImapMailbox.closed} says so); null when it is gone.
   */
  source(uid: number): Promise<Buffer | 'too_large' | null>;
  /** Whether the connection was closed under the run (a literal refused, the deadline). */
  readonly closed: boolean;
  /** Marks message `uid` seen. */
  markSeen(uid: number): Promise<void>;
  /** Logs out (never throws). */
  close(): Promise<void>;
}

/** Bounds of one run on the mailbox (services/leads/email-pulls.ts). */
export interface ImapBounds {
  /** The largest message read, bytes (the intake's limit, EMAIL_MAX_BYTES). */
  maxBytes: number;
  /** Longest wait for the connection, the greeting or any answer, ms; the run's own deadline is `signal`. */
  timeoutMs: number;
  /** Aborted at the run's deadline: the connection is closed and every call waiting on it fails with {@link RUN_DEADLINE}. */
  signal?: AbortSignal;
}

/** The code of the error a call fails with once the run's deadline has passed. */
export const RUN_DEADLINE = 'ERUNDEADLINE';

/** Seconds the connection may take, and may stay silent, at most. */
const CONNECT_MS = 30_000;
const SOCKET_MS = 60_000;
/**
 * The longest line of an answer the client reads (a SEARCH answer of about 800,000 UIDs): past it,
 * or past a literal larger than the message limit, imapflow refuses the answer before holding it
 * and closes the connection.
 */
const MAX_LINE_BYTES = 8 * 1024 * 1024;
/** Tokens of one answer (each costs about a hundred bytes while parsed; imapflow's default is a million). */
const MAX_RESPONSE_TOKENS = 10_000;

const DEFAULT_BOUNDS: ImapBounds = { maxBytes: 10 * 1024 * 1024, timeoutMs: 2 * 60_000 };

/** imapflow's codes of an answer refused for its size (handler/limits.js). */
const TOO_LARGE = new Set(['LiteralTooLarge', 'ResponseTooLarge']);
const OVERSIZED = new Set(['LiteralTooLarge', 'ResponseTooLarge', 'LineTooLarge', 'TooManyTokens']);

/**
 * The address to connect to: the host's own when `INMO_ALLOW_PRIVATE_NETWORK=1`, else its first
 * address once every address it resolves to is public.
 * @throws Error with code `EPRIVATEADDRESS` for a private one.
 */
async function addressOf(host: string, outbound: OutboundPolicy): Promise<string> {
  if (outbound.allowPrivateNetwork) return host;
  const addresses = isIP(host) ? [{ address: host }] : await lookup(host, { all: true });
  if (addresses.length === 0 || addresses.some(({ address }) => !isPublicAddress(address)))
    throw Object.assign(new Error('the mail server is at a private address'), { code: PRIVATE_ADDRESS });
  return addresses[0].address;
}

/**
 * Connects, logs in and opens the target's mailbox, at an address the outbound policy allows.
 * @param bounds the run's limits (default: 10 MiB, 2 minutes, no deadline).
 * @throws the connection's or the server's errors (put them in words with {@link imapFailure}).
 */
export async function openImapMailbox(
  target: ImapTarget,
  outbound: OutboundPolicy,
  bounds: ImapBounds = DEFAULT_BOUNDS,
): Promise<ImapMailbox> {
  return openImapMailboxAt(target, await addressOf(target.host, outbound), outbound, bounds);
}

/** `work`, or a failure with code {@link RUN_DEADLINE} as soon as `signal` aborts (work's own outcome then ignored). */
function bounded<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  const deadline = () => Object.assign(new Error('the run reached its deadline'), { code: RUN_DEADLINE });
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(deadline());
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? deadline() : error);
      },
    );
  });
}

/**
 * {@link openImapMailbox} at `address`, which the outbound policy must already have allowed (the
 * tests' way to a server on loopback while the certificate is verified). TLS, from the start for
 * `imaps://` and by STARTTLS when a plain server offers it, verifies the certificate against the
 * host's name (or its IP address) unless `outbound.allowPrivateNetwork`.
 * @throws as {@link openImapMailbox}.
 */
export async function openImapMailboxAt(
  target: ImapTarget,
  address: string,
  outbound: OutboundPolicy,
  bounds: ImapBounds = DEFAULT_BOUNDS,
): Promise<ImapMailbox> {
  const { signal } = bounds;
  // imapflow (with its MIME and charset libraries) loads at the first pull, not with every process.
  const { ImapFlow } = await import('imapflow');
  const waitMs = Math.max(1, Math.min(bounds.timeoutMs, CONNECT_MS));
  const client: ImapFlowClient = new ImapFlow({
    host: address,
    port: target.port,
    secure: target.secure,
    ...(isIP(target.host) ? {} : { servername: target.host }),
    auth: { user: target.user, pass: target.password },
    tls: { rejectUnauthorized: !outbound.allowPrivateNetwork },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: waitMs,
    greetingTimeout: waitMs,
    socketTimeout: Math.max(1, Math.min(bounds.timeoutMs, SOCKET_MS)),
    // What the server announces is never trusted: a literal past the message limit (a partial
    // fetch asks for one byte more), a line or an answer past these, is refused at its first
    // bytes and the connection closed; nothing larger is ever held.
    maxLiteralSize: bounds.maxBytes + 1,
    maxLineLength: MAX_LINE_BYTES,
    maxResponseSize: Math.max(bounds.maxBytes + 1, MAX_LINE_BYTES) + 64 * 1024,
    maxResponseTokens: MAX_RESPONSE_TOKENS,
  });
  let refused: { code?: string } | null = null;
  let closed = false;
  // A dropped connection is an 'error' event too: the command waiting on it fails with it.
  client.on('error', (error: { code?: string }) => {
    if (error && typeof error.code === 'string' && OVERSIZED.has(error.code)) refused = error;
  });
  client.on('close', () => (closed = true));
  const onAbort = () => client.close();
  signal?.addEventListener('abort', onAbort, { once: true });
  const stop = () => {
    signal?.removeEventListener('abort', onAbort);
    client.close();
  };
  try {
    await bounded(client.connect(), signal);
    const lock = await bounded(client.getMailboxLock(target.mailbox), signal);
    const opened = client.mailbox;
    const close = async () => {
      signal?.removeEventListener('abort', onAbort);
      lock.release();
      if (closed) return;
      await bounded(client.logout(), signal).catch(() => client.close());
    };
    return {
      uidValidity: opened ? String(opened.uidValidity) : '',
      get closed() {
        return closed;
      },
      async unseenUids() {
        const found = await bounded(client.search({ seen: false }, { uid: true }), signal);
        return [...new Set(found || [])].filter((uid) => Number.isSafeInteger(uid) && uid > 0).sort((a, b) => a - b);
      },
      async sizes(uids) {
        const sizes = new Map<number, number>();
        if (uids.length === 0) return sizes;
        const read = async () => {
          for await (const message of client.fetch(uids.join(','), { uid: true, size: true }, { uid: true }))
            sizes.set(message.uid, message.size ?? 0);
        };
        await bounded(read(), signal);
        return sizes;
      },
      async source(uid) {
        try {
          const message = await bounded(
            client.fetchOne(String(uid), { uid: true, source: { start: 0, maxLength: bounds.maxBytes + 1 } }, { uid: true }),
            signal,
          );
          if (!message || !message.source) return null;
          return message.source.length > bounds.maxBytes ? 'too_large' : message.source;
        } catch (error) {
          const codes = [(error as { code?: string } | null)?.code, (refused as { code?: string } | null)?.code];
          if (codes.some((code) => code !== undefined && TOO_LARGE.has(code))) {
            // imapflow refused the answer at its literal's marker and closed the connection.
            closed = true;
            client.close();
            return 'too_large';
          }
          throw error;
        }
      },
      async markSeen(uid) {
        await bounded(client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true }), signal);
      },
      close,
    };
  } catch (error) {
    stop();
    throw error;
  }
}

/** What went wrong with a mailbox, as a word ({@link imapFailureKind}); the console says each in the user's language. */
export type ImapFailureKind =
  'private' | 'deadline' | 'oversized' | 'login' | 'mailbox' | 'dns' | 'refused' | 'timeout' | 'certificate' | 'lost' | 'other';

/** The kind of an IMAP failure, from the error's code alone (never what the server said). */
export function imapFailureKind(error: unknown): ImapFailureKind {
  const e = (error ?? {}) as { code?: string; authenticationFailed?: boolean; mailboxMissing?: boolean; serverResponseCode?: string };
  if (e.code === PRIVATE_ADDRESS) return 'private';
  if (e.code === RUN_DEADLINE) return 'deadline';
  if (typeof e.code === 'string' && OVERSIZED.has(e.code)) return 'oversized';
  if (e.authenticationFailed || e.serverResponseCode === 'AUTHENTICATIONFAILED') return 'login';
  if (e.mailboxMissing || e.serverResponseCode === 'NONEXISTENT') return 'mailbox';
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return 'dns';
  if (e.code === 'ECONNREFUSED') return 'refused';
  if (e.code === 'ETIMEDOUT' || e.code === 'CONNECT_TIMEOUT' || e.code === 'GREETING_TIMEOUT' || e.code === 'ETIMEOUT') return 'timeout';
  if (typeof e.code === 'string' && /CERT|SELF_SIGNED|UNABLE_TO|ERR_TLS|ERR_SSL/.test(e.code)) return 'certificate';
  if (e.code === 'NoConnection' || e.code === 'ECONNRESET' || e.code === 'EPIPE') return 'lost';
  return 'other';
}

/** Each kind in the operator's words. */
const FAILURE_WORDS: Record<ImapFailureKind, string> = {
  private: 'the mail server is at a private address (INMO_ALLOW_PRIVATE_NETWORK=1 allows it)',
  deadline: 'the mail server was too slow: the run stopped at its time limit',
  oversized: 'the mail server sent an answer larger than inmo reads',
  login: 'the mail server refused the user or password',
  mailbox: 'the mailbox does not exist on the mail server',
  dns: 'the mail server could not be found (DNS)',
  refused: 'the mail server refused the connection',
  timeout: 'the mail server did not answer in time',
  certificate: "the mail server's TLS certificate could not be verified",
  lost: 'the connection to the mail server was lost',
  other: 'the mail server failed the exchange',
};

/**
 * An IMAP failure in plain words, without anything the server said (it may name the user or
 * the mailbox).
 */
export function imapFailure(error: unknown): string {
  return FAILURE_WORDS[imapFailureKind(error)];
}
