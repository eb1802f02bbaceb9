/**
 * The owner pipeline (issue 58 item 2; CONTRACT §24 "captación"): the business's owners, leads of
 * type `propietario`, each at a stage of domain/leads/owner-stages.ts, shown as a board on
 * `/console/owners` and moved there; `GET /v1/ext/leads/{id}` of an owner says its
 * `owner_stage` (services/leads/leads.ts `getLead`).
 */
import type { Db } from '../../db/database.ts';
import { findLead, insertHistory } from '../../db/repositories/leads.ts';
import { countOwners, listOwnerCards, setOwnerStage, type OwnerCard } from '../../db/repositories/owners.ts';
import { countOpenValuations } from '../../db/repositories/viewings.ts';
import type { Executor } from '../../db/database.ts';
import type { ViewingStatus } from '../../domain/viewings/status.ts';
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
    await writeOwnerStage(trx, { businessId, leadId, from, to: stage, userId: actor.type === 'user' ? actor.id : null }, at);
    await recordAudit(trx, businessId, actor, 'lead.owner_stage', leadId, at);
    return stage;
  });
}

/**
 * Sets an owner's stage as every change of a lead's work is kept (services/leads/pipeline.ts): its
 * `updated_at`, a history line (`owner_stage`, `{from, to}`; `userId` null: inmo moved it) and `lead.updated`.
 */
async function writeOwnerStage(
  trx: Executor,
  move: { businessId: number; leadId: number; from: OwnerStage; to: OwnerStage; userId: number | null },
  at: string,
): Promise<void> {
  await setOwnerStage(trx, move.businessId, move.leadId, move.to, at);
  await insertHistory(trx, {
    business_id: move.businessId,
    lead_id: move.leadId,
    user_id: move.userId,
    change: 'owner_stage',
    detail: JSON.stringify({ from: move.from, to: move.to }),
    created_at: at,
  });
  await recordLeadEvent(trx, move.businessId, move.leadId, 'lead.updated', at);
}

/** The pipeline's order for moves inmo makes: `lost` is left out (never left, never reached by them). */
const FORWARD: readonly OwnerStage[] = ['new', 'valuation_scheduled', 'valued', 'mandate_signed'];

/**
 * The stage a valuation visit in `status` moves an owner at `from` to, or null for none: a booked
 * one (`requested`, `scheduled`, `confirmed`) to `valuation_scheduled`, a `done` one to `valued`,
 * forward only and never out of `lost`; a `cancelled` or `no_show` one takes `valuation_scheduled`
 * back to `new` when `othersOpen` is 0 (no other valuation of the owner still booked).
 */
export function valuationMove(from: OwnerStage, status: ViewingStatus, othersOpen: number): OwnerStage | null {
  if (from === 'lost') return null;
  if (status === 'cancelled' || status === 'no_show') return from === 'valuation_scheduled' && othersOpen === 0 ? 'new' : null;
  const to: OwnerStage = status === 'done' ? 'valued' : 'valuation_scheduled';
  return FORWARD.indexOf(to) > FORWARD.indexOf(from) ? to : null;
}

/**
 * Moves an owner whose listing's mandate was just signed to `mandate_signed` (forward only, never
 * out of `lost`), inside the signing's transaction, kept as {@link ownerMoveOnViewing}'s moves are.
 * @returns the stage moved to, or null.
 */
export async function ownerMoveOnMandate(trx: Executor, businessId: number, leadId: number, at: string): Promise<OwnerStage | null> {
  const lead = await findLead(trx, leadId, businessId);
  if (!lead || lead.type !== OWNER_TYPE) return null;
  const from = ownerStageOf(lead.owner_stage);
  if (from === 'lost' || FORWARD.indexOf(from) >= FORWARD.indexOf('mandate_signed')) return null;
  await writeOwnerStage(trx, { businessId, leadId, from, to: 'mandate_signed', userId: null }, at);
  return 'mandate_signed';
}

/**
 * Moves the owner of a valuation visit (kind `valuation`) as its status says ({@link valuationMove}),
 * inside the transaction that booked or changed it; a visit of another kind, or of a lead that is no
 * longer `propietario`, moves nothing. The move is kept as the agent's are (history line with no
 * user, `lead.updated`); it is not an audited action of its own (the viewing's change is the cause).
 * @param viewing the viewing as stored after the change.
 * @param at the instant of the change, canonical RFC 3339.
 * @returns the stage moved to, or null.
 */
export async function ownerMoveOnViewing(
  trx: Executor,
  viewing: { id: number; business_id: number; lead_id: number; kind: string; status: ViewingStatus },
  at: string,
): Promise<OwnerStage | null> {
  if (viewing.kind !== 'valuation') return null;
  const lead = await findLead(trx, viewing.lead_id, viewing.business_id);
  if (!lead || lead.type !== OWNER_TYPE) return null;
  const from = ownerStageOf(lead.owner_stage);
  const closing = viewing.status === 'cancelled' || viewing.status === 'no_show';
  const others = closing && from === 'valuation_scheduled' ? await countOpenValuations(trx, viewing.business_id, lead.id, viewing.id) : 0;
  const to = valuationMove(from, viewing.status, others);
  if (to === null) return null;
  await writeOwnerStage(trx, { businessId: viewing.business_id, leadId: lead.id, from, to, userId: null }, at);
  return to;
}
