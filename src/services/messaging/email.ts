/**
 * E-mail out (CONTRACT §19): a business's own SMTP server (`inmo email connect`, the console's
 * e-mail page), else the server-wide one (`INMO_SMTP_URL`, `INMO_SMTP_FROM`).
 *
 * The password is stored sealed (src/secrets.ts) and never printed, logged or shown again: the
 * summaries returned here leave it out. Connecting is recorded in the audit trail (CONTRACT §18)
 * as `email.connect` (the outgoing mail server saved), without any address.
 */
import type { OutboundPolicy } from '../../config.ts';
import { emailOutSettings, outboundPolicy, type EmailOutSettings } from '../../config.ts';
import { isPrivateHost } from '../../channels/outbound.ts';
import {
  formatMailbox,
  isEmailAddress,
  parseMailbox,
  parseSmtpUrl,
  sendEmail,
  type EmailOutcome,
  type SmtpTarget,
} from '../../channels/email-smtp.ts';
import type { Db } from '../../db/database.ts';
import type { Executor } from '../../db/database.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import { findEmailSettings, upsertEmailSettings, type EmailSettingsRow } from '../../db/repositories/email-out.ts';
import { signalChange } from '../../db/change-watch.ts';
import { transact } from '../../db/transaction.ts';
import { nowRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { openSecret, sealSecret } from '../../secrets.ts';
import { CLI, recordAudit, type AuditActor } from '../access/audit.ts';

/** What `inmo email connect` is given. */
export interface EmailConnection {
  businessId: number;
  /** `smtp://user:pass@host:587` or `smtps://user:pass@host:465`. */
  url: string;
  /** The From address: `local@domain`, or with a display name `Agencia Sol <local@domain>`. */
  from: string;
  /** A Reply-To address, or null. */
  replyTo: string | null;
  /**
   * A URL without a password keeps the stored one while the host and user stay the same (the
   * console's write-only field left blank), so it never goes to another server.
   */
  keepPassword?: boolean;
}

/** How a business's e-mails go out: the server, the From and Reply-To addresses. */
export interface EmailSender {
  target: SmtpTarget;
  /** The address alone (the envelope's sender). */
  from: string;
  /** The display name given with it, or null (the business's name is shown). */
  fromName: string | null;
  replyTo: string | null;
  /** `business`: its own server; `server`: `INMO_SMTP_URL`. */
  source: 'business' | 'server';
}

/**
 * Connects (or reconnects) a business's own SMTP server (CONTRACT §19).
 * @param outbound where e-mail may go (config.ts): a server named by a private address only with
 *   `allowPrivateNetwork` (a DNS name is checked again on every connection, channels/email-smtp.ts).
 * @returns the settings without the password: `{business_id, host, port, security, user,
 *   password: 'stored'|null, from, reply_to, connected_at}`.
 * @throws InmoError EMAIL_SMTP_URL, EMAIL_SMTP_PRIVATE, EMAIL_FROM, EMAIL_REPLY_TO, UNKNOWN_BUSINESS.
 */
export async function connectEmail(
  db: Db,
  connection: EmailConnection,
  outbound: OutboundPolicy = outboundPolicy(),
  actor: AuditActor = CLI,
) {
  const target = parseSmtpUrl(connection.url);
  if (!target) throw new InmoError('EMAIL_SMTP_URL');
  if (!outbound.allowPrivateNetwork && isPrivateHost(target.host)) throw new InmoError('EMAIL_SMTP_PRIVATE');
  const mailbox = parseMailbox(connection.from);
  if (!mailbox) throw new InmoError('EMAIL_FROM');
  const replyTo = connection.replyTo?.trim() || null;
  if (replyTo !== null && !isEmailAddress(replyTo)) throw new InmoError('EMAIL_REPLY_TO');
  if (!(await findBusiness(db, connection.businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: connection.businessId });
  const at = nowRfc3339();
  let password = target.password === null ? null : sealSecret(target.password);
  if (password === null && connection.keepPassword) {
    const stored = await findEmailSettings(db, connection.businessId);
    if (stored && stored.host === target.host && stored.username === target.user) password = stored.password;
  }
  await transact(db, async (trx) => {
    await upsertEmailSettings(trx, {
      business_id: connection.businessId,
      host: target.host,
      port: target.port,
      security: target.security,
      username: target.user,
      password,
      from_address: mailbox.address,
      from_name: mailbox.name,
      reply_to: replyTo,
      connected_at: at,
      updated_at: at,
    });
    await recordAudit(trx, connection.businessId, actor, 'email.connect', connection.businessId, at);
  });
  signalChange(db);
  return {
    business_id: connection.businessId,
    host: target.host,
    port: target.port,
    security: target.security,
    user: target.user,
    password: password === null ? null : ('stored' as const),
    from: formatMailbox(mailbox),
    reply_to: replyTo,
    connected_at: at,
  };
}

/** The sender of a stored row, with its password opened. @throws SecretKeyMismatchError when the key changed. */
function senderOf(row: EmailSettingsRow): EmailSender {
  return {
    target: {
      host: row.host,
      port: row.port,
      security: row.security === 'tls' ? 'tls' : 'starttls',
      user: row.username,
      password: row.password === null ? null : openSecret(row.password),
    },
    from: row.from_address,
    fromName: row.from_name,
    replyTo: row.reply_to,
    source: 'business',
  };
}

/**
 * How the business's e-mails go out now: its own server, else the server-wide one, else null.
 * @param server the server-wide settings (`INMO_SMTP_URL`, `INMO_SMTP_FROM`: this process's unless said).
 * @throws Error naming `INMO_SMTP_URL` when it is malformed.
 */
export async function emailSenderOf(
  db: Executor,
  businessId: number,
  server: EmailOutSettings['smtp'] = emailOutSettings().smtp,
): Promise<EmailSender | null> {
  const own = await findEmailSettings(db, businessId);
  if (own) return senderOf(own);
  if (!server) return null;
  const target = parseSmtpUrl(server.url);
  if (!target) throw new Error('INMO_SMTP_URL must be an smtp:// or smtps:// URL');
  return { target, from: server.from, fromName: server.fromName, replyTo: null, source: 'server' };
}

/**
 * Whether a business can send e-mail (its own server, or `INMO_SMTP_URL`): the welcome's rule
 * reads it (services/messaging/purposes/welcome.ts) without opening the password.
 */
export function sendsEmail(own: EmailSettingsRow | undefined, server: EmailOutSettings['smtp'] = emailOutSettings().smtp): boolean {
  return own !== undefined || server !== null;
}

/**
 * A business's e-mail settings as an owner may see them (the console's e-mail page): never the
 * password, only whether one is stored. Null when it has not connected its own server.
 */
export async function emailOverview(db: Db, businessId: number) {
  const row = await findEmailSettings(db, businessId);
  return (
    row && {
      host: row.host,
      port: row.port,
      security: row.security,
      user: row.username,
      password_stored: row.password !== null,
      from: formatMailbox({ name: row.from_name, address: row.from_address }),
      reply_to: row.reply_to,
      connected_at: row.connected_at,
    }
  );
}

/** The words of a test e-mail: its subject and text, given the business's name. */
export type TestEmailWords = (businessName: string) => { subject: string; text: string };

/** The test e-mail's words in English (the CLI's; the console passes its page's language). */
const ENGLISH_TEST_EMAIL: TestEmailWords = (name) => ({
  subject: `${name}: test`,
  text: `This is a test e-mail from ${name}, sent by inmo.`,
});

/**
 * Sends a test e-mail to `to` through the business's sender (the console's test button); nothing
 * is recorded.
 * @param words the e-mail's subject and text in the reader's language (English by default).
 * @throws InmoError EMAIL_NOT_CONNECTED, EMAIL_TO (a `to` that is not an address).
 */
export async function sendTestEmail(
  db: Db,
  businessId: number,
  to: string,
  outbound: OutboundPolicy,
  words: TestEmailWords = ENGLISH_TEST_EMAIL,
): Promise<EmailOutcome> {
  if (!isEmailAddress(to.trim())) throw new InmoError('EMAIL_TO');
  const sender = await emailSenderOf(db, businessId);
  if (!sender) throw new InmoError('EMAIL_NOT_CONNECTED', { id: businessId });
  const business = await findBusiness(db, businessId);
  const name = business?.name ?? 'inmo';
  const said = words(name);
  return sendEmail(
    sender.target,
    {
      from: fromHeader(sender, name),
      replyTo: sender.replyTo,
      to: to.trim(),
      subject: said.subject,
      text: said.text,
      html: `<p>${escapeHtml(said.text)}</p>`,
      headers: {},
    },
    { outbound },
  );
}

/**
 * The From header of a business's e-mail: the sender's address with the display name its settings
 * gave (`INMO_SMTP_FROM`, `inmo email connect --from`), else the business's name.
 */
export function fromHeader(sender: Pick<EmailSender, 'from' | 'fromName'>, businessName: string): string {
  return formatMailbox({ name: sender.fromName ?? businessName, address: sender.from });
}

/** Text as HTML text. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
