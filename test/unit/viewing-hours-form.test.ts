/** The settings page's viewing hours as typed (http/console/sections/settings.ts `readPeriods`, CONTRACT §20). */
import { describe, expect, it } from 'vitest';
import { readPeriods } from '../../src/http/console/sections/settings.ts';

describe('reading a day of viewing hours as typed', () => {
  it('takes periods separated by commas or semicolons, any dash, hours of one digit; nothing else', () => {
    expect(readPeriods('')).toEqual([]);
    expect(readPeriods(' 9:00-13:00; 16:30 — 20:00 ')).toEqual([
      ['09:00', '13:00'],
      ['16:30', '20:00'],
    ]);
    expect(readPeriods('10-14')).toBeNull();
    expect(readPeriods('mañanas')).toBeNull();
  });
});
