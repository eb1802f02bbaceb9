/**
 * `inmo email pull` (CONTRACT §19): mailboxes read over IMAP for the business's portal e-mails,
 * the other way in besides `inmo email inbound`'s address.
 *
 *     inmo email pull add --business ID --url imaps://user:pass@host[:port]/INBOX [--every-minutes 5] --json
 *                                                           → {"id", "url", "every_minutes"} (the URL without its password)
 *     inmo email pull list --business ID --json             → [{"id", "url", "every_minutes", "last_run_at", "last_status", "last_result", …}]
 *     inmo email pull run ID --json                         → the run's result {"status", "found", "stored", "already", …}
 *     inmo email pull remove ID --json                      → {"id", "removed": true}
 *
 * The worker runs a pull every `--every-minutes` (the first run at once); `run` runs it now
 * (services/leads/email-pulls.ts). The password is sealed at rest and never printed.
 */
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import type { EmailPullResult } from '../services/leads/email-pulls.ts';
import { action, cli, command, positiveInt, print, withDb } from './common.ts';

/** Minutes between runs, as services/leads/email-pulls.ts `EMAIL_PULL_MINUTES` (not imported: the CLI loads services lazily). */
const MINUTES = { default: 5, min: 1, max: 10_080 };

/** A run's result in words. */
function describeRun(result: EmailPullResult): string {
  if (result.status === 'busy') return 'another run of this pull is under way: nothing read';
  const counts =
    `read ${result.found} unseen messages: ${result.stored} stored, ${result.already} stored before` +
    (result.too_large ? `; ${result.too_large} larger than 10 MiB left unseen and skipped from now on` : '') +
    (result.skipped ? `; ${result.skipped} empty left unseen and skipped from now on` : '') +
    (result.more ? '; more wait for the next run (queued at once)' : '');
  return result.status === 'failed' ? `failed: ${result.error} (${counts})` : counts;
}

/** The program's `email` group: the one already registered, or a new one. */
function emailGroup(program: Command): Command {
  return (
    program.commands.find((c) => c.name() === 'email') ??
    program.command('email').description('e-mail: portal e-mails forwarded in (and the channel out)')
  );
}

export function register(program: Command): void {
  const pull = emailGroup(program).command('pull').description("mailboxes read over IMAP for the business's portal e-mails");
  command(pull, 'add', 'add a mailbox to read (its unseen messages, marked seen once stored); the first run is queued at once')
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .requiredOption(
      '--url <url>',
      'imaps://user:password@host[:port]/MAILBOX on a public address (INMO_ALLOW_PRIVATE_NETWORK=1 also allows imap:// and private addresses) (required)',
    )
    .option('--every-minutes <n>', `minutes between runs (${MINUTES.min} to ${MINUTES.max})`, positiveInt, MINUTES.default)
    .action(
      action(async (opts: { business: number; url: string; everyMinutes: number }) => {
        const { addEmailPull } = await import('../services/leads/email-pulls.ts');
        const { outbound } = loadConfig(cli.env);
        const added = await withDb(
          (db) => addEmailPull(db, { businessId: opts.business, url: opts.url, everyMinutes: opts.everyMinutes }, outbound),
          {
            mustExist: true,
          },
        );
        print(added, `e-mail pull #${added.id} → ${added.url}, every ${added.every_minutes} minutes (the first run is queued)`);
      }),
    );
  command(pull, 'list', "a business's mailbox pulls, with their last run (never a password)")
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .action(
      action(async (opts: { business: number }) => {
        const { listEmailPulls } = await import('../services/leads/email-pulls.ts');
        const list = await withDb((db) => listEmailPulls(db, opts.business), { mustExist: true });
        const human = list
          .map(
            (p) =>
              `#${p.id}  every ${p.every_minutes} min  ${p.url}${p.running ? '  (running)' : ''}\n     ` +
              (p.last_result ? `${p.last_run_at}: ${describeRun(p.last_result)}` : 'not run yet'),
          )
          .join('\n');
        print(list, human || 'no e-mail pulls');
      }),
    );
  command(pull, 'run', 'run a pull now and print the result')
    .argument('<id>', 'the pull id (from email pull list)', positiveInt)
    .action(
      action(async (id: number) => {
        const { runEmailPull } = await import('../services/leads/email-pulls.ts');
        const { outbound, worker } = loadConfig(cli.env);
        const result = await withDb((db) => runEmailPull(db, id, { outbound, timeoutMs: worker.emailPullTimeoutMs }), { mustExist: true });
        print(result, describeRun(result));
        if (result.status !== 'done') cli.exitCode = 1;
      }),
    );
  command(pull, 'remove', 'stop reading a mailbox (the messages it stored stay)')
    .argument('<id>', 'the pull id (from email pull list)', positiveInt)
    .action(
      action(async (id: number) => {
        const { removeEmailPull } = await import('../services/leads/email-pulls.ts');
        await withDb((db) => removeEmailPull(db, id, null), { mustExist: true });
        print({ id, removed: true }, `removed e-mail pull #${id}`);
      }),
    );
}
