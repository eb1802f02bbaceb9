/**
 * The e-mail page (CONTRACT §19). For every user, the e-mails no parser understood:
 * `GET /email` lists them, `GET /email/messages/:id` shows one (sender, subject, why it waits,
 * its text) with a form that makes the lead by hand (`POST /email/messages/:id/lead`: `name`,
 * `phone`, `email`, `message`, `reference`, `source`; a known person gets the request in their
 * history instead) and one that discards it (`POST /email/messages/:id/discard`).
 *
 * For owners, the inbound addresses (`POST /email/addresses` makes one and shows its URL once,
 * `POST /email/addresses/:id/revoke`) and e-mail out: the business's own SMTP server (never its
 * password); `POST /email` (fields `host`, `port`, `security` `tls`|`starttls`, `user`, `password`
 * (write-only: blank keeps the stored one while the host and user stay), `from`, `reply_to`)
 * connects or changes it with connectEmail's rules; `POST /email/test` (field `test_to`) sends a
 * test e-mail now through the business's sender (its own server, else `INMO_SMTP_URL`) and says
 * how it went in the page's language (never an address, nor what a name resolved to). Both forms
 * are CSRF-checked.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { connectEmail, emailOverview, sendTestEmail } from '../../../services/messaging/email.ts';
import type { EmailOutcome } from '../../../channels/email-smtp.ts';
import {
  createInboundAddress,
  discardEmail,
  EMAIL_SOURCES,
  emailToReview,
  listInboundAddresses,
  makeLeadFromEmail,
  notUnderstoodEmails,
  revokeInboundAddress,
} from '../../../services/leads/email-intake.ts';
import { serverOrigin } from '../../origin.ts';
import { InmoError, type ErrorCode } from '../../../errors.ts';
import type { MessageKey } from '../i18n.ts';
import { messageKeyOf } from '../labels.ts';
import { render } from '../page.ts';
import { csrfCheckedRoute, idParam, readForm, type ConsoleDeps } from '../forms.ts';
import { EmailForm, EmailLeadForm, EmailTestForm } from '../../../schemas/console-forms.ts';

/** What each refusal of connectEmail or sendTestEmail tells the owner. */
const EMAIL_PROBLEMS = {
  EMAIL_SMTP_URL: 'email_server_invalid',
  EMAIL_SMTP_PRIVATE: 'email_server_private',
  EMAIL_FROM: 'email_from_invalid',
  EMAIL_REPLY_TO: 'email_reply_to_invalid',
  EMAIL_TO: 'email_test_to_invalid',
  EMAIL_NOT_CONNECTED: 'email_not_connected',
} as const satisfies Partial<Record<ErrorCode, MessageKey>>;

/** What the owner reads of a test send's outcome (never the server's or the resolver's words). */
const TEST_OUTCOMES = {
  sent: 'email_test_sent',
  private: 'email_test_private',
  rejected: 'email_test_refused',
  retry: 'email_test_unreachable',
  unknown: 'email_test_unknown',
} as const satisfies Record<string, MessageKey>;

/** The kind of a test send's outcome, a refused private address apart. */
function testOutcomeOf(outcome: EmailOutcome): keyof typeof TEST_OUTCOMES {
  return outcome.kind === 'rejected' && outcome.privateAddress ? 'private' : outcome.kind;
}

/** What each refusal of makeLeadFromEmail tells the agent. */
const LEAD_PROBLEMS = {
  INVALID_PHONE: 'email_lead_phone_invalid',
  EMAIL_SOURCE: 'email_lead_invalid',
  EMAIL_MESSAGE_HANDLED: 'email_handled',
} as const satisfies Partial<Record<ErrorCode, MessageKey>>;

type LeadFields = { name: string; phone: string; email: string; message: string; reference: string; source: string };

type Form = { host: string; port: string; security: string; user: string; from: string; reply_to: string; test_to: string };

/** The SMTP URL of the form's fields, user and password percent-encoded; null when the host or port is not one. */
function smtpUrl(form: Form, password: string): string | null {
  if (!/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/.test(form.host) || !/^\d{1,5}$/.test(form.port) || Number(form.port) > 65535) return null;
  const credentials = form.user ? `${encodeURIComponent(form.user)}${password ? `:${encodeURIComponent(password)}` : ''}@` : '';
  return `${form.security === 'tls' ? 'smtps' : 'smtp'}://${credentials}${form.host}:${form.port}`;
}

export async function emailPages(app: FastifyInstance, { db, outbound, publicUrl, onJobsQueued }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  const emailPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: {
      status?: number;
      problem?: MessageKey | null;
      form?: Form;
      test?: { ok: boolean; text: string } | null;
      /** A new inbound address's URL, shown this once. */
      created?: string;
    } = {},
  ) => {
    const { businessId, role } = request.consoleSession!;
    const query = request.query as Record<string, string>;
    const review = await notUnderstoodEmails(db, businessId);
    const notice: MessageKey | null =
      query.discarded === '1' ? 'email_discarded' : query.revoked === '1' ? 'email_inbound_revoked_notice' : null;
    if (role !== 'owner')
      return render(reply, 'email', { owner: false, review, notice, problem: extra.problem ?? null }, extra.status ?? 200);
    const addresses = await listInboundAddresses(db, businessId);
    const email = await emailOverview(db, businessId);
    const form = extra.form ?? {
      host: email?.host ?? '',
      port: String(email?.port ?? 465),
      security: email?.security ?? 'tls',
      user: email?.user ?? '',
      from: email?.from ?? '',
      reply_to: email?.reply_to ?? '',
      test_to: '',
    };
    return render(
      reply,
      'email',
      {
        owner: true,
        review,
        notice,
        addresses,
        created: extra.created ?? null,
        email,
        form,
        saved: query.saved === '1' && extra.status === undefined,
        problem: extra.problem ?? null,
        test: extra.test ?? null,
      },
      extra.status ?? 200,
    );
  };

  /** The user's message for a refusal, or the error again when it is not one of them. */
  const problemOf = (
    request: FastifyRequest,
    error: unknown,
    problems: Readonly<Record<string, MessageKey>> = EMAIL_PROBLEMS,
  ): MessageKey => {
    if (!(error instanceof InmoError)) throw error;
    const problem = messageKeyOf(problems, error.code);
    if (problem === undefined) throw error;
    request.errorCode = error.code;
    return problem;
  };

  app.get('/email', { config: { consoleAccess: 'agent' } }, async (request, reply) => emailPage(request, reply));

  /** The id in the URL; 0 (found nowhere) when it is not one. */
  const messageId = (request: FastifyRequest) => idParam((request.params as { id: string }).id) ?? 0;

  /** One e-mail to review with the agent's form; 404 when none of the business's waits with that id. */
  const messagePage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { status?: number; problem?: MessageKey | null; fields?: LeadFields } = {},
  ) => {
    const message = await emailToReview(db, request.consoleSession!.businessId, messageId(request));
    if (!message) throw new InmoError('NOT_FOUND');
    const found = message.found;
    const fields = extra.fields ?? {
      name: found?.name ?? '',
      phone: found?.phone ?? '',
      email: found?.email ?? '',
      message: found?.message ?? '',
      reference: found?.reference ?? '',
      source: found?.source ?? 'email',
    };
    return render(reply, 'email-message', { message, fields, sources: EMAIL_SOURCES, problem: extra.problem ?? null }, extra.status ?? 200);
  };

  app.get('/email/messages/:id', { config: { consoleAccess: 'agent' } }, async (request, reply) => messagePage(request, reply));

  app.post('/email/messages/:id/lead', { config: { consoleAccess: 'agent' }, ...csrfChecked }, async (request, reply) => {
    const { value, faults } = readForm(request.body, EmailLeadForm);
    const fields: LeadFields = {
      name: value.name.trim(),
      phone: value.phone.trim(),
      email: value.email.trim(),
      message: value.message.trim(),
      reference: value.reference.trim(),
      source: value.source,
    };
    if (faults.length > 0 || fields.name === '' || fields.phone === '') {
      return messagePage(request, reply, { status: 422, problem: 'email_lead_invalid', fields });
    }
    let made;
    try {
      made = await makeLeadFromEmail(db, request.consoleSession!.businessId, messageId(request), {
        ...fields,
        email: fields.email || null,
        message: fields.message || null,
        reference: fields.reference || null,
      });
    } catch (error) {
      if (error instanceof InmoError && error.code === 'EMAIL_MESSAGE_NOT_FOUND') return messagePage(request, reply);
      const problem = problemOf(request, error, LEAD_PROBLEMS);
      return messagePage(request, reply, { status: problem === 'email_handled' ? 409 : 422, problem, fields });
    }
    onJobsQueued();
    return reply.code(303).header('location', `/console/leads/${made.leadId}`).send();
  });

  app.post('/email/messages/:id/discard', { config: { consoleAccess: 'agent' }, ...csrfChecked }, async (request, reply) => {
    try {
      await discardEmail(db, request.consoleSession!.businessId, messageId(request));
    } catch (error) {
      if (error instanceof InmoError && error.code === 'EMAIL_MESSAGE_NOT_FOUND') return messagePage(request, reply);
      throw error;
    }
    return reply.code(303).header('location', '/console/email?discarded=1').send();
  });

  app.post('/email/addresses', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const { url } = await createInboundAddress(db, request.consoleSession!.businessId);
    return emailPage(request, reply, { status: 201, created: `${serverOrigin(request, publicUrl)}${url}` });
  });

  app.post('/email/addresses/:id/revoke', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    try {
      await revokeInboundAddress(db, messageId(request), request.consoleSession!.businessId);
    } catch (error) {
      throw error instanceof InmoError && error.code === 'INBOUND_EMAIL_NOT_FOUND' ? new InmoError('NOT_FOUND') : error;
    }
    return reply.code(303).header('location', '/console/email?revoked=1').send();
  });

  app.post('/email', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const businessId = request.consoleSession!.businessId;
    const { value, faults } = readForm(request.body, EmailForm);
    const form: Form = {
      host: value.host.trim(),
      port: value.port.trim(),
      security: value.security === 'starttls' ? 'starttls' : 'tls',
      user: value.user.trim(),
      from: value.from.trim(),
      reply_to: value.reply_to.trim(),
      test_to: '',
    };
    if (faults.length > 0) return emailPage(request, reply, { status: 422, problem: 'email_field_invalid', form });
    const url = smtpUrl(form, value.password);
    if (url === null) return emailPage(request, reply, { status: 422, problem: 'email_server_invalid', form });
    try {
      await connectEmail(db, { businessId, url, from: form.from, replyTo: form.reply_to || null, keepPassword: true }, outbound, {
        type: 'user',
        id: request.consoleSession!.userId,
      });
    } catch (error) {
      return emailPage(request, reply, { status: 422, problem: problemOf(request, error), form });
    }
    return reply.code(303).header('location', '/console/email?saved=1').send();
  });

  app.post('/email/test', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const businessId = request.consoleSession!.businessId;
    const to = readForm(request.body, EmailTestForm).value.test_to.trim();
    let outcome;
    try {
      outcome = await sendTestEmail(db, businessId, to, outbound, (business) => ({
        subject: request.t('email_test_mail_subject', { business }),
        text: request.t('email_test_mail_text', { business }),
      }));
    } catch (error) {
      const problem = problemOf(request, error);
      return emailPage(request, reply, { status: problem === 'email_not_connected' ? 409 : 422, problem });
    }
    // In the page's words only: the outcome's error is the operator's, and never says to the
    // page how a server's name resolved (issue 55).
    const test = { ok: outcome.kind === 'sent', text: request.t(TEST_OUTCOMES[testOutcomeOf(outcome)]) };
    return emailPage(request, reply, { status: outcome.kind === 'sent' ? 200 : 502, test });
  });
}
