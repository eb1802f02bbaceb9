/**
 * Validation of request parts and import lines against TypeBox schemas, reporting faults the
 * way FastAPI/Pydantic v2 does (CONTRACT §2): every fault of the input at once, each as
 * `{type, loc, msg, input, ctx?}` with Pydantic's type names and message templates.
 *
 * The same TypeBox schemas feed the OpenAPI document, so the documentation and the checks
 * cannot disagree. Supported schema kinds: Object, String, Integer, Number, Boolean, Array,
 * Literal, Literals (an `enum` of strings, schemas/common.ts), Union (of literals, or a type
 * with Null), Null, Any/Unknown, and LenientObject (any object, kept as sent: schemas/locations.ts).
 *
 * Schema options understood besides JSON Schema's own:
 * - `'x-case-insensitive': true` on a union of string literals: the input is lower-cased first;
 * - `'x-not-blank': true` on a string: `minLength` counts characters after trimming white space;
 * - `pattern` on a string: Pydantic's `string_pattern_mismatch` (the schemas' own, linear expressions).
 */
import { Kind, type TSchema } from '@sinclair/typebox';
import { parseRfc3339 } from '../domain/time.ts';
import { LITERALS_KIND } from '../schemas/common.ts';
import { LENIENT_OBJECT_KIND } from '../schemas/locations.ts';
import type { Loc, ValidationIssue } from '../errors.ts';

export type { Loc, ValidationIssue };

/**
 * Where the input came from. `query`/`path` values are strings (parsed as Pydantic parses
 * them); `json` values are whatever JSON.parse produced (Pydantic's lax mode).
 */
export type InputSource = 'query' | 'path' | 'json';

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off', 'f', 'n']);
const INT_TEXT = /^\s*[+-]?\d+(\.0*)?\s*$/;
const FLOAT_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** Python repr of a string: what Pydantic prints inside `expected`. */
/** Each schema pattern compiled once. */
const PATTERNS = new Map<string, RegExp>();
const patternOf = (pattern: string): RegExp => {
  let compiled = PATTERNS.get(pattern);
  if (compiled === undefined) PATTERNS.set(pattern, (compiled = new RegExp(pattern, 'u')));
  return compiled;
};

function pyRepr(value: unknown): string {
  return typeof value === 'string' ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : String(value);
}

/** `'a', 'b' or 'c'`: Pydantic's list of expected literals. */
export function expectedLiterals(values: unknown[]): string {
  const reprs = values.map(pyRepr);
  return reprs.length === 1 ? reprs[0] : `${reprs.slice(0, -1).join(', ')} or ${reprs[reprs.length - 1]}`;
}

/** Whether `text` has fewer than `min` Unicode code points (Python's length); counts only when UTF-16 length cannot tell. */
function shorterThan(text: string, min: number): boolean {
  if (text.length < min) return true;
  if (text.length >= 2 * min) return false;
  let n = 0;
  for (const _ of text) n++;
  return n < min;
}

/** Whether `text` has more than `max` Unicode code points; counts only when UTF-16 length cannot tell. */
function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  if (text.length > 2 * max) return true;
  let n = 0;
  for (const _ of text) n++;
  return n > max;
}

/**
 * Where a value is: a location as reported, or a key below another place. Built as the
 * validation goes down and written out as a {@link Loc} only for a fault: most values have none.
 */
type Where = Loc | { parent: Where; key: string | number };

function locOf(where: Where): Loc {
  return Array.isArray(where) ? where : [...locOf(where.parent), where.key];
}

function addIssue(
  issues: ValidationIssue[],
  where: Where,
  input: unknown,
  type: string,
  msg: string,
  ctx?: Record<string, unknown>,
): undefined {
  const loc = locOf(where);
  issues.push(ctx ? { type, loc, msg, input, ctx } : { type, loc, msg, input });
  return undefined;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function isLiteralUnion(schema: TSchema): boolean {
  return schema[Kind] === 'Union' && (schema.anyOf as TSchema[]).every((s) => s[Kind] === 'Literal');
}

/** What a union or literal schema allows, worked out once per schema. */
type Choices = { literals: unknown[] } | { nullable: boolean; members: TSchema[] };
const choices = new WeakMap<TSchema, Choices>();

function choicesOf(schema: TSchema): Choices {
  let known = choices.get(schema);
  if (!known) {
    if (isLiteralUnion(schema) || schema[Kind] === 'Literal' || schema[Kind] === LITERALS_KIND) {
      known = {
        literals:
          schema[Kind] === 'Literal'
            ? [schema.const]
            : schema[Kind] === LITERALS_KIND
              ? (schema.enum as unknown[])
              : (schema.anyOf as TSchema[]).map((s) => s.const),
      };
    } else {
      const members = schema.anyOf as TSchema[];
      const nonNull = members.filter((s) => s[Kind] !== 'Null');
      known = { nullable: nonNull.length < members.length, members: nonNull };
    }
    choices.set(schema, known);
  }
  return known;
}

/**
 * Validates and coerces `value` against `schema`, appending faults to `issues`.
 * @returns the coerced value (meaningful only when no fault was added).
 */
export function validateValue(schema: TSchema, value: unknown, loc: Loc, source: InputSource, issues: ValidationIssue[]): unknown {
  return check(schema, value, loc, source, issues);
}

function check(schema: TSchema, value: unknown, loc: Where, source: InputSource, issues: ValidationIssue[]): unknown {
  const fromText = source !== 'json';

  switch (schema[Kind]) {
    case 'Any':
    case 'Unknown':
      return value;
    case LENIENT_OBJECT_KIND:
      // Documented precisely, accepted as any object and kept as sent (schemas/locations.ts).
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return addIssue(issues, loc, value, 'dict_type', 'Input should be a valid dictionary');
      }
      return value;
    case 'Null':
      return value === null ? null : addIssue(issues, loc, value, 'none_required', 'Input should be None');
    case LITERALS_KIND:
    case 'Literal':
    case 'Union': {
      const allowed = choicesOf(schema);
      if ('literals' in allowed) {
        const options = allowed.literals;
        let candidate = value;
        if (schema['x-case-insensitive'] && typeof value === 'string') candidate = value.toLowerCase();
        if (options.includes(candidate)) return candidate;
        const expected = expectedLiterals(options);
        return addIssue(issues, loc, value, 'literal_error', `Input should be ${expected}`, { expected });
      }
      const nonNull = allowed.members;
      if (value === null && allowed.nullable) return null;
      // A type-or-null union reports the type's faults at the same place, as Pydantic does
      // for Optional[X]. Other unions report their first member's faults.
      if (nonNull.length === 1) return check(nonNull[0], value, loc, source, issues);
      const attempts: ValidationIssue[][] = [];
      for (const member of nonNull) {
        const memberIssues: ValidationIssue[] = [];
        const result = check(member, value, loc, source, memberIssues);
        if (memberIssues.length === 0) return result;
        attempts.push(memberIssues);
      }
      issues.push(...attempts[0]);
      return undefined;
    }
    case 'String': {
      if (typeof value !== 'string') return addIssue(issues, loc, value, 'string_type', 'Input should be a valid string');
      const measured = schema['x-not-blank'] ? value.trim() : value;
      if (schema.minLength !== undefined && shorterThan(measured, schema.minLength)) {
        return addIssue(issues, loc, value, 'string_too_short', `String should have at least ${plural(schema.minLength, 'character')}`, {
          min_length: schema.minLength,
        });
      }
      if (schema.maxLength !== undefined && longerThan(value, schema.maxLength)) {
        return addIssue(issues, loc, value, 'string_too_long', `String should have at most ${plural(schema.maxLength, 'character')}`, {
          max_length: schema.maxLength,
        });
      }
      // Pydantic's words for a `pattern` (the schemas' patterns are simple, linear expressions).
      if (schema.pattern !== undefined && !patternOf(schema.pattern).test(value)) {
        return addIssue(issues, loc, value, 'string_pattern_mismatch', `String should match pattern '${schema.pattern}'`, {
          pattern: schema.pattern,
        });
      }
      return value;
    }
    case 'Integer':
    case 'Number': {
      const integer = schema[Kind] === 'Integer';
      let n: number;
      if (typeof value === 'number' && !fromText) {
        n = value;
        if (integer && !Number.isInteger(n)) {
          return addIssue(issues, loc, value, 'int_from_float', 'Input should be a valid integer, got a number with a fractional part');
        }
      } else if (typeof value === 'string') {
        if (integer ? !INT_TEXT.test(value) : !FLOAT_TEXT.test(value)) {
          if (!integer && /^\s*[+-]?(inf(inity)?|nan)\s*$/i.test(value)) {
            return addIssue(issues, loc, value, 'finite_number', 'Input should be a finite number');
          }
          return integer
            ? addIssue(issues, loc, value, 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer')
            : addIssue(issues, loc, value, 'float_parsing', 'Input should be a valid number, unable to parse string as a number');
        }
        // Python integers are unbounded: a huge one is still an integer, then checked against the bounds.
        n = Number(value.trim());
      } else {
        return addIssue(
          issues,
          loc,
          value,
          integer ? 'int_type' : 'float_type',
          `Input should be a valid ${integer ? 'integer' : 'number'}`,
        );
      }
      if (schema.minimum !== undefined && n < schema.minimum) {
        return addIssue(issues, loc, value, 'greater_than_equal', `Input should be greater than or equal to ${schema.minimum}`, {
          ge: schema.minimum,
        });
      }
      if (schema.exclusiveMinimum !== undefined && n <= schema.exclusiveMinimum) {
        return addIssue(issues, loc, value, 'greater_than', `Input should be greater than ${schema.exclusiveMinimum}`, {
          gt: schema.exclusiveMinimum,
        });
      }
      if (schema.maximum !== undefined && n > schema.maximum) {
        return addIssue(issues, loc, value, 'less_than_equal', `Input should be less than or equal to ${schema.maximum}`, {
          le: schema.maximum,
        });
      }
      return n;
    }
    case 'Boolean': {
      if (typeof value === 'boolean') return value;
      if (typeof value === 'number' && !fromText && (value === 0 || value === 1)) return value === 1;
      if (typeof value === 'string') {
        const word = value.trim().toLowerCase();
        if (TRUE_WORDS.has(word)) return true;
        if (FALSE_WORDS.has(word)) return false;
        return addIssue(issues, loc, value, 'bool_parsing', 'Input should be a valid boolean, unable to interpret input');
      }
      return addIssue(issues, loc, value, 'bool_type', 'Input should be a valid boolean');
    }
    case 'Array': {
      if (!Array.isArray(value)) return addIssue(issues, loc, value, 'list_type', 'Input should be a valid list');
      if (schema.maxItems !== undefined && value.length > schema.maxItems) {
        return addIssue(
          issues,
          loc,
          value,
          'too_long',
          `List should have at most ${plural(schema.maxItems, 'item')} after validation, not ${value.length}`,
          {
            field_type: 'List',
            max_length: schema.maxItems,
            actual_length: value.length,
          },
        );
      }
      return value.map((item, i) => check(schema.items as TSchema, item, { parent: loc, key: i }, source, issues));
    }
    case 'Object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return addIssue(issues, loc, value, 'dict_type', 'Input should be a valid dictionary');
      }
      return checkObject(schema, value as Record<string, unknown>, loc, source, issues);
    }
    default:
      throw new Error(`Schema kind ${String(schema[Kind])} is not supported by the validator`);
  }
}

const shapes = new WeakMap<TSchema, { required: Set<string>; properties: Array<[string, TSchema]> }>();

/** The required set and property list of an object schema, computed once per schema. */
function objectShape(schema: TSchema) {
  let shape = shapes.get(schema);
  if (!shape) {
    shape = { required: new Set<string>(schema.required ?? []), properties: Object.entries(schema.properties as Record<string, TSchema>) };
    shapes.set(schema, shape);
  }
  return shape;
}

/**
 * Validates the declared properties of an object; unknown keys are ignored (and dropped)
 * unless the schema says `additionalProperties: true`, when they are kept as they are.
 * A missing required field reports `missing` with the whole object as `input`, as Pydantic
 * does; query and path parts report `input: null` instead.
 */
export function validateObject(
  schema: TSchema,
  value: Record<string, unknown>,
  loc: Loc,
  source: InputSource,
  issues: ValidationIssue[],
): Record<string, unknown> {
  return checkObject(schema, value, loc, source, issues);
}

function checkObject(
  schema: TSchema,
  value: Record<string, unknown>,
  loc: Where,
  source: InputSource,
  issues: ValidationIssue[],
): Record<string, unknown> {
  const { required, properties } = objectShape(schema);
  const out: Record<string, unknown> = {};
  for (const [key, propSchema] of properties) {
    let raw = value[key];
    // A repeated query parameter: FastAPI keeps the last value for a scalar.
    if (source !== 'json' && Array.isArray(raw)) raw = raw[raw.length - 1];
    if (raw === undefined) {
      if (required.has(key)) {
        issues.push({ type: 'missing', loc: [...locOf(loc), key], msg: 'Field required', input: source === 'json' ? value : null });
      } else if (propSchema.default !== undefined) {
        out[key] = propSchema.default;
      }
      continue;
    }
    out[key] = check(propSchema, raw, { parent: loc, key }, source, issues);
  }
  if (schema.additionalProperties === true) {
    for (const [key, extra] of Object.entries(value)) if (!(key in out) && !(key in schema.properties)) out[key] = extra;
  }
  return out;
}

/**
 * An RFC 3339 date-time with an offset, as Pydantic's `AwareDatetime` reports a fault
 * (CONTRACT §2): `timezone_aware` without an offset, `datetime_from_date_parsing` otherwise.
 * @returns the instant in the canonical form of domain/time.ts, or undefined (the fault pushed to `issues`).
 */
export function readAwareDatetime(text: string, loc: Loc, issues: ValidationIssue[]): string | undefined {
  const instant = parseRfc3339(text);
  if (instant !== null) return instant;
  if (parseRfc3339(`${text}Z`) !== null) {
    issues.push({ type: 'timezone_aware', loc, msg: 'Input should have timezone info', input: text });
  } else {
    const error = 'expected an RFC 3339 date-time with an offset, such as 2026-11-23T09:30:00Z';
    issues.push({
      type: 'datetime_from_date_parsing',
      loc,
      msg: `Input should be a valid datetime or date, ${error}`,
      input: text,
      ctx: { error },
    });
  }
  return undefined;
}

/**
 * A calendar date `YYYY-MM-DD` that exists, as Pydantic's `date` reports a fault (`date_parsing`).
 * @returns the date, or undefined (the fault pushed to `issues`).
 */
export function readDate(text: string, loc: Loc, issues: ValidationIssue[]): string | undefined {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : null;
  // A date that does not exist (2026-02-30) parses to NaN or rolls over into another day.
  if (day !== null && !Number.isNaN(day.getTime()) && day.toISOString().startsWith(text)) return text;
  const error = 'expected a date in the format YYYY-MM-DD, such as 2026-03-30';
  issues.push({
    type: 'date_parsing',
    loc,
    msg: `Input should be a valid date in the format YYYY-MM-DD, ${error}`,
    input: text,
    ctx: { error },
  });
  return undefined;
}
