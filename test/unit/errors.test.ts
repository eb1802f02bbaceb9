/**
 * The error catalogue (src/errors.ts): one code per fault, and one message per surface. Over
 * HTTP a message never names a CLI option; the CLI's own message, where it has one, does.
 */
import { describe, expect, it } from 'vitest';
import { ERRORS, InmoError, type ErrorCode } from '../../src/errors.ts';

/** Any value a message's parameters could take: a number, a word, a list. */
const params = new Proxy({}, { get: () => Object.assign([7], { toString: () => '7' }) });
const render = (text: unknown) => (typeof text === 'function' ? (text as (p: unknown) => string)(params) : (text as string));

describe('the error catalogue', () => {
  it('no HTTP message names a CLI option; a CLI message of its own says something else', () => {
    let cliMessages = 0;
    for (const [code, spec] of Object.entries(ERRORS)) {
      expect(render(spec.detail), code).not.toMatch(/(^|[\s(])--[a-z]/);
      if (!('cli' in spec)) continue;
      cliMessages++;
      expect(render(spec.cli), code).not.toBe(render(spec.detail));
    }
    expect(cliMessages).toBeGreaterThan(10);
  });

  it('a missing lead is one code: "Lead not found" over HTTP (CONTRACT §13), its id in the CLI', () => {
    const missing = new InmoError('LEAD_NOT_FOUND', { id: 42 });
    expect([missing.status, missing.detail, missing.cliMessage]).toEqual([404, 'Lead not found', 'No lead with id 42']);
    expect(Object.keys(ERRORS).filter((code) => /LEAD_NOT_FOUND/.test(code))).toEqual(['LEAD_NOT_FOUND'] satisfies ErrorCode[]);
  });

  it('an error without a CLI message of its own says the same on both surfaces', () => {
    const refused = new InmoError('KEY_PUBLISHABLE_SCOPE');
    expect(refused.cliMessage).toBe(refused.detail);
  });
});
