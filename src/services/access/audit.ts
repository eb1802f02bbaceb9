/**
 * The audit trail (issue 31, CONTRACT §18): who created or revoked a key, invited or disabled a
 * user, changed the channel, the outgoing mail server, a mailbox pulled over IMAP or a webhook endpoint, exported or erased a lead, or withdrew a
 * listing, made or revoked an agent's calendar URL, collected a signed visit sheet or changed its
 * clause (CONTRACT §20), and when. An entry names its actor and target by id only: never a name, phone,
 * email or anything else of a person, so the trail outlives every erasure.
 *
 * {@link recordAudit} runs inside the transaction of the action it records, so an entry exists
 * exactly when its action does. Listed by `inmo audit list` and `/console/audit` (owners).
 */
import type { Db, Executor } from '../../db/database.ts';
import * as repo from '../../db/repositories/audit.ts';
import type { AuditEntry } from '../../db/repositories/audit.ts';
import { nowRfc3339 } from '../../domain/time.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import { InmoError } from '../../errors.ts';

export type { AuditEntry };

/** Who acted: a console user, an API key, the command line, or the system on its own (retention, a scheduled pull). */
export type AuditActor =
  | { type: 'user'; id: number }
  | { type: 'key'; id: string }
  | { type: 'cli' }
  | { type: 'system'; id: 'retention' | `feed_source:${number}` };

/** The command line: `inmo …` run by an operator of the machine. */
export const CLI: AuditActor = { type: 'cli' };

/** The actions recorded, with what their target is. */
export const AUDIT_ACTIONS = {
  'key.create': 'api_key',
  'key.revoke': 'api_key',
  'user.invite': 'user',
  'user.disable': 'user',
  'user.rename': 'user',
  'channel.connect': 'channel',
  'channel.change': 'channel',
  // A business's own outgoing mail server saved (CONTRACT §19): before issue 57, `channel.connect`.
  'email.connect': 'email_out',
  // A mailbox pulled over IMAP added or removed (CONTRACT §19, §25): the target is the pull's id, never its address.
  'email.pull_add': 'email_pull',
  'email.pull_remove': 'email_pull',
  'webhook.add': 'webhook_endpoint',
  'webhook.disable': 'webhook_endpoint',
  'webhook.rotate_secret': 'webhook_endpoint',
  'lead.export': 'lead',
  'lead.erase': 'lead',
  // An owner moved on the owner board (CONTRACT §24): the target is the lead's id.
  'lead.owner_stage': 'lead',
  // An owner's days between reports chosen (CONTRACT §24): the target is the lead's id.
  'lead.owner_report_days': 'lead',
  'property.withdraw': 'property',
  // A listing's owner linked or unlinked (CONTRACT §24): the target is the listing, never the owner.
  'property.owner': 'property',
  'calendar.create': 'user',
  'calendar.revoke': 'user',
  'viewing.sheet_sign': 'viewing',
  // A listing's mandate drafted, signed on the screen or ended by an agent (CONTRACT §24): the target is the mandate's version.
  'mandate.draft': 'mandate',
  'mandate.sign': 'mandate',
  'mandate.end': 'mandate',
  'business.mandate_clause': 'business',
  'business.visit_sheet_clause': 'business',
  'business.clock': 'business',
} as const;
export type AuditAction = keyof typeof AUDIT_ACTIONS;

const row = (businessId: number, actor: AuditActor, action: AuditAction, targetId: string | number, at: string) => ({
  business_id: businessId,
  actor_type: actor.type,
  actor_id: actor.type === 'cli' ? null : String(actor.id),
  action,
  target_type: AUDIT_ACTIONS[action],
  target_id: String(targetId),
  created_at: at,
});

/**
 * Records `action` on `targetId` (an id of the action's target type) by `actor`, in the
 * caller's transaction.
 * @param at when, canonical RFC 3339; now by default.
 */
export async function recordAudit(
  trx: Executor,
  businessId: number,
  actor: AuditActor,
  action: AuditAction,
  targetId: string | number,
  at = nowRfc3339(),
): Promise<void> {
  await repo.insertAuditEntries(trx, [row(businessId, actor, action, targetId, at)]);
}

/** Records `action` on each of `targetIds` at once (a withdrawal of many listings). */
export async function recordAudits(
  trx: Executor,
  businessId: number,
  actor: AuditActor,
  action: AuditAction,
  targetIds: readonly number[],
  at = nowRfc3339(),
): Promise<void> {
  await repo.insertAuditEntries(
    trx,
    targetIds.map((id) => row(businessId, actor, action, id, at)),
  );
}

/**
 * The business's audit trail, newest first: up to `limit` entries (100 by default) older than
 * entry `before` (from the newest when omitted).
 * @throws InmoError UNKNOWN_BUSINESS when there is no such business.
 */
export async function listAudit(db: Db, businessId: number, options: { limit?: number; before?: number } = {}): Promise<AuditEntry[]> {
  if (!(await findBusiness(db, businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: businessId });
  return repo.listAuditEntries(db, businessId, options.limit ?? 100, options.before ?? null);
}
