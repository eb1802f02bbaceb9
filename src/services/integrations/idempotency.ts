/**
 * Idempotency-Key on the two lead POSTs (CONTRACT §13), after the IETF httpapi draft
 * "The Idempotency-Key HTTP Header Field" and Stripe's behaviour.
 *
 * Per API key, an Idempotency-Key names one request for 24 h. The first request with it
 * claims it (a `running` row, shared by every process through the database) and, when it
 * succeeds, its status, body and lead outcome are stored in the same transaction as the lead,
 * so a lead never exists without the answer that created it. A later request with the key:
 * - another body (or the other POST): `mismatch` (422);
 * - the first still running: `in_flight` (409, `Retry-After: 1`);
 * - the first done: `replay` of its status and body (`Idempotent-Replayed: true`).
 * A first request that fails (any 4xx or 5xx) releases its claim, so it leaves nothing behind
 * and may be sent again. A claim whose process died lapses after {@link CLAIM_MS}; the retry
 * then runs again (and, the lead being stored, gets what a second attempt gets).
 *
 * Where transactions commit concurrently (PostgreSQL), a request does not claim first: its
 * record is written `done` with its lead, in the lead's own statement or transaction (issue 32:
 * the claim was a statement and a commit of its own, and halved the rate of keyed leads). A key
 * that has a row already makes that write fail whole (a unique violation), and the request then
 * takes the claim above, which answers the replay, 422 or 409, or claims a lapsed or expired key
 * and runs the request again (http/idempotency.ts). Two requests with one new key meet in the
 * key's unique index: the second waits for the first's commit, then replays its answer.
 */
import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { GroupCommit } from '../../db/group-commit.ts';
import * as repo from '../../db/repositories/idempotency.ts';
import type { Database, LeadOutcome } from '../../db/types.ts';
import { toRfc3339 } from '../../domain/time.ts';

/** How long a key names its first request, ms (24 h). */
export const KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a first request may run before its claim lapses, ms. */
export const CLAIM_MS = 60_000;
/** How often a process deletes expired records, ms. */
const PURGE_EVERY_MS = 10 * 60 * 1000;

/** A key that this request claimed: what {@link Idempotency.record} and {@link Idempotency.release} need. */
export interface ClaimedKey {
  keyId: string;
  idempotencyKey: string;
  createdAt: string;
}

export type ClaimResult =
  | { kind: 'claimed'; claim: ClaimedKey }
  | { kind: 'replay'; status: number; body: string; outcome: LeadOutcome }
  | { kind: 'mismatch' }
  | { kind: 'in_flight' };

/**
 * A key a request will record with its lead without claiming it first (PostgreSQL): the record
 * is inserted `done` (db/repositories/idempotency.ts `insertDone`), or fails when the key is taken.
 */
export interface DeferredKey {
  keyId: string;
  idempotencyKey: string;
  fingerprint: string;
  createdAt: string;
  expiresAt: string;
}

/** SHA-256 (hex) of what makes two requests the same: method, route and body bytes. */
export function requestFingerprint(method: string, route: string, body: string): string {
  return createHash('sha256').update(`${method} ${route}\n`).update(body).digest('hex');
}

/** Idempotency-Key records of one process, written through the lead writes' group commit. */
export class Idempotency {
  private lastPurge = 0;

  constructor(
    private readonly writes: GroupCommit,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether requests record their key with their lead instead of claiming it first (see the module's comment). */
  get defers(): boolean {
    return this.writes.concurrent;
  }

  /** The record a request will write with its lead, made now (its 24 h start now). */
  deferred(keyId: string, idempotencyKey: string, fingerprint: string): DeferredKey {
    const now = this.now();
    this.purgeNowAndThen(now);
    return {
      keyId,
      idempotencyKey,
      fingerprint,
      createdAt: toRfc3339(new Date(now)),
      expiresAt: toRfc3339(new Date(now + KEY_TTL_MS)),
    };
  }

  /**
   * Writes a deferred key's record with the response, inside the transaction that stores the lead.
   * @throws the unique violation (db/errors.ts `isKeyTaken`) when the key has a row already.
   */
  async recordDeferred(
    trx: Transaction<Database>,
    key: DeferredKey,
    response: { status: number; body: string; outcome: LeadOutcome; leadId: number | null },
  ): Promise<void> {
    await repo.insertDone(
      trx,
      {
        key_id: key.keyId,
        idempotency_key: key.idempotencyKey,
        fingerprint: key.fingerprint,
        created_at: key.createdAt,
        expires_at: key.expiresAt,
      },
      response,
    );
  }

  /** Whether a key has a row that is not expired: asked for a deferred key's request that failed for its own reasons. */
  async taken(keyId: string, idempotencyKey: string): Promise<boolean> {
    const seen = await (this.writes.alone((db) => repo.findKey(db, keyId, idempotencyKey)) ??
      this.writes.run((trx) => repo.findKey(trx, keyId, idempotencyKey)));
    return seen !== undefined && seen.expires_at > toRfc3339(new Date(this.now()));
  }

  /**
   * Claims `idempotencyKey` for the request with `fingerprint`, or says why it cannot
   * (see the module's comment). Writes only when it claims.
   */
  async claim(keyId: string, idempotencyKey: string, fingerprint: string): Promise<ClaimResult> {
    const now = this.now();
    const claim: repo.Claim = {
      key_id: keyId,
      idempotency_key: idempotencyKey,
      fingerprint,
      locked_until: toRfc3339(new Date(now + CLAIM_MS)),
      created_at: toRfc3339(new Date(now)),
      expires_at: toRfc3339(new Date(now + KEY_TTL_MS)),
    };
    const claimed: ClaimResult = { kind: 'claimed', claim: { keyId, idempotencyKey, createdAt: claim.created_at } };
    this.purgeNowAndThen(now);
    // Where transactions commit concurrently (PostgreSQL), a new key's claim is one statement;
    // a key seen before (or SQLite) takes the transaction below.
    if (await this.writes.alone((db) => repo.insertClaim(db, claim))) return claimed;
    return this.writes.run(async (trx): Promise<ClaimResult> => {
      if (await repo.insertClaim(trx, claim)) return claimed;
      const seen = await repo.findKey(trx, keyId, idempotencyKey);
      // Deleted since the insert looked (released or purged): the next try claims it.
      if (!seen) return (await repo.insertClaim(trx, claim)) ? claimed : { kind: 'in_flight' };
      const at = claim.created_at;
      if (seen.expires_at <= at) return (await repo.takeOver(trx, seen, claim)) ? claimed : { kind: 'in_flight' };
      if (seen.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (seen.state === 'done') return { kind: 'replay', status: seen.status!, body: seen.response!, outcome: seen.outcome! };
      if (seen.locked_until !== null && seen.locked_until > at) return { kind: 'in_flight' };
      return (await repo.takeOver(trx, seen, claim)) ? claimed : { kind: 'in_flight' };
    });
  }

  /** Stores the first response and the lead it concerns, inside the transaction that stores the lead. */
  async record(
    trx: Transaction<Database>,
    claim: ClaimedKey,
    response: { status: number; body: string; outcome: LeadOutcome; leadId: number | null },
  ): Promise<void> {
    await repo.recordResponse(trx, claim.keyId, claim.idempotencyKey, response);
  }

  /** Drops the claim of a request that did not succeed. */
  async release(claim: ClaimedKey): Promise<void> {
    await this.writes.run((trx) => repo.releaseClaim(trx, claim.keyId, claim.idempotencyKey, claim.createdAt));
  }

  /** Deletes expired records at most once every {@link PURGE_EVERY_MS} per process, beside the request. */
  private purgeNowAndThen(now: number): void {
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    this.writes
      .run((trx) => repo.purgeExpired(trx, toRfc3339(new Date(now))))
      .catch(() => {
        // Purging is housekeeping: a failure is retried at the next interval.
        this.lastPurge = 0;
      });
  }
}
