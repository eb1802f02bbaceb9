/** The `inmo` program (CONTRACT §9): its global options, help and command groups. */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { register as alerts } from './alerts.ts';
import { register as audit } from './audit.ts';
import { register as business } from './business.ts';
import { register as channel } from './channel.ts';
import { cli } from './common.ts';
import { register as conversations } from './conversations.ts';
import { register as email } from './email-inbound.ts';
import { register as emailPulls } from './email-pulls.ts';
import { register as emailOut } from './email-outbound.ts';
import { register as embed } from './embed.ts';
import { register as feeds } from './feeds.ts';
import { register as followups } from './followups.ts';
import { register as jobs } from './jobs.ts';
import { register as keys } from './keys.ts';
import { register as leads } from './leads.ts';
import { register as properties } from './properties.ts';
import { register as serve } from './serve.ts';
import { register as users } from './users.ts';
import { register as viewings } from './viewings.ts';
import { register as mandates } from './mandates.ts';
import { register as owners } from './owners.ts';
import { register as webhooks } from './webhooks.ts';
import { DEFAULT_DATABASE_URL } from '../config.ts';
import { inPackage } from '../package-root.ts';

const { version } = JSON.parse(readFileSync(inPackage('package.json'), 'utf8')) as { version: string };

/**
 * The `inmo` program with every command group registered (each file of src/cli/ with a
 * `register(program)`). Commander's own errors are thrown (`exitOverride`) for the caller to report.
 */
export function buildProgram(): Command {
  const program = new Command('inmo')
    .description('Operator CLI of inmo, the external API of a real-estate agency workspace')
    .version(version, '-V, --version', 'print the version')
    .option('--json', 'print one JSON document on stdout')
    .exitOverride()
    .configureOutput({ writeOut: (text) => cli.stdout.write(text), writeErr: (text) => (cli.json ? undefined : cli.stderr.write(text)) })
    .showHelpAfterError()
    .addHelpText(
      'afterAll',
      `
Environment:
  DATABASE_URL   the database: sqlite:<path> or postgres://user:pass@host:5432/db (default ${DEFAULT_DATABASE_URL})
  The other settings (INMO_*) are listed in the README.`,
    )
    // `--json` is read once, before the action: before or after the command's name alike.
    .hook('preAction', (_program, actionCommand) => {
      cli.json = Boolean(actionCommand.optsWithGlobals().json);
    });

  for (const group of [
    serve,
    business,
    keys,
    users,
    properties,
    leads,
    conversations,
    jobs,
    channel,
    followups,
    webhooks,
    feeds,
    audit,
    embed,
    email,
    emailPulls,
    emailOut,
    alerts,
    viewings,
    mandates,
    owners,
  ])
    group(program);
  return program;
}
