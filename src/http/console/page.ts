/**
 * What every console page shares (issue 15): the cookies' names and settings, the login limits,
 * the security headers, and {@link render}, which fills a template with the translator, the
 * labels of stored values, the session and a fresh CSRF token.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_MAX_MS } from '../../services/access/console-users.ts';
import { addressWithCity } from '../../domain/viewings/calendar.ts';
import type { MessageKey } from './i18n.ts';
import { labeller, leadSourceKey } from './labels.ts';
import { rejectionWords } from './import-faults.ts';

/**
 * The console's two cookies, the session and the CSRF secret. Served over HTTPS (the public
 * URL is `https:`), they carry the `__Host-` prefix, which browsers accept only from a secure
 * origin with `Secure`, `Path=/` and no `Domain`: no other site or subdomain, and no page over
 * plain http, can set or shadow them. Otherwise they are scoped to `/console`.
 */
export interface ConsoleCookies {
  session: string;
  csrf: string;
  options: { path: string; httpOnly: true; sameSite: 'lax'; secure: boolean | 'auto' };
}

/** The cookies of a console served over HTTPS or not (see {@link ConsoleCookies}). */
export function consoleCookies(https: boolean): ConsoleCookies {
  return https
    ? { session: '__Host-inmo_session', csrf: '__Host-inmo_csrf', options: { path: '/', httpOnly: true, sameSite: 'lax', secure: true } }
    : { session: 'inmo_session', csrf: 'inmo_csrf', options: { path: '/console', httpOnly: true, sameSite: 'lax', secure: 'auto' } };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The console's cookies (plugin.ts decorates its instance). */
    consoleCookies: ConsoleCookies;
  }
}

/** Largest catalogue file the console takes, bytes (1 GiB). */
export const MAX_UPLOAD_BYTES = 1024 * 1024 * 1024;

/** Login attempts per client IP per minute. */
export const LOGIN_PER_IP = 20;
/** Failed login attempts per email per 15 minutes; the last one locks the account for the rest of them. */
export const LOGIN_PER_ACCOUNT = 10;

/** Headers of every console page: no framing, no foreign scripts, no caching of private pages. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' https: data:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** Where a login returns to: a console path only (never another site). */
export function safeNext(value: unknown): string {
  return typeof value === 'string' && /^\/console(\/[^\s\\]*)?(\?[^\s\\]*)?$/.test(value) && !value.startsWith('//') ? value : '/console';
}

/** Sets the session cookie for a new session. */
export function setSessionCookie(reply: FastifyReply, token: string): void {
  const cookies = reply.server.consoleCookies;
  reply.setCookie(cookies.session, token, { ...cookies.options, maxAge: SESSION_MAX_MS / 1000 });
}

export function clearSessionCookie(reply: FastifyReply): void {
  const cookies = reply.server.consoleCookies;
  reply.clearCookie(cookies.session, cookies.options);
}

/** Drops the CSRF secret: the next page makes a new one (at login and logout, so no token outlives its session). */
export function clearCsrfCookie(reply: FastifyReply): void {
  const cookies = reply.server.consoleCookies;
  reply.clearCookie(cookies.csrf, cookies.options);
}

/** The session cookie's value in a request, if any. */
export function sessionCookieOf(request: FastifyRequest): string | undefined {
  return request.cookies[request.server.consoleCookies.session];
}

/** The title of each page (the lead page and messages bring their own). */
const TITLES: Record<string, MessageKey> = {
  login: 'login_title',
  'set-password': 'set_password_title',
  overview: 'today_title',
  keys: 'keys_title',
  'key-created': 'key_shown_once_title',
  'key-revoke': 'revoke_title',
  leads: 'leads_title',
  owners: 'owners_title',
  catalogue: 'catalogue_title',
  channel: 'channel_title',
  jobs: 'jobs_title',
  users: 'users_title',
  audit: 'audit_title',
  'lead-erase': 'erase_title',
  'catalogue-import': 'catalogue_import_title',
  properties: 'properties_title',
  'property-new': 'properties_new',
  inbox: 'inbox_title',
  assistant: 'assistant_title',
};

/** The zone of pages shown without a session (login, set password): the default business's. */
const DEFAULT_ZONE = 'Europe/Madrid';

const formatters = new Map<string, { when: Intl.DateTimeFormat; day: Intl.DateTimeFormat; date: Intl.DateTimeFormat }>();

/**
 * Instants (RFC 3339) as the agency reads them (CONTRACT §23): in the business's time zone, in
 * the page's language, whatever the device's own zone. `when`: `27 nov 2026, 10:00`; `day`:
 * `27 nov 2026`; `localDate`: `2026-11-27`, the value of a date field.
 */
export function pageTimes(language: 'es' | 'en', zone: string) {
  const key = `${language} ${zone}`;
  let format = formatters.get(key);
  if (!format) {
    const locale = language === 'es' ? 'es-ES' : 'en-GB';
    format = {
      when: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }),
      day: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: zone }),
      // Canada's English writes dates as ISO does: YYYY-MM-DD.
      date: new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit', timeZone: zone }),
    };
    formatters.set(key, format);
  }
  const { when, day, date } = format;
  return {
    when: (instant: string) => when.format(new Date(instant)),
    day: (instant: string) => day.format(new Date(instant)),
    localDate: (instant: string) => date.format(new Date(instant)),
  };
}

/** What binds a CSRF token to a session: a digest of its cookie (of the empty text, without one). */
export function sessionBinding(sessionCookie: string | undefined): string {
  return createHash('sha256')
    .update(sessionCookie ?? '')
    .digest('base64url');
}

/**
 * Renders a page with the layout, the translator (`it.t('key')`), the labels of stored values
 * (`it.label.leadStatus(s)`, labels.ts), a lead's source in words (`it.leadSource(lead)`), rejected import lines in words (`it.rejection(r)`,
 * import-faults.ts), a listing's address with its city (`it.place(address, city)`, the exact one:
 * agents go there), the session and a fresh CSRF token.
 */
export function render(reply: FastifyReply, page: string, data: Record<string, unknown> = {}, status = 200) {
  const request = reply.request;
  return reply
    .code(status)
    .headers(SECURITY_HEADERS)
    .view(`${page}.eta`, {
      t: request.t,
      label: labeller(request.t),
      leadSource: (lead: { source: string; captured_by: string | null }) => {
        const key = leadSourceKey(lead.source, lead.captured_by);
        return key ? request.t(key) : lead.source;
      },
      rejection: rejectionWords(request.t),
      place: addressWithCity,
      lang: request.consoleLanguage,
      ...pageTimes(request.consoleLanguage, request.consoleSession?.timezone ?? DEFAULT_ZONE),
      session: request.consoleSession,
      // Good only with this request's session (plugin.ts checks it against the session it comes back with).
      csrfToken: reply.generateCsrf({ userInfo: sessionBinding(sessionCookieOf(request)) }),
      path: request.url.split('?')[0],
      title: page in TITLES ? request.t(TITLES[page]) : undefined,
      ...data,
    });
}

/** The title and the words of each error page. */
const ERROR_PAGES = {
  forbidden: { title: 'forbidden_title', message: 'forbidden' },
  not_found: { title: 'not_found_title', message: 'not_found' },
  csrf: { title: 'csrf_title', message: 'csrf' },
  error: { title: 'error_title', message: 'error' },
} as const satisfies Record<string, { title: MessageKey; message: MessageKey }>;

export function errorPage(reply: FastifyReply, status: number, kind: keyof typeof ERROR_PAGES) {
  const { title, message } = ERROR_PAGES[kind];
  return render(reply, 'message', { title: reply.request.t(title), message: reply.request.t(message) }, status);
}

/** Answers a PDF the console made (a listing's sheet, a visit sheet, a mandate, a valuation): shown inline as `fileName`, never cached or sniffed. */
export function sendPdf(reply: FastifyReply, pdf: Buffer, fileName: string) {
  return reply
    .header('content-disposition', `inline; filename="${fileName}"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .type('application/pdf')
    .send(pdf);
}
