/** `inmo channel connect|assistant` (CONTRACT §7, §9, §10): the WhatsApp Cloud API channel of a business. */
import { outboundPolicy } from '../config.ts';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { action, cli, CliError, command, positiveInt, print, withDb } from './common.ts';
import { PROVIDERS } from '../domain/messaging/providers.ts';
import { TEMPLATE_PURPOSES } from '../domain/messaging/templates.ts';

function languageOverride(value: string, previous: Record<string, string>): Record<string, string> {
  const match = /^([a-z]{2})=([A-Za-z_]{2,10})$/.exec(value);
  if (!match) throw new InvalidArgumentError('must look like gb=en_GB');
  return { ...previous, [match[1]]: match[2] };
}

/** `--template-for PURPOSE=NAME`: an approved template for a purpose (`PURPOSE=` names none). */
function templateFor(value: string, previous: Record<string, string>): Record<string, string> {
  const match = /^([a-z_]+)=(.*)$/.exec(value.trim());
  if (!match)
    throw new InvalidArgumentError(`must look like viewing_reminder=recordatorio_visita; purposes: ${TEMPLATE_PURPOSES.join(', ')}`);
  return { ...previous, [match[1]]: match[2].trim() };
}

export function register(program: Command): void {
  const channel = program.command('channel').description('the messaging channel of a business');
  command(channel, 'connect', 'connect a WhatsApp Cloud API channel; each new lead gets the template once')
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .requiredOption('--provider <provider>', `${PROVIDERS.join(', ')} (required)`)
    .requiredOption('--phone-number-id <id>', 'the WhatsApp business phone number id (required)')
    .requiredOption('--token-env <var>', 'name of the environment variable holding the access token; the token is never printed (required)')
    .requiredOption('--template <name>', 'approved template name (required)')
    .option(
      '--base-url <url>',
      'Graph API base, version included (default https://graph.facebook.com/v21.0; https, on graph.facebook.com or a host INMO_CHANNEL_HOSTS names)',
    )
    .option('--app-secret-env <var>', 'name of the environment variable holding the Meta app secret, which signs webhooks; never printed')
    .option(
      '--listing-url <template>',
      "link to a listing for the assistant's answers, with {id} or {ref}, e.g. 'https://agency.example/inmueble/{id}'",
    )
    .option('--public-url <url>', "this server's public base URL, for the webhook callback URL printed", cli.env.INMO_PUBLIC_URL)
    .option(
      '--template-for <purpose=name>',
      `approved template for a purpose (repeatable; ${TEMPLATE_PURPOSES.join(', ')}); a purpose without one goes by e-mail; given, it replaces the stored ones`,
      templateFor,
    )
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
          appSecretEnv?: string;
          listingUrl?: string;
          publicUrl?: string;
          templateFor?: Record<string, string>;
        }) => {
          const { connectChannel } = await import('../services/messaging/channels.ts');
          const connected = await withDb((db) =>
            connectChannel(
              db,
              {
                businessId: opts.business,
                provider: opts.provider,
                phoneNumberId: opts.phoneNumberId,
                tokenEnv: opts.tokenEnv,
                template: opts.template,
                baseUrl: opts.baseUrl,
                languages: opts.language,
                appSecretEnv: opts.appSecretEnv,
                listingUrl: opts.listingUrl,
                publicUrl: opts.publicUrl,
                templates: opts.templateFor,
              },
              cli.env,
              outboundPolicy(cli.env),
            ),
          );
          print(
            connected,
            [
              `connected ${connected.provider} for business #${connected.business_id}: template ${connected.template}, ${connected.token}`,
              `templates by purpose: ${
                Object.entries(connected.templates)
                  .map(([k, v]) => `${k}=${v}`)
                  .join(', ') || 'none (viewing notices go by e-mail)'
              }`,
              `webhooks: ${connected.webhooks}`,
              'In Meta\'s dashboard (WhatsApp > Configuration > Webhook), paste these, then subscribe to the "messages" field:',
              `  Callback URL: ${connected.callback_url}`,
              `  Verify token: ${connected.verify_token}    (shown once)`,
            ].join('\n'),
          );
        },
      ),
    );
  command(channel, 'assistant', "choose the assistant that words the answers to leads' WhatsApp messages")
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .option('--url <url>', 'base URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1')
    .option('--model <name>', 'model name (with --url)')
    .option('--key-env <var>', 'name of the environment variable holding the API key; never printed')
    .option('--built-in', 'use the built-in assistant (the default)')
    .action(
      action(async (opts: { business: number; url?: string; model?: string; keyEnv?: string; builtIn?: boolean }) => {
        const { configureAssistant } = await import('../services/messaging/channels.ts');
        if (Boolean(opts.builtIn) === (opts.url !== undefined)) throw new CliError('give either --url and --model, or --built-in');
        if (opts.url !== undefined && opts.model === undefined) throw new CliError('--model is required with --url');
        const configured = await withDb(
          (db) =>
            configureAssistant(
              db,
              opts.business,
              opts.builtIn ? null : { url: opts.url!, model: opts.model!, keyEnv: opts.keyEnv },
              cli.env,
            ),
          { mustExist: true },
        );
        print(
          configured,
          configured.assistant === 'built-in'
            ? `business #${opts.business}: the built-in assistant answers`
            : `business #${opts.business}: ${configured.model} at ${opts.url} answers (the built-in assistant when it fails)`,
        );
      }),
    );
}
