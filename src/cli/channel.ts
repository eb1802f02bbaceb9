/** `inmo channel connect` (CONTRACT §7, §9): the WhatsApp Cloud API channel of a business. */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { connectChannel, PROVIDERS } from '../services/channels.ts';
import { action, command, positiveInt, print, withDb } from './common.ts';

function languageOverride(value: string, previous: Record<string, string>): Record<string, string> {
  const match = /^([a-z]{2})=([A-Za-z_]{2,10})$/.exec(value);
  if (!match) throw new InvalidArgumentError('must look like gb=en_GB');
  return { ...previous, [match[1]]: match[2] };
}

export function register(program: Command): void {
  const channel = program.command('channel').description('the messaging channel of a business');
  command(channel, 'connect', 'connect a WhatsApp Cloud API channel; each new lead gets the template once')
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .requiredOption('--provider <provider>', `${PROVIDERS.join(', ')} (required)`)
    .requiredOption('--phone-number-id <id>', 'the WhatsApp business phone number id (required)')
    .requiredOption('--token-env <var>', 'name of the environment variable holding the access token; the token is never printed (required)')
    .requiredOption('--template <name>', 'approved template name (required)')
    .option('--base-url <url>', 'Graph API base, version included (default https://graph.facebook.com/v21.0)')
    .addOption(
      new Option('--language <code=lang>', 'template language for a preferred_language, e.g. gb=en_GB (repeatable)')
        .argParser(languageOverride)
        .default({}, 'es=es gb=en fr=fr ge=de it=it'),
    )
    .action(
      action(
        async (opts: {
          business: number;
          provider: string;
          phoneNumberId: string;
          tokenEnv: string;
          template: string;
          baseUrl?: string;
          language: Record<string, string>;
        }) => {
          const connected = await withDb((db) =>
            connectChannel(db, {
              businessId: opts.business,
              provider: opts.provider,
              phoneNumberId: opts.phoneNumberId,
              tokenEnv: opts.tokenEnv,
              template: opts.template,
              baseUrl: opts.baseUrl,
              languages: opts.language,
            }),
          );
          print(
            connected,
            `connected ${connected.provider} for business #${connected.business_id}: template ${connected.template}, ${connected.token}`,
          );
        },
      ),
    );
}
