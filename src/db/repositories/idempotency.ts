/** Idempotency-Key records (migration 0009, CONTRACT §13). SQL only. */
import { sql } from 'kysely';
import type { Executor } from '../database.ts';
import { runCompiledOnce } from '../compiled-once.ts';
import type { IdempotencyKeyTable, LeadOutcome } from '../types.ts';

/** A new claim: the row of a first request, `running` until `locked_until`. */
export interface Claim {
  key_id: string;
  idempotency_key: string;
  fingerprint: string;
  locked_until: string;
  created_at: string;
  expires_at: string;
}

/**
 * Inserts the claim unless the (API key, Idempotency-Key) row exists. (Compiled once: it runs
 * for every idempotent request.) @returns whether it was inserted.
 */
export async function insertClaim(db: Executor, claim: Claim): Promise<boolean> {
  const values = [
    claim.key_id,
    claim.idempotency_key,
    claim.fingerprint,
    'running',
    claim.locked_until,
    claim.created_at,
    claim.expires_at,
  ];
  const rows = await runCompiledOnce<{ key_id: string }>(db, 'insertIdempotencyClaim', values, ([k, i, f, s, l, c, e]) =>
    db
      .insertInto('idempotency_keys')
      .values({ key_id: k, idempotency_key: i, fingerprint: f, state: s as 'running', locked_until: l, created_at: c, expires_at: e })
      .onConflict((oc) => oc.columns(['key_id', 'idempotency_key']).doNothing())
      .returning('key_id'),
  );
  return rows.length === 1;
}

export async function findKey(db: Executor, keyId: string, idempotencyKey: string): Promise<IdempotencyKeyTable | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('key_id', '=', keyId)
    .where('idempotency_key', '=', idempotencyKey)
    .executeTakeFirst();
}

/**
 * Replaces a row that expired, or whose `running` claim lapsed, with `claim`, only while it is
 * still as `seen` (of two requests taking it over at once, one wins). @returns whether it did.
 */
export async function takeOver(db: Executor, seen: IdempotencyKeyTable, claim: Claim): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ ...claim, state: 'running', status: null, response: null, outcome: null, lead_id: null })
    .where('key_id', '=', claim.key_id)
    .where('idempotency_key', '=', claim.idempotency_key)
    .where('created_at', '=', seen.created_at)
    .where('state', '=', seen.state)
    .where((eb) => (seen.locked_until === null ? eb('locked_until', 'is', null) : eb('locked_until', '=', seen.locked_until)))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * The record of a key's first request as it succeeded, written with its lead where no claim was
 * made before (PostgreSQL, services/integrations/idempotency.ts `deferred`). No `on conflict`: where the key
 * has a row already (another request's, done, running or expired), the insert fails with a
 * unique violation of `idempotency_keys_pkey` and its transaction stores nothing.
 */
export async function insertDone(
  db: Executor,
  claim: Omit<Claim, 'locked_until'>,
  response: { status: number; body: string; outcome: LeadOutcome; leadId: number | null },
): Promise<void> {
  await db
    .insertInto('idempotency_keys')
    .values({
      key_id: claim.key_id,
      idempotency_key: claim.idempotency_key,
      fingerprint: claim.fingerprint,
      state: 'done',
      locked_until: null,
      status: response.status,
      response: response.body,
      outcome: response.outcome,
      lead_id: response.leadId,
      created_at: claim.created_at,
      expires_at: claim.expires_at,
    })
    .execute();
}

/** Stores the first response of a claimed key and the lead it concerns. (Compiled once: it runs for every idempotent request.) */
export async function recordResponse(
  db: Executor,
  keyId: string,
  idempotencyKey: string,
  response: { status: number; body: string; outcome: LeadOutcome; leadId: number | null },
): Promise<void> {
  await runCompiledOnce(
    db,
    'recordIdempotentResponse',
    ['done', response.status, response.body, response.outcome, response.leadId, keyId, idempotencyKey, 'running'],
    ([done, status, body, outcome, leadId, k, i, running]) =>
      db
        .updateTable('idempotency_keys')
        .set({
          state: done as 'done',
          locked_until: sql<null>`null`,
          status: status as unknown as number,
          response: body,
          outcome: outcome as LeadOutcome,
          lead_id: leadId as unknown as number | null,
        })
        .where('key_id', '=', k)
        .where('idempotency_key', '=', i)
        .where('state', '=', running as 'running'),
  );
}

/**
 * An Idempotency-Key's record as the request that holds the key writes it with what it stored
 * (CONTRACT §13, §22), said as plain data: the intake writes it in the lead's unit of work
 * ({@link writeKeyRecord}), and a new lead's one statement on PostgreSQL
 * (db/repositories/new-lead-statement.ts) writes it in that statement. Made by
 * services/integrations/idempotency.ts `Idempotency.recordFor`.
 */
export interface KeyRecord {
  keyId: string;
  idempotencyKey: string;
  /**
   * The 200's body, exactly as the route sends it: `beforeId`, then the lead's id (`null` when the
   * request stored no lead) and `afterId`; `afterId` null: a body without the id, `beforeId` alone.
   */
  body: { beforeId: string; afterId: string | null };
  /**
   * The response a request about a known person gets when it is kept as an interaction (CONTRACT
   * §22: an inquiry's 409 to a secret key); null: the 200 above (a publishable key, CONTRACT §13).
   */
  known: { status: number; body: string } | null;
  /**
   * The key was not claimed first (PostgreSQL): its record is inserted `done` with these, and a
   * key that has a row already fails the whole unit of work ({@link insertDone}). null: the key was
   * claimed, and its `running` row is completed ({@link recordResponse}).
   */
  insert: { fingerprint: string; createdAt: string; expiresAt: string } | null;
}

/** The 200's body of a {@link KeyRecord} for `leadId` (null: the request stored no lead). */
export function keyRecordBody(record: KeyRecord, leadId: number | null): string {
  const { beforeId, afterId } = record.body;
  return afterId === null ? beforeId : `${beforeId}${leadId === null ? 'null' : leadId}${afterId}`;
}

/**
 * Writes a request's Idempotency-Key record in the unit of work of what it stored, last.
 * @param stored.leadId the lead the request created or completed, null when it changed nothing;
 *   `about` the lead the request concerns (the existing one when it changed nothing), whose
 *   erasure removes the record (CONTRACT §18); `known`: kept as a known person's interaction.
 * @throws the unique violation of a key not claimed first that has a row already (db/errors.ts
 *   `isKeyTaken`): the caller's unit of work then stores nothing.
 */
export async function writeKeyRecord(
  db: Executor,
  record: KeyRecord,
  stored: { leadId: number | null; outcome: LeadOutcome; about: number | null; known?: boolean },
): Promise<void> {
  const response =
    stored.known && record.known !== null
      ? { status: record.known.status, body: record.known.body, outcome: stored.outcome, leadId: stored.about }
      : // A known person answered like a new one (a publishable key's, POST /valuations') names the known lead where a body names one.
        {
          status: 200,
          body: keyRecordBody(record, stored.known ? stored.about : stored.leadId),
          outcome: stored.outcome,
          leadId: stored.about,
        };
  if (record.insert === null) {
    await recordResponse(db, record.keyId, record.idempotencyKey, response);
    return;
  }
  const { fingerprint, createdAt, expiresAt } = record.insert;
  await insertDone(
    db,
    { key_id: record.keyId, idempotency_key: record.idempotencyKey, fingerprint, created_at: createdAt, expires_at: expiresAt },
    response,
  );
}

/** Deletes a claim whose request did not succeed, so that nothing of it remains. */
export async function releaseClaim(db: Executor, keyId: string, idempotencyKey: string, createdAt: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('key_id', '=', keyId)
    .where('idempotency_key', '=', idempotencyKey)
    .where('created_at', '=', createdAt)
    .where('state', '=', 'running')
    .execute();
}

/** Deletes the records about lead `leadId` (its erasure, CONTRACT §18). */
export async function deleteLeadRecords(db: Executor, leadId: number): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('lead_id', '=', leadId).execute();
}

/** Deletes the records that expired before `now`. @returns how many. */
export async function purgeExpired(db: Executor, now: string): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
