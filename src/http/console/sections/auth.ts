/**
 * Login, one-time password links and logout (CONTRACT §12): `GET|POST /login` (fields `email`,
 * `password`), `GET|POST /set-password/:token` (fields `password`, `password_confirm`), `POST
 * /logout`. Logins are limited per address and per account.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { findPasswordLink, login, logout, setPasswordWithLink } from '../../../services/access/console-users.ts';
import {
  LOGIN_PER_ACCOUNT,
  LOGIN_PER_IP,
  clearCsrfCookie,
  clearSessionCookie,
  render,
  safeNext,
  sessionCookieOf,
  setSessionCookie,
} from '../page.ts';
import { type ConsoleDeps, csrfCheckedRoute, query, readForm } from '../forms.ts';
import { LoginForm, SetPasswordForm } from '../../../schemas/console-forms.ts';
import type { MessageKey } from '../i18n.ts';

/** The window of the per-account login limit, ms. */
const ACCOUNT_WINDOW_MS = 15 * 60_000;

/** The login page: where it returns to, the e-mail typed, and what it tells the user. */
const loginPage = (
  reply: FastifyReply,
  page: { next: string; email: string; notice: MessageKey | null; problem: MessageKey | null },
  status = 200,
) => render(reply, 'login', page, status);

/** The page that sets a password with a one-time link, and what it tells the user. */
const setPasswordPage = (reply: FastifyReply, email: string, problem: MessageKey | null, status = 200) =>
  render(reply, 'set-password', { email, problem }, status);

export async function authPages(app: FastifyInstance, { db }: ConsoleDeps): Promise<void> {
  const perIp = app.createRateLimit({ max: LOGIN_PER_IP, timeWindow: 60_000, keyGenerator: (r) => `login-ip:${r.ip}` });
  // Per account, failed attempts count: the one that reaches the limit locks the account for the
  // rest of its window (a person who logs in often is never held back by their own successes).
  const accountOf = (r: FastifyRequest) => `login-account:${readForm(r.body, LoginForm).value.email.trim().toLowerCase()}`;
  const accountFailures = app.createRateLimit({ max: LOGIN_PER_ACCOUNT, timeWindow: ACCOUNT_WINDOW_MS, keyGenerator: accountOf });
  const lockedAccounts = new LRUCache<string, true>({ max: 100_000, ttl: ACCOUNT_WINDOW_MS });

  const csrfChecked = csrfCheckedRoute(app);

  app.get('/login', { config: { consoleAccess: 'public' } }, async (request, reply) => {
    const q = query(request);
    const notice = q.set === '1' ? 'password_set_done' : q.out === '1' ? 'logged_out' : q.ended === '1' ? 'session_ended' : null;
    return loginPage(reply, { next: safeNext(q.next), email: '', notice, problem: null });
  });

  app.post('/login', { config: { consoleAccess: 'public' }, ...csrfChecked }, async (request, reply) => {
    const { value: form, faults } = readForm(request.body, LoginForm);
    const { email } = form;
    const next = safeNext(form.next);
    // Seconds until the limit that refuses this attempt lets it through, or 0 when none does.
    const wait = (verdict: Awaited<ReturnType<typeof perIp>>) => (!verdict.isAllowed && verdict.isExceeded ? verdict.ttlInSeconds : 0);
    const ip = wait(await perIp(request));
    const account = Math.ceil(lockedAccounts.getRemainingTTL(accountOf(request)) / 1000);
    if (ip > 0 || account > 0) {
      reply.header('retry-after', String(Math.max(1, ip, account)));
      request.errorCode = 'RATE_LIMITED';
      return loginPage(reply, { next, email, notice: null, problem: 'login_throttled' }, 429);
    }
    // A field longer than any account's is a failed login like any other (and counts as one).
    const token = faults.length > 0 ? null : await login(db, email, form.password);
    if (!token) {
      const failures = await accountFailures(request);
      if (!failures.isAllowed && failures.remaining === 0) lockedAccounts.set(accountOf(request), true, { ttl: failures.ttl });
      request.errorCode = 'LOGIN_FAILED';
      return loginPage(reply, { next, email, notice: null, problem: 'login_failed' }, 401);
    }
    setSessionCookie(reply, token);
    clearCsrfCookie(reply);
    return reply.code(303).header('location', next).send();
  });

  app.get<{ Params: { token: string } }>('/set-password/:token', { config: { consoleAccess: 'public' } }, async (request, reply) => {
    const link = await findPasswordLink(db, request.params.token);
    if (!link) return render(reply, 'message', { title: request.t('set_password_title'), message: request.t('link_unusable') }, 404);
    return setPasswordPage(reply, link.email, null);
  });

  app.post<{ Params: { token: string } }>(
    '/set-password/:token',
    { config: { consoleAccess: 'public' }, ...csrfChecked },
    async (request, reply) => {
      const link = await findPasswordLink(db, request.params.token);
      if (!link) return render(reply, 'message', { title: request.t('set_password_title'), message: request.t('link_unusable') }, 404);
      const { value: form, faults } = readForm(request.body, SetPasswordForm);
      if (faults.length > 0) return setPasswordPage(reply, link.email, 'password_too_long', 422);
      const { password } = form;
      if (password !== form.password_confirm) return setPasswordPage(reply, link.email, 'password_mismatch', 422);
      const outcome = await setPasswordWithLink(db, request.params.token, password);
      if (outcome === 'link')
        return render(reply, 'message', { title: request.t('set_password_title'), message: request.t('link_unusable') }, 404);
      if (outcome !== null) return setPasswordPage(reply, link.email, outcome, 422);
      return reply.code(303).header('location', '/console/login?set=1').send();
    },
  );

  app.post('/logout', { config: { consoleAccess: 'public' }, ...csrfChecked }, async (request, reply) => {
    const token = sessionCookieOf(request);
    if (token) await logout(db, token);
    clearSessionCookie(reply);
    clearCsrfCookie(reply);
    return reply.code(303).header('location', '/console/login?out=1').send();
  });
}
