/** `inmo followups rules|due|done` (spec §6 step 3, CONTRACT §7, §9): follow-ups of inquiry leads. */
import type { Command } from 'commander';
import { action, command, positiveInt, print, withDb } from './common.ts';
import { LEAD_TYPES } from '../domain/leads/rules.ts';

export function register(program: Command): void {
  const followups = program.command('followups').description('follow-ups of inquiry leads');
  command(followups, 'rules', 'set the follow-up period of a lead type (searching demandantes follow 30/90 days)')
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .requiredOption('--type <type>', `${LEAD_TYPES.join(', ')}, or an alias the API accepts (owner, buyer…) (required)`)
    .requiredOption('--every-days <n>', 'days between follow-ups, 1 to 3650 (required)', positiveInt)
    .action(
      action(async (opts: { business: number; type: string; everyDays: number }) => {
        const { setFollowUpRule } = await import('../services/leads/follow-ups.ts');
        const rule = await withDb((db) => setFollowUpRule(db, opts.business, opts.type, opts.everyDays));
        print(rule, `business #${rule.business_id}: ${rule.type} leads are followed up every ${rule.every_days} days`);
      }),
    );
  command(followups, 'due', 'list the follow-ups that have come due, oldest first')
    .option('--business <id>', 'only this business', positiveInt)
    .action(
      action(async (opts: { business?: number }) => {
        const { dueFollowUps } = await import('../services/leads/follow-ups.ts');
        const due = await withDb((db) => dueFollowUps(db, { businessId: opts.business }), { mustExist: true });
        const human = due
          .map(
            (f) => `#${f.id}  due ${f.due_at}  lead #${f.lead_id} ${f.name ?? '(no name)'} ${f.phone_number_1}  every ${f.every_days} days`,
          )
          .join('\n');
        print(due, human || 'no follow-up is due');
      }),
    );
  command(followups, 'done', 'mark a due follow-up as done (the agent has followed up)')
    .argument('<follow_up_id>', 'follow-up id (from inmo followups due)', positiveInt)
    .action(
      action(async (id: number) => {
        const { markFollowUpDone } = await import('../services/leads/follow-ups.ts');
        await withDb((db) => markFollowUpDone(db, id));
        print({ id, state: 'done' }, `follow-up #${id} done`);
      }),
    );
}
