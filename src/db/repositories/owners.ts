/** Owner leads and their pipeline (migration 0060, CONTRACT §24). SQL only. */
import { sql } from 'kysely';
import type { Executor } from '../database.ts';
import type { OwnerStage } from '../../domain/leads/owner-stages.ts';

/** An owner as the board shows it: the lead's id, name, primary phone, stage as stored, agent, last change and listings owned. */
export interface OwnerCard {
  id: number;
  name: string | null;
  phone_number_1: string;
  owner_stage: OwnerStage | null;
  assigned_user_id: number | null;
  updated_at: string;
  listings: number;
}

/**
 * The business's `propietario` leads, most recently changed first, at most `limit`, each with
 * how many listings it owns (`properties.owner_lead_id`, migration 0059).
 */
export async function listOwnerCards(db: Executor, businessId: number, limit: number): Promise<OwnerCard[]> {
  const rows = await db
    .selectFrom('leads')
    .select(['leads.id', 'leads.name', 'leads.phone_number_1', 'leads.owner_stage', 'leads.assigned_user_id', 'leads.updated_at'])
    .select((eb) =>
      eb
        .selectFrom('properties')
        .select(sql<number>`count(*)`.as('n'))
        .whereRef('properties.owner_lead_id', '=', 'leads.id')
        .as('listings'),
    )
    .where('leads.business_id', '=', businessId)
    .where('leads.type', '=', 'propietario')
    .orderBy('leads.updated_at', 'desc')
    .orderBy('leads.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ ...row, listings: Number(row.listings ?? 0) }));
}

/** How many `propietario` leads the business has. */
export async function countOwners(db: Executor, businessId: number): Promise<number> {
  const row = await db
    .selectFrom('leads')
    .select(sql<number>`count(*)`.as('n'))
    .where('business_id', '=', businessId)
    .where('type', '=', 'propietario')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Sets the stage of the business's owner lead `leadId` and its `updated_at`.
 * @returns whether a `propietario` lead of the business was changed.
 */
export async function setOwnerStage(db: Executor, businessId: number, leadId: number, stage: OwnerStage, at: string): Promise<boolean> {
  const result = await db
    .updateTable('leads')
    .set({ owner_stage: stage, updated_at: at })
    .where('id', '=', leadId)
    .where('business_id', '=', businessId)
    .where('type', '=', 'propietario')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The stored stage of the business's lead `leadId` (null: never moved, or not an owner). */
export async function findOwnerStage(db: Executor, businessId: number, leadId: number): Promise<OwnerStage | null> {
  const row = await db
    .selectFrom('leads')
    .select('owner_stage')
    .where('id', '=', leadId)
    .where('business_id', '=', businessId)
    .executeTakeFirst();
  return row?.owner_stage ?? null;
}

/** The business's leads among `ids`: `{id, type}` each (the others are not the business's, or gone). */
export async function findLeadTypes(db: Executor, businessId: number, ids: number[]): Promise<Array<{ id: number; type: string }>> {
  if (ids.length === 0) return [];
  return db.selectFrom('leads').select(['id', 'type']).where('business_id', '=', businessId).where('id', 'in', ids).execute();
}

/** The business's leads whose primary phone is among `phones` (E.164): `{id, type, phone_number_1}` each. */
export async function findLeadsByPhones(
  db: Executor,
  businessId: number,
  phones: string[],
): Promise<Array<{ id: number; type: string; phone_number_1: string }>> {
  if (phones.length === 0) return [];
  return db
    .selectFrom('leads')
    .select(['id', 'type', 'phone_number_1'])
    .where('business_id', '=', businessId)
    .where('phone_number_1', 'in', phones)
    .execute();
}
