/**
 * A real SMTP server on loopback for the e-mail tests (smtp-server, by nodemailer's authors):
 * it asks for a login, refuses recipients whose address starts with `refused`, and keeps every
 * message it accepts, read with mailparser.
 */
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export const SMTP_USER = 'agency';
export const SMTP_PASSWORD = 'smtp-p4ss-of-the-tests';

export interface TestSmtp {
  port: number;
  /** `smtp://user:pass@127.0.0.1:<port>`. */
  url: string;
  /** Messages accepted, with their envelope's sender (`MAIL FROM`) and recipients, in order. */
  received: Array<{ from: string | null; to: string[]; mail: ParsedMail; raw: string }>;
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1 (a free port). */
export async function startSmtp(): Promise<TestSmtp> {
  const received: TestSmtp['received'] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) return callback(null, { user: auth.username });
      callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('refused')) return callback(Object.assign(new Error('No such user'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (mail) => {
            const { mailFrom, rcptTo } = session.envelope;
            received.push({ from: mailFrom ? mailFrom.address : null, to: rcptTo.map((r) => r.address), mail, raw: raw.toString('utf8') });
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
