/**
 * JSON bodies: nested deeper than CONTRACT §8 allows (64 levels) is a 422 `json_invalid`,
 * found before parsing by a scan that cannot overflow the stack however deep the text goes
 * (src/http/request-pipeline.ts). Through the API on both engines: test/db/platform/limits.test.ts. And
 * text is made storable alike on both engines: no U+0000, no lone surrogate.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/errors.ts';
import { parseBody } from '../../src/http/request-pipeline.ts';
import { tooDeepAt } from '../../src/limits.ts';

const JSON_TYPE = 'application/json';
const arrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const objects = (levels: number) => `${'{"k":'.repeat(levels)}0${'}'.repeat(levels)}`;

/** The 422 fault `parseBody` throws for `text`, or null when it parses. */
function fault(text: string) {
  try {
    parseBody(JSON_TYPE, text);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(RequestValidationError);
    return (error as RequestValidationError).issues[0];
  }
}

describe('JSON nesting (CONTRACT §8: 64 levels)', () => {
  it('accepts 64 levels of arrays or objects and refuses 65 with json_invalid at the bracket too deep', () => {
    expect(fault(arrays(64))).toBeNull();
    expect(fault(objects(64))).toBeNull();
    expect(fault(arrays(65))).toEqual({
      type: 'json_invalid',
      loc: ['body', 64],
      msg: 'JSON decode error',
      input: {},
      ctx: { error: 'nesting deeper than 64 levels' },
    });
    expect(fault(objects(65))?.loc).toEqual(['body', 5 * 64]);
  });

  it('refuses 100,000 and 1,000,000 levels without overflowing the stack', () => {
    for (const levels of [100_000, 1_000_000]) {
      expect(fault(arrays(levels))?.type).toBe('json_invalid');
      expect(fault(`{"specs": ${objects(levels)}}`)?.type).toBe('json_invalid');
    }
  });

  it('counts only brackets outside strings, escaped quotes included', () => {
    expect(tooDeepAt(JSON.stringify({ notes: '[[[[{{{{"\\"[[[[' }), 1)).toBeNull();
    expect(tooDeepAt('{"a": "\\"", "b": [[1]]}', 2)).toBe(18);
  });

  it('agrees with the nesting JSON.parse sees, for any JSON value', () => {
    const depthOf = (value: unknown): number =>
      value !== null && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;
    fc.assert(
      fc.property(fc.jsonValue({ depthSize: 'large', maxDepth: 12 }), fc.integer({ min: 0, max: 12 }), (value, max) => {
        const text = JSON.stringify(value);
        expect(tooDeepAt(text, max) === null).toBe(depthOf(value) <= max);
      }),
      { seed: 64, numRuns: 500 },
    );
  });
});

describe('text both engines store alike', () => {
  it('replaces a lone surrogate with U+FFFD and keeps whole pairs, and removes U+0000', () => {
    expect(parseBody(JSON_TYPE, '{"name": "Ana\\ud800 \\udc00x \\ud83d\\ude00 a\\u0000b"}')).toEqual({ name: 'Ana\ufffd \ufffdx 😀 ab' });
  });
});
