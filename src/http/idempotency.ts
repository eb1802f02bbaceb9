/**
 * `Idempotency-Key` on a route (CONTRACT §13; services/integrations/idempotency.ts has the rules,
 * and the choice between claiming a key first and recording it with the lead, which depends on
 * the engine: this module sees one API for both).
 *
 * A route opts in by spreading {@link idempotentRoute} into its options, running its handler's
 * work through {@link idempotently} and passing {@link keyRecordFor}'s record to the service that
 * stores its lead:
 * - the header is checked with the request's other parts (1–255 printable ASCII characters;
 *   a fault is a Pydantic-shaped 422 at `["header", "idempotency-key"]`);
 * - `preHandler`, once the key and the request are valid, begins the request's hold on the key
 *   (`Idempotency.begin`), or answers at once: the first response again with
 *   `Idempotent-Replayed: true`, 422 for another body, 409 with `Retry-After: 1` while the first
 *   runs;
 * - the handler's work runs under the key (`Idempotency.run`), which may give one of those
 *   answers instead, when the key turns out to be taken only as the lead is stored;
 * - `onSend` lets go of the key of a request that did not succeed (`Idempotency.release`).
 */
import type { FastifyReply, FastifyRequest, onSendHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import { InmoError } from '../errors.ts';
import { isPublishable } from './auth.ts';
import type { Idempotency, KeyAnswer, KeyTicket } from '../services/integrations/idempotency.ts';
import type { KeyRecord } from '../db/repositories/idempotency.ts';
import type { ValidationIssue } from '../validation/validator.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** This request's hold on its Idempotency-Key, or null (no key, or answered without running). */
    idempotencyTicket: KeyTicket | null;
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
  const beginKey: preHandlerAsyncHookHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    request.idempotencyTicket = null;
    const key = request.headers[IDEMPOTENCY_HEADER];
    if (typeof key !== 'string') return;
    const begun = await idempotency.begin({
      keyId: request.apiKey!.keyId,
      idempotencyKey: key,
      method: request.method,
      route: request.routeOptions.url ?? request.url,
      body: request.rawBody ?? '',
    });
    if (begun.kind === 'ticket') request.idempotencyTicket = begun.ticket;
    else await answerAtOnce(request, reply, begun);
  };
  const releaseFailed: onSendHookHandler = (request, reply, payload, done) => {
    const ticket = request.idempotencyTicket;
    if (ticket === null || (reply.statusCode >= 200 && reply.statusCode < 300)) return done(null, payload);
    request.idempotencyTicket = null;
    idempotency.release(ticket).then(
      () => done(null, payload),
      (error: Error) => done(error),
    );
  };
  return { preHandler: beginKey, onSend: releaseFailed };
}

/** Sends the first response again, or throws the 422 or 409, for a request whose key names an earlier one. */
async function answerAtOnce(request: FastifyRequest, reply: FastifyReply, result: KeyAnswer): Promise<void> {
  if (result.kind === 'mismatch') throw new InmoError('IDEMPOTENCY_KEY_REUSED');
  if (result.kind === 'in_flight') throw new InmoError('IDEMPOTENCY_KEY_IN_FLIGHT');
  // The outcome is told only where the first response told it: a 200 to a secret key (CONTRACT §13).
  if (result.status === 200 && !isPublishable(request)) reply.header('inmo-lead-outcome', result.outcome);
  await reply.code(result.status).header('idempotent-replayed', 'true').type('application/json; charset=utf-8').send(result.body);
}

/**
 * Runs a handler's `work` (all of it: what it checks, stores and answers) under the request's
 * Idempotency-Key (services/integrations/idempotency.ts `Idempotency.run`); without a key, `work`
 * as it is.
 * @returns what `work` returns, or the reply when the first response was sent again.
 * @throws what `work` throws; InmoError IDEMPOTENCY_KEY_REUSED (422) or IDEMPOTENCY_KEY_IN_FLIGHT
 *   (409) when the key turns out to name another request.
 */
export async function idempotently<T>(
  idempotency: Idempotency,
  request: FastifyRequest,
  reply: FastifyReply,
  work: () => Promise<T>,
): Promise<T | FastifyReply> {
  const ticket = request.idempotencyTicket;
  if (ticket === null) return work();
  const ran = await idempotency.run(ticket, work);
  if (ran.kind === 'done') return ran.value;
  await answerAtOnce(request, reply, ran);
  return reply;
}

/**
 * The record of the request's response that the intake writes with its lead (services/leads/intake.ts,
 * db/repositories/idempotency.ts `KeyRecord`): `answer` builds the 200 body from the lead's id,
 * exactly as the route sends it; a known person's request kept as an interaction records the 409
 * a secret key is sent (CONTRACT §22), and the 200 for a publishable key (CONTRACT §13).
 * @returns null when the request has no key.
 */
export function keyRecordFor(
  idempotency: Idempotency,
  request: FastifyRequest,
  answer: (leadId: number | null) => unknown,
): KeyRecord | null {
  const known = isPublishable(request) ? null : { status: DUPLICATE.status, body: JSON.stringify({ detail: DUPLICATE.detail }) };
  return idempotency.recordFor(request.idempotencyTicket, answer, known);
}
