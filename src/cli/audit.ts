/** `inmo audit list` (issue 31, CONTRACT §18): who did what to a business's keys, users, channel, webhooks, leads and listings. */
import type { Command } from 'commander';
import { action, command, positiveInt, print, withDb } from './common.ts';

export function register(program: Command): void {
  const audit = program.command('audit').description('the audit trail: who did what, when (never anyone’s personal data)');
  command(audit, 'list', "a business's audit trail, newest first")
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .option('--limit <n>', 'at most this many entries (default 100)', positiveInt)
    .option('--before <id>', 'entries older than this one (the next page)', positiveInt)
    .action(
      action(async (opts: { business: number; limit?: number; before?: number }) => {
        const { listAudit } = await import('../services/access/audit.ts');
        const entries = await withDb((db) => listAudit(db, opts.business, { limit: opts.limit, before: opts.before }), { mustExist: true });
        const human = entries
          .map((e) => {
            const who = e.actor_type === 'cli' ? 'cli' : `${e.actor_type} ${e.actor_id}`;
            return `#${e.id}  ${e.created_at}  ${e.action.padEnd(21)}  ${e.target_type ?? ''} ${e.target_id ?? ''}  by ${who}`;
          })
          .join('\n');
        print(entries, human || 'no entries');
      }),
    );
}
