/**
 * E-mail received by SMTP (CONTRACT §25), through the listener `inmo serve` starts
 * (services/leads/inbound-smtp.ts) on a free port, with nodemailer as the sending server: a
 * message to `<token>@domain` is stored as the webhook stores one and becomes a lead; a recipient
 * of another domain or an unknown or revoked token is refused at RCPT (550, no relay), a message
 * over the limit (said in SIZE) is refused (552), each leaving the database as it was; what a
 * sender wrote in `Authentication-Results` is not believed; connections are bounded in number and
 * in time.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboundSmtp } from '../../../src/channels/smtp-inbound.ts';
import type { InboundSmtpSettings } from '../../../src/config.ts';
import type { Db } from '../../../src/db/database.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { createInboundAddress, EMAIL_MAX_BYTES, revokeInboundAddress } from '../../../src/services/leads/email-intake.ts';
import { inboundAddressOf, inboundTokenOf } from '../../../src/services/leads/inbound-address.ts';
import { startInboundMail } from '../../../src/services/leads/inbound-smtp.ts';
import { businessWithKey, freshDb, REPO_ROOT, snapshot } from '../../helpers/db.ts';
import { startServe } from '../../helpers/processes.ts';

const DOMAIN = 'entrada.inmo.example';
const fixture = (name: string) => readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'email', name));
const settings: InboundSmtpSettings = {
  port: 0,
  host: '127.0.0.1',
  domain: DOMAIN,
  maxConnections: 50,
  sessionMs: 10 * 60_000,
  tls: null,
};

let db: Db;
let dbUrl: string;
let businessId: number;
let listener: InboundSmtp;
let woken = 0;

beforeAll(async () => {
  ({ db, url: dbUrl } = await freshDb());
  ({ businessId } = await businessWithKey(db));
  listener = await startInboundMail(db, settings, { host: '127.0.0.1', onJobsQueued: () => woken++, closeMs: 1000 });
});
afterAll(async () => {
  await listener?.close();
  await db?.destroy();
});

/** Sends `raw` to `to` as a mail server does (no TLS, no login); resolves with the server's answer or rejects with its refusal. */
async function send(to: string, raw: Buffer | string, port = listener.port) {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    return await transport.sendMail({ envelope: { from: 'forwarder@agencia.example', to: [to] }, raw });
  } finally {
    transport.close();
  }
}

/** The refusal `sending` ends with: its SMTP reply code. */
async function refusalOf(sending: Promise<unknown>): Promise<number | undefined> {
  const error = (await sending.then(
    () => null,
    (e: unknown) => e,
  )) as { responseCode?: number } | null;
  expect(error).not.toBeNull();
  return error?.responseCode;
}

const emails = () => db.selectFrom('inbound_emails').selectAll().orderBy('id').execute();

/** A connection's lines until `until` matches one (the greeting, an EHLO answer). */
function readUntil(socket: Socket, until: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (until.test(text)) {
        socket.off('data', onData);
        resolve(text);
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

describe('the SMTP listener (INMO_SMTP_INBOUND_PORT)', () => {
  it('stores a message to <token>@domain as the webhook would, and its job makes the lead', async () => {
    const address = await inboundAddressOf(db, businessId, settings);
    expect(address).toMatch(new RegExp(`^[a-z0-9]{43}@${DOMAIN.replace(/\./g, '\\.')}$`));
    // The same token as the webhook's: one secret for both ways in.
    expect(address).toBe(`${await inboundTokenOf(db, businessId)}@${DOMAIN}`);
    const before = woken;
    const answer = await send(address!, fixture('unseen-format.eml'));
    expect(answer.accepted).toEqual([address]);
    const kept = await emails();
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ business_id: businessId, state: 'pending' });
    // This server's own results header on top (it checked nothing), then the message as sent.
    const raw = Buffer.from(kept[0].raw);
    expect(raw.toString('latin1')).toMatch(new RegExp(`^Authentication-Results: ${DOMAIN.replace(/\./g, '\\.')}; none\r\n`));
    expect(raw.subarray(raw.indexOf('\r\n') + 2).toString('utf8')).toContain('Nombre y apellidos: Oliver Bennett');
    expect(woken).toBe(before + 1);

    await new Worker({ db, settings: { pollMs: 20 } }).drain();
    const [email] = await emails();
    expect(email.state).toBe('lead');
    const lead = await db.selectFrom('leads').selectAll().where('id', '=', email.lead_id!).executeTakeFirstOrThrow();
    expect(lead).toMatchObject({ business_id: businessId, name: 'Oliver Bennett', phone_number_1: '+34644556677', source: 'email' });

    // Sent again (the same Message-ID or bytes): accepted, nothing new kept.
    const again = await snapshot(db);
    expect((await send(address!, fixture('unseen-format.eml'))).accepted).toEqual([address]);
    expect(await snapshot(db)).toBe(again);
  });

  it('does not believe the Authentication-Results a sender wrote: a portal-looking message is unverified', async () => {
    const address = (await inboundAddressOf(db, businessId, settings))!;
    // Its topmost header says idealista.com passed DKIM and DMARC: believed by the webhook (a mail
    // server's pipe), not here, where whoever connects wrote it.
    await send(address, fixture('idealista.eml'));
    await new Worker({ db, settings: { pollMs: 20 } }).drain();
    const kept = await db
      .selectFrom('inbound_emails')
      .select(['trust', 'parser'])
      .where('message_key', '=', '<20260302091500.4f3a9c1e@mail-out.idealista.com>')
      .executeTakeFirstOrThrow();
    expect(kept.trust).toBe('unverified');
    expect(kept.parser).not.toBe('idealista');
  });

  it('accepts the address written in capitals (some mail systems change its case)', async () => {
    const address = (await inboundAddressOf(db, businessId, settings))!;
    const raw =
      'From: a@b.example\r\nTo: x@y.example\r\nSubject: case\r\nMessage-ID: <case-1@b.example>\r\n\r\nNombre: Ana\r\nTeléfono: 611223344\r\n';
    expect((await send(address.toUpperCase(), raw)).accepted).toHaveLength(1);
    expect((await emails()).some((e) => e.message_key === '<case-1@b.example>')).toBe(true);
  });

  it('refuses at RCPT (550) another domain, an unknown token and a revoked one, keeping nothing: no relay', async () => {
    const raw = 'From: a@b.example\r\nTo: x@y.example\r\nSubject: hola\r\n\r\nNombre: Eva\r\nTeléfono: 622334455\r\n';
    const token = await inboundTokenOf(db, businessId);
    const revoked = await createInboundAddress(db, businessId);
    await revokeInboundAddress(db, revoked.id, businessId);
    const before = await snapshot(db);
    expect(await refusalOf(send(`${token}@elsewhere.example`, raw))).toBe(550);
    expect(await refusalOf(send('postmaster@gmail.com', raw))).toBe(550);
    expect(await refusalOf(send(`${'a'.repeat(43)}@${DOMAIN}`, raw))).toBe(550);
    expect(await refusalOf(send(`nobody@${DOMAIN}`, raw))).toBe(550);
    expect(await refusalOf(send(`${revoked.token}@${DOMAIN}`, raw))).toBe(550);
    expect(await snapshot(db)).toBe(before);
  });

  it('says its size limit in SIZE, offers no AUTH nor STARTTLS, and refuses a larger message (552) keeping nothing', async () => {
    const socket = connect(listener.port, '127.0.0.1');
    try {
      await readUntil(socket, /^220 .*\r\n/m);
      socket.write('EHLO tester.example\r\n');
      const ehlo = await readUntil(socket, /^250 .*\r\n/m);
      expect(ehlo).toMatch(new RegExp(`^250[- ]SIZE ${EMAIL_MAX_BYTES}\r$`, 'm'));
      // No name looked up for the client (a hostile resolver's answer is never waited for).
      expect(ehlo).toMatch(/Nice to meet you, \[127\.0\.0\.1\]/);
      expect(ehlo).not.toMatch(/AUTH|STARTTLS/);
      // Refused as soon as a size above it is declared.
      socket.write(`MAIL FROM:<a@b.example> SIZE=${EMAIL_MAX_BYTES + 1}\r\n`);
      expect(await readUntil(socket, /^\d{3} .*\r\n/m)).toMatch(/^552 /m);
    } finally {
      socket.destroy();
    }
    const address = (await inboundAddressOf(db, businessId, settings))!;
    const before = await snapshot(db);
    const head = 'From: a@b.example\r\nTo: x@y.example\r\nSubject: big\r\n\r\n';
    const body = `${'x'.repeat(998)}\r\n`.repeat(Math.ceil(EMAIL_MAX_BYTES / 1000));
    expect(await refusalOf(send(address, head + body))).toBe(552);
    // Not declared beforehand: refused at its end.
    const plain = connect(listener.port, '127.0.0.1');
    try {
      await readUntil(plain, /^220 .*\r\n/m);
      plain.write(`HELO tester.example\r\nMAIL FROM:<a@b.example>\r\nRCPT TO:<${address}>\r\nDATA\r\n`);
      await readUntil(plain, /^354 .*\r\n/m);
      plain.write(`${head}${body}.\r\n`);
      expect(await readUntil(plain, /^5\d\d .*\r\n/m)).toMatch(/^552 /m);
    } finally {
      plain.destroy();
    }
    expect(await snapshot(db)).toBe(before);
  });

  it('bounds connections: one past the limit is answered 421, and a connection is closed at the end of its time', async () => {
    const small = await startInboundMail(
      db,
      { ...settings, maxConnections: 1, sessionMs: 1000 },
      {
        host: '127.0.0.1',
        onJobsQueued: () => {},
        closeMs: 1000,
      },
    );
    const first = connect(small.port, '127.0.0.1');
    let second: Socket | undefined;
    try {
      // The second connects once the first is greeted (counted), so which one is refused is certain.
      expect(await readUntil(first, /^\d{3} .*\r\n/m)).toMatch(/^220 /);
      second = connect(small.port, '127.0.0.1');
      expect(await readUntil(second, /^\d{3} .*\r\n/m)).toMatch(/^421 /);
      // The first keeps talking (never idle), and is still cut once its session's time is over.
      const talking = setInterval(() => first.writable && first.write('NOOP\r\n'), 200);
      try {
        await new Promise<void>((resolve) => (first.destroyed ? resolve() : first.once('close', () => resolve())));
      } finally {
        clearInterval(talking);
      }
      expect(first.destroyed).toBe(true);
    } finally {
      first.destroy();
      second?.destroy();
      await small.close();
    }
  });

  it('offers STARTTLS when a certificate is configured, and takes the message over TLS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'inmo-smtp-tls-'));
    const [certFile, keyFile] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
    const made = spawnSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', `/CN=${DOMAIN}`],
      { stdio: 'ignore' },
    );
    expect(made.status).toBe(0);
    const secured = await startInboundMail(
      db,
      { ...settings, tls: { certFile, keyFile } },
      {
        host: '127.0.0.1',
        onJobsQueued: () => {},
        closeMs: 1000,
      },
    );
    try {
      const address = (await inboundAddressOf(db, businessId, settings))!;
      const transport = nodemailer.createTransport({
        host: '127.0.0.1',
        port: secured.port,
        secure: false,
        requireTLS: true,
        tls: { rejectUnauthorized: false },
      });
      const raw = 'From: a@b.example\r\nTo: x@y.example\r\nSubject: tls\r\nMessage-ID: <tls-1@b.example>\r\n\r\nhola\r\n';
      const sent = await transport.sendMail({ envelope: { from: 'a@b.example', to: [address] }, raw });
      transport.close();
      expect(sent.accepted).toEqual([address]);
      expect((await emails()).some((e) => e.message_key === '<tls-1@b.example>')).toBe(true);
    } finally {
      await secured.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is started by `inmo serve` when INMO_SMTP_INBOUND_PORT is set, and stopped with it', async () => {
    const address = (await inboundAddressOf(db, businessId, settings))!;
    const served = await startServe(
      {
        ...process.env,
        DATABASE_URL: dbUrl,
        LOG_LEVEL: 'warn',
        INMO_SMTP_INBOUND_PORT: '0',
        INMO_INBOUND_DOMAIN: DOMAIN,
        HOST: '127.0.0.1',
      },
      '--no-worker',
    );
    try {
      expect(served.info.smtp_inbound).toEqual({ port: expect.any(Number), domain: DOMAIN });
      const raw = 'From: a@b.example\r\nTo: x@y.example\r\nSubject: serve\r\nMessage-ID: <serve-1@b.example>\r\n\r\nhola\r\n';
      expect((await send(address, raw, served.info.smtp_inbound.port)).accepted).toEqual([address]);
      expect((await emails()).some((e) => e.message_key === '<serve-1@b.example>')).toBe(true);
    } finally {
      expect(await served.stop()).toBe(0);
    }
    // Stopped: nothing listens there any more.
    expect(await refusalOf(send(address, 'Subject: x\r\n\r\nx\r\n', served.info.smtp_inbound.port))).toBeUndefined();
  });
});
