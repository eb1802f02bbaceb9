/** INMO_LEAD_RETENTION_DAYS (CONTRACT §18): whole days of at least 1; unset keeps every lead. */
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

it('INMO_LEAD_RETENTION_DAYS is read as whole days, and unset keeps every lead', () => {
  expect(loadConfig({ INMO_LEAD_RETENTION_DAYS: '365' }).worker.leadRetentionDays).toBe(365);
  expect(loadConfig({}).worker.leadRetentionDays).toBeNull();
  expect(() => loadConfig({ INMO_LEAD_RETENTION_DAYS: '0' })).toThrow('INMO_LEAD_RETENTION_DAYS must be an integer >= 1');
  expect(() => loadConfig({ INMO_LEAD_RETENTION_DAYS: '30d' })).toThrow('INMO_LEAD_RETENTION_DAYS');
});
