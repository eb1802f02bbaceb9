/**
 * The welcome by e-mail (CONTRACT §19, §7), against a real SMTP server on loopback
 * (test/helpers/smtp.ts): when WhatsApp cannot carry it (no channel, `consent.whatsapp: false`,
 * or the template failed for good) a lead with an e-mail address gets one e-mail, once, with a
 * text and an HTML part in its language and the one-click unsubscribe headers, and it appears in
 * its conversation (`kind: "email"`). A refused recipient fails it; a worker killed between the
 * send and its record leaves it `needs_reconciliation`, never sent twice.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Worker } from '../../../src/jobs/worker.ts';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { connectEmail } from '../../../src/services/messaging/email.ts';
import { startFakeGraph, type FakeGraph } from '../../helpers/fake-graph.ts';
import { businessWithKey } from '../../helpers/db.ts';
import { post, withApp } from '../../helpers/http.ts';
import { runCrashableWorker } from '../../helpers/processes.ts';
import { startSmtp, type TestSmtp } from '../../helpers/smtp.ts';

const t = withApp({ each: true });
let smtp: TestSmtp;
let graph: FakeGraph;
let phones = 0;

beforeAll(async () => {
  smtp = await startSmtp();
  graph = await startFakeGraph();
});
afterAll(async () => {
  await smtp.close();
  await graph.close();
});
beforeEach(async () => {
  smtp.received.length = 0;
  await connectEmail(t.db, { businessId: t.businessId, url: smtp.url, from: 'hola@agency.example', replyTo: 'agentes@agency.example' });
});

const drain = () =>
  new Worker({
    db: t.db,
    clock: new ManualClock(new Date(Date.now() + 60_000)),
    settings: { pollMs: 20, backoffMs: 60_000, maxAttempts: 3 },
  }).drain();

/** Posts an inquiry from a new phone; @returns the lead id. */
async function inquiry(fields: Record<string, unknown>, key = t.key): Promise<number> {
  const response = await post(t.app, '/leads/inquiries', key, {
    name: 'Marta Ruiz',
    type: 'buyer',
    phone_number_1: `+34611900${String(++phones).padStart(3, '0')}`,
    ...fields,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.lead_id as number;
}

const messagesOf = (leadId: number) => t.db.selectFrom('messages').selectAll().where('lead_id', '=', leadId).orderBy('id').execute();

describe('the welcome by e-mail', () => {
  it('reaches a lead without WhatsApp once, in its language, with both parts and the unsubscribe headers', async () => {
    const leadId = await inquiry({ personal_email: 'marta@example.com', preferred_language: 'ge' });
    await drain();
    await drain();
    expect(smtp.received).toHaveLength(1);
    const { mail, to } = smtp.received[0];
    // Header lines unfolded (RFC 5322 §2.2.3).
    const raw = smtp.received[0].raw.replace(/\r\n[ \t]+/g, ' ');
    expect(to).toEqual(['marta@example.com']);
    expect(mail.subject).toBe('Vielen Dank für Ihre Anfrage bei Inmobiliaria Test');
    expect(mail.from?.text).toBe('"Inmobiliaria Test" <hola@agency.example>');
    expect(mail.replyTo?.text).toBe('agentes@agency.example');
    expect(mail.text).toContain('Guten Tag Marta Ruiz,');
    expect(mail.html).toContain('<html lang="de">');
    expect(mail.html).toContain('Inmobiliaria Test');
    expect(raw).toMatch(/^List-Unsubscribe: <http:\/\/127\.0\.0\.1:8080\/u\/[A-Za-z0-9_-]{43}>\r$/m);
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
    // No code or id reaches the person.
    expect(mail.text!.replace(/http\S+/g, '')).not.toMatch(new RegExp(`\\b${leadId}\\b|undefined|null|\\{`));
    const [message] = await messagesOf(leadId);
    expect(message).toMatchObject({ kind: 'email', author: 'welcome', state: 'sent', language: 'de', direction: 'out' });
    expect(message.body).toBe(mail.text);
    expect(message.provider_message_id).toBe(mail.messageId);
    // The token is kept only as its hash.
    const token = /\/u\/([A-Za-z0-9_-]{43})/.exec(raw)![1];
    const stored = await t.db.selectFrom('unsubscribe_tokens').selectAll().where('lead_id', '=', leadId).execute();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it.each([
    [null, 'Gracias por contactar con Inmobiliaria Test'],
    ['es', 'Gracias por contactar con Inmobiliaria Test'],
    ['gb', 'Thank you for contacting Inmobiliaria Test'],
    ['fr', 'Merci d’avoir contacté Inmobiliaria Test'],
    ['it', 'Grazie per aver contattato Inmobiliaria Test'],
  ])('is written for preferred_language %s', async (preferred, subject) => {
    await inquiry({ personal_email: 'lang@example.com', ...(preferred ? { preferred_language: preferred } : {}) });
    await drain();
    expect(smtp.received.map((r) => r.mail.subject)).toEqual([subject]);
    expect(smtp.received[0].mail.text).toBeTruthy();
    expect(smtp.received[0].mail.html).toBeTruthy();
  });

  it('fails visibly for a recipient the server refuses, and is not sent again', async () => {
    const leadId = await inquiry({ personal_email: 'refused.marta@example.com' });
    await drain();
    await drain();
    expect(smtp.received).toHaveLength(0);
    const [message] = await messagesOf(leadId);
    expect(message).toMatchObject({ kind: 'email', state: 'failed', last_error: expect.stringContaining('550') });
    expect(message.last_error).not.toContain('refused.marta@example.com');
    const job = await t.db
      .selectFrom('jobs')
      .selectAll()
      .where('lead_id', '=', leadId)
      .where('kind', '=', 'send_welcome')
      .executeTakeFirstOrThrow();
    expect(job.state).toBe('failed');
  });

  it('goes by e-mail when the lead refused WhatsApp, or when the template failed for good; once per lead', async () => {
    await connectChannel(
      t.db,
      {
        businessId: t.businessId,
        provider: 'whatsapp-cloud',
        phoneNumberId: '555',
        tokenEnv: 'T',
        template: 'hola',
        baseUrl: graph.baseUrl,
      },
      { T: 'token' },
    );
    const refused = await inquiry({ personal_email: 'a@example.com', consent: { marketing: false, whatsapp: false } });
    graph.script.push({ status: 400, body: { error: { message: 'Template not approved', code: 132001 } } });
    const failed = await inquiry({ personal_email: 'b@example.com', preferred_language: 'fr' });
    const noEmail = await inquiry({});
    graph.script.push({ status: 400, body: { error: { message: 'Template not approved', code: 132001 } } });
    await drain();
    await drain();
    expect(smtp.received.map((r) => r.to[0]).sort()).toEqual(['a@example.com', 'b@example.com']);
    expect((await messagesOf(refused)).map((m) => [m.kind, m.author, m.state])).toEqual([['email', 'welcome', 'sent']]);
    expect((await messagesOf(failed)).map((m) => [m.kind, m.author, m.state, m.language])).toEqual([
      ['template', 'welcome', 'failed', 'fr'],
      ['email', 'welcome_fallback', 'sent', 'fr'],
    ]);
    expect((await messagesOf(noEmail)).map((m) => [m.kind, m.state])).toEqual([['template', 'failed']]);
  });

  it('gets no welcome by e-mail from a business that sends none', async () => {
    const other = await businessWithKey(t.db, 'Sin correo');
    const leadId = await inquiry({ personal_email: 'c@example.com' }, other.key);
    await drain();
    expect(await messagesOf(leadId)).toEqual([]);
    expect(smtp.received).toHaveLength(0);
  });

  it('is left for reconciliation, never sent twice, when the worker dies between the send and its record', async () => {
    const leadId = await inquiry({ personal_email: 'crash@example.com' });
    expect(await runCrashableWorker(t.db, t.url, 'message:called')).toBe('SIGKILL');
    expect(smtp.received).toHaveLength(1);
    expect((await messagesOf(leadId))[0].state).toBe('sending');
    expect(await runCrashableWorker(t.db, t.url, null)).toBeNull();
    expect(smtp.received).toHaveLength(1);
    const [message] = await messagesOf(leadId);
    expect(message).toMatchObject({ state: 'needs_reconciliation', last_error: expect.stringContaining('SMTP server') });
  });
});
