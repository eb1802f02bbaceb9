/**
 * `inmo users create|list|rename|disable` (issue 15, CONTRACT §12): the people who sign in to the
 * console, and the display names the console shows for them (CONTRACT §23).
 */
import type { Command } from 'commander';
import { action, command, positiveInt, print, withDb } from './common.ts';
import { ROLES } from '../domain/access/roles.ts';

export function register(program: Command): void {
  const users = program.command('users').description('people of the workspace console');
  command(users, 'create', 'add a user to a business; prints a one-time link (24 h) to set their password')
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .requiredOption('--email <email>', 'their email, which they log in with (required)')
    .option('--role <role>', `${ROLES.join(' or ')}: owners also manage keys, users and the channel`, 'agent')
    .option('--name <name>', 'the name colleagues see in the console instead of the email, e.g. "Ana García"')
    .action(
      action(async (opts: { business: number; email: string; role: string; name?: string }) => {
        const { createUser } = await import('../services/access/console-users.ts');
        const created = await withDb((db) =>
          createUser(db, { businessId: opts.business, email: opts.email, role: opts.role, name: opts.name }),
        );
        // CONTRACT §12's shape: {id, email, role, set_password_url}.
        const { name: _name, ...user } = created;
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
        const human = list
          .map((u) => `#${u.id}  ${u.state.padEnd(8)}  ${u.role.padEnd(5)}  ${u.email}${u.name ? `  (${u.name})` : ''}`)
          .join('\n');
        print(list, human || 'no users');
      }),
    );
  command(users, 'rename', 'give a user the name the console shows instead of their email ("" takes it away)')
    .argument('<id>', 'the user id (from users list)', positiveInt)
    .requiredOption('--name <name>', 'the display name, 1 to 80 characters (required)')
    .action(
      action(async (id: number, opts: { name: string }) => {
        const { renameUser } = await import('../services/access/console-users.ts');
        const user = await withDb((db) => renameUser(db, null, id, opts.name), { mustExist: true });
        print(user, `#${user.id} ${user.email} is now shown as ${user.name ?? user.email}`);
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
