/**
 * `Idempotency-Key` on a route (CONTRACT §13; services/integrations/idempotency.ts has the rules).
 *
 * A route opts in by spreading {@link idempotentRoute} into its options, running its handler's
 * work through {@link idempotently} and passing {@link onStoredFor}'s hook to the service that
 * stores its lead:
 * - the header is checked with the request's other parts (1–255 printable ASCII characters;
 *   a fault is a Pydantic-shaped 422 at `["header", "idempotency-key"]`);
 * - `preHandler`, once the key and the request are valid, claims the key, or answers at once:
 *   the first response again with `Idempotent-Replayed: true`, 422 for another body, 409 with
 *   `Retry-After: 1` while the first runs. On PostgreSQL it claims nothing: the key's record is
 *   written with the lead, and a key found taken there is claimed then (`idempotently`), with
 *   the same answers;
 * - `onSend` releases the claim of a request that did not succeed.
 */
import type { FastifyReply, FastifyRequest, onSendHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import { isKeyTaken } from '../db/errors.ts';
import { InmoError } from '../errors.ts';
import { isPublishable } from './auth.ts';
import {
  requestFingerprint,
  type ClaimResult,
  type ClaimedKey,
  type DeferredKey,
  type Idempotency,
} from '../services/integrations/idempotency.ts';
import type { OnStored } from '../services/leads/intake.ts';
import type { LeadOutcome } from '../db/types.ts';
import type { ValidationIssue } from '../validation/validator.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request claimed, or null. */
    idempotencyClaim: ClaimedKey | null;
    /** The Idempotency-Key this request records with its lead without claiming it first (PostgreSQL), or null. */
    idempotencyDeferred: DeferredKey | null;
  }
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** The 409 of a known person's inquiry to a secret key (spec §4.2 rule 4). */
const DUPLICATE = new InmoError('DUPLICATE_PHONE');

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;
const MAX_LENGTH = 255;

/** The header's faults, as FastAPI reports a `Header(min_length=1, max_length=255, pattern=…)`. */
export function checkIdempotencyKey(headers: FastifyRequest['headers'], issues: ValidationIssue[]): void {
  const value = headers[IDEMPOTENCY_HEADER];
  if (value === undefined) return;
  const text = Array.isArray(value) ? value.join(', ') : value;
  const loc = ['header', IDEMPOTENCY_HEADER];
  if (text.length === 0) {
    issues.push({ type: 'string_too_short', loc, msg: 'String should have at least 1 character', input: text, ctx: { min_length: 1 } });
  } else if (text.length > MAX_LENGTH) {
    issues.push({
      type: 'string_too_long',
      loc,
      msg: `String should have at most ${MAX_LENGTH} characters`,
      input: text,
      ctx: { max_length: MAX_LENGTH },
    });
  } else if (!PRINTABLE_ASCII.test(text)) {
    const pattern = '^[\\x20-\\x7e]+$';
    issues.push({ type: 'string_pattern_mismatch', loc, msg: `String should match pattern '${pattern}'`, input: text, ctx: { pattern } });
  }
}

/** Route options that make a POST idempotent under `Idempotency-Key`. */
export function idempotentRoute(idempotency: Idempotency) {
  const claimKey: preHandlerAsyncHookHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    request.idempotencyClaim = null;
    request.idempotencyDeferred = null;
    const key = request.headers[IDEMPOTENCY_HEADER];
    if (typeof key !== 'string') return;
    const fingerprint = requestFingerprint(request.method, request.routeOptions.url ?? request.url, request.rawBody ?? '');
    if (idempotency.defers) {
      request.idempotencyDeferred = idempotency.deferred(request.apiKey!.keyId, key, fingerprint);
      return;
    }
    await settle(request, reply, await idempotency.claim(request.apiKey!.keyId, key, fingerprint));
  };
  const releaseFailed: onSendHookHandler = (request, reply, payload, done) => {
    const claim = request.idempotencyClaim;
    if (claim === null || (reply.statusCode >= 200 && reply.statusCode < 300)) return done(null, payload);
    request.idempotencyClaim = null;
    idempotency.release(claim).then(
      () => done(null, payload),
      (error: Error) => done(error),
    );
  };
  return { preHandler: claimKey, onSend: releaseFailed };
}

/**
 * Acts on a claim's result: keeps the claim on the request, throws the 422 or 409, or sends the
 * first response again. @returns whether the response was sent.
 */
async function settle(request: FastifyRequest, reply: FastifyReply, result: ClaimResult): Promise<boolean> {
  if (result.kind === 'claimed') {
    request.idempotencyClaim = result.claim;
    return false;
  }
  if (result.kind === 'mismatch') throw new InmoError('IDEMPOTENCY_KEY_REUSED');
  if (result.kind === 'in_flight') throw new InmoError('IDEMPOTENCY_KEY_IN_FLIGHT');
  // The outcome is told only where the first response told it: a 200 to a secret key (CONTRACT §13).
  if (result.status === 200 && !isPublishable(request)) reply.header('inmo-lead-outcome', result.outcome);
  await reply.code(result.status).header('idempotent-replayed', 'true').type('application/json; charset=utf-8').send(result.body);
  return true;
}

/**
 * Runs a handler's `work` (all of it: what it checks, stores and answers) under the request's
 * Idempotency-Key. A key claimed in `preHandler`, or none: `work` as it is. A deferred key
 * (PostgreSQL): `work` records it with the lead; when that finds the key taken, or `work` fails
 * while the key has a live row, the key is claimed as `preHandler` would have: the first
 * response again, 422, 409, or, for a lapsed or expired key, the claim and `work` again (the
 * failed try wrote nothing).
 * @returns what `work` returns, or the reply when the first response was sent again.
 */
export async function idempotently<T>(
  idempotency: Idempotency,
  request: FastifyRequest,
  reply: FastifyReply,
  work: () => Promise<T>,
): Promise<T | FastifyReply> {
  const deferred = request.idempotencyDeferred;
  if (deferred === null) return work();
  try {
    return await work();
  } catch (error) {
    if (!isKeyTaken(error) && !(await idempotency.taken(deferred.keyId, deferred.idempotencyKey))) throw error;
    request.idempotencyDeferred = null;
    if (await settle(request, reply, await idempotency.claim(deferred.keyId, deferred.idempotencyKey, deferred.fingerprint))) return reply;
    return work();
  }
}

/**
 * The hook that stores a claimed (or deferred) request's response with its lead
 * (services/leads/intake.ts `OnStored`): `answer` builds the 200 body from the lead's id,
 * exactly as the route sends it. @returns undefined when the request has no key.
 */
export function onStoredFor(
  idempotency: Idempotency,
  request: FastifyRequest,
  answer: (leadId: number | null) => unknown,
): OnStored | undefined {
  const body = (leadId: number | null) => JSON.stringify(answer(leadId));
  // A known person's inquiry is the 409 of a secret key, kept so that a retry records its interaction once (CONTRACT §22).
  const response = (leadId: number | null, outcome: LeadOutcome, about: number | null, known = false) =>
    known && !isPublishable(request)
      ? { status: DUPLICATE.status, body: JSON.stringify({ detail: DUPLICATE.detail }), outcome, leadId: about }
      : { status: 200, body: body(leadId), outcome, leadId: about };
  const deferred = request.idempotencyDeferred;
  if (deferred !== null) {
    const onStored: OnStored = (trx, leadId, outcome, about, known) =>
      idempotency.recordDeferred(trx, deferred, response(leadId, outcome, about, known));
    const { keyId, idempotencyKey, fingerprint, createdAt, expiresAt } = deferred;
    onStored.idempotency = { keyId, idempotencyKey, body, insert: { fingerprint, createdAt, expiresAt } };
    return onStored;
  }
  const claim = request.idempotencyClaim;
  if (claim === null) return undefined;
  const onStored: OnStored = (trx, leadId, outcome, about, known) =>
    idempotency.record(trx, claim, response(leadId, outcome, about, known));
  onStored.idempotency = { keyId: claim.keyId, idempotencyKey: claim.idempotencyKey, body, insert: null };
  return onStored;
}
