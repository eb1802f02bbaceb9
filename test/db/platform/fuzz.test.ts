/**
 * Fuzzing from the OpenAPI document (issue 6). For every operation of /v1/ext/openapi.json,
 * fast-check builds requests from the document's own parameter and body schemas, valid and
 * invalid (wrong types, junk, missing and extra fields, limits crossed, bodies that are not
 * JSON, and the text that found 500s in issue 55: NUL, lone surrogates, 60,000 characters,
 * 14,000 nested `<b>`). Each response must:
 * - not be a 5xx, except the documented 500 of a malformed ingest `search.budget`;
 * - have a status the document lists for the operation, and a body valid against its schema;
 * - leave the database unchanged when it is a 4xx (a 409 for a known person aside: it keeps the
 *   request as an interaction, CONTRACT §22).
 *
 * `npm test` runs a seeded pass (INMO_FUZZ_RUNS, default 60 per operation); `npm run fuzz`
 * runs 1,000 per operation with a fresh seed (`INMO_FUZZ_SEED=random`), printed so a finding
 * can be replayed with `INMO_FUZZ_SEED=<seed> npm run fuzz`.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { MalformedBudgetError, parseBudget } from '../../../src/domain/leads/rules.ts';
import { importRecords, INTERACTION_TABLES, listing, snapshot } from '../../helpers/db.ts';
import { withApp, API_ONLY } from '../../helpers/http.ts';
import { openApiAjv, responseSchema, type Schema } from '../../helpers/openapi.ts';

const RUNS = Number(process.env.INMO_FUZZ_RUNS) || 60;
const SEED =
  process.env.INMO_FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.INMO_FUZZ_SEED) || 20_261_122;

let db: Db;
let key: string;
let doc: Schema;
let ajv: Ajv;
const statuses = new Map<string, number>();

const t = withApp({
  surfaces: API_ONLY,
  seed: async (opened) => {
    ({ db, key } = opened);
    await importRecords(db, opened.businessId, [
      listing('f1'),
      listing('f2', { operation: 'alquiler', price: null, price_rent: 900 }),
      listing('f3', { public: false }),
      listing('f4', { type: 'casa', subtype: 'chalet', city: 'Zaragoza', lat: 41.65, lon: -0.88 }),
    ]);
  },
});

beforeAll(async () => {
  doc = (await t.app.inject({ method: 'GET', url: '/v1/ext/openapi.json' })).json();
  ajv = openApiAjv(doc);
  process.stdout.write(`[fuzz] ${RUNS} requests per operation, seed ${SEED}\n`);
});

afterAll(async () => {
  const summary = [...statuses.entries()].sort().map(([k, n]) => `${k}: ${n}`);
  process.stdout.write(`[fuzz] responses by operation and status:\n  ${summary.join('\n  ')}\n`);
});

// ---------------------------------------------------------------- arbitraries from schemas

const junk = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

const validPhone = fc.integer({ min: 0, max: 99_999_999 }).map((n) => `6${String(n).padStart(8, '0')}`);

/**
 * `locations` of 1 to 8 polygons of 3 to 1,000 vertices around Madrid (the largest past the
 * 64 KiB limit of the parameter): every size the limits allow is answered without a 5xx.
 */
const polygons = fc
  .tuple(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 3, max: 1000 }), fc.integer({ min: 1, max: 5 }))
  .map(([areas, vertices, lobes]) =>
    JSON.stringify(
      Array.from({ length: areas }, (_, a) => ({
        type: 'polygon',
        coordinates: Array.from({ length: vertices }, (_, k) => {
          const t = (2 * Math.PI * k) / vertices;
          const r = 0.02 * (1 + 0.3 * Math.sin(lobes * t));
          return { lat: +(40.42 + a * 0.01 + r * Math.sin(t)).toFixed(5), lng: +(-3.7 + r * Math.cos(t)).toFixed(5) };
        }),
      })),
    ),
  );

/**
 * Text that found 500s elsewhere (issue 55): NUL, lone surrogates, 60,000 characters (past
 * SQLite's 50,000-byte LIKE pattern, also of `%`, `_` and digits) and 14,000 nested `<b>`.
 */
const HOSTILE_TEXT = fc.constantFrom(
  'a\u0000b',
  '\u0000',
  'Ma\ud800drid',
  '\udfff',
  'x'.repeat(60_000),
  '%_\\'.repeat(20_000),
  '6'.repeat(60_000),
  `${'<b>'.repeat(14_000)}x${'</b>'.repeat(14_000)}`,
);

/** Values real clients send for some fields (valid ones first), so the fuzzer also reaches the success paths. */
const HINTS: Record<string, { valid: fc.Arbitrary<unknown>; any: fc.Arbitrary<unknown> }> = {
  phone_number_1: { valid: validPhone, any: fc.string({ maxLength: 20 }) },
  phone_number_2: { valid: validPhone, any: fc.string({ maxLength: 20 }) },
  landline_phone: {
    valid: fc.integer({ min: 0, max: 9_999_999 }).map((n) => `91${String(n).padStart(7, '0')}`),
    any: fc.string({ maxLength: 20 }),
  },
  phone: { valid: validPhone, any: fc.string({ maxLength: 20 }) },
  phoneE164: { valid: validPhone.map((p) => `+34${p}`), any: fc.string({ maxLength: 20 }) },
  type: {
    valid: fc.constantFrom('buyer', 'tenant', 'owner', 'Comprador', 'agencia-inmobiliaria', 'entidad-bancaria'),
    any: fc.string({ maxLength: 12 }),
  },
  budget: { valid: fc.constantFrom('900', '700-900', '700 - 900', ''), any: fc.constantFrom('900€', '1.000', 'mil', '-', '9'.repeat(40)) },
  habs: { valid: fc.constantFrom('3', '3+', 'tres', ''), any: fc.string({ maxLength: 5 }) },
  locations: { valid: polygons, any: fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('[', '[{"type":"polygon"}]', '{}')) },
  name: {
    valid: fc.constantFrom('Ana García', 'José', 'Zoë O’Brien'),
    any: fc.oneof(fc.constantFrom('  ', ''), fc.string({ maxLength: 60 })),
  },
};

function resolve(schema: Schema): Schema {
  if (typeof schema.$ref === 'string') return resolve(doc.components.schemas[schema.$ref.split('/').pop()!]);
  return schema;
}

/**
 * An arbitrary of values for `schema`. `valid`: what the schema allows (requests that should
 * succeed); otherwise also junk, values past the limits, missing and extra fields.
 */
function valueOf(input: Schema, valid: boolean, depth = 0, name?: string): fc.Arbitrary<unknown> {
  const schema = resolve(input);
  // Hints are for free-text fields; a field with a closed set of values keeps its schema's,
  // unless it is read case-insensitively (the inquiry `type`: its mixed-case and unknown spellings matter).
  const open = !JSON.stringify(schema).includes('"enum"') || schema['x-case-insensitive'] === true;
  const hint = name !== undefined && open ? HINTS[name] : undefined;
  if (valid) return hint ? hint.valid : validValueOf(schema, true, depth);
  const value = hint ? fc.oneof(hint.valid, hint.any) : validValueOf(schema, false, depth);
  return depth > 4 ? value : fc.oneof({ weight: 6, arbitrary: value }, { weight: 1, arbitrary: junk });
}

function validValueOf(schema: Schema, valid: boolean, depth: number): fc.Arbitrary<unknown> {
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((s) => valueOf(s, valid, depth + 1)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return valid
        ? fc.integer({ min: schema.minimum ?? 0, max: schema.maximum ?? 1_000_000 })
        : fc.oneof(fc.integer({ min: -1000, max: 1_000_000 }), fc.constantFrom(-1, 0, 1001, 2 ** 31, Number.MAX_SAFE_INTEGER));
    case 'number':
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }), fc.integer());
    case 'string': {
      const max = Math.min(schema.maxLength ?? 40, 40);
      const min = Math.min(schema.minLength ?? 0, max);
      // ASCII, any Unicode grapheme, and any code unit at all (control characters, NUL, lone surrogates).
      const text = fc.oneof(
        fc.string({ minLength: min, maxLength: max }),
        fc.string({ unit: 'grapheme', minLength: min, maxLength: max }),
        fc.string({ unit: 'binary', minLength: min, maxLength: max }),
      );
      if (valid) return min > 0 ? text.filter((t) => t.trim() !== '') : text;
      return fc.oneof(
        text,
        ...(schema.maxLength !== undefined && schema.maxLength <= 300 ? [fc.constant('x'.repeat(schema.maxLength + 1))] : []),
        HOSTILE_TEXT,
      );
    }
    case 'array': {
      const items = schema.items ? valueOf(schema.items, valid, depth + 1) : junk;
      const some = fc.array(items, { maxLength: Math.min(schema.maxItems ?? 3, 3) });
      if (valid || schema.maxItems === undefined || schema.maxItems > 60) return some;
      return fc.oneof(some, fc.array(items, { minLength: schema.maxItems + 1, maxLength: schema.maxItems + 1 }));
    }
    case 'object':
    default: {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const names = Object.keys(properties);
      if (names.length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), valid ? fc.string({ maxLength: 8 }) : junk, { maxKeys: 3 });
      const required = new Set<string>(schema.required ?? []);
      const record = fc.record(Object.fromEntries(names.map((n) => [n, valueOf(properties[n], valid, depth + 1, n)])), {
        requiredKeys: names.filter((n) => required.has(n)),
      });
      if (valid) return record;
      return record.chain((value) =>
        // Sometimes a required field goes missing, sometimes fields nobody declared come along.
        fc.oneof(
          { weight: 6, arbitrary: fc.constant(value) },
          { weight: 1, arbitrary: fc.constantFrom(...(names.length ? names : [''])).map((n) => omit(value, n)) },
          {
            weight: 1,
            arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), junk, { maxKeys: 3 }).map((extra) => ({ ...extra, ...value })),
          },
        ),
      );
    }
  }
}

function omit(value: Record<string, unknown>, name: string) {
  const { [name]: _dropped, ...rest } = value;
  return rest;
}

interface Request {
  url: string;
  body?: string;
  parsedBody?: unknown;
}

/** Requests for one operation: half built to be valid, half with faults. */
function requestsOf(path: string, operation: Schema): fc.Arbitrary<Request> {
  return fc.oneof(requestsIn(path, operation, true), requestsIn(path, operation, false));
}

function requestsIn(path: string, operation: Schema, valid: boolean): fc.Arbitrary<Request> {
  const parameters = (operation.parameters ?? []) as Schema[];
  const pathParams = parameters.filter((p) => p.in === 'path');
  const queryParams = parameters.filter((p) => p.in === 'query');
  const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  const pathArb = fc.record(
    Object.fromEntries(
      pathParams.map((p) => [
        p.name,
        valid
          ? fc.integer({ min: 1, max: 6 }).map(String)
          : fc.oneof(fc.integer({ min: 1, max: 6 }).map(String), valueOf(p.schema, false).map(asText)),
      ]),
    ),
  );
  const queryArb = fc.record(Object.fromEntries(queryParams.map((p) => [p.name, valueOf(p.schema, valid, 0, p.name).map(asText)])), {
    requiredKeys: [],
  });
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema as Schema | undefined;
  const json = (schema: Schema) => valueOf(schema, valid).map((v) => ({ text: JSON.stringify(v), parsed: v }));
  const notJson = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', '{', '[]', 'null', '{"a":}')).map((text) => ({ text }));
  // A body with a field nested deeper than any form would nest it (CONTRACT §8 allows 64 levels).
  const deep = (schema: Schema) =>
    fc.tuple(valueOf(schema, valid), fc.integer({ min: 1, max: 100_000 })).map(([value, levels]) => {
      const text = JSON.stringify(value);
      const nested = `"nested":${'['.repeat(levels)}${']'.repeat(levels)}`;
      return { text: text.startsWith('{') && text !== '{}' ? `{${nested},${text.slice(1)}` : `{${nested}}`, parsed: value };
    });
  const bodyArb: fc.Arbitrary<{ text?: string; parsed?: unknown }> = !bodySchema
    ? fc.constant({})
    : valid
      ? json(bodySchema)
      : fc.oneof({ weight: 6, arbitrary: json(bodySchema) }, { weight: 1, arbitrary: notJson }, { weight: 1, arbitrary: deep(bodySchema) });
  return fc.tuple(pathArb, queryArb, bodyArb).map(([pathValues, query, body]) => {
    const filled = path.replace(/\{(\w+)\}/g, (_m, name: string) =>
      encodeURIComponent(String((pathValues as Record<string, unknown>)[name])),
    );
    const search = new URLSearchParams(query as Record<string, string>).toString();
    return { url: `/v1/ext${filled}${search ? `?${search}` : ''}`, body: body.text, parsedBody: body.parsed };
  });
}

/** Whether the spec documents a 500 for this request: an ingest whose budget is malformed. */
function documented500(operationId: string, body: unknown): boolean {
  if (operationId !== 'ingestRentalLead') return false;
  const budget = (body as { search?: { budget?: unknown } } | undefined)?.search?.budget;
  if (typeof budget !== 'string') return false;
  try {
    parseBudget(budget);
    return false;
  } catch (error) {
    return error instanceof MalformedBudgetError;
  }
}

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, Schema>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      path,
      method: method.toUpperCase() as 'GET' | 'POST' | 'DELETE' | 'PATCH',
      operation,
    })),
  );

/** A snapshot without the tables a known person's request may write to (CONTRACT §22). */
function withoutInteractions(snap: string): string {
  const tables = Object.entries(JSON.parse(snap) as Record<string, unknown>);
  return JSON.stringify(Object.fromEntries(tables.filter(([name]) => !(INTERACTION_TABLES as readonly string[]).includes(name))));
}

it('every operation: no undocumented 5xx, every response as documented, every 4xx changes nothing', async () => {
  expect(
    operations()
      .map((o) => o.operation.operationId)
      .sort(),
  ).toEqual([
    'createInquiry',
    'createValuation',
    'createViewing',
    'eraseLead',
    'exportLead',
    'getKeyContext',
    'getLead',
    'getLeadMatches',
    'getProperty',
    'getViewingAvailability',
    'ingestRentalLead',
    'listEvents',
    'listLeads',
    'listProperties',
    'listPropertyChanges',
    'listViewings',
    'updateLead',
  ]);
  for (const { path, method, operation } of operations()) {
    const validators = new Map<number, ValidateFunction>();
    await fc.assert(
      fc.asyncProperty(requestsOf(path, operation), async (request) => {
        const before = await snapshot(db);
        const response = await t.app.inject({
          method,
          url: request.url,
          headers: { 'x-api-key': key, ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(request.body !== undefined ? { payload: request.body } : {}),
        });
        const status = response.statusCode;
        const tally = `${operation.operationId} ${status}`;
        statuses.set(tally, (statuses.get(tally) ?? 0) + 1);
        const what = `${method} ${request.url} ${request.body ?? ''} → ${status} ${response.body}`;

        if (status >= 500) {
          expect(documented500(operation.operationId, request.parsedBody), `undocumented ${what}`).toBe(true);
          expect(response.json()).toEqual({ detail: 'Internal Server Error' });
        }
        const schema = responseSchema(operation, status);
        expect(schema, `status not in the document: ${what}`).toBeDefined();
        if (!validators.has(status)) validators.set(status, ajv.compile(schema!));
        const validate = validators.get(status)!;
        expect(validate(response.json()), `${what}\n${JSON.stringify(validate.errors)}`).toBe(true);
        // A 409 for a known person keeps the request as an interaction of that lead (CONTRACT §22), and writes nothing else.
        const known = status === 409 && response.json().detail === 'A lead with this phone number already exists';
        const kept = (snap: string) => (known ? withoutInteractions(snap) : snap);
        if (status >= 400 && status < 500) expect(kept(await snapshot(db)), `a ${status} changed the database: ${what}`).toBe(kept(before));
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }
}, 600_000);

it('what fuzzing found stays fixed: NUL characters in bodies and queries, integers past 32 bits', async () => {
  const send = (method: 'GET' | 'POST', url: string, body?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });
  const inquiry = await send('POST', '/v1/ext/leads/inquiries', {
    name: 'Ana\u0000 Ruiz',
    phone_number_1: '699000111',
    type: 'buyer',
    notes: 'a\u0000b',
  });
  expect(inquiry.statusCode).toBe(200);
  const lead = await db.selectFrom('leads').select(['name']).where('phone_number_1', '=', '+34699000111').executeTakeFirstOrThrow();
  expect(lead.name).toBe('Ana Ruiz');
  const ingest = await send('POST', '/v1/ext/leads/ingest', {
    id: 'x',
    createdAt: 'x',
    source: 'land\u0000ing',
    sourcePage: 'p',
    contact: { name: 'Eva\u0000', phone: '699000112' },
    search: { freeText: '\u0000' },
  });
  expect(ingest.statusCode).toBe(200);
  expect((await send('GET', `/v1/ext/properties?city=${encodeURIComponent('Ma\u0000drid')}`)).json().total).toBe(2);
  expect((await send('GET', '/v1/ext/properties?min_bedrooms=2147483648')).json().total).toBe(0);
});
