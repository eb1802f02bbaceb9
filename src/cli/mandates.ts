/**
 * `inmo mandates list` (issue 58 item 3, CONTRACT §9, §24): a business's signed mandates, the
 * soonest to end first.
 *
 *     inmo mandates list --business ID [--ending-within DAYS] --json
 *       → [{"id", "property_id", "external_ref", "owner_lead_id", "version", "kind", "ends_on",
 *           "days_left", "warning" (30, 15, 7 or null), "keep_listed_after_expiry"}]
 *
 * No owner's name or contact is printed: the owner is named by its lead's id.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { action, command, positiveInt, print, withDb } from './common.ts';

/** A number of days, 0 up to ten years. */
function days(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 3650) throw new InvalidArgumentError('must be a whole number of days, 0 to 3650');
  return n;
}

export function register(program: Command): void {
  const mandates = program.command('mandates').description('mandates of listings ("hojas de encargo"): those in force and when they end');
  command(mandates, 'list', "a business's signed mandates, the soonest to end first")
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .option('--ending-within <days>', 'only those ending within this many days of the business’s today', days)
    .action(
      action(async (opts: { business: number; endingWithin?: number }) => {
        const { mandatesEnding } = await import('../services/owners/mandates.ts');
        const rows = await withDb((db) => mandatesEnding(db, opts.business, opts.endingWithin ?? null), { mustExist: true });
        const listed = rows.map((m) => ({
          id: m.id,
          property_id: m.property_id,
          external_ref: m.external_ref,
          owner_lead_id: m.owner_lead_id,
          version: m.version,
          kind: m.kind,
          ends_on: m.ends_on,
          days_left: m.days_left,
          warning: m.warning,
          keep_listed_after_expiry: m.keep_listed_after_expiry === 1,
        }));
        const human = listed
          .map(
            (m) =>
              `#${m.id}  ${m.external_ref}  v${m.version} ${m.kind}  ends ${m.ends_on} (${m.days_left} days)${m.warning ? `  warning ${m.warning}` : ''}`,
          )
          .join('\n');
        print(listed, human || 'no signed mandates');
      }),
    );
}
