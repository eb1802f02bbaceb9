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
 * - **Reading**: the mailbox is read in windows of UIDs ({@link ImapMailbox.unseenBetween}):
 *   what a window answers is bounded, and a message's bytes are fetched one message at a time
 *   (`BODY.PEEK[]`: reading does not mark it seen); nothing grows with the mailbox.
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
  /** The UID the next message will get: every message there is has a smaller one. */
  readonly uidNext: number;
  /** How many messages are not seen (the mailbox's STATUS when it was opened). */
  readonly unseen: number;
  /** The UIDs of the messages not seen with `from` ≤ UID ≤ `to`, ascending. */
  unseenBetween(from: number, to: number): Promise<number[]>;
  /** The sizes in bytes (RFC822.SIZE) of messages `uids`, by UID. */
  sizes(uids: number[]): Promise<Map<number, number>>;
  /** Message `uid`'s bytes, without marking it seen; null when it is gone. */
  source(uid: number): Promise<Buffer | null>;
  /** Marks message `uid` seen. */
  markSeen(uid: number): Promise<void>;
  /** Logs out (never throws). */
  close(): Promise<void>;
}

/** Seconds the connection may take, and may stay silent. */
const CONNECT_MS = 30_000;
const SOCKET_MS = 5 * 60_000;

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
 * @throws the connection's or the server's errors (put them in words with {@link imapFailure}).
 */
export async function openImapMailbox(target: ImapTarget, outbound: OutboundPolicy): Promise<ImapMailbox> {
  return openImapMailboxAt(target, await addressOf(target.host, outbound), outbound);
}

/**
 * {@link openImapMailbox} at `address`, which the outbound policy must already have allowed (the
 * tests' way to a server on loopback while the certificate is verified). TLS, from the start for
 * `imaps://` and by STARTTLS when a plain server offers it, verifies the certificate against the
 * host's name (or its IP address) unless `outbound.allowPrivateNetwork`.
 * @throws as {@link openImapMailbox}.
 */
export async function openImapMailboxAt(target: ImapTarget, address: string, outbound: OutboundPolicy): Promise<ImapMailbox> {
  // imapflow (with its MIME and charset libraries) loads at the first pull, not with every process.
  const { ImapFlow } = await import('imapflow');
  const client: ImapFlowClient = new ImapFlow({
    host: address,
    port: target.port,
    secure: target.secure,
    ...(isIP(target.host) ? {} : { servername: target.host }),
    auth: { user: target.user, pass: target.password },
    tls: { rejectUnauthorized: !outbound.allowPrivateNetwork },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: CONNECT_MS,
    greetingTimeout: CONNECT_MS,
    socketTimeout: SOCKET_MS,
  });
  // A dropped connection is an 'error' event too: the command waiting on it fails with it.
  client.on('error', () => {});
  try {
    await client.connect();
    const status = await client.status(target.mailbox, { unseen: true });
    const lock = await client.getMailboxLock(target.mailbox);
    const opened = client.mailbox;
    const uidNext = opened ? Number(opened.uidNext) : 1;
    const close = async () => {
      lock.release();
      await client.logout().catch(() => client.close());
    };
    return {
      uidNext,
      unseen: status ? Number(status.unseen ?? 0) : 0,
      async unseenBetween(from, to) {
        const found = await client.search({ seen: false, uid: `${from}:${to}` }, { uid: true });
        return (found || []).filter((uid) => uid >= from && uid <= to).sort((a, b) => a - b);
      },
      async sizes(uids) {
        const sizes = new Map<number, number>();
        if (uids.length === 0) return sizes;
        for await (const message of client.fetch(uids.join(','), { uid: true, size: true }, { uid: true }))
          sizes.set(message.uid, message.size ?? 0);
        return sizes;
      },
      async source(uid) {
        const message = await client.fetchOne(String(uid), { uid: true, source: true }, { uid: true });
        return message && message.source ? message.source : null;
      },
      async markSeen(uid) {
        await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
      },
      close,
    };
  } catch (error) {
    client.close();
    throw error;
  }
}

/**
 * An IMAP failure in plain words, without anything the server said (it may name the user or
 * the mailbox).
 */
export function imapFailure(error: unknown): string {
  const e = (error ?? {}) as { code?: string; authenticationFailed?: boolean; mailboxMissing?: boolean; serverResponseCode?: string };
  if (e.code === PRIVATE_ADDRESS) return 'the mail server is at a private address (INMO_ALLOW_PRIVATE_NETWORK=1 allows it)';
  if (e.authenticationFailed || e.serverResponseCode === 'AUTHENTICATIONFAILED') return 'the mail server refused the user or password';
  if (e.mailboxMissing || e.serverResponseCode === 'NONEXISTENT') return 'the mailbox does not exist on the mail server';
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return 'the mail server could not be found (DNS)';
  if (e.code === 'ECONNREFUSED') return 'the mail server refused the connection';
  if (e.code === 'ETIMEDOUT' || e.code === 'CONNECT_TIMEOUT' || e.code === 'GREETING_TIMEOUT' || e.code === 'ETIMEOUT')
    return 'the mail server did not answer in time';
  if (typeof e.code === 'string' && /CERT|SELF_SIGNED|UNABLE_TO|ERR_TLS|ERR_SSL/.test(e.code))
    return "the mail server's TLS certificate could not be verified";
  if (e.code === 'NoConnection' || e.code === 'ECONNRESET' || e.code === 'EPIPE') return 'the connection to the mail server was lost';
  return 'the mail server failed the exchange';
}
