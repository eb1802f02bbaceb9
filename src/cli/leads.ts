/**
 * `inmo leads create|show|erase` (CONTRACT §9, §18): leads recorded by hand, everything known of
 * one, and its erasure.
 */
import type { Command } from 'commander';
import { InmoError } from '../errors.ts';
import { action, command, positiveInt, print, withDb } from './common.ts';

export function register(program: Command): void {
  const leads = program.command('leads').description('leads');
  command(leads, 'create', 'record a lead by hand (it may have no name; an inquiry later completes it)')
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .requiredOption('--phone <phone>', 'phone; without + it is read as Spanish (required)')
    .option('--name <name>', 'contact name')
    .action(
      action(async (opts: { business: number; phone: string; name?: string }) => {
        const { createLeadByHand } = await import('../services/leads/leads.ts');
        const lead = await withDb((db) => createLeadByHand(db, { businessId: opts.business, phone: opts.phone, name: opts.name }));
        const created = { ...lead, active: lead.active === 1 };
        print(created, `created lead #${lead.id} ${lead.phone_number_1}${lead.name ? ` ${lead.name}` : ''}`);
      }),
    );
  command(leads, 'show', 'show a lead with its notes, matches, near misses, message and follow-ups')
    .argument('<lead_id>', 'lead id', positiveInt)
    .action(
      action(async (id: number) => {
        const { leadInFull } = await import('../services/leads/leads.ts');
        const full = await withDb((db) => leadInFull(db, id), { mustExist: true });
        if (!full) throw new InmoError('LEAD_NOT_FOUND', { id });
        const l = full.lead;
        const human = [
          `lead #${l.id} ${l.name ?? '(no name)'} ${l.phone_number_1}`,
          `  type ${l.type}, status ${l.status}, rating ${l.rating}, source ${l.source ?? '-'}, created ${l.created_at}`,
          ...full.notes.map((n) => `  note ${n.created_at}:\n    ${n.text.replace(/\n/g, '\n    ')}`),
          full.matching
            ? `  matched ${full.matching.matched_at} (catalogue v${full.matching.catalogue_version}): ${full.matching.matches_total} matches, ${full.matching.near_misses_total} near misses` +
              (full.matches.length ? `\n    properties ${full.matches.map((m) => m.property_id).join(', ')}` : '')
            : '  not matched yet',
          full.message
            ? `  message ${full.message.state} (template ${full.message.template}, ${full.message.language})${full.message.last_error ? `: ${full.message.last_error}` : ''}`
            : '  no message (no channel was connected)',
          ...full.follow_ups.map((f) => `  follow-up due ${f.due_at} (every ${f.every_days} days): ${f.state}`),
          full.conversation.messages.length
            ? `  conversation: ${full.conversation.state.replaceAll('_', ' ')}, ${full.conversation.messages.length} messages (inmo conversations show ${l.id})`
            : '  no conversation',
        ].join('\n');
        print(full, human);
      }),
    );
  command(leads, 'erase', 'erase a lead and everything held on the person, for good (GDPR Art. 17); again, it says when it was erased')
    .argument('<lead_id>', 'lead id', positiveInt)
    .action(
      action(async (id: number) => {
        const { CLI } = await import('../services/access/audit.ts');
        const { eraseLead } = await import('../services/leads/erasure.ts');
        const erased = await withDb((db) => eraseLead(db, id, { actor: CLI }), { mustExist: true });
        print(erased, `erased lead #${erased.lead_id} at ${erased.erased_at}`);
      }),
    );
}
