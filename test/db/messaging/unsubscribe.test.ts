/**
 * One-click unsubscribe (CONTRACT §19, RFC 8058): the link of a welcome e-mail received by a
 * real SMTP server on loopback. `GET /u/<token>` shows a page in the lead's language with one
 * button posting it; `POST /u/<token>` (no key, no cookie) records the opt-out as a consent change
 * and the conversation `opted_out`, and a second POST changes nothing; an unknown token is 404
 * and leaves the database unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from '../../../src/jobs/worker.ts';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { connectEmail } from '../../../src/services/messaging/email.ts';
import { UNSUBSCRIBE_CONSENT_VERSION } from '../../../src/services/messaging/unsubscribe.ts';
import { snapshot } from '../../helpers/db.ts';
import { post, withApp } from '../../helpers/http.ts';
import { startSmtp, type TestSmtp } from '../../helpers/smtp.ts';

const t = withApp();
let smtp: TestSmtp;
let token: string;
let leadId: number;

beforeAll(async () => {
  smtp = await startSmtp();
  await connectEmail(t.db, { businessId: t.businessId, url: smtp.url, from: 'hola@agency.example', replyTo: null });
  const asked = await post(t.app, '/leads/inquiries', t.key, {
    name: 'Chiara',
    type: 'buyer',
    phone_number_1: '+34611955001',
    personal_email: 'chiara@example.com',
    preferred_language: 'it',
    consent: { marketing: true, whatsapp: true, text: 'Accetto', version: 'v1' },
  });
  leadId = asked.body.lead_id;
  await new Worker({ db: t.db, clock: new ManualClock(new Date(Date.now() + 60_000)), settings: { pollMs: 20 } }).drain();
  const raw = smtp.received[0].raw.replace(/\r\n[ \t]+/g, ' ');
  token = /^List-Unsubscribe: <http:\/\/127\.0\.0\.1:8080\/u\/([A-Za-z0-9_-]{43})>\r$/m.exec(raw)![1];
});
afterAll(async () => {
  await smtp.close();
});

const consents = () => t.db.selectFrom('lead_consents').selectAll().where('lead_id', '=', leadId).orderBy('id').execute();

describe('one-click unsubscribe', () => {
  it('shows a page in the lead language with one button posting the link, under a strict CSP', async () => {
    const page = await t.app.inject({ method: 'GET', url: `/u/${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.body).toContain('<html lang="it">');
    expect(page.body).toContain('Vuoi smettere di ricevere messaggi da Inmobiliaria Test?');
    expect(page.body).toContain(`<form method="post" action="/u/${token}"><button type="submit"`);
    expect(page.body).toContain('href="/console/assets/console.css"');
    expect(page.body).not.toMatch(/https?:\/\/(?!127)|<script|chiara/i);
    // A GET changes nothing (mail scanners follow links).
    expect(await consents()).toHaveLength(1);
    const css = await t.app.inject({ method: 'GET', url: '/console/assets/console.css' });
    expect(css.statusCode).toBe(200);
  });

  it('records the opt-out on POST as a consent change, once, and answers 200 again', async () => {
    const first = await t.app.inject({
      method: 'POST',
      url: `/u/${token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('non riceverai più messaggi da Inmobiliaria Test');
    const after = await consents();
    expect(after).toHaveLength(2);
    expect(after[1]).toMatchObject({ marketing: 0, whatsapp: 0, version: UNSUBSCRIBE_CONSENT_VERSION, source_page: null });
    const conversation = await t.db.selectFrom('conversations').selectAll().where('lead_id', '=', leadId).executeTakeFirstOrThrow();
    expect(conversation.state).toBe('opted_out');
    const before = await snapshot(t.db);
    const second = await t.app.inject({ method: 'POST', url: `/u/${token}` });
    expect(second.statusCode).toBe(200);
    expect(await snapshot(t.db)).toBe(before);
    const shown = await t.app.inject({ method: 'GET', url: `/u/${token}` });
    expect(shown.body).not.toContain('<form');
  });

  it('answers 404 to an unknown or malformed token and changes nothing', async () => {
    const before = await snapshot(t.db);
    const other = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const url of [`/u/${other}`, '/u/short', `/u/${token}x`]) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
      expect((await t.app.inject({ method: 'POST', url, payload: 'List-Unsubscribe=One-Click' })).statusCode).toBe(404);
    }
    expect(await snapshot(t.db)).toBe(before);
  });
});
