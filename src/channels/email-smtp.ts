/**
 * SMTP adapter (CONTRACT §19): sends one e-mail (a text and an HTML part) through a business's
 * SMTP server, or the server-wide one (`INMO_SMTP_URL`), with nodemailer.
 *
 * Where it may connect (CONTRACT §8, channels/outbound.ts): the server's name is resolved here,
 * every address it resolves to must be public unless `INMO_ALLOW_PRIVATE_NETWORK=1`, and the
 * connection goes to the address checked (the name kept for TLS), so a DNS answer that changes
 * in between cannot slip past. TLS certificates are verified, and a `smtp://` server must offer
 * STARTTLS, unless `INMO_ALLOW_PRIVATE_NETWORK=1` (a closed network, a test's server).
 *
 * The outcome is classified, as the WhatsApp adapter's is (channels/whatsapp-cloud.ts), so the
 * caller can keep the send-once promise of CONTRACT §7:
 * - `sent`: the server accepted the message (250 after DATA);
 * - `retry`: it certainly did not take it, and may later: no connection, a 4xx answer, or a
 *   failure before the message's data was sent;
 * - `rejected`: a 5xx answer (a refused recipient, a refused login, a refused message), or a
 *   destination that is not a public address (`privateAddress`; the error never names the
 *   address a name resolved to): trying again would fail the same way;
 * - `unknown`: the connection was lost or timed out while the message's data was being sent or
 *   before its answer: it may have been accepted, and must not be sent again without a person checking.
 *
 * The password goes only to the server; no error text here carries it or the recipient's address.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type SMTPConnection from 'nodemailer/lib/smtp-connection';
import { parseMailbox } from './mailbox.ts';
import type { OutboundPolicy } from '../config.ts';
import { isPrivateHost, isPublicAddress } from './outbound.ts';

export { formatMailbox, isEmailAddress, parseMailbox, type Mailbox } from './mailbox.ts';

/** Where and how to reach an SMTP server. */
export interface SmtpTarget {
  host: string;
  port: number;
  /** `tls`: TLS from the first byte (`smtps://`, usually 465); `starttls`: upgraded after connecting (`smtp://`, usually 587). */
  security: 'tls' | 'starttls';
  user: string | null;
  password: string | null;
}

/** One e-mail to one person. Addresses are plain `local@domain` (the From may carry a display name). */
export interface OutboundEmail {
  /** `"Name" <address>` or an address ({@link formatMailbox}); the envelope's sender is the address alone. */
  from: string;
  replyTo: string | null;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers (`List-Unsubscribe`, `List-Unsubscribe-Post`, `In-Reply-To`, `References`, …). */
  headers: Record<string, string>;
  /** Its `Message-ID` (`<…@…>`, {@link newMessageId}), chosen before sending so that it can be kept first; made here when absent. */
  messageId?: string;
}

export type EmailOutcome =
  | { kind: 'sent'; messageId: string | null }
  | { kind: 'retry'; error: string }
  /** `privateAddress`: refused before connecting, the server not being at a public address. */
  | { kind: 'rejected'; error: string; privateAddress?: true }
  | { kind: 'unknown'; error: string };

/**
 * Reads an SMTP URL (`smtp://user:pass@host:587`, `smtps://user:pass@host:465`; user and password
 * percent-encoded; port 587 and 465 by default).
 * @returns the target, or null for anything else (the URL is never echoed: it holds a password).
 */
export function parseSmtpUrl(text: string): SmtpTarget | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return null;
  if (!url.hostname || (url.pathname !== '' && url.pathname !== '/') || url.search || url.hash) return null;
  const security = url.protocol === 'smtps:' ? 'tls' : 'starttls';
  const port = url.port === '' ? (security === 'tls' ? 465 : 587) : Number(url.port);
  let user: string | null;
  let password: string | null;
  try {
    user = url.username ? decodeURIComponent(url.username) : null;
    password = url.password ? decodeURIComponent(url.password) : null;
  } catch {
    return null;
  }
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port, security, user, password };
}

/** Network and nodemailer error codes of a connection that failed before any message went out. */
const NOT_SENT = new Set(['ECONNECTION', 'EDNS', 'ETLS', 'EAUTH', 'ENOTFOUND', 'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

type SmtpError = Error & { code?: string; command?: string; responseCode?: number };

/**
 * The address to connect to, checked (CONTRACT §8): the host itself when private networks are
 * allowed. A refusal never says what a name resolved to (the outcome reaches the console).
 */
async function destination(host: string, policy: OutboundPolicy): Promise<{ address: string } | { refused: true }> {
  if (policy.allowPrivateNetwork) return { address: host };
  if (isPrivateHost(host)) return { refused: true };
  if (isIP(host)) return { address: host };
  const addresses = await lookup(host, { all: true });
  if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) return { refused: true };
  return { address: addresses[0].address };
}

/** The SMTP error's description without addresses or the server's text: code, command and status. */
function describe(error: SmtpError): string {
  const parts = [error.code, error.command, error.responseCode].filter((p) => p !== undefined && p !== '');
  return parts.length ? parts.join(' ') : 'error';
}

/** The outcome of an error: by the server's status when it gave one, else by whether the data had begun to go out. */
function classify(error: SmtpError, dataStarted: boolean): EmailOutcome {
  const what = describe(error);
  if (typeof error.responseCode === 'number' && error.responseCode >= 500) {
    return { kind: 'rejected', error: `the SMTP server refused the message (${what})` };
  }
  if (typeof error.responseCode === 'number' && error.responseCode >= 400) {
    return { kind: 'retry', error: `the SMTP server deferred the message (${what})` };
  }
  if (!dataStarted) return { kind: 'retry', error: `no message was sent (${what})` };
  return { kind: 'unknown', error: `connection lost while sending (${what}); the server may have accepted the message` };
}

/** The domain of an address, for the Message-ID. */
function domainOf(address: string): string {
  const match = /@([^\s>]+)>?\s*$/.exec(address);
  return match ? match[1] : 'inmo.invalid';
}

/**
 * A new `Message-ID` for an e-mail sent from `address`: `<random UUID@the address's domain>`,
 * unguessable, so that an answer naming it (`In-Reply-To`) names an e-mail inmo sent (CONTRACT §25).
 */
export function newMessageId(address: string): string {
  return `<${randomUUID()}@${domainOf(address)}>`;
}

/**
 * Sends one e-mail.
 * @param options.outbound where the connection may go (config.ts `OutboundPolicy`).
 * @param options.timeoutMs longest wait for the connection, the greeting and each answer, ms
 *   (default 15,000); past it once the message's data began to go out, the outcome is `unknown`.
 * @returns the classified outcome, with the message's `Message-ID` when sent; never throws.
 */
export async function sendEmail(
  target: SmtpTarget,
  email: OutboundEmail,
  options: { outbound: OutboundPolicy; timeoutMs?: number },
): Promise<EmailOutcome> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const verify = !options.outbound.allowPrivateNetwork;
  let address: string;
  try {
    const where = await destination(target.host, options.outbound);
    if ('refused' in where)
      return {
        kind: 'rejected',
        error: "refused to connect: the SMTP server's address is not a public address (INMO_ALLOW_PRIVATE_NETWORK=1 allows it)",
        privateAddress: true,
      };
    address = where.address;
  } catch (error) {
    return { kind: 'retry', error: `no address for the SMTP server (${(error as SmtpError).code ?? 'lookup failed'})` };
  }
  const sender = parseMailbox(email.from);
  if (!sender) return { kind: 'rejected', error: 'the From address is not an e-mail address' };
  const messageId = email.messageId ?? newMessageId(sender.address);
  // nodemailer's parts load at the first e-mail sent, not with every process.
  const [{ default: MailComposer }, { default: SMTPConnectionClass }] = await Promise.all([
    import('nodemailer/lib/mail-composer'),
    import('nodemailer/lib/smtp-connection'),
  ]);
  const raw = await new MailComposer({
    from: { name: sender.name ?? '', address: sender.address },
    to: email.to,
    replyTo: email.replyTo ?? undefined,
    subject: email.subject,
    text: email.text,
    html: email.html,
    headers: email.headers,
    messageId,
    disableFileAccess: true,
    disableUrlAccess: true,
  })
    .compile()
    .build();
  const envelope = { from: sender.address, to: [email.to] };

  // The message's bytes are read only once the server said 354 to DATA: from then on, a lost
  // connection may have delivered it.
  let dataStarted = false;
  const body = new Readable({
    read() {
      dataStarted = true;
      this.push(raw);
      this.push(null);
    },
  });
  const connection: SMTPConnection = new SMTPConnectionClass({
    host: address,
    port: target.port,
    secure: target.security === 'tls',
    requireTLS: target.security === 'starttls' && verify,
    tls: { servername: isIP(target.host) ? undefined : target.host, rejectUnauthorized: verify, minVersion: 'TLSv1.2' },
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  return new Promise<EmailOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: EmailOutcome) => {
      if (settled) return;
      settled = true;
      if (outcome.kind === 'sent') connection.quit();
      connection.close();
      resolve(outcome);
    };
    connection.on('error', (error) => finish(classify(error, dataStarted)));
    connection.once('end', () => finish(classify(Object.assign(new Error('closed'), { code: 'ECONNECTION' }), dataStarted)));
    connection.connect((error) => {
      if (error) return finish(error.code && NOT_SENT.has(error.code) ? classify(error, false) : classify(error, dataStarted));
      const send = () =>
        connection.send(envelope, body, (sendError) => {
          if (sendError) return finish(classify(sendError, dataStarted));
          finish({ kind: 'sent', messageId });
        });
      if (target.user === null) return send();
      connection.login({ user: target.user, pass: target.password ?? '' }, (loginError) => {
        if (loginError) return finish(classify(loginError, false));
        send();
      });
    });
  });
}
