/**
 * Users (owners): `GET /users`, `POST /users` (fields `email`, `role`, `name`: shows the new
 * user's one-time link once), `POST /users/:user_id/name` (field `name`, the display name of
 * CONTRACT §23; empty takes it away), `POST /users/:user_id/disable` (not oneself).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ROLES, createUser, disableUser, findUser, listUsers, renameUser } from '../../../services/access/console-users.ts';
import { InmoError, type ErrorCode } from '../../../errors.ts';
import type { MessageKey } from '../i18n.ts';
import { messageKeyOf } from '../labels.ts';
import { render } from '../page.ts';
import { serverOrigin } from '../../origin.ts';
import { csrfCheckedRoute, idParam, readForm, type ConsoleDeps } from '../forms.ts';
import { UserForm, UserNameForm } from '../../../schemas/console-forms.ts';

/** The refusals of createUser the page explains, and their words. */
const USER_PROBLEMS = {
  USER_EMAIL_INVALID: 'USER_EMAIL_INVALID',
  USER_NAME_INVALID: 'USER_NAME_INVALID',
  USER_EMAIL_TAKEN: 'USER_EMAIL_TAKEN',
  USER_ROLE_UNKNOWN: 'USER_ROLE_UNKNOWN',
} as const satisfies Partial<Record<ErrorCode, MessageKey>>;

export async function userPages(app: FastifyInstance, { db, publicUrl }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  const usersPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { status?: number; problem?: MessageKey | null; email?: string; name?: string; link?: string | null } = {},
  ) => {
    const users = await listUsers(db, request.consoleSession!.businessId);
    return render(
      reply,
      'users',
      { users, roles: ROLES, email: extra.email ?? '', name: extra.name ?? '', problem: extra.problem ?? null, link: extra.link ?? null },
      extra.status ?? 200,
    );
  };

  app.get('/users', { config: { consoleAccess: 'owner' } }, async (request, reply) => usersPage(request, reply));

  app.post('/users', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const { value, faults } = readForm(request.body, UserForm);
    const { email, role, name } = value;
    if (faults.length > 0) {
      const field = faults[0].field;
      const problem = field === 'email' ? 'USER_EMAIL_INVALID' : field === 'name' ? 'USER_NAME_INVALID' : 'USER_ROLE_UNKNOWN';
      request.errorCode = problem;
      return usersPage(request, reply, { status: 422, problem, email, name });
    }
    try {
      const session = request.consoleSession!;
      const user = await createUser(db, { businessId: session.businessId, email, role, name }, new Date(), {
        type: 'user',
        id: session.userId,
      });
      // The link is shown once, here: the page is not cached (no-store) and the link is kept only as a hash.
      return await usersPage(request, reply, { status: 201, link: `${serverOrigin(request, publicUrl)}${user.set_password_url}` });
    } catch (error) {
      if (!(error instanceof InmoError)) throw error;
      const problem = messageKeyOf(USER_PROBLEMS, error.code);
      if (problem === undefined) throw error;
      request.errorCode = error.code;
      return usersPage(request, reply, { status: error.status === 409 ? 409 : 422, problem, email, name });
    }
  });

  app.post<{ Params: { user_id: string } }>(
    '/users/:user_id/name',
    { config: { consoleAccess: 'owner' }, ...csrfChecked },
    async (request, reply) => {
      const session = request.consoleSession!;
      const id = idParam(request.params.user_id);
      if (id === null) throw new InmoError('NOT_FOUND');
      const { value, faults } = readForm(request.body, UserNameForm);
      try {
        if (faults.length > 0) throw new InmoError('USER_NAME_INVALID');
        // renameUser looks the user up among the business's own: another business's is not found.
        await renameUser(db, session.businessId, id, value.name, new Date(), { type: 'user', id: session.userId });
      } catch (error) {
        if (error instanceof InmoError && error.code === 'USER_NOT_FOUND') throw new InmoError('NOT_FOUND');
        if (!(error instanceof InmoError) || error.code !== 'USER_NAME_INVALID') throw error;
        request.errorCode = error.code;
        return usersPage(request, reply, { status: 422, problem: 'USER_NAME_INVALID' });
      }
      return reply.code(303).header('location', '/console/users').send();
    },
  );

  app.post<{ Params: { user_id: string } }>(
    '/users/:user_id/disable',
    { config: { consoleAccess: 'owner' }, ...csrfChecked },
    async (request, reply) => {
      const session = request.consoleSession!;
      const id = idParam(request.params.user_id);
      const user = id === null ? undefined : await findUser(db, session.businessId, id);
      if (!user) throw new InmoError('NOT_FOUND');
      // An owner cannot shut themselves out (another owner can).
      if (user.id === session.userId) return usersPage(request, reply, { status: 409, problem: 'user_disable_self' });
      await disableUser(db, user.id, session.businessId, new Date(), { type: 'user', id: session.userId });
      return reply.code(303).header('location', '/console/users').send();
    },
  );
}
