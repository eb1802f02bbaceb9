/**
 * The intake's hook into the transaction that stores a lead (services/leads/intake.ts), apart from
 * it so that new-lead-at-once.ts, which the intake calls, names the hook without importing the
 * intake back.
 */
import type { Transaction } from 'kysely';
import type { Database, LeadOutcome } from '../../db/types.ts';

/**
 * Called inside the transaction that stores a lead's outcome, last (CONTRACT §13: the
 * Idempotency-Key's response is stored with the lead, and so is an interaction's, so that a
 * retry records it once). Throwing rolls everything back.
 * `leadId` is the lead the request created or completed (null when it changed nothing);
 * `about` the lead it concerns, the existing one when it changed nothing (its erasure, CONTRACT
 * §18, removes the record).
 */
export type OnStored = ((
  trx: Transaction<Database>,
  leadId: number | null,
  outcome: LeadOutcome,
  about: number | null,
  /** The request was about a known lead and kept as an interaction (CONTRACT §22): an inquiry's 409 for a secret key. */
  known?: boolean,
) => Promise<void>) & {
  /**
   * The same record said as data, so that a new lead written in one statement on PostgreSQL
   * (services/leads/new-lead-at-once.ts) records it in that statement: the Idempotency-Key, the
   * 200's body for the new lead's id, and, for a key not claimed first (services/integrations/idempotency.ts),
   * the record's fingerprint and times: it is inserted, not updated.
   */
  idempotency?: {
    keyId: string;
    idempotencyKey: string;
    body: (leadId: number) => string;
    insert: { fingerprint: string; createdAt: string; expiresAt: string } | null;
  };
};
