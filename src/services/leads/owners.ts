/**
 * The owner pipeline (issue 58 item 2; CONTRACT §24 "captación"): the business's owners, leads of
 * type `propietario`, each at a stage of domain/leads/owner-stages.ts, shown as a board on
 * `/console/owners` and moved there; `GET /v1/ext/leads/{id}` of an owner says its
 * `owner_stage` (services/leads/leads.ts `getLead`).
 */
import type { Db } from '../../db/database.ts';
import { findLead, insertHistory } from '../../db/repositories/leads.ts';
import { countOwners, listOwnerCards, setOwnerStage, type OwnerCard } from '../../db/repositories/owners.ts';
import { transact } from '../../db/transaction.ts';
import { isOwnerStage, OWNER_STAGES, ownerStageOf, type OwnerStage } from '../../domain/leads/owner-stages.ts';
import { toRfc3339 } from '../../domain/time.ts';
import { InmoError } from '../../errors.ts';
import { recordAudit, type AuditActor } from '../access/audit.ts';
import { recordLeadEvent } from '../integrations/events.ts';
import { OWNER_TYPE } from '../catalogue/listing-owners.ts';

/** Owners the board shows at most, the most recently changed first. */
export const BOARD_MAX = 500;

/** An owner on the board: its card, its stage read (`new` when never moved). */
export type BoardOwner = Omit<OwnerCard, 'owner_stage'> & { stage: OwnerStage };

/** The board: one column per stage in {@link OWNER_STAGES} order; `total` owners, of which `shown` are on it. */
export interface OwnerBoard {
  columns: Array<{ stage: OwnerStage; owners: BoardOwner[] }>;
  total: number;
  shown: number;
}

/** The business's owners by stage, the most recently changed first in each column, at most {@link BOARD_MAX} in all. */
export async function ownerBoard(db: Db, businessId: number): Promise<OwnerBoard> {
  const [cards, total] = await Promise.all([listOwnerCards(db, businessId, BOARD_MAX), countOwners(db, businessId)]);
  const owners = cards.map(({ owner_stage, ...card }) => ({ ...card, stage: ownerStageOf(owner_stage) }));
  return {
    columns: OWNER_STAGES.map((stage) => ({ stage, owners: owners.filter((owner) => owner.stage === stage) })),
    total,
    shown: owners.length,
  };
}

/**
 * Moves the business's owner lead to `stage` (any stage, back included), as every change of a
 * lead's work is kept: its `updated_at`, a history line (`owner_stage`, `{from, to}`) and the
 * event `lead.updated`; and in the audit trail as `lead.owner_stage` (the lead's id; nothing of
 * the person). Moving it to the stage it is at changes nothing.
 * @returns the stage it is at now.
 * @throws InmoError OWNER_STAGE_UNKNOWN (not a stage; nothing read), LEAD_NOT_FOUND (no such lead
 *   of the business), OWNER_STAGE_NOT_PROPIETARIO (the lead is not an owner).
 */
export async function moveOwnerStage(
  db: Db,
  move: { businessId: number; leadId: number; stage: unknown; actor: AuditActor },
  now = new Date(),
): Promise<OwnerStage> {
  const { businessId, leadId, stage, actor } = move;
  if (!isOwnerStage(stage)) throw new InmoError('OWNER_STAGE_UNKNOWN');
  return transact(db, async (trx) => {
    const lead = await findLead(trx, leadId, businessId);
    if (!lead) throw new InmoError('LEAD_NOT_FOUND', { id: leadId });
    if (lead.type !== OWNER_TYPE) throw new InmoError('OWNER_STAGE_NOT_PROPIETARIO');
    const from = ownerStageOf(lead.owner_stage);
    if (from === stage) return stage;
    const at = toRfc3339(now);
    await setOwnerStage(trx, businessId, leadId, stage, at);
    // As every change of a lead's work (services/leads/pipeline.ts): its history line and `lead.updated`.
    await insertHistory(trx, {
      business_id: businessId,
      lead_id: leadId,
      user_id: actor.type === 'user' ? actor.id : null,
      change: 'owner_stage',
      detail: JSON.stringify({ from, to: stage }),
      created_at: at,
    });
    await recordLeadEvent(trx, businessId, leadId, 'lead.updated', at);
    await recordAudit(trx, businessId, actor, 'lead.owner_stage', leadId, at);
    return stage;
  });
}
