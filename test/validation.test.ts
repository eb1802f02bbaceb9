/** The Pydantic-shaped validator (CONTRACT §2) on JSON input, as import lines use it. */
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { Literals, Nullable } from '../src/schemas/common.ts';
import { validateObject, type ValidationIssue } from '../src/validation/pydantic.ts';

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
