/**
 * INMO_PULL_WITHDRAW_MAX_SHARE (issue 41): the share of a pulled source's listings one pull may
 * withdraw before it is held; 0 to 1, half by default, anything else refused at start naming it.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

describe('INMO_PULL_WITHDRAW_MAX_SHARE', () => {
  it('is half by default, takes a share from 0 to 1, and refuses anything else naming the variable', () => {
    expect(loadConfig({}).worker.pullWithdrawMaxShare).toBe(0.5);
    for (const [raw, share] of [
      ['0', 0],
      ['0.25', 0.25],
      ['1', 1],
      [' .9 ', 0.9],
    ] as const) {
      expect(loadConfig({ INMO_PULL_WITHDRAW_MAX_SHARE: raw }).worker.pullWithdrawMaxShare).toBe(share);
    }
    for (const raw of ['1.5', '-0.1', 'half', '50%', '1e-1', '.']) {
      expect(() => loadConfig({ INMO_PULL_WITHDRAW_MAX_SHARE: raw }), raw).toThrow(
        /INMO_PULL_WITHDRAW_MAX_SHARE must be a number from 0 to 1/,
      );
    }
  });
});
