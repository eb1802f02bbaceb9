/** `inmo users create|list|disable` (issue 15, CONTRACT §12): the people who sign in to the console. */
import type { Command } from 'commander';
import { action, command, positiveInt, print, withDb } from './common.ts';
import { ROLES } from '../domain/access/roles.ts';

export function register(program: Command): void {
  const users = program.command('users').description('people of the workspace console');
  command(users, 'create', 'add a user to a business; prints a one-time link (24 h) to set their password')
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .requiredOption('--email <email>', 'their email, which they log in with (required)')
    .option('--role <role>', `${ROLES.join(' or ')}: owners also manage keys, users and the channel`, 'agent')
    .action(
      action(async (opts: { business: number; email: string; role: string }) => {
        const { createUser } = await import('../services/access/console-users.ts');
        const user = await withDb((db) => createUser(db, { businessId: opts.business, email: opts.email, role: opts.role }));
        print(
          user,
          `user #${user.id} ${user.email} (${user.role})\n` +
            `set-password link, valid once for 24 h (prefix it with the server's base URL):\n  ${user.set_password_url}`,
        );
      }),
    );
  command(users, 'list', "list a business's users (never their passwords)")
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .action(
      action(async (opts: { business: number }) => {
        const { listUsers } = await import('../services/access/console-users.ts');
        const list = await withDb((db) => listUsers(db, opts.business), { mustExist: true });
        const human = list.map((u) => `#${u.id}  ${u.state.padEnd(8)}  ${u.role.padEnd(5)}  ${u.email}`).join('\n');
        print(list, human || 'no users');
      }),
    );
  command(users, 'disable', 'disable a user: their sessions end at once')
    .argument('<id>', 'the user id (from users list)', positiveInt)
    .action(
      action(async (id: number) => {
        const { disableUser } = await import('../services/access/console-users.ts');
        const user = await withDb((db) => disableUser(db, id, null), { mustExist: true });
        print(user, `disabled #${user.id} ${user.email}`);
      }),
    );
}
