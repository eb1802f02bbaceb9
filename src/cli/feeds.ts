/**
 * `inmo feeds publish` (issue 28, CONTRACT §15, §22): portal feeds of a business's public catalogue.
 *
 *     inmo feeds publish --business ID [--format kyero] --json   → {"id", "format", "url": "/feeds/<token>/kyero.xml"}
 *     inmo feeds publish --business ID --format idealista --customer-code ilc… --json
 *                                                                 → {"id", "format", "url": "/feeds/<token>/idealista.json"}
 *     inmo feeds publish list --business ID                       → [{"id", "format", "customer_code", "created_at", "revoked_at"}]
 *     inmo feeds publish revoke ID
 *
 * The URL is shown once (only its token's hash is kept); prefix it with the server's public URL.
 *
 *     inmo feeds pull add --business ID --url URL [--format kyero|ndjson] [--every-minutes 360] --json → {"id", "url", "every_minutes"}
 *     inmo feeds pull list --business ID | run ID | remove ID | confirm ID | discard ID
 *
 * A source is pulled by the worker every `--every-minutes` (the first pull at once); `run` pulls
 * now and prints the result (services/catalogue/feeds/pulls.ts). A pull that would withdraw more than
 * `INMO_PULL_WITHDRAW_MAX_SHARE` of the source's listings is held: `confirm` withdraws them,
 * `discard` keeps them.
 */
import { Option, type Command } from 'commander';
import { FEED_FORMATS, IMPORT_FORMATS, PULL_MINUTES, type FeedFormat } from '../domain/catalogue/feed-formats.ts';
import type { PullResult } from '../services/catalogue/feeds/pulls.ts';
import type { ImportFormat } from '../services/catalogue/import/import.ts';
import { loadConfig } from '../config.ts';
import { action, cli, command, positiveInt, print, withDb } from './common.ts';

/** A pull's result in words. */
function describePull(result: PullResult): string {
  if (result.status === 'unchanged') return 'unchanged since the last pull (304)';
  if (result.status === 'failed') return `failed: ${result.error}`;
  const held =
    result.status === 'held'
      ? `\nheld: it would withdraw ${result.held} of the source's ${result.of} listings, more than INMO_PULL_WITHDRAW_MAX_SHARE allows; nothing withdrawn until \`inmo feeds pull confirm\` (or \`discard\`)`
      : '';
  const rejected = (result.rejected ?? [])
    .map((r) => `  property ${r.line}${r.id === undefined ? '' : ` (<id> ${r.id})`}: ${r.reason}`)
    .join('\n');
  return (
    `imported: created ${result.created}, updated ${result.updated}, withdrawn ${result.withdrawn}, rejected ${result.rejectedCount}` +
    (result.rejectedCount ? ' (nothing withdrawn while any is rejected)' : '') +
    held +
    (rejected ? `\n${rejected}` : '')
  );
}

export function register(program: Command): void {
  const feeds = program
    .command('feeds')
    .description('portal feeds: the public catalogue as a Kyero v3 or idealista v6 feed, and feeds pulled from a CRM');
  const publish = command(feeds, 'publish', "publish a feed URL of the business's public catalogue; the URL is shown once")
    .option('--business <id>', 'business id (required)', positiveInt)
    .addOption(new Option('--format <format>', 'the feed format').choices(FEED_FORMATS).default('kyero'))
    .option(
      '--customer-code <code>',
      "idealista only (required there): the agency's idealista customer code, ilc followed by 40 letters or digits",
    )
    .action(
      action(async (opts: { business?: number; format: FeedFormat; customerCode?: string }) => {
        const { publishFeed } = await import('../services/catalogue/feeds/published-feeds.ts');
        if (opts.business === undefined) throw new Error("required option '--business <id>' not specified");
        const feed = await withDb((db) => publishFeed(db, opts.business!, opts.format, { customerCode: opts.customerCode }), {
          mustExist: true,
        });
        print(feed, `feed #${feed.id} (${feed.format}), shown once; give portals this path under the server's public URL:\n  ${feed.url}`);
      }),
    );
  command(publish, 'list', "a business's feeds (never their URLs: only a hash is kept)")
    .option('--business <id>', 'business id (required)', positiveInt)
    .action(
      action(async (_opts: unknown, list_: Command) => {
        const { listFeeds } = await import('../services/catalogue/feeds/published-feeds.ts');
        // `--business` belongs to `publish` too: wherever it is written, commander gives it to one of them.
        const business = (list_.optsWithGlobals() as { business?: number }).business;
        if (business === undefined) throw new Error("required option '--business <id>' not specified");
        const list = await withDb((db) => listFeeds(db, business), { mustExist: true });
        const human = list
          .map(
            (f) =>
              `#${f.id}  ${f.format}${f.customer_code ? ` (${f.customer_code})` : ''}  ${f.revoked_at ? `revoked ${f.revoked_at}` : `published ${f.created_at}`}`,
          )
          .join('\n');
        print(list, human || 'no feeds');
      }),
    );
  command(publish, 'revoke', 'end a feed URL for good')
    .argument('<id>', 'the feed id (from feeds publish list)', positiveInt)
    .action(
      action(async (id: number) => {
        const { revokeFeed } = await import('../services/catalogue/feeds/published-feeds.ts');
        await withDb((db) => revokeFeed(db, id, null), { mustExist: true });
        print({ id, revoked: true }, `revoked feed #${id}`);
      }),
    );

  const pull = feeds.command('pull').description("feeds pulled from the agency's current CRM, kept in step by the worker");
  command(pull, 'add', 'add a feed URL (Kyero v3 or NDJSON) to pull; the first pull is queued at once')
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .requiredOption(
      '--url <url>',
      'the feed URL: https on a public address (INMO_ALLOW_PRIVATE_NETWORK=1 also allows http and private addresses) (required)',
    )
    .addOption(new Option('--format <format>', 'read it as this format instead of telling by its content').choices(IMPORT_FORMATS))
    .option('--every-minutes <n>', `minutes between pulls (${PULL_MINUTES.min} to ${PULL_MINUTES.max})`, positiveInt, PULL_MINUTES.default)
    .action(
      action(async (opts: { business: number; url: string; format?: ImportFormat; everyMinutes: number }) => {
        const { addFeedSource } = await import('../services/catalogue/feeds/pulls.ts');
        const { outbound } = loadConfig(cli.env);
        const added = await withDb(
          (db) =>
            addFeedSource(
              db,
              { businessId: opts.business, url: opts.url, format: opts.format ?? null, everyMinutes: opts.everyMinutes },
              outbound,
            ),
          { mustExist: true },
        );
        print(added, `feed source #${added.id} → ${added.url}, pulled every ${added.every_minutes} minutes (the first pull is queued)`);
      }),
    );
  command(pull, 'list', "a business's feed sources, with their last pull")
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .action(
      action(async (opts: { business: number }) => {
        const { listFeedSources } = await import('../services/catalogue/feeds/pulls.ts');
        const list = await withDb((db) => listFeedSources(db, opts.business), { mustExist: true });
        const human = list
          .map(
            (s) =>
              `#${s.id}  every ${s.every_minutes} min  ${s.url}\n     ${s.last_result ? `${s.last_pull_at}: ${describePull(s.last_result).split('\n')[0]}` : 'not pulled yet'}` +
              (s.held
                ? `\n     held since ${s.held.at}: would withdraw ${s.held.withdrawals} of ${s.held.of} listings (inmo feeds pull confirm|discard ${s.id})`
                : ''),
          )
          .join('\n');
        print(list, human || 'no feed sources');
      }),
    );
  command(pull, 'run', 'pull a source now and print the result')
    .argument('<id>', 'the source id (from feeds pull list)', positiveInt)
    .action(
      action(async (id: number) => {
        const { pullFeedSource } = await import('../services/catalogue/feeds/pulls.ts');
        const { outbound, worker } = loadConfig(cli.env);
        const result = await withDb(
          (db) => pullFeedSource(db, id, { outbound, maxBytes: worker.feedMaxBytes, withdrawMaxShare: worker.pullWithdrawMaxShare }),
          { mustExist: true },
        );
        print(result, describePull(result));
        if (result.status === 'failed') cli.exitCode = 1;
      }),
    );
  command(pull, 'confirm', "apply a held pull: withdraw the source's listings its document no longer names")
    .argument('<id>', 'the source id (from feeds pull list)', positiveInt)
    .action(
      action(async (id: number) => {
        const { confirmHeldPull } = await import('../services/catalogue/feeds/pulls.ts');
        const { CLI } = await import('../services/access/audit.ts');
        const done = await withDb((db) => confirmHeldPull(db, id, { businessId: null, actor: CLI }), { mustExist: true });
        print({ id, ...done }, `feed source #${id}: the held pull withdrew ${done.withdrawn} listings`);
      }),
    );
  command(pull, 'discard', 'forget a held pull: the listings it would withdraw stay (the next pull may hold again)')
    .argument('<id>', 'the source id (from feeds pull list)', positiveInt)
    .action(
      action(async (id: number) => {
        const { discardHeldPull } = await import('../services/catalogue/feeds/pulls.ts');
        const done = await withDb((db) => discardHeldPull(db, id, { businessId: null }), { mustExist: true });
        print({ id, ...done }, `feed source #${id}: the held pull was discarded; ${done.kept} listings kept`);
      }),
    );
  command(pull, 'remove', 'stop pulling a source (its listings stay)')
    .argument('<id>', 'the source id (from feeds pull list)', positiveInt)
    .action(
      action(async (id: number) => {
        const { removeFeedSource } = await import('../services/catalogue/feeds/pulls.ts');
        await withDb((db) => removeFeedSource(db, id, null), { mustExist: true });
        print({ id, removed: true }, `removed feed source #${id}`);
      }),
    );
}
