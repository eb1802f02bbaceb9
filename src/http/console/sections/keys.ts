/**
 * API keys (owners): `GET /keys`, `POST /keys` (fields `name`, `scopes` (repeated), `expires_on`
 * (YYYY-MM-DD, optional), `kind` (`secret`, the default, or `publishable`) and `origins` (one web
 * origin per line, for a publishable key only; CONTRACT §13)): the whole key shown once; `GET|POST
 * /keys/:key_id/revoke`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SCOPES } from '../../../domain/access/api-key.ts';
import type { Static } from '@sinclair/typebox';
import { KeyForm } from '../../../schemas/console-forms.ts';
import { createApiKey, findApiKey, keyState, listApiKeys, revokeApiKey } from '../../../services/access/api-keys.ts';
import { InmoError, type ErrorCode } from '../../../errors.ts';
import type { MessageKey } from '../i18n.ts';
import { messageKeyOf } from '../labels.ts';
import { render } from '../page.ts';
import { csrfCheckedRoute, dayStart, readForm, type ConsoleDeps } from '../forms.ts';

/** What a refused field of the form tells the owner. */
const FIELD_PROBLEMS = {
  name: 'key_name_too_long',
  scopes: 'key_scopes_required',
  expires_on: 'key_expiry_invalid',
  kind: 'key_kind_invalid',
  origins: 'key_origins_invalid',
} as const satisfies Record<keyof Static<typeof KeyForm>, MessageKey>;

/** What each refusal of createApiKey tells the owner. */
const KEY_PROBLEMS = {
  KEY_PUBLISHABLE_SCOPE: 'key_publishable_scope',
  KEY_ORIGIN_INVALID: 'key_origins_invalid',
} as const satisfies Partial<Record<ErrorCode, MessageKey>>;

export async function keyPages(app: FastifyInstance, { db }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  const keysPage = async (
    reply: FastifyReply,
    status = 200,
    form = { name: '', scopes: [] as string[], expires_on: '', kind: 'secret', origins: '' },
    problem: MessageKey | null = null,
  ) => {
    const now = Date.now();
    const keys = (await listApiKeys(db, reply.request.consoleSession!.businessId))
      .reverse()
      .map((k) => ({ ...k, state: keyState(k, now) }));
    return render(reply, 'keys', { keys, scopes: SCOPES, form, problem }, status);
  };

  app.get('/keys', { config: { consoleAccess: 'owner' } }, async (_request, reply) => keysPage(reply));

  app.post('/keys', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const { value, faults } = readForm(request.body, KeyForm);
    const form = { ...value, name: value.name.trim() };
    if (faults.length > 0) return keysPage(reply, 422, form, messageKeyOf(FIELD_PROBLEMS, faults[0].field) ?? null);
    const scopes = SCOPES.filter((s) => form.scopes.includes(s));
    if (scopes.length === 0 || scopes.length !== form.scopes.length) return keysPage(reply, 422, form, 'key_scopes_required');
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
      key = await createApiKey(
        db,
        {
          businessId: request.consoleSession!.businessId,
          scopes,
          label: form.name === '' ? null : form.name,
          expiresAt,
          ...(form.kind === 'publishable' ? { origins } : {}),
        },
        { type: 'user', id: request.consoleSession!.userId },
      );
    } catch (error) {
      if (!(error instanceof InmoError)) throw error;
      const problem = messageKeyOf(KEY_PROBLEMS, error.code);
      if (problem === undefined) throw error;
      request.errorCode = error.code;
      return keysPage(reply, 422, form, problem);
    }
    return render(reply, 'key-created', { key }, 201);
  });

  /** A key of the session's business, or 404 (another business's key is no different from none). */
  const ownKey = async (request: FastifyRequest<{ Params: { key_id: string } }>) => {
    const key = await findApiKey(db, request.consoleSession!.businessId, request.params.key_id);
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
      const session = request.consoleSession!;
      if (!(await revokeApiKey(db, request.params.key_id, session.businessId, { type: 'user', id: session.userId })))
        throw new InmoError('NOT_FOUND');
      return reply.code(303).header('location', '/console/keys').send();
    },
  );
}
