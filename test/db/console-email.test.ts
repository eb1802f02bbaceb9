/**
 * The console's e-mail page (CONTRACT §19), owners only: the SMTP server is set with a
 * CSRF-checked form, its password is write-only (never shown again, blank keeps it), and the
 * test button sends a real e-mail to the SMTP server on loopback (test/helpers/smtp.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, userWithPassword } from '../helpers/console.ts';
import { snapshot } from '../helpers/db.ts';
import { withApp } from '../helpers/http.ts';
import { SMTP_PASSWORD, SMTP_USER, startSmtp, type TestSmtp } from '../helpers/smtp.ts';

const t = withApp({
  seed: async ({ db, businessId }) => {
    await userWithPassword(db, businessId, 'owner@uno.example', 'owner');
    await userWithPassword(db, businessId, 'agent@uno.example', 'agent');
  },
});
let smtp: TestSmtp;

beforeAll(async () => {
  smtp = await startSmtp();
});
afterAll(async () => {
  await smtp.close();
});

describe('the console e-mail page', () => {
  it('sets the SMTP server with a write-only password and sends a test e-mail', async () => {
    const owner = new Browser(t.app);
    await owner.login('owner@uno.example');
    const empty = await owner.get('/console/email');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('href="/console/email" aria-current="page"');
    const form = {
      host: '127.0.0.1',
      port: String(smtp.port),
      security: 'starttls',
      user: SMTP_USER,
      password: SMTP_PASSWORD,
      from: 'hola@uno.example',
      reply_to: '',
    };
    const saved = await owner.submit('/console/email', '/console/email', form);
    expect(saved.statusCode).toBe(303);
    const page = await owner.get('/console/email?saved=1');
    expect(page.body).toContain(`127.0.0.1:${smtp.port}`);
    expect(page.body).not.toContain(SMTP_PASSWORD);
    // Saved again with the password blank: the stored one is kept.
    expect((await owner.submit('/console/email', '/console/email', { ...form, password: '', from: 'info@uno.example' })).statusCode).toBe(
      303,
    );
    const test = await owner.submit('/console/email', '/console/email/test', { test_to: 'ana@example.com' });
    expect(test.statusCode).toBe(200);
    expect(smtp.received.map((r) => [r.to[0], r.mail.from?.value[0].address])).toEqual([['ana@example.com', 'info@uno.example']]);
    expect(smtp.received[0].mail.text).toBeTruthy();
    expect(smtp.received[0].mail.html).toBeTruthy();
  });

  it('refuses bad fields, a form without its CSRF token and an agent, changing nothing', async () => {
    const owner = new Browser(t.app);
    await owner.login('owner@uno.example');
    const agent = new Browser(t.app);
    await agent.login('agent@uno.example');
    const before = await snapshot(t.db);
    const base = { host: 'smtp.uno.example', port: '465', security: 'tls', user: '', password: '', from: 'hola@uno.example', reply_to: '' };
    expect((await owner.submit('/console/email', '/console/email', { ...base, port: 'x' })).statusCode).toBe(422);
    expect((await owner.submit('/console/email', '/console/email', { ...base, from: 'no' })).statusCode).toBe(422);
    expect((await owner.submit('/console/email', '/console/email', { ...base, host: 'a b' })).statusCode).toBe(422);
    expect((await owner.submit('/console/email', '/console/email/test', { test_to: 'no' })).statusCode).toBe(422);
    expect((await owner.request('POST', '/console/email', base)).statusCode).toBe(403);
    expect((await agent.get('/console/email')).statusCode).toBe(403);
    expect(await snapshot(t.db)).toBe(before);
  });
});
