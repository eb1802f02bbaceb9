/**
 * A viewing's life (CONTRACT §20): its statuses, where it came from, and what may be done to it.
 *
 * `requested` (asked for from a website, held for an agent to accept) → `scheduled` (the agency
 * booked it) → `confirmed` (the lead said they will come) → `done` or `no_show`; `cancelled`
 * from any of the first three. A cancelled viewing no longer holds its agent's time; every
 * other status does.
 */

export const VIEWING_STATUSES = ['requested', 'scheduled', 'confirmed', 'done', 'cancelled', 'no_show'] as const;
export type ViewingStatus = (typeof VIEWING_STATUSES)[number];

/** Where a viewing was booked: the console, the WhatsApp assistant, the API with a secret key, a website (a publishable key). */
export const VIEWING_SOURCES = ['console', 'assistant', 'api', 'website'] as const;
export type ViewingSource = (typeof VIEWING_SOURCES)[number];

/**
 * What a viewing is for (CONTRACT §20, §24): `visit`, a lead sees a listing; `valuation`, an agent
 * visits an owner's home (a `propietario` lead and a listing linked to it) to value it.
 */
export const VIEWING_KINDS = ['visit', 'valuation'] as const;
export type ViewingKind = (typeof VIEWING_KINDS)[number];

/** The statuses that hold the agent's time: all but `cancelled`. */
export const HOLDING_STATUSES = VIEWING_STATUSES.filter((s) => s !== 'cancelled');

/**
 * What can be done to a viewing (the console's `action`, the lead's answers):
 * - `confirm`: a `requested` viewing is accepted (`scheduled`); a `scheduled` one is confirmed by the lead (`confirmed`);
 * - `cancel`: `requested`, `scheduled` or `confirmed` → `cancelled`;
 * - `done`, `no_show`: a `scheduled` or `confirmed` viewing happened, or the lead did not come;
 * - `reschedule`: a new time for a viewing not yet over; a `confirmed` one goes back to `scheduled`
 *   (the lead confirms the new time), the others keep their status;
 * - `feedback`: the agent's notes of a `done` viewing (`interest` 1–5, `comment`).
 */
export const VIEWING_ACTIONS = ['confirm', 'cancel', 'done', 'no_show', 'reschedule', 'feedback'] as const;
export type ViewingAction = (typeof VIEWING_ACTIONS)[number];

const NEXT: Record<ViewingAction, Partial<Record<ViewingStatus, ViewingStatus>>> = {
  confirm: { requested: 'scheduled', scheduled: 'confirmed' },
  cancel: { requested: 'cancelled', scheduled: 'cancelled', confirmed: 'cancelled' },
  done: { scheduled: 'done', confirmed: 'done' },
  no_show: { scheduled: 'no_show', confirmed: 'no_show' },
  reschedule: { requested: 'requested', scheduled: 'scheduled', confirmed: 'scheduled' },
  feedback: { done: 'done' },
};

/** The status a viewing in `status` has after `action`, or null when the action does not apply to it. */
export function nextStatus(status: ViewingStatus, action: ViewingAction): ViewingStatus | null {
  return NEXT[action][status] ?? null;
}

/** The agent's feedback on a done viewing: the lead's interest 1 (none) to 5 (very high), and a comment. */
export interface ViewingFeedback {
  interest: number;
  comment: string | null;
}

/** Whether `interest` is a valid feedback interest: a whole number 1–5. */
export const isInterest = (interest: unknown): interest is number =>
  Number.isInteger(interest) && (interest as number) >= 1 && (interest as number) <= 5;
