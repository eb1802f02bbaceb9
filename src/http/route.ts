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
import { authenticate, recordKeyUse, type KeyContext } from '../services/api-keys.ts';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { validateObject, type ValidationIssue } from '../validation/pydantic.ts';
import { commonErrors } from '../schemas/api.ts';
import { NOT_FOUND, sendDetail, sendUnauthorized, sendValidationErrors } from './errors.ts';

/**
 * The key from `X-Api-Key`, else from `Authorization: ApiKey <key>` (scheme case-insensitive).
 * @returns the key, undefined when none is sent, or `{ scheme }` when `Authorization` uses
 *   another scheme (`Bearer …`, `Basic …`): the client is told the two forms that work.
 */
export function presentedKey(request: FastifyRequest): string | undefined | { scheme: string } {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header.trim();
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^\s*apikey\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
    return authorization.trim() === '' ? undefined : { scheme: authorization.trim().split(/\s+/)[0] };
  }
  return undefined;
}

/**
 * U+0000 removed from text: PostgreSQL cannot store or compare it, and no form means it, so
 * both engines read `"a\u0000b"` as `"ab"` (found by fuzzing: a 500 on PostgreSQL).
 */
function withoutNul(_key: string, value: unknown): unknown {
  return typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '') : value;
}

function queryWithoutNul(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(query).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.map((v) => withoutNul(name, v)) : withoutNul(name, value),
    ]),
  );
}

/** Character offset of the first JSON syntax error (jsonc-parser, strict: no comments, no trailing commas). */
function jsonErrorOffset(text: string): number {
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  return errors.length ? errors[0].offset : 0;
}

/**
 * The JSON body of a request (CONTRACT §2): a missing body is `missing` at `["body"]`, text
 * that is not JSON is `json_invalid` at `["body", offset]`, JSON that is not an object is
 * `model_attributes_type`; then the schema's own faults.
 */
export function parseJsonBody(request: FastifyRequest, schema: TObject, issues: ValidationIssue[]): Record<string, unknown> | undefined {
  const raw = request.body;
  if (raw === undefined || raw === null || raw === '') {
    issues.push({ type: 'missing', loc: ['body'], msg: 'Field required', input: null });
    return undefined;
  }
  const contentType = request.headers['content-type'];
  let value: unknown = raw;
  if (contentType === undefined || /[/+]json\b/i.test(contentType)) {
    const text = String(raw);
    try {
      value = JSON.parse(text, withoutNul);
    } catch (error) {
      issues.push({
        type: 'json_invalid',
        loc: ['body', jsonErrorOffset(text)],
        msg: 'JSON decode error',
        input: {},
        ctx: { error: (error as Error).message },
      });
      return undefined;
    }
    if (value === null) {
      // FastAPI treats a JSON null body as no body.
      issues.push({ type: 'missing', loc: ['body'], msg: 'Field required', input: null });
      return undefined;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.push({
      type: 'model_attributes_type',
      loc: ['body'],
      msg: 'Input should be a valid dictionary or object to extract fields from',
      input: value,
    });
    return undefined;
  }
  return validateObject(schema, value as Record<string, unknown>, ['body'], 'json', issues);
}

const PART_RANK: Record<string, number> = { path: 0, query: 1, body: 2 };

/**
 * Orders faults as FastAPI reports them: path, then query, then body, each in the order its
 * schema declares fields (refinements are checked after the schema but reported in place).
 */
function inDeclaredOrder(issues: ValidationIssue[], schemas: Record<string, TObject | undefined>): ValidationIssue[] {
  const rank = (issue: ValidationIssue) => {
    const part = String(issue.loc[0]);
    const keys = Object.keys(schemas[part]?.properties ?? {});
    const index = keys.indexOf(String(issue.loc[1]));
    return [PART_RANK[part] ?? 3, index === -1 ? keys.length : index];
  };
  return issues
    .map((issue, i) => ({ issue, i, r: rank(issue) }))
    .sort((a, b) => a.r[0] - b.r[0] || a.r[1] - b.r[1] || a.i - b.i)
    .map((x) => x.issue);
}

interface RouteSpec<Q extends TObject, P extends TObject, B extends TObject = TObject, R = undefined> {
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
  /** JSON request body, required when given. */
  body?: B;
  /** Body rules a schema cannot state, checked with the schema so all faults come together. */
  refine?: (body: Record<string, unknown>, issues: ValidationIssue[]) => void;
  /** Query rules a schema cannot state; what it returns reaches the handler as `refined`. */
  refineQuery?: (query: Static<Q>, issues: ValidationIssue[]) => R;
  /** Runs on arrival, before the body is read (the per-IP rate limit of the POST endpoints). */
  onRequest?: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  /** Documented responses besides the shared 401/422/429/500. */
  responses: Record<number, TSchema>;
  handler: (
    input: { key: KeyContext; query: Static<Q>; params: Static<P>; body: Static<B>; refined: R; request: FastifyRequest },
    reply: FastifyReply,
  ) => Promise<unknown>;
}

/** Registers one API route with authentication and Pydantic-shaped validation. */
export function apiRoute<Q extends TObject, P extends TObject, B extends TObject = TObject, R = undefined>(
  app: FastifyInstance,
  db: Db,
  spec: RouteSpec<Q, P, B, R>,
): void {
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
      ...(spec.body ? { body: spec.body } : {}),
      security: [{ ApiKeyHeader: [] }, { ApiKeyAuthorization: [] }],
      response: { ...commonErrors, ...spec.responses },
    },
    ...(spec.onRequest ? { onRequest: spec.onRequest } : {}),
    handler: async (request, reply) => {
      // `/properties/` reaches the `:property_id` route with an empty id: it is no route at all.
      if (Object.values(request.params as Record<string, string>).some((v) => v === '')) return sendDetail(reply, 404, NOT_FOUND);
      const presented = presentedKey(request);
      if (typeof presented === 'object') return sendUnauthorized(reply, 'scheme');
      const key = await authenticate(db, presented);
      if (typeof key === 'string') return sendUnauthorized(reply, key);
      if (spec.scope !== null && !key.scopes.includes(spec.scope)) return sendUnauthorized(reply, { scope: spec.scope });

      const issues: ValidationIssue[] = [];
      const params = spec.params ? validateObject(spec.params, request.params as Record<string, unknown>, ['path'], 'path', issues) : {};
      const query = spec.querystring
        ? validateObject(spec.querystring, queryWithoutNul(request.query as Record<string, unknown>), ['query'], 'query', issues)
        : {};
      const refined = spec.refineQuery ? spec.refineQuery(query as Static<Q>, issues) : (undefined as R);
      let body: Record<string, unknown> | undefined;
      if (spec.body) {
        body = parseJsonBody(request, spec.body, issues);
        if (body && spec.refine) spec.refine(body, issues);
      }
      if (issues.length) {
        return sendValidationErrors(reply, inDeclaredOrder(issues, { path: spec.params, query: spec.querystring, body: spec.body }));
      }
      const result = await spec.handler(
        { key, query: query as Static<Q>, params: params as Static<P>, body: body as Static<B>, refined, request },
        reply,
      );
      // Only a request that succeeded records the key's use: a 4xx changes nothing.
      if (reply.statusCode < 400) await recordKeyUse(db, key);
      return result;
    },
  });
}
