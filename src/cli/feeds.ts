/**
 * `inmo feeds publish` (issue 28, CONTRACT §15): portal feeds of a business's public catalogue.
 *
 *     inmo feeds publish --business ID [--format kyero] --json   → {"id", "format", "url": "/feeds/<token>/kyero.xml"}
 *     inmo feeds publish list --business ID                       → [{"id", "format", "created_at", "revoked_at"}]
 *     inmo feeds publish revoke ID
 *
 * The URL is shown once (only its token's hash is kept); prefix it with the server's public URL.
 */
import { Option, type Command } from 'commander';
import { FEED_FORMATS, listFeeds, publishFeed, revokeFeed, type FeedFormat } from '../services/feeds.ts';
import { action, command, positiveInt, print, withDb } from './common.ts';

export function register(program: Command): void {
  const feeds = program.command('feeds').description('portal feeds: the public catalogue as a Kyero v3 feed');
  const publish = command(feeds, 'publish', "publish a feed URL of the business's public catalogue; the URL is shown once")
    .option('--business <id>', 'business id (required)', positiveInt)
    .addOption(new Option('--format <format>', 'the feed format').choices(FEED_FORMATS).default('kyero'))
    .action(
      action(async (opts: { business?: number; format: FeedFormat }) => {
        if (opts.business === undefined) throw new Error("required option '--business <id>' not specified");
        const feed = await withDb((db) => publishFeed(db, opts.business!, opts.format), { mustExist: true });
        print(feed, `feed #${feed.id} (${feed.format}), shown once; give portals this path under the server's public URL:\n  ${feed.url}`);
      }),
    );
  command(publish, 'list', "a business's feeds (never their URLs: only a hash is kept)")
    .option('--business <id>', 'business id (required)', positiveInt)
    .action(
      action(async (_opts: unknown, list_: Command) => {
        // `--business` belongs to `publish` too: wherever it is written, commander gives it to one of them.
        const business = (list_.optsWithGlobals() as { business?: number }).business;
        if (business === undefined) throw new Error("required option '--business <id>' not specified");
        const list = await withDb((db) => listFeeds(db, business), { mustExist: true });
        const human = list
          .map((f) => `#${f.id}  ${f.format}  ${f.revoked_at ? `revoked ${f.revoked_at}` : `published ${f.created_at}`}`)
          .join('\n');
        print(list, human || 'no feeds');
      }),
    );
  command(publish, 'revoke', 'end a feed URL for good')
    .argument('<id>', 'the feed id (from feeds publish list)', positiveInt)
    .action(
      action(async (id: number) => {
        await withDb((db) => revokeFeed(db, id, null), { mustExist: true });
        print({ id, revoked: true }, `revoked feed #${id}`);
      }),
    );
}
