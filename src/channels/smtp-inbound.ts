/**
 * E-mail received by SMTP (CONTRACT §25): the listener `inmo serve` runs on
 * `INMO_SMTP_INBOUND_PORT` when an MX record points at it, with smtp-server (by nodemailer's
 * authors). Every connection is hostile:
 *
 * - **No relay**: a recipient is accepted (`RCPT TO`) only when `recipient` names a business for
 *   it (an address of the inbound domain whose token is live); any other gets `550 5.1.1` and
 *   nothing is kept. At most {@link MAX_RECIPIENTS} per message (`452 4.5.3` past them).
 * - **Size**: `SIZE` in the EHLO answer says the limit (`maxBytes`: the webhook's, 10 MiB); a
 *   `MAIL FROM … SIZE=` above it is refused there (`552`), and a message that turns out longer is
 *   refused at its end (`552 5.3.4`) without holding more than the limit in memory.
 * - **Bounds**: at most `maxConnections` at once (more are answered `421`), an idle connection is
 *   closed after a minute, and any connection after `sessionMs` whatever it does.
 * - **No AUTH** (nobody logs in to deliver); STARTTLS only with a certificate (`tls`); the
 *   client's address is never looked up in DNS.
 * - **What is kept**: the message's bytes with one header above them,
 *   `Authentication-Results: <domain>; none` (RFC 8601: this server checked nothing), so that the
 *   topmost results header is never one a sender wrote (domain/leads/portal-emails/trust.ts,
 *   docs/security.md). It is handed to `deliver` once per business among its recipients, and
 *   acknowledged `250` only once stored; a failure to store is a `451` (the sender tries again).
 *
 * Nothing of a message (addresses, tokens, contents) is logged.
 */
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** Recipients of one message at most. */
export const MAX_RECIPIENTS = 20;

/** Longest an SMTP connection may stay silent, ms. */
const IDLE_MS = 60_000;

/** What the listener is given. */
export interface InboundSmtpOptions {
  port: number;
  host: string;
  /** The inbound domain, lower-case: the server's name in its greeting and in the results header. */
  domain: string;
  /** The largest message accepted, bytes (said in `SIZE`). */
  maxBytes: number;
  /** Connections open at once, at most. */
  maxConnections: number;
  /** The longest a connection stays open, ms. */
  sessionMs: number;
  /** STARTTLS's certificate and key (PEM); null: no STARTTLS. */
  tls: { cert: Buffer; key: Buffer } | null;
  /** How long closing waits for connections under way before it cuts them, ms (default 30 s). */
  closeMs?: number;
  /** The business a recipient's address names, or null (refused). */
  recipient(address: string): Promise<number | null>;
  /** Stores a message for a business; throws when it could not be stored (the sender is told to try again). */
  deliver(businessId: number, raw: Buffer): Promise<void>;
  /** Where failures to store are told (never with the message). */
  onError?(error: unknown): void;
}

/** A listener running. */
export interface InboundSmtp {
  /** The port it listens on (the one asked, or the free one picked for 0). */
  port: number;
  /** Stops taking connections, lets those under way end (cut after `closeMs`), and waits for every store under way. */
  close(): Promise<void>;
}

const refusal = (code: number, text: string) => Object.assign(new Error(text), { responseCode: code });

/**
 * Starts the listener (see the module's comment).
 * @throws the socket's error when it cannot listen (a port in use, an address not here).
 */
export async function startInboundSmtp(options: InboundSmtpOptions): Promise<InboundSmtp> {
  const stores = new Set<Promise<unknown>>();
  /** The businesses each session's accepted recipients name, by session id. */
  const businessesOf = new Map<string, Set<number>>();
  const header = Buffer.from(`Authentication-Results: ${options.domain}; none\r\n`, 'latin1');
  const tlsOptions: Partial<SMTPServerOptions> = options.tls
    ? { key: options.tls.key, cert: options.tls.cert }
    : { disabledCommands: ['AUTH', 'STARTTLS'] };
  const server = new SMTPServer({
    name: options.domain,
    banner: 'inmo',
    logger: false,
    secure: false,
    authOptional: true,
    // The client's name is never looked up: a hostile resolver could hold every connection.
    disableReverseLookup: true,
    disabledCommands: ['AUTH'],
    ...tlsOptions,
    size: options.maxBytes,
    maxClients: options.maxConnections,
    socketTimeout: Math.min(IDLE_MS, options.sessionMs),
    closeTimeout: options.closeMs ?? 30_000,
    onMailFrom(_address, session, callback) {
      businessesOf.set(session.id, new Set());
      callback();
    },
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(refusal(452, '4.5.3 Too many recipients'));
      options.recipient(address.address).then(
        (businessId) => {
          if (businessId === null) return callback(refusal(550, '5.1.1 No such mailbox here'));
          const businesses = businessesOf.get(session.id) ?? new Set<number>();
          businesses.add(businessId);
          businessesOf.set(session.id, businesses);
          callback();
        },
        (error: unknown) => {
          options.onError?.(error);
          callback(refusal(451, '4.3.0 Try again later'));
        },
      );
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [header];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        // Never held past the limit: the rest is read and dropped, and the message refused at its end.
        if (size <= options.maxBytes) chunks.push(chunk);
      });
      stream.on('end', () => {
        const businesses = [...(businessesOf.get(session.id) ?? [])];
        businessesOf.delete(session.id);
        if (stream.sizeExceeded || size > options.maxBytes) return callback(refusal(552, '5.3.4 Message too big'));
        if (size === 0 || businesses.length === 0) return callback(refusal(554, '5.6.0 No message'));
        const raw = Buffer.concat(chunks);
        const storing = (async () => {
          for (const businessId of businesses) await options.deliver(businessId, raw);
        })();
        stores.add(storing);
        storing.then(
          () => callback(),
          (error: unknown) => {
            options.onError?.(error);
            callback(refusal(451, '4.3.0 Not stored, try again later'));
          },
        );
        void storing.catch(() => undefined).finally(() => stores.delete(storing));
      });
    },
    onClose(session) {
      businessesOf.delete(session.id);
    },
  });
  // Smtp-server's own listeners come first: this one only bounds every connection's whole life.
  server.server.on('connection', (socket: Socket) => {
    const cut = setTimeout(() => socket.destroy(), options.sessionMs);
    socket.once('close', () => clearTimeout(cut));
  });
  server.on('error', (error) => options.onError?.(error));
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => reject(error);
    server.server.once('error', failed);
    server.listen(options.port, options.host, () => {
      server.server.off('error', failed);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...stores]);
    },
  };
}
