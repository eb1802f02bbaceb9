/**
 * FastAPI/Pydantic compatibility: the one place where inmo departs from Fastify's defaults,
 * because existing clients were written against a FastAPI service (spec §7, CONTRACT §2).
 *
 * - **Validation** runs in `preValidation`, with validation/validator.ts over the route's own
 *   TypeBox schemas (the same objects @fastify/swagger documents): path, query and body are
 *   checked together and every fault is reported at once, as Pydantic v2 words it (`type`,
 *   `loc`, `msg`, `input`, `ctx`), in FastAPI's order. Fastify's validator is off, and its
 *   serializer is plain `JSON.stringify`, so no key is ever dropped by a response schema.
 * - **Bodies** are read by one content-type parser, whatever the type: JSON (or no type) is
 *   parsed here, so text that is not JSON is a 422 `json_invalid` with its character offset,
 *   never Fastify's 400 or 415; any other type reaches validation as text (a 422 too).
 * - **404 and 405**: an unknown path is 404 `Not Found`; a known path with another method is
 *   405 `Method Not Allowed` with `Allow`; a trailing slash or an empty path parameter is a
 *   path FastAPI does not know (404).
 * - **Errors**: one error handler renders the catalogue of src/errors.ts as `{"detail": …}`,
 *   the 422 body, and whatever else as 500 `Internal Server Error`: no stack trace, SQL or
 *   Fastify message reaches a client.
 *
 * Routes opt in to nothing: any route with schemas is validated this way, and any route
 * without (health, metrics) is left alone.
 */
import type { TObject } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { InmoError, RequestValidationError } from '../errors.ts';
import { DEFAULT_LIMITS, tooDeepAt, type Limits } from '../limits.ts';
import { validateObject, type ValidationIssue } from '../validation/validator.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Body rules a schema cannot state, checked with the schema so that all faults come together. */
    refineBody?: (body: Record<string, unknown>, issues: ValidationIssue[]) => void;
    /** Query rules a schema cannot state: made with {@link queryRefinement}, which reads back what it made of the query. */
    refineQuery?: (query: Record<string, unknown>, issues: ValidationIssue[], request: FastifyRequest) => void;
    /** Header rules (loc `["header", name]`), checked with the schemas so that all faults come together. */
    refineHeaders?: (headers: FastifyRequest['headers'], issues: ValidationIssue[]) => void;
  }
  interface FastifyRequest {
    /** The body's text as received (before parsing), or null without a body. */
    rawBody: string | null;
    /** The catalogue code of the error the request was answered with (errors.ts), for its log line; null when none. */
    errorCode: string | null;
  }
}

/**
 * A query rule a schema cannot state, and a typed reader of what it made of each request's
 * query (e.g. the map areas of `locations`): put `refineQuery` in the route's `config`, read
 * the result in the handler with `of(request)`.
 * @param refine reads the validated query, pushes its faults to `issues`, returns its reading.
 */
export function queryRefinement<T>(refine: (query: Record<string, unknown>, issues: ValidationIssue[]) => T) {
  const results = new WeakMap<FastifyRequest, { value: T }>();
  return {
    refineQuery: (query: Record<string, unknown>, issues: ValidationIssue[], request: FastifyRequest): void => {
      results.set(request, { value: refine(query, issues) });
    },
    /** What `refine` made of this request's query. @throws Error when the route did not run it. */
    of(request: FastifyRequest): T {
      const result = results.get(request);
      if (!result) throw new Error('queryRefinement: the route has no refineQuery of this refinement');
      return result.value;
    },
  };
}

/**
 * Text as both engines can store it alike:
 * - U+0000 removed: PostgreSQL cannot store or compare it, and no form means it, so both
 *   engines read `"a\u0000b"` as `"ab"` (found by fuzzing: a 500 on PostgreSQL);
 * - a lone surrogate (`"\ud800"`, half of a UTF-16 pair) replaced by U+FFFD: PostgreSQL
 *   receives it so already (Node encodes it that way), but SQLite stored it as invalid UTF-8.
 */
function storableText(_key: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const wellFormed = SURROGATE.test(value) ? value.replace(LONE_SURROGATE, '\ufffd') : value;
  return wellFormed.includes('\u0000') ? wellFormed.replaceAll('\u0000', '') : wellFormed;
}

const SURROGATE = /[\ud800-\udfff]/;
/** Half of a UTF-16 surrogate pair without its other half (what `String.prototype.toWellFormed`, Node 22+ in our types, replaces). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function storableQuery(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(query).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.map((v) => storableText(name, v)) : storableText(name, value),
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
 * The content-type parser of every request body: JSON (or no type) is parsed, `null` and an
 * empty body are no body; any other type is kept as text for validation to refuse.
 * @param maxDepth the deepest nesting of arrays and objects accepted (CONTRACT §8: 64).
 * @throws RequestValidationError `json_invalid` at `["body", offset]` for text that is not JSON,
 *   or that nests deeper than `maxDepth` (checked before parsing).
 */
export function parseBody(contentType: string | undefined, text: string, maxDepth: number = DEFAULT_LIMITS.jsonDepth): unknown {
  if (text === '') return undefined;
  if (contentType !== undefined && !/[/+]json\b/i.test(contentType)) return text;
  const deep = tooDeepAt(text, maxDepth);
  if (deep !== null) {
    throw new RequestValidationError([
      {
        type: 'json_invalid',
        loc: ['body', deep],
        msg: 'JSON decode error',
        input: {},
        ctx: { error: `nesting deeper than ${maxDepth} levels` },
      },
    ]);
  }
  try {
    // FastAPI treats a JSON null body as no body.
    return JSON.parse(text, storableText) ?? undefined;
  } catch (error) {
    throw new RequestValidationError([
      {
        type: 'json_invalid',
        loc: ['body', jsonErrorOffset(text)],
        msg: 'JSON decode error',
        input: {},
        ctx: { error: (error as Error).message },
      },
    ]);
  }
}

/** The body as a model (CONTRACT §2): missing is `missing`, JSON that is not an object `model_attributes_type`. */
function validateBody(schema: TObject, value: unknown, issues: ValidationIssue[]): Record<string, unknown> | undefined {
  if (value === undefined) {
    issues.push({ type: 'missing', loc: ['body'], msg: 'Field required', input: null });
    return undefined;
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

const PART_RANK: Record<string, number> = { path: 0, query: 1, header: 2, body: 3 };

/**
 * Orders faults as FastAPI reports them: path, then query, then body, each in the order its
 * schema declares fields (refinements are checked after the schema but reported in place).
 */
function inDeclaredOrder(issues: ValidationIssue[], schemas: Record<string, TObject | undefined>): ValidationIssue[] {
  const rank = (issue: ValidationIssue) => {
    const part = String(issue.loc[0]);
    const keys = Object.keys(schemas[part]?.properties ?? {});
    const index = keys.indexOf(String(issue.loc[1]));
    return [PART_RANK[part] ?? 4, index === -1 ? keys.length : index];
  };
  return issues
    .map((issue, i) => ({ issue, i, r: rank(issue) }))
    .sort((a, b) => a.r[0] - b.r[0] || a.r[1] - b.r[1] || a.i - b.i)
    .map((x) => x.issue);
}

/**
 * `preValidation`: path, query and body against the route's schemas, every fault at once.
 * @throws RequestValidationError with every fault (rendered as the 422 body).
 */
function validateRequest(request: FastifyRequest): void {
  const schema = request.routeOptions.schema as { params?: TObject; querystring?: TObject; body?: TObject } | undefined;
  if (!schema || (!schema.params && !schema.querystring && !schema.body)) return;
  const { refineBody, refineQuery, refineHeaders } = request.routeOptions.config;
  const issues: ValidationIssue[] = [];
  const params = schema.params ? validateObject(schema.params, request.params as Record<string, unknown>, ['path'], 'path', issues) : {};
  const query = schema.querystring
    ? validateObject(schema.querystring, storableQuery(request.query as Record<string, unknown>), ['query'], 'query', issues)
    : {};
  refineQuery?.(query, issues, request);
  if (refineHeaders) refineHeaders(request.headers, issues);
  let body: Record<string, unknown> | undefined;
  if (schema.body) {
    body = validateBody(schema.body, request.body, issues);
    if (body && refineBody) refineBody(body, issues);
  }
  if (issues.length)
    throw new RequestValidationError(inDeclaredOrder(issues, { path: schema.params, query: schema.querystring, body: schema.body }));
  request.params = params;
  request.query = query;
  if (schema.body) request.body = body;
}

/** A route with a path parameter reached with it empty (a trailing slash): 404, before anything else runs. */
function emptyParameterIsNotFound(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  const empty = Object.values(request.params as Record<string, string>).some((v) => v === '');
  done(empty ? new InmoError('NOT_FOUND') : undefined);
}

/** Sends a plain `{"detail": …}` body. */
function sendDetail(reply: FastifyReply, status: number, detail: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ detail });
}

/** What Fastify's own client errors become: the catalogue's, never Fastify's wording. */
function asCatalogued(error: FastifyError): InmoError {
  if (error.statusCode === 413) return new InmoError('BODY_TOO_LARGE');
  if (error.statusCode === 408) return new InmoError('REQUEST_TIMEOUT');
  return new InmoError('BAD_REQUEST');
}

/** The one error handler: the catalogue, the 422 body, or 500. */
function renderError(error: Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof RequestValidationError) {
    request.errorCode = 'VALIDATION';
    return reply.code(422).type('application/json; charset=utf-8').send({ detail: error.issues });
  }
  const status = (error as FastifyError).statusCode;
  const known =
    error instanceof InmoError ? error : status !== undefined && status >= 400 && status < 500 ? asCatalogued(error as FastifyError) : null;
  request.errorCode = known?.code ?? 'INTERNAL';
  if (!known) {
    request.log.error({ err: error }, 'unhandled error');
    return sendDetail(reply, 500, new InmoError('INTERNAL').detail);
  }
  // An error that stands for an unexpected failure (its cause) is logged as one.
  if (known.cause !== undefined)
    request.log.error({ err: known.cause }, `${known.code}: ${(known.cause as Error)?.message ?? known.cause}`);
  else if (known.status >= 500) request.log.warn({ err: error }, `server error: ${known.code}`);
  // A client's error is told by the request's own log line (`error`), not a line of its own.
  else request.log.debug({ err: error }, `client error: ${known.code}`);
  reply.headers(known.headers);
  return sendDetail(reply, known.status, known.detail);
}

/** Fastify's `frameworkErrors`: a URL the router cannot decode is a plain 400 like every other error. */
export function frameworkErrors(_error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  sendDetail(reply, 400, new InmoError('BAD_REQUEST').detail);
}

/**
 * Installs the compatibility layer on the root instance, before any route or plugin is
 * registered (Fastify's handlers are encapsulated: plugins registered earlier keep the defaults).
 */
export function fastapiCompatibility(app: FastifyInstance, limits: Pick<Limits, 'jsonDepth'> = DEFAULT_LIMITS): void {
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.decorateRequest('errorCode', null);
  app.decorateRequest('rawBody', null);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, text, done) => {
    request.rawBody = String(text);
    try {
      done(null, parseBody(request.headers['content-type'], String(text), limits.jsonDepth));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  // Hooks in callback style: on the path of every request, a promise apiece is measurable.
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      validateRequest(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  });

  // 405 with `Allow` for a path that exists with other methods: the paths are collected as routes are added.
  const known: Array<{ pattern: RegExp; methods: Set<string> }> = [];
  app.addHook('onRoute', (route) => {
    // `/properties/` reaches the `:property_id` route with an empty id: FastAPI has no such path.
    if (route.url.includes(':')) {
      const existing = route.onRequest === undefined ? [] : [route.onRequest].flat();
      route.onRequest = [emptyParameterIsNotFound, ...existing];
    }
    const source = `^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+')}$`;
    let entry = known.find((k) => k.pattern.source === source);
    if (!entry) known.push((entry = { pattern: new RegExp(source), methods: new Set() }));
    for (const method of [route.method].flat()) entry.methods.add(method);
  });
  app.setNotFoundHandler(async (request) => {
    const path = request.url.split('?')[0];
    const route = known.find((k) => k.pattern.test(path));
    if (route) throw new InmoError('METHOD_NOT_ALLOWED', undefined, { allow: [...route.methods].join(', ') });
    throw new InmoError('NOT_FOUND');
  });
  app.setErrorHandler(renderError);
}
