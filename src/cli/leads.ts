/**
 * `inmo leads create|show|erase` (CONTRACT §9, §18): leads recorded by hand, everything known of
 * one, and its erasure.
 */
import type { Command } from 'commander';
import { createLeadByHand, leadInFull } from '../services/leads/leads.ts';
import { InmoError } from '../errors.ts';
import { CLI } from '../services/access/audit.ts';
import { eraseLead } from '../services/leads/erasure.ts';
import { action, command, positiveInt, print, withDb } from './common.ts';

export function register(program: Command): void {
  const leads = program.command('leads').description('leads');
  command(leads, 'create', 'record a lead by hand (it may have no name; an inquiry later completes it)')
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .requiredOption('--phone <phone>', 'phone; without + it is read as Spanish (required)')
    .option('--name <name>', 'contact name')
    .action(
      action(async (opts: { business: number; phone: string; name?: string }) => {
        const lead = await withDb((db) => createLeadByHand(db, { businessId: opts.business, phone: opts.phone, name: opts.name }));
        const shown = { ...lead, active: lead.active === 1 };
        print(shown, `created lead #${lead.id} ${lead.phone_number_1}${lead.name ? ` ${lead.name}` : ''}`);
      }),
    );
  command(leads, 'show', 'show a lead with its notes, matches, near misses, message and follow-ups')
    .argument('<lead_id>', 'lead id', positiveInt)
    .action(
      action(async (id: number) => {
        const shown = await withDb((db) => leadInFull(db, id), { mustExist: true });
        if (!shown) throw new InmoError('LEAD_NOT_FOUND', { id });
        const l = shown.lead;
        const human = [
          `lead #${l.id} ${l.name ?? '(no name)'} ${l.phone_number_1}`,
          `  type ${l.type}, status ${l.status}, rating ${l.rating}, source ${l.source ?? '-'}, created ${l.created_at}`,
          ...shown.notes.map((n) => `  note ${n.created_at}:\n    ${n.text.replace(/\n/g, '\n    ')}`),
          shown.matching
            ? `  matched ${shown.matching.matched_at} (catalogue v${shown.matching.catalogue_version}): ${shown.matching.matches_total} matches, ${shown.matching.near_misses_total} near misses` +
              (shown.matches.length ? `\n    properties ${shown.matches.map((m) => m.property_id).join(', ')}` : '')
            : '  not matched yet',
          shown.message
            ? `  message ${shown.message.state} (template ${shown.message.template}, ${shown.message.language})${shown.message.last_error ? `: ${shown.message.last_error}` : ''}`
            : '  no message (no channel was connected)',
          ...shown.follow_ups.map((f) => `  follow-up due ${f.due_at} (every ${f.every_days} days): ${f.state}`),
          shown.conversation.messages.length
            ? `  conversation: ${shown.conversation.state.replaceAll('_', ' ')}, ${shown.conversation.messages.length} messages (inmo conversations show ${l.id})`
            : '  no conversation',
        ].join('\n');
        print(shown, human);
      }),
    );
  command(leads, 'erase', 'erase a lead and everything held on the person, for good (GDPR Art. 17); again, it says when it was erased')
    .argument('<lead_id>', 'lead id', positiveInt)
    .action(
      action(async (id: number) => {
        const erased = await withDb((db) => eraseLead(db, id, { actor: CLI }), { mustExist: true });
        print(erased, `erased lead #${erased.lead_id} at ${erased.erased_at}`);
      }),
    );
}
