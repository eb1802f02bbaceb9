/**
 * The e-mail page (CONTRACT §19). For every user, the e-mails no parser understood:
 * `GET /email` lists them, `GET /email/messages/:id` shows one (sender, subject, why it waits,
 * its text) with a form that makes the lead by hand (`POST /email/messages/:id/lead`: `name`,
 * `phone`, `email`, `message`, `reference`, `source`; a known person gets the request in their
 * history instead) and one that discards it (`POST /email/messages/:id/discard`).
 *
 * For owners, the way in (CONTRACT §25): the business's address to forward to (`<token>@INMO_INBOUND_DOMAIN`)
 * with the forwarding rule to copy when the SMTP listener is on, else the webhook's URL, of the
 * same token (`POST /email/addresses` makes a new one, `POST /email/addresses/:id/revoke` ends one);
 * the mailboxes read over IMAP (`POST /email/pulls`: `host`, `port`, `security` `tls`|`none`,
 * `user`, `password`, `folder`, with the CLI's rules: no private address nor plain IMAP unless
 * `INMO_ALLOW_PRIVATE_NETWORK=1`, the password sealed; `POST /email/pulls/:id/test` connects now and
 * says in the page's words what failed; `POST /email/pulls/:id/remove`); and e-mail out: the business's own SMTP server (never its
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
import { addEmailPull, listEmailPulls, removeEmailPull, testEmailPull } from '../../../services/leads/email-pulls.ts';
import { inboundWaysOf } from '../../../services/leads/inbound-address.ts';
import { forwardingRules } from '../../../domain/leads/portal-emails/forwarding.ts';
import type { ImapFailureKind } from '../../../channels/imap-mailbox.ts';
import { serverOrigin } from '../../origin.ts';
import { InmoError, type ErrorCode } from '../../../errors.ts';
import type { MessageKey } from '../i18n.ts';
import { messageKeyOf } from '../labels.ts';
import { render } from '../page.ts';
import { csrfCheckedRoute, idParam, readForm, type ConsoleDeps } from '../forms.ts';
import { EmailForm, EmailLeadForm, EmailPullForm, EmailTestForm } from '../../../schemas/console-forms.ts';

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

/** What each failure of a mailbox's test tells the owner. */
const PULL_FAILURES = {
  private: 'email_pull_failure_private',
  deadline: 'email_pull_failure_deadline',
  timeout: 'email_pull_failure_timeout',
  oversized: 'email_pull_failure_oversized',
  login: 'email_pull_failure_login',
  mailbox: 'email_pull_failure_mailbox',
  dns: 'email_pull_failure_dns',
  refused: 'email_pull_failure_refused',
  certificate: 'email_pull_failure_certificate',
  lost: 'email_pull_failure_lost',
  other: 'email_pull_failure_other',
} as const satisfies Record<ImapFailureKind, MessageKey>;

/** The mailbox form's fields as the owner wrote them (never the password). */
type PullForm = { host: string; port: string; security: string; user: string; folder: string };
const EMPTY_PULL_FORM: PullForm = { host: '', port: '993', security: 'tls', user: '', folder: 'INBOX' };

/** The IMAP URL of the mailbox form, user, password and folder percent-encoded; null when the host, port, user or password is not one. */
function imapUrl(form: PullForm, password: string): string | null {
  if (!/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/.test(form.host) || !/^\d{1,5}$/.test(form.port)) return null;
  const port = Number(form.port);
  if (port < 1 || port > 65535 || form.user === '' || password === '') return null;
  const scheme = form.security === 'none' ? 'imap' : 'imaps';
  return `${scheme}://${encodeURIComponent(form.user)}:${encodeURIComponent(password)}@${form.host}:${port}/${encodeURIComponent(form.folder || 'INBOX')}`;
}

type LeadFields = { name: string; phone: string; email: string; message: string; reference: string; source: string };

type Form = { host: string; port: string; security: string; user: string; from: string; reply_to: string; test_to: string };

/** The SMTP URL of the form's fields, user and password percent-encoded; null when the host or port is not one. */
function smtpUrl(form: Form, password: string): string | null {
  if (!/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/.test(form.host) || !/^\d{1,5}$/.test(form.port) || Number(form.port) > 65535) return null;
  const credentials = form.user ? `${encodeURIComponent(form.user)}${password ? `:${encodeURIComponent(password)}` : ''}@` : '';
  return `${form.security === 'tls' ? 'smtps' : 'smtp'}://${credentials}${form.host}:${form.port}`;
}

export async function emailPages(app: FastifyInstance, { db, outbound, publicUrl, onJobsQueued, inboundSmtp }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  const emailPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: {
      status?: number;
      problem?: MessageKey | null;
      form?: Form;
      test?: { ok: boolean; text: string } | null;
      /** A new inbound address was made. */
      created?: boolean;
      /** The mailbox form again, with what was refused. */
      pullForm?: PullForm;
      pullProblem?: MessageKey | null;
      /** A mailbox test's outcome, in the page's words. */
      pullTest?: { id: number; ok: boolean; text: string } | null;
    } = {},
  ) => {
    const { businessId, role } = request.consoleSession!;
    const query = request.query as Record<string, string>;
    const review = await notUnderstoodEmails(db, businessId);
    const notice: MessageKey | null =
      query.discarded === '1'
        ? 'email_discarded'
        : query.revoked === '1'
          ? 'email_inbound_revoked_notice'
          : query.pull_added === '1'
            ? 'email_pull_added'
            : query.pull_removed === '1'
              ? 'email_pull_removed'
              : null;
    if (role !== 'owner')
      return render(reply, 'email', { owner: false, review, notice, problem: extra.problem ?? null }, extra.status ?? 200);
    const addresses = await listInboundAddresses(db, businessId);
    const ways = await inboundWaysOf(db, businessId, inboundSmtp);
    const inbound = ways && {
      address: ways.address,
      webhook: `${serverOrigin(request, publicUrl)}${ways.webhookPath}`,
      rules: ways.address === null ? null : forwardingRules(ways.address),
    };
    const pulls = await listEmailPulls(db, businessId);
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
        created: extra.created ?? false,
        inbound,
        pulls,
        pullForm: extra.pullForm ?? EMPTY_PULL_FORM,
        // In the page's words here, as the tests' outcomes are.
        pullProblem: extra.pullProblem ? request.t(extra.pullProblem) : null,
        pullTest: extra.pullTest ?? null,
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
    await createInboundAddress(db, request.consoleSession!.businessId);
    return emailPage(request, reply, { status: 201, created: true });
  });

  app.post('/email/addresses/:id/revoke', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    try {
      await revokeInboundAddress(db, messageId(request), request.consoleSession!.businessId);
    } catch (error) {
      throw error instanceof InmoError && error.code === 'INBOUND_EMAIL_NOT_FOUND' ? new InmoError('NOT_FOUND') : error;
    }
    return reply.code(303).header('location', '/console/email?revoked=1').send();
  });

  app.post('/email/pulls', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const { businessId, userId } = request.consoleSession!;
    const { value, faults } = readForm(request.body, EmailPullForm);
    const pullForm: PullForm = {
      host: value.host.trim(),
      port: value.port.trim(),
      security: value.security === 'none' ? 'none' : 'tls',
      user: value.user.trim(),
      folder: value.folder.trim() || 'INBOX',
    };
    const url = faults.length > 0 ? null : imapUrl(pullForm, value.password);
    if (url === null) return emailPage(request, reply, { status: 422, pullProblem: 'email_pull_invalid', pullForm });
    try {
      await addEmailPull(db, { businessId, url }, outbound, { type: 'user', id: userId });
    } catch (error) {
      if (!(error instanceof InmoError) || error.code !== 'EMAIL_PULL_URL') throw error;
      request.errorCode = error.code;
      return emailPage(request, reply, { status: 422, pullProblem: 'email_pull_not_allowed', pullForm });
    }
    onJobsQueued();
    return reply.code(303).header('location', '/console/email?pull_added=1').send();
  });

  /** A mailbox's action: 404 when the business has no such mailbox (or it was removed). */
  const pullAction = async <T>(request: FastifyRequest, work: (id: number) => Promise<T>): Promise<T> => {
    try {
      return await work(messageId(request));
    } catch (error) {
      throw error instanceof InmoError && error.code === 'EMAIL_PULL_NOT_FOUND' ? new InmoError('NOT_FOUND') : error;
    }
  };

  app.post('/email/pulls/:id/test', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const businessId = request.consoleSession!.businessId;
    const outcome = await pullAction(request, (id) => testEmailPull(db, id, businessId, outbound));
    const pullTest = {
      id: messageId(request),
      ok: outcome.ok,
      text: outcome.ok
        ? request.t('email_pull_test_ok')
        : request.t('email_pull_test_failed', { reason: request.t(PULL_FAILURES[outcome.failure]) }),
    };
    return emailPage(request, reply, { status: outcome.ok ? 200 : 502, pullTest });
  });

  app.post('/email/pulls/:id/remove', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const { businessId, userId } = request.consoleSession!;
    await pullAction(request, (id) => removeEmailPull(db, id, businessId, { type: 'user', id: userId }));
    return reply.code(303).header('location', '/console/email?pull_removed=1').send();
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
