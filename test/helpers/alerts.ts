/**
 * What the alert tests share (CONTRACT §21; test/db/alerts*.test.ts, test/db/leads/who-is-believed.test.ts):
 * a real SMTP server on loopback for the file (test/helpers/smtp.ts), the business's e-mail
 * connected to it before each test, the worker that runs the queued jobs, and `inmo alerts run`
 * as its service on a clock that moves a day ahead at each run.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { ManualClock } from '../../src/jobs/clock.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { runAlertsNow } from '../../src/services/leads/alerts.ts';
import { connectEmail } from '../../src/services/messaging/email.ts';
import type { TestApp } from './http.ts';
import { startSmtp, type TestSmtp } from './smtp.ts';

/** Where the alert runs may send: the fakes listen on loopback. */
export const OUTBOUND = { allowPrivateNetwork: true, channelHosts: [] };

/** A consent to marketing and WhatsApp, as an inquiry carries it (CONTRACT §18). */
export const CONSENT = { marketing: true, whatsapp: true, text: 'Acepto recibir ofertas', version: 'v1' };

/** The day each test's alert runs count from: the first run is the day after. */
const FIRST_DAY = '2030-03-04T06:00:00Z';

/** The alert tests' SMTP server, worker and runs (see {@link alertsTest}). */
export interface AlertsTest {
  /** The SMTP server, started before the file's tests; its `received` is emptied before each. */
  readonly smtp: TestSmtp;
  /** The day of the last {@link AlertsTest.runAlerts} (before the first, the day before it). */
  readonly day: Date;
  /** Connects the business's e-mail to the SMTP server (from `hola@agency.example`). */
  connectEmail(): Promise<void>;
  /** Starts a new SMTP server in place of the one a test closed (a server down for a while); connect to it again. */
  startSmtpAgain(): Promise<void>;
  /** Runs the queued jobs (matching after an import, welcomes) by a clock a minute ahead of them. @returns how many ran. */
  drain(): Promise<number>;
  /** `inmo alerts run` as the service, a day later each time, at alert hour 10. */
  runAlerts(): ReturnType<typeof runAlertsNow>;
  /** The addresses of every message the SMTP server received, sorted. */
  recipients(): string[];
}

/**
 * Registers the hooks of an alert test file on `t` (a `withApp({ each: true })`: call it after
 * that): the SMTP server for the file, and before each test its messages emptied, the day set
 * back, and (unless `email: false`) the business's e-mail connected to it.
 */
export function alertsTest(t: TestApp, options: { email?: boolean } = {}): AlertsTest {
  let smtp: TestSmtp | undefined;
  let day = new Date(FIRST_DAY);
  const server = () => {
    if (!smtp) throw new Error('the SMTP server starts before the tests');
    return smtp;
  };
  const connect = async () => {
    await connectEmail(t.db, { businessId: t.businessId, url: server().url, from: 'hola@agency.example', replyTo: null });
  };
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp?.close();
  });
  beforeEach(async () => {
    server().received.length = 0;
    day = new Date(FIRST_DAY);
    if (options.email !== false) await connect();
  });
  return {
    get smtp() {
      return server();
    },
    get day() {
      return day;
    },
    connectEmail: connect,
    startSmtpAgain: async () => {
      smtp = await startSmtp();
    },
    drain: () =>
      new Worker({
        db: t.db,
        clock: new ManualClock(new Date(Date.now() + 60_000)),
        settings: { pollMs: 20, backoffMs: 60_000, maxAttempts: 3, alertHour: 24 },
      }).drain(),
    runAlerts: () => {
      day = new Date(day.getTime() + 24 * 3600_000);
      return runAlertsNow(t.db, { businessId: t.businessId, alertHour: 10, outbound: OUTBOUND, at: day });
    },
    recipients: () =>
      server()
        .received.flatMap((r) => r.to)
        .sort(),
  };
}
