/**
 * E-mail out (CONTRACT §19), against a real SMTP server on loopback (test/helpers/smtp.ts):
 * `inmo email connect` stores the server with its password sealed and never printed; the
 * adapter (channels/email-smtp.ts) sends a text and an HTML part with the headers given, and
 * classifies the server's answers (a refused recipient or login is rejected for good, no
 * server is a retry); private destinations are refused unless INMO_ALLOW_PRIVATE_NETWORK=1.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseMailbox, parseSmtpUrl, sendEmail, type OutboundEmail } from '../../../src/channels/email-smtp.ts';
import { connectEmail, emailOverview, emailSenderOf, sendTestEmail } from '../../../src/services/messaging/email.ts';
import { InmoError } from '../../../src/errors.ts';
import { emailOutSettings, loadConfig } from '../../../src/config.ts';
import { inmo } from '../../helpers/cli.ts';
import { withApp } from '../../helpers/http.ts';
import { businessWithKey } from '../../helpers/db.ts';
import { SMTP_PASSWORD, startSmtp, type TestSmtp } from '../../helpers/smtp.ts';

const t = withApp();
let smtp: TestSmtp;
const ALLOW = { allowPrivateNetwork: true, channelHosts: [] };
const STRICT = { allowPrivateNetwork: false, channelHosts: [] };

beforeAll(async () => {
  smtp = await startSmtp();
});
afterAll(async () => {
  await smtp.close();
});

const email = (to: string): OutboundEmail => ({
  from: '"Inmobiliaria Test" <hola@agency.example>',
  replyTo: 'agentes@agency.example',
  to,
  subject: 'Hola',
  text: 'Hola, texto',
  html: '<p>Hola, <b>HTML</b></p>',
  headers: { 'List-Unsubscribe': '<https://inmo.example/u/abc>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
});

describe('the SMTP adapter', () => {
  it('reads smtp:// and smtps:// URLs, with default ports, and nothing else', () => {
    expect(parseSmtpUrl('smtp://u%40x:p%3Ass@mail.example.com')).toEqual({
      host: 'mail.example.com',
      port: 587,
      security: 'starttls',
      user: 'u@x',
      password: 'p:ss',
    });
    expect(parseSmtpUrl('smtps://mail.example.com')).toMatchObject({ port: 465, security: 'tls', user: null, password: null });
    expect(parseSmtpUrl('https://mail.example.com')).toBeNull();
    expect(parseSmtpUrl('smtp://mail.example.com/path')).toBeNull();
    expect(parseSmtpUrl('not a url')).toBeNull();
  });

  it('sends both parts with the headers given, and says sent', async () => {
    const before = smtp.received.length;
    const target = parseSmtpUrl(smtp.url)!;
    const outcome = await sendEmail(target, email('ana@example.com'), { outbound: ALLOW });
    expect(outcome).toMatchObject({ kind: 'sent', messageId: expect.stringMatching(/^<.+@agency\.example>$/) });
    expect(smtp.received).toHaveLength(before + 1);
    const { mail, to, raw } = smtp.received.at(-1)!;
    expect(to).toEqual(['ana@example.com']);
    expect(mail.text?.trim()).toBe('Hola, texto');
    expect(mail.html).toContain('<b>HTML</b>');
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
    expect(raw).toMatch(/^List-Unsubscribe: <https:\/\/inmo\.example\/u\/abc>\r$/m);
    expect(mail.replyTo?.text).toBe('agentes@agency.example');
    expect(mail.messageId).toBe(outcome.kind === 'sent' ? outcome.messageId : null);
  });

  it('calls a refused recipient and a refused login rejected for good, and no server a retry', async () => {
    const before = smtp.received.length;
    const target = parseSmtpUrl(smtp.url)!;
    const refused = await sendEmail(target, email('refused@example.com'), { outbound: ALLOW });
    expect(refused).toMatchObject({ kind: 'rejected' });
    expect(JSON.stringify(refused)).not.toContain('refused@example.com');
    expect(await sendEmail({ ...target, password: 'wrong' }, email('ana@example.com'), { outbound: ALLOW })).toMatchObject({
      kind: 'rejected',
    });
    expect(await sendEmail({ ...target, port: 1 }, email('ana@example.com'), { outbound: ALLOW })).toMatchObject({ kind: 'retry' });
    expect(smtp.received).toHaveLength(before);
  });

  it('refuses a private destination unless private networks are allowed, without connecting', async () => {
    const before = smtp.received.length;
    const target = parseSmtpUrl(smtp.url)!;
    const outcome = await sendEmail(target, email('ana@example.com'), { outbound: STRICT });
    expect(outcome).toMatchObject({ kind: 'rejected', error: expect.stringContaining('not a public address') });
    expect(await sendEmail({ ...target, host: 'localhost' }, email('ana@example.com'), { outbound: STRICT })).toMatchObject({
      kind: 'rejected',
    });
    expect(smtp.received).toHaveLength(before);
  });
});

describe('inmo email connect', () => {
  it('stores the server with its password sealed, and never prints it', async () => {
    const env = { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn', INMO_ALLOW_PRIVATE_NETWORK: '1' };
    const run = await inmo(
      env,
      'email',
      'connect',
      '--business',
      String(t.businessId),
      '--url',
      smtp.url,
      '--from',
      'hola@agency.example',
      '--reply-to',
      'agentes@agency.example',
      '--json',
    );
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      business_id: t.businessId,
      host: '127.0.0.1',
      port: smtp.port,
      security: 'starttls',
      user: 'agency',
      password: 'stored',
      from: 'hola@agency.example',
      reply_to: 'agentes@agency.example',
    });
    expect(run.stdout + run.stderr).not.toContain(SMTP_PASSWORD);
    const row = await t.db.selectFrom('email_settings').selectAll().where('business_id', '=', t.businessId).executeTakeFirstOrThrow();
    expect(row.password).not.toContain(SMTP_PASSWORD);
    const sender = await emailSenderOf(t.db, t.businessId);
    expect(sender).toMatchObject({ source: 'business', target: { password: SMTP_PASSWORD }, from: 'hola@agency.example' });
    const audit = await t.db.selectFrom('audit_log').selectAll().where('business_id', '=', t.businessId).execute();
    expect(JSON.stringify(audit)).not.toMatch(/agency\.example|127\.0\.0\.1/);
  });

  it('refuses a bad URL, addresses that are not addresses, and a private server without the setting', async () => {
    const env = { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn', INMO_ALLOW_PRIVATE_NETWORK: '0' };
    const bad = await inmo(env, 'email', 'connect', '--business', String(t.businessId), '--url', 'http://x', '--from', 'a@b.es', '--json');
    expect(bad.code).not.toBe(0);
    expect(bad.json.error).toContain('--url');
    const connect = (url: string, from: string, replyTo: string | null = null) =>
      connectEmail(t.db, { businessId: t.businessId, url, from, replyTo }, STRICT).catch((e: unknown) => (e as InmoError).code);
    expect(await connect(smtp.url, 'hola@agency.example')).toBe('EMAIL_SMTP_PRIVATE');
    expect(await connect('smtps://u:p@mail.example.com', 'no-address')).toBe('EMAIL_FROM');
    expect(await connect('smtps://u:p@mail.example.com', 'a@b.es', 'x')).toBe('EMAIL_REPLY_TO');
    expect(await connect('smtps://mail.example.com', 'a@b.es')).toMatchObject({ password: null, security: 'tls', port: 465 });
  });

  it('uses INMO_SMTP_URL for a business without its own server', async () => {
    const other = (await businessWithKey(t.db, 'Otra')).businessId;
    expect(await emailSenderOf(t.db, other, null)).toBeNull();
    const sender = await emailSenderOf(
      t.db,
      other,
      emailOutSettings({ INMO_SMTP_URL: 'smtps://u:p@mail.example.com', INMO_SMTP_FROM: 'x@example.com' }).smtp,
    );
    expect(sender).toMatchObject({ source: 'server', from: 'x@example.com', target: { host: 'mail.example.com', port: 465 } });
  });
});

describe('a From address with a display name (issue 57)', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('reads a mailbox alone or with a display name, and nothing else', () => {
    expect(parseMailbox('hola@agencia.example')).toEqual({ name: null, address: 'hola@agencia.example' });
    expect(parseMailbox('Agencia Sol <hola@agencia.example>')).toEqual({ name: 'Agencia Sol', address: 'hola@agencia.example' });
    expect(parseMailbox('"Agencia Sol, S.L." <hola@agencia.example>')).toEqual({
      name: 'Agencia Sol, S.L.',
      address: 'hola@agencia.example',
    });
    expect(parseMailbox(' <hola@agencia.example> ')).toEqual({ name: null, address: 'hola@agencia.example' });
    for (const bad of [
      'Agencia Sol <hola@agencia.example',
      'Agencia Sol hola@agencia.example',
      'a@b.es, c@d.es',
      'G: a@b.es;',
      'Agencia <>',
      'no-address',
      '',
    ]) {
      expect(parseMailbox(bad), bad).toBeNull();
    }
  });

  it('INMO_SMTP_FROM="Agencia Sol <hola@agencia.example>" sends: the envelope has the address, the From header the name', async () => {
    const settings = emailOutSettings({ INMO_SMTP_URL: smtp.url, INMO_SMTP_FROM: 'Agencia Sol <hola@agencia.example>' });
    expect(settings.smtp).toMatchObject({ from: 'hola@agencia.example', fromName: 'Agencia Sol' });
    vi.stubEnv('INMO_SMTP_URL', smtp.url);
    vi.stubEnv('INMO_SMTP_FROM', 'Agencia Sol <hola@agencia.example>');
    const other = (await businessWithKey(t.db, 'Inmobiliaria Otra')).businessId;
    const before = smtp.received.length;
    expect(await sendTestEmail(t.db, other, 'ana@example.com', ALLOW)).toMatchObject({ kind: 'sent' });
    expect(smtp.received).toHaveLength(before + 1);
    const { from, mail } = smtp.received.at(-1)!;
    expect(from).toBe('hola@agencia.example');
    expect(mail.from?.value).toEqual([{ name: 'Agencia Sol', address: 'hola@agencia.example' }]);
    // Without a display name, the business's own name is shown.
    vi.stubEnv('INMO_SMTP_FROM', 'hola@agencia.example');
    expect(await sendTestEmail(t.db, other, 'ana@example.com', ALLOW)).toMatchObject({ kind: 'sent' });
    expect(smtp.received.at(-1)!.from).toBe('hola@agencia.example');
    expect(smtp.received.at(-1)!.mail.from?.value).toEqual([{ name: 'Inmobiliaria Otra', address: 'hola@agencia.example' }]);
  });

  it('a malformed INMO_SMTP_FROM is refused at start, saying how to write it', () => {
    const env = { DATABASE_URL: 'sqlite::memory:', INMO_SMTP_URL: 'smtps://u:p@mail.example.com' };
    expect(() => loadConfig({ ...env, INMO_SMTP_FROM: 'Agencia Sol <hola@agencia.example>' })).not.toThrow();
    for (const bad of ['Agencia Sol <hola@agencia.example', 'Agencia Sol', 'a@b.es, c@d.es']) {
      expect(() => loadConfig({ ...env, INMO_SMTP_FROM: bad }), bad).toThrow(
        /INMO_SMTP_FROM must be one e-mail address, alone \(hola@agencia\.example\) or with a display name \(Agencia Sol <hola@agencia\.example>\)/,
      );
    }
    expect(() => loadConfig({ ...env, INMO_SMTP_FROM: 'x' })).not.toThrow(/u:p/);
  });

  it('`inmo email connect --from "Agencia Sol <…>"` keeps the name for the From header and the console', async () => {
    const business = (await businessWithKey(t.db, 'Agencia Sol SL')).businessId;
    const env = { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn', INMO_ALLOW_PRIVATE_NETWORK: '1' };
    const run = await inmo(
      env,
      'email',
      'connect',
      '--business',
      String(business),
      '--url',
      smtp.url,
      '--from',
      'Agencia Sol <hola@agencia.example>',
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toMatchObject({ from: '"Agencia Sol" <hola@agencia.example>' });
    expect(await emailSenderOf(t.db, business, null)).toMatchObject({ from: 'hola@agencia.example', fromName: 'Agencia Sol' });
    expect(await emailOverview(t.db, business)).toMatchObject({ from: '"Agencia Sol" <hola@agencia.example>' });
    const before = smtp.received.length;
    expect(await sendTestEmail(t.db, business, 'ana@example.com', ALLOW)).toMatchObject({ kind: 'sent' });
    expect(smtp.received).toHaveLength(before + 1);
    expect(smtp.received.at(-1)!.from).toBe('hola@agencia.example');
    expect(smtp.received.at(-1)!.mail.from?.value).toEqual([{ name: 'Agencia Sol', address: 'hola@agencia.example' }]);
  });
});
