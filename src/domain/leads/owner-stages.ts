/**
 * The owner pipeline ("captación", CONTRACT §24; issue 58 item 2): where the agency stands with
 * an owner, a lead of type `propietario` (spec §4), beside the lead's `status`, which keeps the
 * spec's values. Pure.
 *
 * `new` → `valuation_scheduled` (a valuation visit booked) → `valued` (the home valued) →
 * `mandate_signed` (the agency holds the mandate), or `lost` at any point (the owner went to
 * another agency, or withdrew). An agent may move an owner to any stage, back included: the
 * stages say where things stand, not a path that must be followed.
 */

/** The stages, in the order the board shows them. */
export const OWNER_STAGES = ['new', 'valuation_scheduled', 'valued', 'mandate_signed', 'lost'] as const;

/** One stage of {@link OWNER_STAGES}. */
export type OwnerStage = (typeof OWNER_STAGES)[number];

/** Whether `value` names a stage. */
export function isOwnerStage(value: unknown): value is OwnerStage {
  return typeof value === 'string' && (OWNER_STAGES as readonly string[]).includes(value);
}

/** The stage of an owner as stored (`leads.owner_stage`, migration 0060): an owner never moved is `new`. */
export function ownerStageOf(stored: OwnerStage | null): OwnerStage {
  return stored ?? 'new';
}
