/**
 * How every /v1/ext route runs: authenticate (spec §5), then validate path, query and body
 * together (all faults at once, CONTRACT §2), then call the handler with typed input.
 *
 * Fastify's own validator is switched off (see app.ts); the route's TypeBox schemas are
 * still given to Fastify so that @fastify/swagger documents exactly what is checked here.
 */
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { Db } from '../db/database.ts';
import type { Scope } from '../domain/api-key.ts';
import { authenticate, type KeyContext } from '../services/api-keys.ts';
import { validateObject, type ValidationIssue } from '../validation/pydantic.ts';
import { commonErrors } from '../schemas/api.ts';
import { sendUnauthorized, sendValidationErrors } from './errors.ts';

/** The key from `X-Api-Key`, else from `Authorization: ApiKey <key>` (scheme case-insensitive). */
export function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header.trim();
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^\s*apikey\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
    // Another scheme (Bearer, Basic…) is a key in the wrong form: answered as malformed.
    return authorization.trim() === '' ? undefined : authorization;
  }
  return undefined;
}

interface RouteSpec<Q extends TObject, P extends TObject> {
  method: HTTPMethods;
  url: string;
  /** Scope required; null for any active key (GET /me). */
  scope: Scope | null;
  summary: string;
  description?: string;
  operationId: string;
  tags: string[];
  querystring?: Q;
  params?: P;
  /** Documented responses besides the shared 401/422/500. */
  responses: Record<number, TSchema>;
  handler: (
    input: { key: KeyContext; query: Static<Q>; params: Static<P>; request: FastifyRequest },
    reply: FastifyReply,
  ) => Promise<unknown>;
}

/** Registers one API route with authentication and Pydantic-shaped validation. */
export function apiRoute<Q extends TObject, P extends TObject>(app: FastifyInstance, db: Db, spec: RouteSpec<Q, P>): void {
  app.route({
    method: spec.method,
    url: spec.url,
    schema: {
      summary: spec.summary,
      description: spec.description,
      operationId: spec.operationId,
      tags: spec.tags,
      querystring: spec.querystring,
      params: spec.params,
      security: [{ ApiKeyHeader: [] }, { ApiKeyAuthorization: [] }],
      response: { ...spec.responses, ...commonErrors },
    },
    handler: async (request, reply) => {
      const key = await authenticate(db, presentedKey(request));
      if (typeof key === 'string') return sendUnauthorized(reply, key);
      if (spec.scope !== null && !key.scopes.includes(spec.scope)) return sendUnauthorized(reply, 'scope');

      const issues: ValidationIssue[] = [];
      const params = spec.params ? validateObject(spec.params, request.params as Record<string, unknown>, ['path'], 'path', issues) : {};
      const query = spec.querystring
        ? validateObject(spec.querystring, request.query as Record<string, unknown>, ['query'], 'query', issues)
        : {};
      if (issues.length) return sendValidationErrors(reply, issues);
      return spec.handler({ key, query: query as Static<Q>, params: params as Static<P>, request }, reply);
    },
  });
}
