/**
 * `inmo email connect` (CONTRACT §19): the SMTP server a business's e-mails go out through.
 *
 *     inmo email connect --business ID --url smtp://user:pass@host:587 --from ADDRESS [--reply-to ADDRESS] --json
 *       → {"business_id", "host", "port", "security", "user", "password": "stored"|null, "from", "reply_to", "connected_at"}
 *
 * The password is sealed at rest and never printed. Without a business's own server, the
 * server-wide `INMO_SMTP_URL` and `INMO_SMTP_FROM` are used. This file adds its command to the
 * `email` group, which it makes when no other file of this folder has (cli/email-inbound.ts).
 */
import type { Command } from 'commander';
import { outboundPolicy } from '../config.ts';
import { action, cli, command, positiveInt, print, withDb } from './common.ts';

/** The program's `email` group: the one already registered, or a new one. */
function emailGroup(program: Command): Command {
  return (
    program.commands.find((c) => c.name() === 'email') ??
    program.command('email').description('e-mail: portal e-mails forwarded in (and the channel out)')
  );
}

export function register(program: Command): void {
  command(emailGroup(program), 'connect', "connect the business's own SMTP server for e-mail out; the password is never printed")
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .requiredOption('--url <url>', 'smtp://user:pass@host:587 (STARTTLS) or smtps://user:pass@host:465 (TLS) (required)')
    .requiredOption('--from <address>', 'the From address (required)')
    .option('--reply-to <address>', 'a Reply-To address')
    .action(
      action(async (opts: { business: number; url: string; from: string; replyTo?: string }) => {
        const { connectEmail } = await import('../services/messaging/email.ts');
        const connected = await withDb(
          (db) =>
            connectEmail(
              db,
              { businessId: opts.business, url: opts.url, from: opts.from, replyTo: opts.replyTo ?? null },
              outboundPolicy(cli.env),
            ),
          { mustExist: true },
        );
        print(
          connected,
          `business #${connected.business_id} sends e-mail through ${connected.host}:${connected.port} (${connected.security})` +
            `${connected.password ? ', password stored' : ''}, from ${connected.from}`,
        );
      }),
    );
}
