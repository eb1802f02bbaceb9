/**
 * The Pydantic-shaped validator (CONTRACT §2) on JSON input, as import lines use it, and on the
 * lead request bodies, whose schemas the OpenAPI document describes more precisely than the
 * validator checks them (map areas, the inquiry `type`, timestamps).
 */
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/limits.ts';
import { Literals, Nullable } from '../../src/schemas/common.ts';
import { leadRequestSchemas } from '../../src/schemas/lead-requests.ts';
import { validateObject, type ValidationIssue } from '../../src/validation/validator.ts';

const Schema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 5, 'x-not-blank': true }),
  count: Type.Optional(Type.Integer({ minimum: 0 })),
  ratio: Type.Optional(Nullable(Type.Number({ maximum: 1 }))),
  flag: Type.Optional(Type.Boolean()),
  op: Type.Optional(Literals(['venta', 'alquiler'] as const, { 'x-case-insensitive': true })),
  tags: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
  nested: Type.Optional(Type.Object({ inner: Type.Integer() })),
  free: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

function check(value: Record<string, unknown>) {
  const issues: ValidationIssue[] = [];
  const out = validateObject(Schema, value, ['body'], 'json', issues);
  return { out, issues };
}

describe('validateObject (json)', () => {
  it('coerces the way Pydantic’s lax mode does and drops unknown keys', () => {
    const { out, issues } = check({ name: 'Ana', count: 3.0, ratio: '0.5', flag: 'yes', op: 'VENTA', extra: 1, free: { a: 1, b: [2] } });
    expect(issues).toEqual([]);
    expect(out).toEqual({ name: 'Ana', count: 3, ratio: 0.5, flag: true, op: 'venta', free: { a: 1, b: [2] } });
  });

  it('reports every fault at once with type, loc, msg, input and ctx', () => {
    const input = { name: '  ', count: 1.5, ratio: 2, flag: [], op: 'compra', tags: ['a', 'b', 'c'], nested: { inner: 'x' } };
    const { issues } = check(input);
    expect(issues).toEqual([
      {
        type: 'string_too_short',
        loc: ['body', 'name'],
        msg: 'String should have at least 1 character',
        input: '  ',
        ctx: { min_length: 1 },
      },
      {
        type: 'int_from_float',
        loc: ['body', 'count'],
        msg: 'Input should be a valid integer, got a number with a fractional part',
        input: 1.5,
      },
      { type: 'less_than_equal', loc: ['body', 'ratio'], msg: 'Input should be less than or equal to 1', input: 2, ctx: { le: 1 } },
      { type: 'bool_type', loc: ['body', 'flag'], msg: 'Input should be a valid boolean', input: [] },
      {
        type: 'literal_error',
        loc: ['body', 'op'],
        msg: "Input should be 'venta' or 'alquiler'",
        input: 'compra',
        ctx: { expected: "'venta' or 'alquiler'" },
      },
      {
        type: 'too_long',
        loc: ['body', 'tags'],
        msg: 'List should have at most 2 items after validation, not 3',
        input: ['a', 'b', 'c'],
        ctx: { field_type: 'List', max_length: 2, actual_length: 3 },
      },
      {
        type: 'int_parsing',
        loc: ['body', 'nested', 'inner'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: 'x',
      },
    ]);
  });

  it('reports a missing field with the whole object as input, and wrong container types', () => {
    const { issues } = check({ tags: 'a', nested: 5 });
    expect(issues).toEqual([
      { type: 'missing', loc: ['body', 'name'], msg: 'Field required', input: { tags: 'a', nested: 5 } },
      { type: 'list_type', loc: ['body', 'tags'], msg: 'Input should be a valid list', input: 'a' },
      { type: 'dict_type', loc: ['body', 'nested'], msg: 'Input should be a valid dictionary', input: 5 },
    ]);
  });

  it('counts string length in code points, as Python does', () => {
    expect(check({ name: '😀😀😀😀😀' }).issues).toEqual([]);
    expect(check({ name: '😀😀😀😀😀😀' }).issues[0]).toMatchObject({ type: 'string_too_long', ctx: { max_length: 5 } });
  });

  it('accepts null only where the schema says so', () => {
    expect(check({ name: 'a', ratio: null }).issues).toEqual([]);
    expect(check({ name: 'a', count: null }).issues[0]).toMatchObject({ type: 'int_type', loc: ['body', 'count'] });
  });
});

describe('the lead request bodies: documented precisely, validated as before', () => {
  const { InquiryBody, IngestBody } = leadRequestSchemas(DEFAULT_LIMITS);
  const validate = (schema: typeof InquiryBody | typeof IngestBody, value: Record<string, unknown>) => {
    const issues: ValidationIssue[] = [];
    const out = validateObject(schema, value, ['body'], 'json', issues);
    return { out, issues };
  };
  const inquiry = (extra: Record<string, unknown>) =>
    validate(InquiryBody, { name: 'Ana', type: 'buyer', phone_number_1: '612345678', ...extra });
  const ingest = (location: unknown) =>
    validate(IngestBody, {
      id: 'f-1',
      createdAt: 'ayer por la tarde',
      source: 'landing',
      sourcePage: 'https://example.com',
      contact: { name: 'Eva', phone: '612345678' },
      search: { location },
    });

  it('reads enumerations from their enum lists: Pydantic’s literal_error, null where nullable', () => {
    expect(InquiryBody.properties.preferred_language.anyOf[0]).toMatchObject({ type: 'string', enum: ['es', 'gb', 'fr', 'ge', 'it'] });
    expect(inquiry({ preferred_language: null, search_preferences: [{ operations: ['alquiler'] }] }).issues).toEqual([]);
    expect(inquiry({ preferred_language: 'en', search_preferences: [{ operations: ['venta', 'compra'] }] }).issues).toEqual([
      {
        type: 'literal_error',
        loc: ['body', 'preferred_language'],
        msg: "Input should be 'es', 'gb', 'fr', 'ge' or 'it'",
        input: 'en',
        ctx: { expected: "'es', 'gb', 'fr', 'ge' or 'it'" },
      },
      {
        type: 'literal_error',
        loc: ['body', 'search_preferences', 0, 'operations', 1],
        msg: "Input should be 'venta', 'alquiler' or 'traspaso'",
        input: 'compra',
        ctx: { expected: "'venta', 'alquiler' or 'traspaso'" },
      },
    ]);
  });

  it('checks the inquiry `type` as text, whatever the document lists: an unknown one is the route’s value_error', () => {
    expect(InquiryBody.properties.type.enum).toContain('comprador');
    for (const type of ['BUYER', 'Comprador', 'cualquiera', '']) expect(inquiry({ type }).issues, type).toEqual([]);
    expect(inquiry({ type: 'x'.repeat(101) }).issues[0]).toMatchObject({ type: 'string_too_long', loc: ['body', 'type'] });
    expect(inquiry({ type: 3 }).issues[0]).toMatchObject({ type: 'string_type', loc: ['body', 'type'] });
  });

  it('accepts any object as a location and keeps it as sent; anything else is dict_type (CONTRACT §4)', () => {
    const kept = [
      { name: 'Madrid' },
      { type: 'circle', center: { lat: 40.4, lon: -3.7 }, radius: 1500, label: 'centro' },
      { type: 'hexagon', side: 3 },
      { type: 'point', lat: 'cuarenta' },
      { geometry: { type: 'Point', coordinates: [-0.88, 41.65] } },
      { type: 'Feature', geometry: { type: 'Polygon', coordinates: [] }, properties: {} },
      {},
    ];
    const asked = inquiry({ search_preferences: [{ locations: kept }] });
    expect(asked.issues).toEqual([]);
    expect((asked.out.search_preferences as Array<{ locations: unknown }>)[0].locations).toEqual(kept);
    for (const location of kept) {
      const ingested = ingest(location);
      expect(ingested.issues, JSON.stringify(location)).toEqual([]);
      expect((ingested.out.search as { location: unknown }).location).toEqual(location);
    }
    expect(ingest(null).issues).toEqual([]);

    const refused = inquiry({ search_preferences: [{ locations: ['Madrid', 3, null, []] }] }).issues;
    expect(refused.map((i) => [i.type, i.loc, i.msg])).toEqual(
      [0, 1, 2, 3].map((i) => ['dict_type', ['body', 'search_preferences', 0, 'locations', i], 'Input should be a valid dictionary']),
    );
    expect(ingest('Madrid').issues).toEqual([
      { type: 'dict_type', loc: ['body', 'search', 'location'], msg: 'Input should be a valid dictionary', input: 'Madrid' },
    ]);
  });
});
