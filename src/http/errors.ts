/**
 * The closed catalogue of error responses (spec §7, CONTRACT §2): plain `{detail}` bodies
 * with fixed English sentences, and the Pydantic-shaped 422 body.
 */
import type { FastifyReply } from 'fastify';
import type { ValidationIssue } from '../validation/pydantic.ts';
import type { AuthFailure } from '../services/api-keys.ts';
import type { Scope } from '../domain/api-key.ts';

/**
 * Fixed 401 messages; an unknown key id and a wrong secret share one (CONTRACT §3). Each says
 * what the client should do. A missing scope is named: every operation's scope is public in
 * the OpenAPI document, so naming it leaks nothing.
 */
export const AUTH_MESSAGES: Record<AuthFailure, string> = {
  missing: 'Missing API key: send it in the X-Api-Key header',
  malformed: 'Malformed API key',
  scheme: 'Unsupported authorization scheme: send the key in the X-Api-Key header or as Authorization: ApiKey <key>',
  invalid: 'Invalid API key',
  revoked: 'API key has been revoked',
  expired: 'API key has expired',
};

/** The 401 message of a key that lacks `scope` (e.g. `leads:read`). */
export function missingScopeMessage(scope: Scope): string {
  return `API key lacks the scope this operation requires: ${scope}`;
}

export const NOT_FOUND = 'Not Found';
export const BAD_REQUEST = 'Bad Request';
export const METHOD_NOT_ALLOWED = 'Method Not Allowed';
export const PROPERTY_NOT_FOUND = 'Property not found';
export const BODY_TOO_LARGE = 'Request body too large';
export const INTERNAL_ERROR = 'Internal Server Error';
export const LEAD_NOT_STORED = 'The lead could not be stored';

/** Sends a plain error body. */
export function sendDetail(reply: FastifyReply, status: number, detail: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ detail });
}

/** Sends a 401 with `WWW-Authenticate: ApiKey`: a refused key, or one lacking `{ scope }`. */
export function sendUnauthorized(reply: FastifyReply, reason: AuthFailure | { scope: Scope }): FastifyReply {
  reply.header('www-authenticate', 'ApiKey');
  return sendDetail(reply, 401, typeof reason === 'string' ? AUTH_MESSAGES[reason] : missingScopeMessage(reason.scope));
}

/** Sends the 422 validation body with every fault. */
export function sendValidationErrors(reply: FastifyReply, issues: ValidationIssue[]): FastifyReply {
  return reply.code(422).type('application/json; charset=utf-8').send({ detail: issues });
}
