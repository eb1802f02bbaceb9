/**
 * Idempotency-Key on the POSTs that create: the two lead POSTs (CONTRACT §13) and POST /viewings
 * (§20), after the IETF httpapi draft "The Idempotency-Key HTTP Header Field" and Stripe's
 * behaviour.
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
 * and runs the request again. Two requests with one new key meet in the key's unique index: the
 * second waits for the first's commit, then replays its answer.
 *
 * That choice is made here alone (by group commit's `concurrent`, db/group-commit.ts): a caller
 * (http/idempotency.ts) sees one API for both, a request's {@link KeyTicket}:
 * {@link Idempotency.begin} (a ticket, or the replay, 422 or 409 to answer at once),
 * {@link Idempotency.run} (the request's work, and the answer a key found taken gets instead),
 * {@link Idempotency.recordFor} (the record the intake writes with the lead, as data),
 * {@link Idempotency.onResponse} (the same for another POST, with what it wrote) and
 * {@link Idempotency.release} (after a response that is not a success).
 */
import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import { isKeyTaken } from '../../db/errors.ts';
import type { GroupCommit } from '../../db/group-commit.ts';
import * as repo from '../../db/repositories/idempotency.ts';
import type { KeyRecord } from '../../db/repositories/idempotency.ts';
import type { Database, LeadOutcome } from '../../db/types.ts';
import { toRfc3339 } from '../../domain/time.ts';

/** How long a key names its first request, ms (24 h). */
export const KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a first request may run before its claim lapses, ms. */
export const CLAIM_MS = 60_000;
/** Numbers no body is expected to hold: where one stands in a body, the lead's id goes ({@link bodyAroundId}). */
const ID_MARKS = [987_654_321_012_345, 876_543_210_123_457, 765_432_101_234_569];

/**
 * The 200's body split around the lead's id. A body that is the same whatever the id holds none
 * (a publishable key's); otherwise the id stands where a mark stands, given a mark that the
 * body's other words do not hold (a business name holding one is answered with the next).
 * @throws Error when every mark is ambiguous.
 */
function bodyAroundId(answer: (leadId: number | null) => unknown): KeyRecord['body'] {
  const bodies = [ID_MARKS[0], ID_MARKS[1]].map((mark) => JSON.stringify(answer(mark)));
  if (bodies[0] === bodies[1]) return { beforeId: bodies[0], afterId: null };
  for (const [i, mark] of ID_MARKS.entries()) {
    const parts = (bodies[i] ?? JSON.stringify(answer(mark))).split(String(mark));
    if (parts.length === 2) return { beforeId: parts[0], afterId: parts[1] };
  }
  throw new Error("the response's body holds the lead's id where it cannot be told apart");
}

/** How often a process deletes expired records, ms. */
const PURGE_EVERY_MS = 10 * 60 * 1000;

/** The parts of a request that its Idempotency-Key names: the API key's id, the key, and what makes two requests the same. */
export interface KeyedRequest {
  keyId: string;
  idempotencyKey: string;
  method: string;
  /** The route's pattern (`/v1/ext/leads/inquiries`), so that the two POSTs never share a key's record. */
  route: string;
  /** The body's bytes as received. */
  body: string;
}

/** What a request with a key that names an earlier request gets instead of running (CONTRACT §13). */
export type KeyAnswer =
  /** The first request's response again (`Idempotent-Replayed: true`). */
  | { kind: 'replay'; status: number; body: string; outcome: LeadOutcome }
  /** Another body or route with the key: 422 IDEMPOTENCY_KEY_REUSED. */
  | { kind: 'mismatch' }
  /** The first request still running: 409 IDEMPOTENCY_KEY_IN_FLIGHT. */
  | { kind: 'in_flight' };

/**
 * A request's hold on its Idempotency-Key, from {@link Idempotency.begin} to its response.
 * Opaque: how it holds the key (claimed first, or to be recorded with its lead) is this module's.
 */
export interface KeyTicket {
  readonly keyId: string;
  readonly idempotencyKey: string;
}

/** A key that this request claimed: what {@link Idempotency.release} and the record need. */
interface ClaimedKey {
  keyId: string;
  idempotencyKey: string;
  createdAt: string;
}

type ClaimResult = { kind: 'claimed'; claim: ClaimedKey } | KeyAnswer;

/**
 * A key a request will record with its lead without claiming it first (PostgreSQL): the record
 * is inserted `done` (db/repositories/idempotency.ts `insertDone`), or fails when the key is taken.
 */
interface DeferredKey {
  keyId: string;
  idempotencyKey: string;
  fingerprint: string;
  createdAt: string;
  expiresAt: string;
}

/** How a ticket holds its key now: claimed, deferred (recorded with the lead), or not at all (answered, or released). */
type Hold = { kind: 'claimed'; claim: ClaimedKey } | { kind: 'deferred'; key: DeferredKey } | { kind: 'none' };

const holds = new WeakMap<KeyTicket, Hold>();

function ticket(keyId: string, idempotencyKey: string, hold: Hold): KeyTicket {
  const made: KeyTicket = Object.freeze({ keyId, idempotencyKey });
  holds.set(made, hold);
  return made;
}

const holdOf = (key: KeyTicket): Hold => holds.get(key) ?? { kind: 'none' };

/** The response a request stores with its lead. */
type StoredResponse = { status: number; body: string; outcome: LeadOutcome; leadId: number | null };

/**
 * Stores a request's response inside the transaction of what the request wrote, last (a POST
 * that is not a lead's: POST /viewings). `leadId`: the lead it concerns, whose erasure removes
 * the record (CONTRACT §18). Throwing rolls everything back.
 */
export type RecordResponse = (
  trx: Transaction<Database>,
  response: { status: number; body: string; leadId: number | null },
) => Promise<void>;

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

  /**
   * Takes the request's key: claims it first (SQLite), or, where transactions commit
   * concurrently (PostgreSQL), makes the record it will write with its lead (its 24 h start now)
   * and claims nothing yet (see the module's comment).
   * @returns `ticket`, the request's hold on the key, to pass to {@link run}, {@link recordFor} and
   *   {@link release}; or what the request gets instead of running: `replay`, `mismatch` (422),
   *   `in_flight` (409).
   * @throws the database's error when the claim cannot be written.
   */
  async begin(request: KeyedRequest): Promise<{ kind: 'ticket'; ticket: KeyTicket } | KeyAnswer> {
    const { keyId, idempotencyKey } = request;
    const fingerprint = requestFingerprint(request.method, request.route, request.body);
    if (this.writes.concurrent) {
      return {
        kind: 'ticket',
        ticket: ticket(keyId, idempotencyKey, { kind: 'deferred', key: this.deferred(keyId, idempotencyKey, fingerprint) }),
      };
    }
    const result = await this.claim(keyId, idempotencyKey, fingerprint);
    if (result.kind !== 'claimed') return result;
    return { kind: 'ticket', ticket: ticket(keyId, idempotencyKey, { kind: 'claimed', claim: result.claim }) };
  }

  /**
   * Runs the request's `work` (all of it: what it checks, stores and answers) under its key. A
   * claimed key: `work` as it is. A deferred key: `work` records it with the lead; when that finds
   * the key taken, or `work` fails while the key has a live row, the key is claimed as
   * {@link begin} claims on SQLite: the first response again, 422, 409, or, for a lapsed or
   * expired key, the claim and `work` again (the failed try wrote nothing).
   * @returns `done` with what `work` returned, or what the request gets instead (as {@link begin}).
   * @throws what `work` throws (a deferred key's record not written), or the database's error.
   */
  async run<T>(key: KeyTicket, work: () => Promise<T>): Promise<{ kind: 'done'; value: T } | KeyAnswer> {
    const hold = holdOf(key);
    if (hold.kind !== 'deferred') return { kind: 'done', value: await work() };
    try {
      return { kind: 'done', value: await work() };
    } catch (error) {
      if (!isKeyTaken(error) && !(await this.taken(key.keyId, key.idempotencyKey))) throw error;
      holds.set(key, { kind: 'none' });
      const result = await this.claim(hold.key.keyId, hold.key.idempotencyKey, hold.key.fingerprint);
      if (result.kind !== 'claimed') return result;
      holds.set(key, { kind: 'claimed', claim: result.claim });
      return { kind: 'done', value: await work() };
    }
  }

  /**
   * The record of the request's response that the intake writes with its lead
   * (db/repositories/idempotency.ts `writeKeyRecord`, in the lead's unit of work or its one
   * statement), for the ticket's hold when the intake is called: plain data, no hook.
   * @param answer the 200's body for the lead's id, exactly as the route sends it.
   * @param known the response a request about a known person gets when the intake keeps it as an
   *   interaction (CONTRACT §22: an inquiry's 409 to a secret key), or null when that is the 200
   *   too (a publishable key, CONTRACT §13).
   * @returns null without a ticket, or once the ticket holds nothing.
   * @throws Error when `answer` writes the lead's id more than once (its place would be ambiguous).
   */
  recordFor(
    key: KeyTicket | null,
    answer: (leadId: number | null) => unknown,
    known: { status: number; body: string } | null,
  ): KeyRecord | null {
    const hold = key === null ? ({ kind: 'none' } as const) : holdOf(key);
    if (hold.kind === 'none') return null;
    const body = bodyAroundId(answer);
    if (hold.kind === 'deferred') {
      const { keyId, idempotencyKey, fingerprint, createdAt, expiresAt } = hold.key;
      return { keyId, idempotencyKey, body, known, insert: { fingerprint, createdAt, expiresAt } };
    }
    return { keyId: hold.claim.keyId, idempotencyKey: hold.claim.idempotencyKey, body, known, insert: null };
  }

  /**
   * The hook that stores the response of a POST that is not a lead's (POST /viewings) with what
   * it wrote, for the ticket's hold: a claimed key's record is completed, a deferred key's record
   * inserted (failing whole when the key is taken, as {@link run} expects).
   * @returns undefined without a ticket, or once the ticket holds nothing.
   */
  onResponse(key: KeyTicket | null): RecordResponse | undefined {
    const hold = key === null ? ({ kind: 'none' } as const) : holdOf(key);
    // `outcome` is the lead POSTs' (Inmo-Lead-Outcome, told only with a 200): what such a request did is `created`.
    if (hold.kind === 'deferred') return (trx, response) => this.recordDeferred(trx, hold.key, { ...response, outcome: 'created' });
    if (hold.kind === 'claimed') return (trx, response) => this.record(trx, hold.claim, { ...response, outcome: 'created' });
    return undefined;
  }

  /**
   * Lets go of the key of a request that did not succeed (any 4xx or 5xx), so that it leaves
   * nothing behind and may be sent again: a claimed key's row is deleted; a deferred key has
   * none (its record is written only with a lead). The ticket holds nothing afterwards.
   * @throws the database's error when the claim cannot be deleted.
   */
  async release(key: KeyTicket): Promise<void> {
    const hold = holdOf(key);
    holds.set(key, { kind: 'none' });
    if (hold.kind === 'claimed') await this.releaseClaim(hold.claim);
  }

  /** The record a request will write with its lead, made now (its 24 h start now). */
  private deferred(keyId: string, idempotencyKey: string, fingerprint: string): DeferredKey {
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
  private async recordDeferred(trx: Transaction<Database>, key: DeferredKey, response: StoredResponse): Promise<void> {
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
  private async taken(keyId: string, idempotencyKey: string): Promise<boolean> {
    const seen = await (this.writes.alone((db) => repo.findKey(db, keyId, idempotencyKey)) ??
      this.writes.run((trx) => repo.findKey(trx, keyId, idempotencyKey)));
    return seen !== undefined && seen.expires_at > toRfc3339(new Date(this.now()));
  }

  /**
   * Claims `idempotencyKey` for the request with `fingerprint`, or says why it cannot
   * (see the module's comment). Writes only when it claims.
   */
  private async claim(keyId: string, idempotencyKey: string, fingerprint: string): Promise<ClaimResult> {
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
  private async record(trx: Transaction<Database>, claim: ClaimedKey, response: StoredResponse): Promise<void> {
    await repo.recordResponse(trx, claim.keyId, claim.idempotencyKey, response);
  }

  /** Drops the claim of a request that did not succeed. */
  private async releaseClaim(claim: ClaimedKey): Promise<void> {
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
