/**
 * `inmo email inbound` (issue 43, CONTRACT §19): the addresses a business forwards its portal
 * e-mails to.
 *
 *     inmo email inbound --business ID --json          → {"url": "/webhooks/email/<token>"}
 *     inmo email inbound list --business ID --json     → [{"id", "created_at", "revoked_at"}]
 *     inmo email inbound revoke ID --json              → {"id", "revoked": true}
 *
 * The URL is printed once here (its token is kept hashed, and sealed for the console's e-mail
 * page, which shows it again with the SMTP address `<token>@INMO_INBOUND_DOMAIN`, CONTRACT §25);
 * prefix it with the server's public URL and have the mail server or an inbound-parse service
 * POST each message to it raw (`Content-Type: message/rfc822`). This file adds its commands to the `email` group,
 * which it makes when no other file of this folder has.
 */
import type { Command } from 'commander';
import { action, command, positiveInt, print, withDb } from './common.ts';

/** The program's `email` group: the one already registered, or a new one. */
function emailGroup(program: Command): Command {
  return (
    program.commands.find((c) => c.name() === 'email') ??
    program.command('email').description('e-mail: portal e-mails forwarded in (and the channel out)')
  );
}

export function register(program: Command): void {
  const inbound = command(
    emailGroup(program),
    'inbound',
    "make an address for the business's forwarded portal e-mails (also shown on the console's e-mail page)",
  )
    .option('--business <id>', 'business id (required)', positiveInt)
    .action(
      action(async (opts: { business?: number }) => {
        const { createInboundAddress } = await import('../services/leads/email-intake.ts');
        if (opts.business === undefined) throw new Error("required option '--business <id>' not specified");
        const made = await withDb((db) => createInboundAddress(db, opts.business!), { mustExist: true });
        print(
          { url: made.url },
          `address #${made.id}, also shown on the console's e-mail page; POST each message raw (Content-Type: message/rfc822) to this path under the server's public URL:\n  ${made.url}`,
        );
      }),
    );
  command(inbound, 'list', "a business's addresses (never their URLs: only a hash is kept)")
    .option('--business <id>', 'business id (required)', positiveInt)
    .action(
      action(async (_opts: unknown, list_: Command) => {
        const { listInboundAddresses } = await import('../services/leads/email-intake.ts');
        // `--business` belongs to `inbound` too: wherever it is written, commander gives it to one of them.
        const business = (list_.optsWithGlobals() as { business?: number }).business;
        if (business === undefined) throw new Error("required option '--business <id>' not specified");
        const list = await withDb((db) => listInboundAddresses(db, business), { mustExist: true });
        const human = list.map((a) => `#${a.id}  ${a.revoked_at ? `revoked ${a.revoked_at}` : `made ${a.created_at}`}`).join('\n');
        print(list, human || 'no addresses');
      }),
    );
  command(inbound, 'revoke', 'end an address for good: its messages are refused (404) from then on')
    .argument('<id>', 'the address id (from email inbound list)', positiveInt)
    .action(
      action(async (id: number) => {
        const { revokeInboundAddress } = await import('../services/leads/email-intake.ts');
        await withDb((db) => revokeInboundAddress(db, id, null), { mustExist: true });
        print({ id, revoked: true }, `revoked address #${id}`);
      }),
    );
}
