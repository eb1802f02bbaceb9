/**
 * `inmo webhooks add|list|disable|rotate-secret|deliveries|replay` (issue 16, CONTRACT §13):
 * the URLs a business's events are POSTed to as Standard Webhooks, and their delivery log.
 */
import { outboundPolicy } from '../config.ts';
import type { Command } from 'commander';
import { action, cli, command, positiveInt, print, withDb } from './common.ts';
import { EVENT_TYPES } from '../domain/integrations/event-types.ts';

export function register(program: Command): void {
  const webhooks = program.command('webhooks').description("outgoing webhooks: the business's events POSTed to a URL");
  command(webhooks, 'add', 'register a URL; prints its signing secret once (whsec_…)')
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .requiredOption('--url <url>', 'https URL that receives the events (required)')
    .option('--events <types>', `comma-separated event types (default: all of ${EVENT_TYPES.join(', ')})`)
    .action(
      action(async (opts: { business: number; url: string; events?: string }) => {
        const { addWebhook } = await import('../services/integrations/outgoing-webhooks.ts');
        const events =
          opts.events === undefined
            ? undefined
            : opts.events
                .split(',')
                .map((e) => e.trim())
                .filter(Boolean);
        const added = await withDb((db) => addWebhook(db, { businessId: opts.business, url: opts.url, events }, outboundPolicy(cli.env)));
        print(added, `webhook #${added.id} → ${opts.url}\nsigning secret (shown once; verify deliveries with it):\n  ${added.secret}`);
      }),
    );
  command(webhooks, 'list', "list a business's webhook endpoints (never their secrets)")
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .action(
      action(async (opts: { business: number }) => {
        const { listWebhooks } = await import('../services/integrations/outgoing-webhooks.ts');
        const list = await withDb((db) => listWebhooks(db, opts.business), { mustExist: true });
        const human = list
          .map((w) => `#${w.id}  ${w.disabled_at ? 'disabled' : 'active  '}  ${w.url}  ${w.events ? w.events.join(',') : 'all events'}`)
          .join('\n');
        print(list, human || 'no webhooks');
      }),
    );
  command(webhooks, 'disable', 'stop deliveries to an endpoint')
    .argument('<id>', 'the endpoint id (from webhooks list)', positiveInt)
    .action(
      action(async (id: number) => {
        const { disableWebhook } = await import('../services/integrations/outgoing-webhooks.ts');
        await withDb((db) => disableWebhook(db, id), { mustExist: true });
        print({ id, disabled: true }, `disabled webhook #${id}`);
      }),
    );
  command(webhooks, 'rotate-secret', 'give an endpoint a new secret; the old one also signs for 24 h')
    .argument('<id>', 'the endpoint id (from webhooks list)', positiveInt)
    .action(
      action(async (id: number) => {
        const { rotateWebhookSecret } = await import('../services/integrations/outgoing-webhooks.ts');
        const rotated = await withDb((db) => rotateWebhookSecret(db, id), { mustExist: true });
        print(rotated, `new signing secret of webhook #${id} (the previous one also signs for 24 h):\n  ${rotated.secret}`);
      }),
    );
  command(webhooks, 'deliveries', "an endpoint's latest deliveries: state, attempts, status, latency, response")
    .argument('<id>', 'the endpoint id (from webhooks list)', positiveInt)
    .option('--limit <n>', 'how many, newest first', positiveInt, 50)
    .action(
      action(async (id: number, opts: { limit: number }) => {
        const { listWebhookDeliveries } = await import('../services/integrations/outgoing-webhooks.ts');
        const list = await withDb((db) => listWebhookDeliveries(db, id, opts.limit), { mustExist: true });
        const human = list
          .map(
            (d) =>
              `#${d.id}  ${d.event_id}  ${d.state.padEnd(9)}  ${d.attempts} attempt(s)  ${d.status ?? '-'}  ${d.latency_ms ?? '-'} ms` +
              (d.error ? `  ${d.error}` : ''),
          )
          .join('\n');
        print(list, human || 'no deliveries');
      }),
    );
  command(webhooks, 'replay', 'send a delivery again, whatever its state')
    .argument('<delivery-id>', 'the delivery id (from webhooks deliveries)', positiveInt)
    .action(
      action(async (id: number) => {
        const { replayDelivery } = await import('../services/integrations/outgoing-webhooks.ts');
        await withDb((db) => replayDelivery(db, id), { mustExist: true });
        print({ id, replayed: true }, `delivery #${id} queued again`);
      }),
    );
}
