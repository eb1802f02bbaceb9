/**
 * E-mail out (owners, CONTRACT §19): `GET /email` shows the business's own SMTP server (never its
 * password); `POST /email` (fields `host`, `port`, `security` `tls`|`starttls`, `user`, `password`
 * (write-only: blank keeps the stored one while the host and user stay), `from`, `reply_to`)
 * connects or changes it with connectEmail's rules; `POST /email/test` (field `test_to`) sends a
 * test e-mail now through the business's sender (its own server, else `INMO_SMTP_URL`) and shows
 * the server's answer. Both forms are CSRF-checked.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { connectEmail, emailOverview, sendTestEmail } from '../../../services/messaging/email.ts';
import { InmoError, type ErrorCode } from '../../../errors.ts';
import type { MessageKey } from '../i18n.ts';
import { messageKeyOf } from '../labels.ts';
import { render } from '../page.ts';
import { csrfCheckedRoute, readForm, type ConsoleDeps } from '../forms.ts';
import { EmailForm, EmailTestForm } from '../../../schemas/console-forms.ts';

/** What each refusal of connectEmail or sendTestEmail tells the owner. */
const EMAIL_PROBLEMS = {
  EMAIL_SMTP_URL: 'email_server_invalid',
  EMAIL_SMTP_PRIVATE: 'email_server_private',
  EMAIL_FROM: 'email_from_invalid',
  EMAIL_REPLY_TO: 'email_reply_to_invalid',
  EMAIL_TO: 'email_test_to_invalid',
  EMAIL_NOT_CONNECTED: 'email_not_connected',
} as const satisfies Partial<Record<ErrorCode, MessageKey>>;

type Form = { host: string; port: string; security: string; user: string; from: string; reply_to: string; test_to: string };

/** The SMTP URL of the form's fields, user and password percent-encoded; null when the host or port is not one. */
function smtpUrl(form: Form, password: string): string | null {
  if (!/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/.test(form.host) || !/^\d{1,5}$/.test(form.port) || Number(form.port) > 65535) return null;
  const credentials = form.user ? `${encodeURIComponent(form.user)}${password ? `:${encodeURIComponent(password)}` : ''}@` : '';
  return `${form.security === 'tls' ? 'smtps' : 'smtp'}://${credentials}${form.host}:${form.port}`;
}

export async function emailPages(app: FastifyInstance, { db, outbound }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  const emailPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { status?: number; problem?: MessageKey | null; form?: Form; test?: { ok: boolean; text: string } | null } = {},
  ) => {
    const email = await emailOverview(db, request.consoleSession!.businessId);
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
        email,
        form,
        saved: (request.query as Record<string, string>).saved === '1' && extra.status === undefined,
        problem: extra.problem ?? null,
        test: extra.test ?? null,
      },
      extra.status ?? 200,
    );
  };

  /** The owner's message for a refusal, or the error again when it is not one of them. */
  const problemOf = (request: FastifyRequest, error: unknown): MessageKey => {
    if (!(error instanceof InmoError)) throw error;
    const problem = messageKeyOf(EMAIL_PROBLEMS, error.code);
    if (problem === undefined) throw error;
    request.errorCode = error.code;
    return problem;
  };

  app.get('/email', { config: { consoleAccess: 'owner' } }, async (request, reply) => emailPage(request, reply));

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
      outcome = await sendTestEmail(db, businessId, to, outbound);
    } catch (error) {
      const problem = problemOf(request, error);
      return emailPage(request, reply, { status: problem === 'email_not_connected' ? 409 : 422, problem });
    }
    const test =
      outcome.kind === 'sent'
        ? { ok: true, text: request.t('email_test_sent') }
        : { ok: false, text: request.t('email_test_failed', { error: outcome.error }) };
    return emailPage(request, reply, { status: outcome.kind === 'sent' ? 200 : 502, test });
  });
}
