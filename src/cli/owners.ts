/**
 * `inmo owners report run [--business ID] --json` (issue 58 item 4, CONTRACT §24): composes now
 * the reports due to owners with a signed mandate (whatever the hour of the day) and sends them →
 * `{"sent": int, "owners": int, "reason"?: string}` (reports sent now, by e-mail or WhatsApp
 * template; owners a report was composed for; why fewer were sent, in words, when some were not).
 * A report is due `INMO_OWNER_REPORT_DAYS` days (or the owner's choice) after the last one, so a
 * second run right after composes nothing; one not sent now is retried by the worker.
 */
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { action, cli, command, positiveInt, print, withDb } from './common.ts';

export function register(program: Command): void {
  const owners = program.command('owners').description('owners of listings: their reports');
  const report = owners.command('report').description('the reports sent to owners with a signed mandate');
  command(report, 'run', 'compose and send now the reports due to owners')
    .option('--business <id>', 'only this business', positiveInt)
    .action(
      action(async (opts: { business?: number }) => {
        const { runOwnerReportsNow } = await import('../services/owners/owner-reports.ts');
        const config = loadConfig(cli.env);
        const result = await withDb(
          (db) =>
            runOwnerReportsNow(db, {
              businessId: opts.business,
              ownerReportDays: config.worker.ownerReportDays,
              outbound: config.outbound,
              sendTimeoutMs: config.worker.sendTimeoutMs,
            }),
          { mustExist: true },
        );
        print(
          result,
          `${result.sent} owner report(s) sent (by e-mail or WhatsApp), ${result.owners} composed` +
            (result.reason ? `\n${result.reason}` : result.owners === 0 ? '\nno owner has a report due' : ''),
        );
      }),
    );
}
