/**
 * `inmo embed snippet` (issue 30, CONTRACT §17): the tags a website pastes to show inmo's
 * elements, with the script's hash and integrity.
 *
 *     inmo embed snippet --business ID --key AC_PUB_… [--url https://inmo.agency.example] --json → {"html": "<script …></script>…"}
 */
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { action, cli, command, positiveInt, print, withDb } from './common.ts';

export function register(program: Command): void {
  const embed = program.command('embed').description("the website kit: inmo's listings and forms on any site");
  command(embed, 'snippet', 'print the tags to paste into a page: the script (with its integrity) and the contact form')
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .requiredOption('--key <key>', 'a publishable key of the business, AC_PUB_…, from inmo keys create --publishable (required)')
    .option('--url <url>', "this server's public URL (default INMO_PUBLIC_URL, else http://127.0.0.1:8080)")
    .action(
      action(async (opts: { business: number; key: string; url?: string }) => {
        const { embedSnippet } = await import('../services/integrations/website-kit-bundle.ts');
        const baseUrl = opts.url ?? loadConfig(cli.env).publicUrl ?? 'http://127.0.0.1:8080';
        const snippet = await withDb((db) => embedSnippet(db, { businessId: opts.business, key: opts.key, baseUrl }), { mustExist: true });
        print(snippet, snippet.html);
      }),
    );
}
