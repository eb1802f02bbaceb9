/**
 * `inmo alerts run [--business ID] --json` (CONTRACT §21): sends now the alert digest each
 * searching lead would get at the next alert hour (`INMO_ALERT_HOUR`, business time) →
 * `{"sent": int, "leads": int, "reason"?: string}` (digests sent, by e-mail or WhatsApp
 * template; leads a digest was written for; why fewer were sent, in words, when some were not). That round's
 * digests are then not sent again, so a second run right after sends nothing; a digest that
 * could not be sent now is retried by the worker. A business this shell cannot send for (no
 * `INMO_SMTP_URL` here and no server of its own, a password sealed with another key) is left
 * due, never failed: the reason says so.
 */
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { action, cli, command, positiveInt, print, withDb } from './common.ts';

export function register(program: Command): void {
  const alerts = program.command('alerts').description('alerts: listings sent to the searching leads they match');
  command(alerts, 'run', 'send now the digest each lead would get at the next alert hour')
    .option('--business <id>', 'only this business', positiveInt)
    .action(
      action(async (opts: { business?: number }) => {
        const { runAlertsNow } = await import('../services/leads/alerts.ts');
        const config = loadConfig(cli.env);
        const result = await withDb(
          (db) =>
            runAlertsNow(db, {
              businessId: opts.business,
              alertHour: config.worker.alertHour,
              outbound: config.outbound,
              settings: config.worker,
            }),
          { mustExist: true },
        );
        print(
          result,
          `${result.sent} alert digest(s) sent (by e-mail or WhatsApp), to ${result.leads} lead(s) with a digest` +
            (result.reason ? `\n${result.reason}` : result.leads === 0 ? '\nno lead has listings it was not sent yet' : ''),
        );
      }),
    );
}
