/**
 * The console's pages (issue 15, CONTRACT §12), registered under `/console` by plugin.ts:
 *
 * - `GET|POST /login` (fields `email`, `password`), `GET|POST /set-password/:token` (fields
 *   `password`, `password_confirm`), `POST /logout`;
 * - `GET /` the overview;
 * - owners: `GET /keys`, `POST /keys` (fields `name`, `scopes` (repeated), `expires_on`
 *   (YYYY-MM-DD, optional), `kind` (`secret`, the default, or `publishable`) and `origins` (one
 *   web origin per line, for a publishable key only; CONTRACT §13)): the whole key shown once;
 *   `GET|POST /keys/:key_id/revoke`;
 * - owners: `GET /channel`, `POST /channel` (fields `phone_number_id`, `access_token` and
 *   `app_secret` (write-only: blank keeps the stored one), `template`, `languages` (`gb=en_GB, …`),
 *   `listing_url`, `base_url`): connects or changes WhatsApp, with connectChannel's rules; the
 *   page shows the webhook callback URL and verify token. `POST /channel/test` (field
 *   `test_phone`) sends the template to a number now and shows the provider's answer;
 * - owners: `GET /users`, `POST /users` (fields `email`, `role`: shows the new user's one-time link
 *   once), `POST /users/:user_id/disable` (not oneself);
 * - owners: `GET /jobs` (follow-up periods by lead type, failed jobs with their last error),
 *   `POST /jobs/:job_id/retry`, `POST /follow-ups` (fields `type`, `every_days`);
 * - everyone: `GET /catalogue` (figures and the latest uploads); owners: `POST /catalogue`
 *   (multipart, fields `_csrf` then `file`): the import starts in the background and the answer is
 *   303 to `GET /catalogue/imports/:import_id`, which shows its progress (refreshing itself every
 *   second, no script needed) and then its report with every rejected line;
 * - everyone: `GET /leads` (query `status`, `type`, `source`, `from`, `to` (dates), `q`, `page`),
 *   `GET /leads/:lead_id`; `POST /leads/:lead_id/reply` (field `text`: an agent's WhatsApp message,
 *   only inside the 24-hour window), `POST /leads/:lead_id/handoff` and `/resume` (who answers).
 *
 * Every POST passes `csrfProtection` before its handler. A form with bad input is shown again
 * with the reason, status 422, and changes nothing.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/database.ts';
import { countPublished } from '../../db/repositories/properties.ts';
import { listCoverImages, listPropertySummaries } from '../../db/repositories/matches.ts';
import { searchLeads, type LeadSearch } from '../../db/repositories/leads.ts';
import { SCOPES, type Scope } from '../../domain/api-key.ts';
import { LEAD_STATUSES, LEAD_TYPES } from '../../domain/lead-rules.ts';
import { presentLead } from '../../domain/lead-presenter.ts';
import { createApiKey, keyState, listApiKeys, revokeApiKey } from '../../services/api-keys.ts';
import {
  ROLES,
  createUser,
  disableUser,
  findPasswordLink,
  listUsers,
  login,
  logout,
  setPasswordWithLink,
} from '../../services/console-users.ts';
import { showLead } from '../../services/leads.ts';
import { listFailedJobs, retryJob } from '../../services/jobs.ts';
import { setFollowUpRule } from '../../services/follow-ups.ts';
import { followUpRules } from '../../db/repositories/follow-ups.ts';
import { connectChannel, WEBHOOK_PATH } from '../../services/channels.ts';
import { findChannel } from '../../db/repositories/messaging.ts';
import { GRAPH_API_BASE, sendWhatsAppMessage, templateLanguage } from '../../channels/whatsapp-cloud.ts';
import { normalizePhone } from '../../domain/phone.ts';
import { openSecret } from '../../secrets.ts';
import { replyAsAgent, setAnswerer } from '../../services/conversations.ts';
import { catalogueFigures, findUploadedImport, listUploadedImports, startUploadedImport } from '../../services/catalogue-uploads.ts';
import { InmoError } from '../../errors.ts';
import {
  LOGIN_PER_ACCOUNT,
  LOGIN_PER_IP,
  MAX_UPLOAD_BYTES,
  clearCsrfCookie,
  clearSessionCookie,
  render,
  safeNext,
  sessionCookieOf,
  setSessionCookie,
} from './page.ts';
import { receiveUpload } from './uploads.ts';

/** Leads per page of the list. */
const LEADS_PER_PAGE = 50;
const KEY_NAME_MAX = 100;
const DAY_MS = 24 * 3600 * 1000;
/** The window of the per-account login limit, ms. */
const ACCOUNT_WINDOW_MS = 15 * 60_000;

type Form = Record<string, string | string[] | undefined>;
const field = (body: unknown, name: string): string => {
  const value = (body as Form | undefined)?.[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? (value[0] ?? '') : '';
};
const fields = (body: unknown, name: string): string[] => {
  const value = (body as Form | undefined)?.[name];
  return value === undefined ? [] : [value].flat();
};
const query = (request: FastifyRequest) => request.query as Record<string, string | undefined>;

/** A date field (YYYY-MM-DD) as the RFC 3339 instant of that day's start (UTC), or null. */
function dayStart(text: string | undefined): string | null {
  if (!text || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/**
 * A search-preference value as one line of text: lists joined by commas (places by name),
 * objects as `key: value` pairs, e.g. `price_max: 900000, bedrooms_min: 2`.
 */
export function describePreference(value: unknown): string {
  if (Array.isArray(value)) return value.map(describePreference).join(', ');
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined);
    if ('name' in value && typeof (value as { name: unknown }).name === 'string') return (value as { name: string }).name;
    return entries.map(([k, v]) => `${k}: ${describePreference(v)}`).join(', ');
  }
  return String(value);
}

/** A numeric id of the URL (a lead, job or import), or null for anything else: then the page is a 404. */
function idParam(text: string): number | null {
  return /^\d{1,15}$/.test(text) ? Number(text) : null;
}

/** The refusals of the conversation rules the lead page explains (message keys of i18n.ts). */
const CONVERSATION_PROBLEMS = {
  REPLY_BLANK: true,
  REPLY_TOO_LONG: true,
  REPLY_NO_CHANNEL: true,
  REPLY_OPTED_OUT: true,
  REPLY_WINDOW_CLOSED: true,
  RESUME_OPTED_OUT: true,
  CONVERSATION_NOT_FOUND: true,
};

/** What each refusal of createApiKey tells the owner (message keys of i18n.ts). */
const KEY_PROBLEMS = {
  KEY_PUBLISHABLE_SCOPE: 'key_publishable_scope',
  KEY_ORIGIN_INVALID: 'key_origins_invalid',
} as const;

/** What each refusal of connectChannel tells the owner (message keys of i18n.ts). */
const CHANNEL_PROBLEMS = {
  CHANNEL_PHONE_NUMBER_ID_BLANK: 'channel_phone_number_id_blank',
  CHANNEL_TEMPLATE_BLANK: 'channel_template_blank',
  CHANNEL_TOKEN_ENV_UNSET: 'channel_token_missing',
  CHANNEL_TOKEN_REQUIRED: 'channel_token_again',
  CHANNEL_BASE_URL: 'channel_base_url_invalid',
  CHANNEL_LISTING_URL: 'channel_listing_url_invalid',
  CHANNEL_PHONE_NUMBER_ID_TAKEN: 'channel_phone_number_id_taken',
} as const;

/**
 * The languages field, `gb=en_GB, fr=fr`: a lead's `preferred_language` → the template's
 * language code. Null when a pair is not `code=code`.
 */
export function parseLanguages(text: string): Record<string, string> | null {
  const languages: Record<string, string> = {};
  for (const pair of text
    .split(/[,\n]/)
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^([a-z]{2,3})\s*=\s*([A-Za-z]{2,3}(?:_[A-Za-z]{2})?)$/.exec(pair);
    if (!match) return null;
    languages[match[1]] = match[2];
  }
  return languages;
}

export async function consoleRoutes(app: FastifyInstance, { db, onJobsQueued }: { db: Db; onJobsQueued: () => void }): Promise<void> {
  const perIp = app.createRateLimit({ max: LOGIN_PER_IP, timeWindow: 60_000, keyGenerator: (r) => `login-ip:${r.ip}` });
  // Per account, failed attempts count: the one that reaches the limit locks the account for the
  // rest of its window (a person who logs in often is never held back by their own successes).
  const accountOf = (r: FastifyRequest) => `login-account:${field(r.body, 'email').trim().toLowerCase()}`;
  const accountFailures = app.createRateLimit({ max: LOGIN_PER_ACCOUNT, timeWindow: ACCOUNT_WINDOW_MS, keyGenerator: accountOf });
  const lockedAccounts = new LRUCache<string, true>({ max: 100_000, ttl: ACCOUNT_WINDOW_MS });
  const csrfChecked = { preHandler: app.csrfProtection };

  // --- Login, password links, logout -------------------------------------------------------

  app.get('/login', { config: { consoleAccess: 'public' } }, async (request, reply) => {
    const q = query(request);
    const notice = q.set === '1' ? 'password_set_done' : q.out === '1' ? 'logged_out' : q.ended === '1' ? 'session_ended' : null;
    return render(reply, 'login', { next: safeNext(q.next), email: '', notice, problem: null });
  });

  app.post('/login', { config: { consoleAccess: 'public' }, ...csrfChecked }, async (request, reply) => {
    const email = field(request.body, 'email');
    const next = safeNext(field(request.body, 'next'));
    // Seconds until the limit that refuses this attempt lets it through, or 0 when none does.
    const wait = (verdict: Awaited<ReturnType<typeof perIp>>) => (!verdict.isAllowed && verdict.isExceeded ? verdict.ttlInSeconds : 0);
    const ip = wait(await perIp(request));
    const account = Math.ceil(lockedAccounts.getRemainingTTL(accountOf(request)) / 1000);
    if (ip > 0 || account > 0) {
      reply.header('retry-after', String(Math.max(1, ip, account)));
      request.errorCode = 'RATE_LIMITED';
      return render(reply, 'login', { next, email, notice: null, problem: 'login_throttled' }, 429);
    }
    const token = await login(db, email, field(request.body, 'password'));
    if (!token) {
      const failures = await accountFailures(request);
      if (!failures.isAllowed && failures.remaining === 0) lockedAccounts.set(accountOf(request), true, { ttl: failures.ttl });
      request.errorCode = 'LOGIN_FAILED';
      return render(reply, 'login', { next, email, notice: null, problem: 'login_failed' }, 401);
    }
    setSessionCookie(reply, token);
    clearCsrfCookie(reply);
    return reply.code(303).header('location', next).send();
  });

  app.get<{ Params: { token: string } }>('/set-password/:token', { config: { consoleAccess: 'public' } }, async (request, reply) => {
    const link = await findPasswordLink(db, request.params.token);
    if (!link) return render(reply, 'message', { title: request.t('set_password_title'), message: request.t('link_unusable') }, 404);
    return render(reply, 'set-password', { email: link.email, problem: null });
  });

  app.post<{ Params: { token: string } }>(
    '/set-password/:token',
    { config: { consoleAccess: 'public' }, ...csrfChecked },
    async (request, reply) => {
      const link = await findPasswordLink(db, request.params.token);
      if (!link) return render(reply, 'message', { title: request.t('set_password_title'), message: request.t('link_unusable') }, 404);
      const password = field(request.body, 'password');
      if (password !== field(request.body, 'password_confirm'))
        return render(reply, 'set-password', { email: link.email, problem: 'password_mismatch' }, 422);
      const outcome = await setPasswordWithLink(db, request.params.token, password);
      if (outcome === 'link')
        return render(reply, 'message', { title: request.t('set_password_title'), message: request.t('link_unusable') }, 404);
      if (outcome !== null) return render(reply, 'set-password', { email: link.email, problem: outcome }, 422);
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

  // --- Overview ------------------------------------------------------------------------------

  app.get('/', async (request, reply) => {
    const { businessId } = request.consoleSession!;
    const now = Date.now();
    const [leads, recent, properties, keys] = await Promise.all([
      searchLeads(db, businessId, {}, 0, 0),
      searchLeads(db, businessId, { createdFrom: new Date(now - 7 * DAY_MS).toISOString() }, 0, 0),
      countPublished(db, businessId, { limit: 0, offset: 0, areas: [] }),
      listApiKeys(db, businessId),
    ]);
    return render(reply, 'overview', {
      counts: {
        leads: leads.total,
        recent: recent.total,
        properties,
        keys: keys.filter((k) => keyState(k, now) === 'active').length,
      },
    });
  });

  // --- API keys (owners) ---------------------------------------------------------------------

  const keysPage = async (
    reply: FastifyReply,
    status = 200,
    form = { name: '', scopes: [] as string[], expires_on: '', kind: 'secret', origins: '' },
    problem: string | null = null,
  ) => {
    const now = Date.now();
    const keys = (await listApiKeys(db, reply.request.consoleSession!.businessId))
      .reverse()
      .map((k) => ({ ...k, state: keyState(k, now) }));
    return render(reply, 'keys', { keys, scopes: SCOPES, form, problem }, status);
  };

  app.get('/keys', { config: { consoleAccess: 'owner' } }, async (_request, reply) => keysPage(reply));

  app.post('/keys', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const form = {
      name: field(request.body, 'name').trim(),
      scopes: fields(request.body, 'scopes'),
      expires_on: field(request.body, 'expires_on'),
      kind: field(request.body, 'kind') || 'secret',
      origins: field(request.body, 'origins'),
    };
    const scopes = SCOPES.filter((s) => form.scopes.includes(s));
    if (scopes.length === 0 || scopes.length !== new Set(form.scopes).size) return keysPage(reply, 422, form, 'key_scopes_required');
    if (form.name.length > KEY_NAME_MAX) return keysPage(reply, 422, form, 'key_name_too_long');
    if (form.kind !== 'secret' && form.kind !== 'publishable') return keysPage(reply, 422, form, 'key_kind_invalid');
    // A publishable key (AC_PUB_, CONTRACT §13): a browser's, bound to its sites' origins, which
    // createApiKey checks with its scopes, as for `inmo keys create --publishable`.
    const origins = form.origins
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '');
    if (form.kind === 'secret' && origins.length > 0) return keysPage(reply, 422, form, 'key_origins_secret');
    let expiresAt: string | null = null;
    if (form.expires_on !== '') {
      expiresAt = dayStart(form.expires_on);
      if (expiresAt === null || Date.parse(expiresAt) <= Date.now()) return keysPage(reply, 422, form, 'key_expiry_invalid');
    }
    let key;
    try {
      key = await createApiKey(db, {
        businessId: request.consoleSession!.businessId,
        scopes: scopes as Scope[],
        label: form.name === '' ? null : form.name,
        expiresAt,
        ...(form.kind === 'publishable' ? { origins } : {}),
      });
    } catch (error) {
      if (!(error instanceof InmoError) || !(error.code in KEY_PROBLEMS)) throw error;
      request.errorCode = error.code;
      return keysPage(reply, 422, form, KEY_PROBLEMS[error.code as keyof typeof KEY_PROBLEMS]);
    }
    return render(reply, 'key-created', { key }, 201);
  });

  /** A key of the session's business, or 404 (another business's key is no different from none). */
  const ownKey = async (request: FastifyRequest<{ Params: { key_id: string } }>) => {
    const key = (await listApiKeys(db, request.consoleSession!.businessId)).find((k) => k.key_id === request.params.key_id);
    if (!key) throw new InmoError('NOT_FOUND');
    return key;
  };

  app.get<{ Params: { key_id: string } }>('/keys/:key_id/revoke', { config: { consoleAccess: 'owner' } }, async (request, reply) => {
    const key = await ownKey(request);
    return render(reply, 'key-revoke', { key: { ...key, state: keyState(key, Date.now()) } });
  });

  app.post<{ Params: { key_id: string } }>(
    '/keys/:key_id/revoke',
    { config: { consoleAccess: 'owner' }, ...csrfChecked },
    async (request, reply) => {
      const key = await ownKey(request);
      await revokeApiKey(db, key.key_id);
      return reply.code(303).header('location', '/console/keys').send();
    },
  );

  // --- WhatsApp channel (owners) -------------------------------------------------------------

  const channelPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { status?: number; problem?: string | null; form?: Record<string, string>; test?: { ok: boolean; text: string } | null } = {},
  ) => {
    const stored = await findChannel(db, request.consoleSession!.businessId);
    const channel = stored && {
      phone_number_id: stored.phone_number_id,
      template: stored.template,
      languages: Object.entries(JSON.parse(stored.languages) as Record<string, string>)
        .map(([k, v]) => `${k}=${v}`)
        .join(', '),
      base_url: stored.base_url,
      listing_url: stored.listing_url ?? '',
      webhooks: stored.app_secret !== null,
      verify_token: stored.verify_token === null ? null : openSecret(stored.verify_token),
      connected_at: stored.connected_at,
    };
    const form = extra.form ?? {
      phone_number_id: channel?.phone_number_id ?? '',
      template: channel?.template ?? '',
      languages: channel?.languages ?? '',
      listing_url: channel?.listing_url ?? '',
      base_url: channel?.base_url ?? GRAPH_API_BASE,
      test_phone: '',
    };
    return render(
      reply,
      'channel',
      {
        channel,
        form,
        saved: (request.query as Record<string, string>).saved === '1' && extra.status === undefined,
        problem: extra.problem ?? null,
        test: extra.test ?? null,
        callbackUrl: `${request.protocol}://${request.host}${WEBHOOK_PATH}`,
      },
      extra.status ?? 200,
    );
  };

  app.get('/channel', { config: { consoleAccess: 'owner' } }, async (request, reply) => channelPage(request, reply));

  app.post('/channel', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const businessId = request.consoleSession!.businessId;
    const form = {
      phone_number_id: field(request.body, 'phone_number_id').trim(),
      template: field(request.body, 'template').trim(),
      languages: field(request.body, 'languages').trim(),
      listing_url: field(request.body, 'listing_url').trim(),
      base_url: field(request.body, 'base_url').trim() || GRAPH_API_BASE,
      test_phone: '',
    };
    const languages = parseLanguages(form.languages);
    if (languages === null) return channelPage(request, reply, { status: 422, problem: 'channel_languages_invalid', form });
    // The token and app secret are write-only: left blank, the stored ones are kept (the token
    // only while the base URL keeps its origin: connectChannel refuses otherwise).
    const token = field(request.body, 'access_token').trim();
    const appSecret = field(request.body, 'app_secret').trim();
    const env = { INMO_CONSOLE_TOKEN: token, INMO_CONSOLE_APP_SECRET: appSecret };
    try {
      await connectChannel(
        db,
        {
          businessId,
          provider: 'whatsapp-cloud',
          phoneNumberId: form.phone_number_id,
          tokenEnv: token === '' ? null : 'INMO_CONSOLE_TOKEN',
          template: form.template,
          baseUrl: form.base_url,
          languages,
          appSecretEnv: appSecret === '' ? undefined : 'INMO_CONSOLE_APP_SECRET',
          listingUrl: form.listing_url || undefined,
        },
        env,
      );
    } catch (error) {
      if (!(error instanceof InmoError) || !(error.code in CHANNEL_PROBLEMS)) throw error;
      request.errorCode = error.code;
      // No token given: the first time it is required; later, when the base URL moves.
      const firstTime = error.code === 'CHANNEL_TOKEN_REQUIRED' && !(await findChannel(db, businessId));
      return channelPage(request, reply, {
        status: error.status === 409 ? 409 : 422,
        problem: firstTime ? 'channel_token_missing' : CHANNEL_PROBLEMS[error.code as keyof typeof CHANNEL_PROBLEMS],
        form,
      });
    }
    return reply.code(303).header('location', '/console/channel?saved=1').send();
  });

  app.post('/channel/test', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const stored = await findChannel(db, request.consoleSession!.businessId);
    if (!stored) return channelPage(request, reply, { status: 409, problem: 'REPLY_NO_CHANNEL' });
    const to = normalizePhone(field(request.body, 'test_phone'));
    if (to === null) return channelPage(request, reply, { status: 422, problem: 'channel_test_phone_invalid' });
    const outcome = await sendWhatsAppMessage({
      baseUrl: stored.base_url,
      phoneNumberId: stored.phone_number_id,
      accessToken: openSecret(stored.access_token),
      to,
      callbackData: 'console-test',
      content: {
        type: 'template',
        template: stored.template,
        language: templateLanguage(JSON.parse(stored.languages), request.consoleLanguage === 'en' ? 'gb' : 'es'),
      },
    });
    const test =
      outcome.kind === 'sent'
        ? { ok: true, text: request.t('channel_test_sent', { to, id: outcome.messageId ?? '—' }) }
        : { ok: false, text: request.t('channel_test_failed', { error: outcome.error }) };
    return channelPage(request, reply, { status: outcome.kind === 'sent' ? 200 : 502, test });
  });

  // --- Users (owners) ------------------------------------------------------------------------

  const usersPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { status?: number; problem?: string | null; email?: string; link?: string | null } = {},
  ) => {
    const users = await listUsers(db, request.consoleSession!.businessId);
    return render(
      reply,
      'users',
      { users, roles: ROLES, email: extra.email ?? '', problem: extra.problem ?? null, link: extra.link ?? null },
      extra.status ?? 200,
    );
  };

  app.get('/users', { config: { consoleAccess: 'owner' } }, async (request, reply) => usersPage(request, reply));

  app.post('/users', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const email = field(request.body, 'email');
    try {
      const user = await createUser(db, { businessId: request.consoleSession!.businessId, email, role: field(request.body, 'role') });
      // The link is shown once, here: the page is not cached (no-store) and the link is kept only as a hash.
      return await usersPage(request, reply, { status: 201, link: `${request.protocol}://${request.host}${user.set_password_url}` });
    } catch (error) {
      if (!(error instanceof InmoError) || !['USER_EMAIL_INVALID', 'USER_EMAIL_TAKEN', 'USER_ROLE_UNKNOWN'].includes(error.code))
        throw error;
      request.errorCode = error.code;
      return usersPage(request, reply, { status: error.status === 409 ? 409 : 422, problem: error.code, email });
    }
  });

  app.post<{ Params: { user_id: string } }>(
    '/users/:user_id/disable',
    { config: { consoleAccess: 'owner' }, ...csrfChecked },
    async (request, reply) => {
      const session = request.consoleSession!;
      const user = (await listUsers(db, session.businessId)).find((u) => String(u.id) === request.params.user_id);
      if (!user) throw new InmoError('NOT_FOUND');
      // An owner cannot shut themselves out (another owner can).
      if (user.id === session.userId) return usersPage(request, reply, { status: 409, problem: 'user_disable_self' });
      await disableUser(db, user.id);
      return reply.code(303).header('location', '/console/users').send();
    },
  );

  // --- Follow-up rules and failed jobs (owners) ----------------------------------------------

  const jobsPage = async (request: FastifyRequest, reply: FastifyReply, status = 200, problem: string | null = null) => {
    const businessId = request.consoleSession!.businessId;
    const [jobs, rules] = await Promise.all([listFailedJobs(db, businessId), followUpRules(db, businessId)]);
    return render(
      reply,
      'jobs',
      { jobs, rules: LEAD_TYPES.map((type) => ({ type, every_days: rules.get(type) ?? null })), problem },
      status,
    );
  };

  app.get('/jobs', { config: { consoleAccess: 'owner' } }, async (request, reply) => jobsPage(request, reply));

  app.post<{ Params: { job_id: string } }>(
    '/jobs/:job_id/retry',
    { config: { consoleAccess: 'owner' }, ...csrfChecked },
    async (request, reply) => {
      const id = idParam(request.params.job_id);
      if (id === null) throw new InmoError('NOT_FOUND');
      try {
        await retryJob(db, id, { businessId: request.consoleSession!.businessId });
      } catch (error) {
        if (error instanceof InmoError && error.code === 'JOB_NOT_FOUND') throw new InmoError('NOT_FOUND');
        if (!(error instanceof InmoError) || (error.code !== 'JOB_NOT_FAILED' && error.code !== 'JOB_RETRY_UNSAFE')) throw error;
        request.errorCode = error.code;
        return jobsPage(request, reply, 409, error.code);
      }
      onJobsQueued();
      return reply.code(303).header('location', '/console/jobs').send();
    },
  );

  app.post('/follow-ups', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const days = Number(field(request.body, 'every_days'));
    try {
      await setFollowUpRule(db, request.consoleSession!.businessId, field(request.body, 'type'), days);
    } catch (error) {
      if (!(error instanceof InmoError) || (error.code !== 'FOLLOW_UP_TYPE_UNKNOWN' && error.code !== 'FOLLOW_UP_PERIOD')) throw error;
      request.errorCode = error.code;
      return jobsPage(request, reply, 422, error.code);
    }
    return reply.code(303).header('location', '/console/jobs').send();
  });

  // --- Catalogue -----------------------------------------------------------------------------

  const cataloguePage = async (request: FastifyRequest, reply: FastifyReply, status = 200, problem: string | null = null) => {
    const { businessId } = request.consoleSession!;
    const [figures, imports] = await Promise.all([catalogueFigures(db, businessId), listUploadedImports(db, businessId)]);
    return render(reply, 'catalogue', { figures, imports, problem }, status);
  };

  app.get('/catalogue', async (request, reply) => cataloguePage(request, reply));

  app.post('/catalogue', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const upload = (request.consoleUpload = await receiveUpload(request, MAX_UPLOAD_BYTES));
    const { businessId, userId } = request.consoleSession!;
    if (!upload || upload.bytes === 0) return cataloguePage(request, reply, 422, 'catalogue_file_missing');
    upload.claimed = true;
    const { id } = await startUploadedImport(db, {
      businessId,
      userId,
      fileName: upload.fileName,
      path: upload.path,
      bytes: upload.bytes,
      removeAfter: upload.dir,
    });
    return reply.code(303).header('location', `/console/catalogue/imports/${id}`).send();
  });

  app.get<{ Params: { import_id: string } }>('/catalogue/imports/:import_id', async (request, reply) => {
    const id = idParam(request.params.import_id);
    const run = id !== null ? await findUploadedImport(db, request.consoleSession!.businessId, id) : undefined;
    if (!run) throw new InmoError('NOT_FOUND');
    return render(reply, 'catalogue-import', { run, refresh: (run.state === 'running' || run.state === 'indexing') && !run.interrupted });
  });

  // --- Leads ---------------------------------------------------------------------------------

  app.get('/leads', async (request, reply) => {
    const q = query(request);
    const from = dayStart(q.from);
    const to = dayStart(q.to);
    const search: LeadSearch = {
      status: (LEAD_STATUSES as readonly string[]).includes(q.status ?? '') ? q.status : undefined,
      type: (LEAD_TYPES as readonly string[]).includes(q.type ?? '') ? q.type : undefined,
      source: q.source?.trim() || undefined,
      createdFrom: from ?? undefined,
      // `to` is inclusive: leads created before the next day's start.
      createdBefore: to === null ? undefined : new Date(Date.parse(to) + DAY_MS).toISOString(),
      text: q.q?.trim() || undefined,
    };
    const page = Math.max(1, Math.min(1_000_000, Number.parseInt(q.page ?? '1', 10) || 1));
    const { rows, total } = await searchLeads(db, request.consoleSession!.businessId, search, LEADS_PER_PAGE, (page - 1) * LEADS_PER_PAGE);
    const filters = {
      status: search.status ?? '',
      type: search.type ?? '',
      source: search.source ?? '',
      from: from ? q.from : '',
      to: to ? q.to : '',
      q: search.text ?? '',
    };
    const link = (p: number) =>
      `/console/leads?${new URLSearchParams({ ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v)), page: String(p) })}`;
    return render(reply, 'leads', {
      leads: rows.map(presentLead),
      total,
      first: total === 0 ? 0 : (page - 1) * LEADS_PER_PAGE + 1,
      last: Math.min(total, page * LEADS_PER_PAGE),
      previous: page > 1 ? link(page - 1) : null,
      next: page * LEADS_PER_PAGE < total ? link(page + 1) : null,
      filters,
      statuses: LEAD_STATUSES,
      types: LEAD_TYPES,
    });
  });

  /** The lead of the URL, if it is the session's business's; else 404, as for a missing one. */
  const ownLead = async (request: FastifyRequest<{ Params: { lead_id: string } }>) => {
    const id = idParam(request.params.lead_id);
    const shown = id !== null ? await showLead(db, id) : undefined;
    if (!shown || shown.lead.business_id !== request.consoleSession!.businessId) throw new InmoError('NOT_FOUND');
    return shown;
  };

  const leadPage = async (
    reply: FastifyReply,
    shown: NonNullable<Awaited<ReturnType<typeof showLead>>>,
    status = 200,
    problem: string | null = null,
  ) => {
    const ids = [...shown.matches.map((m) => m.property_id), ...shown.near_misses.map((m) => m.property_id)];
    const covers = await listCoverImages(db, ids);
    const summaries = new Map(
      (await listPropertySummaries(db, shown.lead.business_id, ids)).map((p) => [p.id, { ...p, image: covers.get(p.id) ?? null }]),
    );
    const until = shown.conversation.window_open_until;
    return render(
      reply,
      'lead',
      {
        describe: describePreference,
        title: shown.lead.name ?? reply.request.t('unnamed'),
        shown,
        problem,
        windowOpen: shown.conversation.state !== 'opted_out' && until !== null && Date.parse(until) > Date.now(),
        matches: shown.matches.map((m) => summaries.get(m.property_id)).filter((p) => p !== undefined),
        nearMisses: shown.near_misses
          .map((m) => ({ property: summaries.get(m.property_id), missed: (m.failed ?? '').split(',').filter(Boolean) }))
          .filter((m) => m.property !== undefined),
      },
      status,
    );
  };

  app.get<{ Params: { lead_id: string } }>('/leads/:lead_id', async (request, reply) => leadPage(reply, await ownLead(request)));

  /**
   * A conversation action on a lead: done, then 303 back to the thread; refused by the rules
   * (window closed, opted out, blank…), the lead's page again with the reason and the error's status.
   */
  const conversationAction = (act: (leadId: number, body: unknown) => Promise<unknown>) => {
    return async (request: FastifyRequest<{ Params: { lead_id: string } }>, reply: FastifyReply) => {
      const shown = await ownLead(request);
      try {
        await act(shown.lead.id, request.body);
      } catch (error) {
        if (!(error instanceof InmoError) || error.status >= 500 || !(error.code in CONVERSATION_PROBLEMS)) throw error;
        request.errorCode = error.code;
        // The refusal changed nothing: the lead read above is still the page.
        return leadPage(reply, shown, error.status, error.code);
      }
      onJobsQueued();
      return reply.code(303).header('location', `/console/leads/${shown.lead.id}#h-thread`).send();
    };
  };
  app.post<{ Params: { lead_id: string } }>(
    '/leads/:lead_id/reply',
    csrfChecked,
    conversationAction((leadId, body) => replyAsAgent(db, leadId, field(body, 'text'))),
  );
  app.post<{ Params: { lead_id: string } }>(
    '/leads/:lead_id/handoff',
    csrfChecked,
    conversationAction((leadId) => setAnswerer(db, leadId, 'waiting_for_agent')),
  );
  app.post<{ Params: { lead_id: string } }>(
    '/leads/:lead_id/resume',
    csrfChecked,
    conversationAction((leadId) => setAnswerer(db, leadId, 'assistant')),
  );
}
