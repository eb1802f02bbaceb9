/** `inmo business create` (CONTRACT §9, §20): businesses, the workspaces keys and data belong to. */
import type { Command } from 'commander';
import { nowRfc3339 } from '../domain/time.ts';
import { action, CliError, command, print, withDb } from './common.ts';

export function register(program: Command): void {
  const business = program.command('business').description('businesses (workspaces)');
  command(business, 'create', 'create a business; prints its id')
    .requiredOption('--name <name>', 'business name (required)')
    .option('--timezone <zone>', 'IANA time zone its local times are in (viewings, messages), e.g. Europe/Madrid (the default)')
    .action(
      action(async (opts: { name: string; timezone?: string }) => {
        const { insertBusiness } = await import('../db/repositories/businesses.ts');
        const { checkedTimeZone } = await import('../services/viewings/clock.ts');
        if (!opts.name.trim()) throw new CliError('--name must not be blank');
        const timezone = opts.timezone === undefined ? undefined : checkedTimeZone(opts.timezone);
        const row = await withDb((db) => insertBusiness(db, opts.name.trim(), nowRfc3339(), timezone));
        print(row, `created business #${row.id} ${row.name} (${row.timezone})`);
      }),
    );
}
