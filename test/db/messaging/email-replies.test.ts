/**
 * E-mail as a conversation (CONTRACT §25), against a real SMTP server (test/helpers/smtp.ts) and,
 * where dovecot is installed, a real IMAP server (test/helpers/dovecot.ts): an agent answers a
 * lead without WhatsApp by e-mail, through the `send_message` job (sent once, in the lead's
 * language, its `Message-ID` kept); the lead's answer, by the inbound webhook's path or pulled over
 * IMAP, naming that e-mail (`In-Reply-To`) or only sent to the reply address, joins the lead's
 * conversation without its quoted part and waits for an agent, instead of being read as a portal
 * e-mail; the next reply is threaded under it. `inmo conversations reply --channel` and the
 * console's reply form choose the way.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../../src/db/database.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { acceptInboundEmail, createInboundAddress } from '../../../src/services/leads/email-intake.ts';
import { addEmailPull, runEmailPull } from '../../../src/services/leads/email-pulls.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { connectChannel } from '../../../src/services/messaging/channels.ts';
import { replyAsAgent, setAnswerer, showConversation } from '../../../src/services/messaging/conversations.ts';
import { connectEmail } from '../../../src/services/messaging/email.ts';
import { inboundReplyAddress } from '../../../src/services/messaging/reply-address.ts';
import { inmo } from '../../helpers/cli.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { businessWithKey, freshDb, snapshot } from '../../helpers/db.ts';
import { dovecotHere, startDovecot, type Dovecot } from '../../helpers/dovecot.ts';
import { appOn } from '../../helpers/http.ts';
import { startSmtp, type TestSmtp } from '../../helpers/smtp.ts';

const IMAP = dovecotHere('e-mail replies pulled over IMAP');
const outbound = { allowPrivateNetwork: true, channelHosts: [] };

let smtp: TestSmtp;
let dovecot: Dovecot | undefined;
let db: Db;
let url: string;
let businessId: number;

beforeAll(async () => {
  smtp = await startSmtp();
  if (IMAP) dovecot = await startDovecot();
}, 60_000);
afterAll(async () => {
  await smtp.close();
  await dovecot?.stop();
});
beforeEach(async () => {
  ({ db, url } = await freshDb());
  ({ businessId } = await businessWithKey(db, 'Inmobiliaria Sol'));
  smtp.received.length = 0;
  await connectEmail(db, { businessId, url: smtp.url, from: 'hola@sol.example', replyTo: null });
});
afterEach(async () => {
  await db.destroy();
});

const drain = () => new Worker({ db, settings: { pollMs: 20 } }).drain();

/** A lead recorded by hand, with an e-mail address and no WhatsApp conversation. */
async function leadWithEmail(email = 'lucia@example.com', language = 'gb'): Promise<number> {
  const lead = await createLeadByHand(db, { businessId, phone: '+34611000222', name: 'Lucía Gómez' });
  await db.updateTable('leads').set({ personal_email: email, preferred_language: language }).where('id', '=', lead.id).execute();
  return lead.id;
}

/** A lead's answer as a mail client writes it: its words above the quote of inmo's e-mail. */
function answer(options: { id: string; to: string; inReplyTo?: string; words: string; from?: string }): Buffer {
  const headers = [
    `From: Lucía Gómez <${options.from ?? 'lucia@example.com'}>`,
    `To: ${options.to}`,
    'Subject: Re: Your enquiry to Inmobiliaria Sol',
    `Message-ID: ${options.id}`,
    'Date: Wed, 02 Dec 2026 18:30:00 +0100',
    ...(options.inReplyTo ? [`In-Reply-To: ${options.inReplyTo}`, `References: ${options.inReplyTo}`] : []),
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
  ];
  const body = `${options.words}\r\n\r\nOn Wed, 2 Dec 2026 at 18:00, Inmobiliaria Sol <hola@sol.example> wrote:\r\n> Hello Lucía, the flat is still available.\r\n`;
  return Buffer.from(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

const inboundOf = (leadId: number) =>
  db.selectFrom('inbound_emails').select(['state', 'lead_id']).where('lead_id', '=', leadId).orderBy('id').execute();
const leadCount = async () => (await db.selectFrom('leads').select('id').execute()).length;
const threadOf = async (leadId: number) =>
  (await showConversation(db, leadId)).messages.map((m) => ({ direction: m.direction, kind: m.kind, text: m.text, state: m.state }));

describe('a reply by e-mail, and the answer by the webhook’s path', () => {
  it('goes by e-mail to a lead without WhatsApp, and its answers join the conversation, not the portal e-mails', async () => {
    const leadId = await leadWithEmail();
    const firstId = await replyAsAgent(db, leadId, 'Hello Lucía, the flat is still available.');
    await drain();
    await drain();
    // Sent once, in the lead's language, without Reply-To (no inbound mailbox yet: the From answers).
    expect(smtp.received).toHaveLength(1);
    const sent = smtp.received[0];
    expect(sent.to).toEqual(['lucia@example.com']);
    expect(sent.mail.subject).toBe('Your enquiry to Inmobiliaria Sol');
    expect(sent.mail.text).toContain('Hello Lucía, the flat is still available.');
    expect(sent.mail.text).toContain('You can answer this e-mail directly.');
    expect(sent.mail.replyTo).toBeUndefined();
    expect(sent.mail.headers.get('list-unsubscribe')).toBeUndefined();
    const first = await db.selectFrom('messages').selectAll().where('id', '=', firstId).executeTakeFirstOrThrow();
    expect(first).toMatchObject({ kind: 'email', author: 'agent', state: 'sent', body: 'Hello Lucía, the flat is still available.' });
    expect(first.provider_message_id).toBe(sent.mail.messageId);

    // An answer naming inmo's e-mail, forwarded to the webhook.
    const leads = await leadCount();
    await acceptInboundEmail(
      db,
      businessId,
      answer({
        id: '<answer-1@example.com>',
        to: 'hola@sol.example',
        inReplyTo: sent.mail.messageId!,
        words: 'Great, can I see it on Thursday?',
      }),
    );
    await drain();
    expect((await showConversation(db, leadId)).state).toBe('waiting_for_agent');
    // Given back to the assistant, another answer, naming nothing (only sent to the business's
    // address), waits for an agent again.
    await setAnswerer(db, leadId, 'assistant');
    await acceptInboundEmail(
      db,
      businessId,
      answer({ id: '<answer-2@example.com>', to: 'hola@sol.example', words: 'At five, if possible.' }),
    );
    await drain();
    expect(await leadCount()).toBe(leads);
    expect(await inboundOf(leadId)).toEqual([
      { state: 'reply', lead_id: leadId },
      { state: 'reply', lead_id: leadId },
    ]);
    expect(await threadOf(leadId)).toEqual([
      { direction: 'out', kind: 'email', text: 'Hello Lucía, the flat is still available.', state: 'sent' },
      { direction: 'in', kind: 'email', text: 'Great, can I see it on Thursday?', state: 'received' },
      { direction: 'in', kind: 'email', text: 'At five, if possible.', state: 'received' },
    ]);
    expect((await showConversation(db, leadId)).state).toBe('waiting_for_agent');
    const waiting = await db
      .selectFrom('events')
      .select('type')
      .where('lead_id', '=', leadId)
      .where('type', '=', 'conversation.waiting')
      .execute();
    expect(waiting).toHaveLength(1);

    // The next reply is threaded under the lead's newest e-mail.
    await replyAsAgent(db, leadId, 'Thursday at five, then.');
    await drain();
    expect(smtp.received).toHaveLength(2);
    const next = smtp.received[1].mail;
    expect(next.subject).toBe('Re: Your enquiry to Inmobiliaria Sol');
    expect(next.inReplyTo).toBe('<answer-2@example.com>');
    expect(next.references).toEqual([sent.mail.messageId, '<answer-1@example.com>', '<answer-2@example.com>']);
  });

  it('with the SMTP listener configured, answers to the business’s <token>@domain, and an answer sent there joins the thread', async () => {
    vi.stubEnv('INMO_SMTP_INBOUND_PORT', '2525');
    vi.stubEnv('INMO_INBOUND_DOMAIN', 'in.inmo.example');
    try {
      // No token made yet: none is made by a reply, which answers to the From address.
      expect(await inboundReplyAddress(db, businessId)).toBeNull();
      const { token } = await createInboundAddress(db, businessId);
      const address = `${token}@in.inmo.example`;
      expect(await inboundReplyAddress(db, businessId)).toBe(address);
      const leadId = await leadWithEmail();
      await replyAsAgent(db, leadId, 'Hello Lucía, the flat is still available.');
      await drain();
      expect(smtp.received).toHaveLength(1);
      expect(smtp.received[0].mail.replyTo?.text).toBe(address);
      // An answer sent to that address alone, naming no e-mail of inmo's.
      await acceptInboundEmail(db, businessId, answer({ id: '<answer-smtp@example.com>', to: address, words: 'Is it still free?' }));
      await drain();
      expect((await threadOf(leadId)).at(-1)).toEqual({ direction: 'in', kind: 'email', text: 'Is it still free?', state: 'received' });
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('an e-mail from the lead to another address, naming none of inmo’s, is read as before', async () => {
    const leadId = await leadWithEmail();
    await replyAsAgent(db, leadId, 'Hello Lucía.');
    await drain();
    await acceptInboundEmail(db, businessId, answer({ id: '<other@example.com>', to: 'someone@else.example', words: 'Hola' }));
    await drain();
    const [kept] = await db.selectFrom('inbound_emails').select(['state']).execute();
    expect(kept.state).not.toBe('reply');
    expect((await threadOf(leadId)).filter((m) => m.direction === 'in')).toEqual([]);
  });

  it('an answer naming another business’s e-mail does not reach that business’s lead', async () => {
    const leadId = await leadWithEmail();
    await replyAsAgent(db, leadId, 'Hello Lucía.');
    await drain();
    const other = await businessWithKey(db, 'Otra Inmobiliaria');
    await acceptInboundEmail(
      db,
      other.businessId,
      answer({ id: '<stray@example.com>', to: 'x@otra.example', inReplyTo: smtp.received[0].mail.messageId!, words: 'Hola' }),
    );
    await drain();
    expect((await threadOf(leadId)).filter((m) => m.direction === 'in')).toEqual([]);
  });
});

describe.skipIf(!IMAP)('the answer pulled over IMAP', () => {
  it('the reply answers to the mailbox inmo pulls; answers found there join the conversation', async () => {
    const { id: pullId } = await addEmailPull(db, { businessId, url: dovecot!.url }, outbound);
    expect(await inboundReplyAddress(db, businessId)).toBe(dovecot!.user);
    const leadId = await leadWithEmail('marta@example.com', 'fr');
    await replyAsAgent(db, leadId, 'Bonjour Marta, l’appartement est libre.');
    await drain();
    const sent = smtp.received.at(-1)!;
    expect(sent.mail.subject).toBe('Votre demande à Inmobiliaria Sol');
    expect(sent.mail.replyTo?.text).toBe(dovecot!.user);

    const client = await dovecot!.client();
    try {
      // One by the Reply-To address alone, one naming the e-mail (sent to the From address).
      await client.append(
        'INBOX',
        answer({ id: '<imap-1@example.com>', to: dovecot!.user, from: 'marta@example.com', words: 'Merci !' }),
        [],
      );
      await client.append(
        'INBOX',
        answer({
          id: '<imap-2@example.com>',
          to: 'hola@sol.example',
          from: 'marta@example.com',
          inReplyTo: sent.mail.messageId!,
          words: 'Jeudi ?',
        }),
        [],
      );
    } finally {
      await client.logout();
    }
    const leads = await leadCount();
    expect(await runEmailPull(db, pullId, { outbound })).toMatchObject({ status: 'done', stored: 2 });
    await drain();
    expect(await leadCount()).toBe(leads);
    const answers = (await threadOf(leadId)).filter((m) => m.direction === 'in').map((m) => m.text);
    expect(answers.sort()).toEqual(['Jeudi ?', 'Merci !']);
    expect((await showConversation(db, leadId)).state).toBe('waiting_for_agent');
  });
});

describe('choosing the way', () => {
  it('`inmo conversations reply --channel`: e-mail when asked, WhatsApp refused without its window, nothing stored then', async () => {
    const leadId = await leadWithEmail();
    await connectChannel(
      db,
      { businessId, provider: 'whatsapp-cloud', phoneNumberId: '5550001', tokenEnv: 'TEST_WA_TOKEN', template: 'bienvenida' },
      { TEST_WA_TOKEN: 'token-used-only-in-tests' },
    );
    const env = { ...process.env, DATABASE_URL: url };
    const before = await snapshot(db);
    const whatsapp = await inmo(env, 'conversations', 'reply', String(leadId), 'Hola', '--channel', 'whatsapp', '--json');
    expect([whatsapp.code, whatsapp.json.error]).toEqual([
      1,
      "The lead has not written: WhatsApp allows a free-form reply only within 24 hours of the lead's last message",
    ]);
    const unknown = await inmo(env, 'conversations', 'reply', String(leadId), 'Hola', '--channel', 'fax', '--json');
    expect(unknown.code).toBe(1);
    expect(await snapshot(db)).toBe(before);

    const email = await inmo(env, 'conversations', 'reply', String(leadId), 'Hola Lucía', '--channel', 'email', '--json');
    expect(email.json).toEqual({ lead_id: leadId, message_id: expect.any(Number), channel: 'email', state: 'pending' });
    // Without --channel: WhatsApp's window is closed, so e-mail.
    const chosen = await inmo(env, 'conversations', 'reply', String(leadId), 'Otra cosa', '--json');
    expect(chosen.json.channel).toBe('email');
    await drain();
    // Two jobs: sent in either order.
    expect(smtp.received.map((r) => r.mail.text?.split('\n')[0]).sort()).toEqual(['Hola Lucía', 'Otra cosa']);

    await db.updateTable('leads').set({ personal_email: null }).where('id', '=', leadId).execute();
    const noAddress = await inmo(env, 'conversations', 'reply', String(leadId), 'Hola', '--channel', 'email', '--json');
    expect([noAddress.code, noAddress.json.error]).toEqual([1, 'The lead has no e-mail address to reply to']);
  });

  describe('the console', () => {
    let app: FastifyInstance;
    beforeEach(async () => {
      app = await appOn(db);
      await userWithPassword(db, businessId, 'agente@sol.example', 'agent');
    });
    afterEach(async () => {
      await app.close();
    });

    it('offers e-mail for a lead without WhatsApp, sends the reply by it, and the inbox shows the e-mail conversation', async () => {
      const leadId = await leadWithEmail();
      const browser = await loggedIn(app, 'agente@sol.example');
      const page = `/console/leads/${leadId}`;
      const shown = await browser.get(page);
      expect(shown.body).toContain(`action="${page}/reply"`);
      expect(shown.body).toMatch(/<input type="radio" name="channel" value="whatsapp" disabled aria-describedby="r-whatsapp-why">/);
      expect(shown.body).toContain('El espacio de trabajo no tiene WhatsApp conectado.');
      expect(shown.body).toMatch(/<input type="radio" name="channel" value="email" checked>/);

      const before = await snapshot(db);
      const refused = await browser.submit(page, `${page}/reply`, { text: 'Hola', channel: 'whatsapp' });
      expect(refused.statusCode).toBe(409);
      expect(refused.body).toContain('El espacio de trabajo no tiene WhatsApp conectado.');
      expect(await snapshot(db)).toBe(before);

      const sent = await browser.submit(page, `${page}/reply`, { text: 'Hola Lucía, ¿el jueves?', channel: 'email' });
      expect(sent.statusCode).toBe(303);
      expect(await threadOf(leadId)).toEqual([{ direction: 'out', kind: 'email', text: 'Hola Lucía, ¿el jueves?', state: 'pending' }]);
      await drain();
      expect(smtp.received.map((r) => r.to)).toEqual([['lucia@example.com']]);
      const thread = await browser.get(page);
      expect(thread.body).toContain('Hola Lucía, ¿el jueves?');
      expect(thread.body).toContain('· correo electrónico ·');
      const inbox = await browser.get('/console/inbox');
      expect(inbox.body).toContain(`href="/console/leads/${leadId}#h-thread"`);
      expect(inbox.body).toContain('<span class="channel">Correo electrónico</span>');
      // The inbox's reply goes by the conversation's way: e-mail here.
      expect(inbox.body).toContain(`id="reply-${leadId}"`);
    });
  });
});
