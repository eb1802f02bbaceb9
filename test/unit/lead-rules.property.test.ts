/** Property-based tests (fast-check) of phone normalisation and budget parsing (spec §4.2, §4.3). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MalformedBudgetError, parseBudget, parseHabs } from '../../src/domain/leads/rules.ts';
import { normalizePhone } from '../../src/domain/leads/phone.ts';

const E164 = /^\+[1-9]\d{6,14}$/;
const spanishMobile = fc.integer({ min: 600_000_000, max: 699_999_999 }).map(String);
const separators = fc.constantFrom('', ' ', '-', '.');

/** A Spanish number written the ways people write it. */
const writtenSpanish = fc
  .tuple(spanishMobile, separators, fc.constantFrom('', '+34 ', '+34', '0034', '(+34) ', '34 '))
  .map(([digits, sep, prefix]) => ({
    digits,
    text: prefix + [digits.slice(0, 3), digits.slice(3, 6), digits.slice(6)].join(sep),
  }));

describe('normalizePhone', () => {
  it('reads every written form of a Spanish mobile as the same E.164 number', () => {
    fc.assert(
      fc.property(writtenSpanish, ({ digits, text }) => {
        const phone = normalizePhone(text);
        // "34 6xx…" without + is a Spanish national number only if valid; others must be +34<digits>.
        if (!text.startsWith('34 ')) expect(phone).toBe(`+34${digits}`);
      }),
      { seed: 7, numRuns: 500 },
    );
  });

  it('is idempotent and yields E.164 or nothing, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.stringMatching(/^\+?[0-9 ()-]{3,20}$/),
          writtenSpanish.map((w) => w.text),
        ),
        (text) => {
          const phone = normalizePhone(text);
          if (phone !== null) {
            expect(phone).toMatch(E164);
            expect(normalizePhone(phone)).toBe(phone);
          }
        },
      ),
      { seed: 11, numRuns: 2000 },
    );
  });

  it.each([
    ['612 34 56 78', '+34612345678'],
    ['+34 612-345-678', '+34612345678'],
    ['0034612345678', '+34612345678'],
    ['(+34) 976 12 34 56', '+34976123456'],
    ['876 21 09 00', '+34876210900'],
    ['+33 6 12 34 56 78', '+33612345678'],
    ['+44 7911 123456', '+447911123456'],
    ['+1 212 555', null],
    ['+1 202 456 1111', '+12024561111'],
    ['12345', null],
    ['', null],
  ])('%s → %s', (text, expected) => {
    expect(normalizePhone(text)).toBe(expected);
  });
});

describe('parseBudget', () => {
  it('gives the whole number, or the upper bound of a range, for every well-formed budget', () => {
    fc.assert(
      fc.property(fc.nat(1_000_000), fc.nat(1_000_000), fc.constantFrom('', ' '), (a, b, space) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(parseBudget(String(high))).toBe(high);
        expect(parseBudget(`${low}${space}-${space}${high}`)).toBe(high);
      }),
      { seed: 3, numRuns: 500 },
    );
  });

  it('throws for anything with a currency sign, decimal separator, word or reversed range', () => {
    fc.assert(
      fc.property(fc.nat(100_000), fc.constantFrom('€', ' €', '.5', ',50', ' euros', 'k', '$'), (n, suffix) => {
        expect(() => parseBudget(`${n}${suffix}`)).toThrow(MalformedBudgetError);
      }),
      { seed: 5, numRuns: 300 },
    );
    expect(() => parseBudget('900-700')).toThrow(MalformedBudgetError);
    expect(() => parseBudget('mil')).toThrow(MalformedBudgetError);
  });

  it('treats a missing or blank budget as none', () => {
    expect(parseBudget(undefined)).toBeNull();
    expect(parseBudget(null)).toBeNull();
    expect(parseBudget('  ')).toBeNull();
  });
});

describe('parseHabs', () => {
  it.each([
    ['3', 3],
    ['3+', 3],
    [' 2 + ', 2],
    ['dos', null],
    ['2-3', null],
    [undefined, null],
  ])('%s → %s', (habs, expected) => {
    expect(parseHabs(habs)).toBe(expected);
  });
});
