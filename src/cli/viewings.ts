/**
 * `inmo viewings calendar` (issue 44, CONTRACT §20 "Agents' calendars"): a console user's private
 * calendar URL, which a phone's calendar subscribes to.
 *
 *     inmo viewings calendar --user ID --json            → {"url": "https://…/calendar/<token>.ics"}
 *     inmo viewings calendar --user ID --revoke --json   → {"revoked": true|false}
 *
 * A new URL revokes the one the user had; it is shown once (only its token's hash is kept). It is
 * written under `INMO_PUBLIC_URL`; without it, `url` is the path alone, to be prefixed with the
 * server's public URL. `--revoke` ends the user's URL (false: they had none). A disabled user gets
 * no URL; an unknown user is an error.
 */
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { action, cli, command, positiveInt, print, withDb } from './common.ts';

export function register(program: Command): void {
  const viewings = program.command('viewings').description("viewings of listings: agents' calendars");
  command(viewings, 'calendar', "make a user's private calendar URL (revoking the one they had), shown once; or revoke it")
    .requiredOption('--user <id>', 'the console user, by id as users list shows it (required)', positiveInt)
    .option('--revoke', "revoke the user's calendar URL instead")
    .action(
      action(async (opts: { user: number; revoke?: boolean }) => {
        const { makeCalendarUrl, revokeCalendarUrl } = await import('../services/viewings/calendar.ts');
        if (opts.revoke) {
          const revoked = await withDb((db) => revokeCalendarUrl(db, opts.user, null), { mustExist: true });
          print({ revoked }, revoked ? `revoked user #${opts.user}'s calendar URL` : `user #${opts.user} had no calendar URL`);
          return;
        }
        const publicUrl = loadConfig(cli.env).publicUrl?.replace(/\/+$/, '') ?? null;
        const made = await withDb((db) => makeCalendarUrl(db, opts.user, null), { mustExist: true });
        const url = `${publicUrl ?? ''}${made.path}`;
        print(
          { url },
          `calendar URL of user #${opts.user}, shown once (any URL before it is revoked):\n  ${url}` +
            (publicUrl === null ? "\nprefix it with the server's public URL (set INMO_PUBLIC_URL to have it written whole)" : ''),
        );
      }),
    );
}
