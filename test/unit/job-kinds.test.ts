/**
 * Job payloads are typed (issue 56 item 3): one map from kind to payload (src/db/job-kinds.ts),
 * checked by the compiler where a job is queued and parsed once, by kind, where it runs.
 */
import { describe, expect, it } from 'vitest';
import { parseJobPayload, type JobKind, type PayloadOf } from '../../src/db/job-kinds.ts';
import { TASKS } from '../../src/jobs/tasks/index.ts';

/** What `enqueueJob` accepts for a kind's payload (db/repositories/jobs.ts). */
const queued = <K extends JobKind>(kind: K, given: PayloadOf<K>) => ({ kind, ...given });

describe('job payloads', () => {
  it('reads each kind of payload as stored, and nothing else', () => {
    expect(parseJobPayload('send_message', '{"message_id":7}')).toEqual({ payload: { message_id: 7 } });
    expect(parseJobPayload('send_alert', '{"message_id":7}')).toEqual({ payload: { message_id: 7 } });
    expect(parseJobPayload('follow_up', '{"follow_up_id":3}')).toEqual({ payload: { follow_up_id: 3 } });
    expect(parseJobPayload('assistant_reply', '{"message_id":2,"list_reply_id":"slot:1"}')).toEqual({
      payload: { message_id: 2, list_reply_id: 'slot:1' },
    });
    expect(parseJobPayload('match_lead', null)).toEqual({ payload: null });
    expect(parseJobPayload('send_welcome', null)).toEqual({ payload: null });
    expect(parseJobPayload('follow_up', '{}')).toHaveProperty('error');
    expect(parseJobPayload('send_message', '{"message_id":"7"}')).toHaveProperty('error');
    expect(parseJobPayload('send_message', 'not json')).toHaveProperty('error');
    expect(parseJobPayload('match_lead', '{"lead_id":1}')).toHaveProperty('error');
  });

  it('has a task for every kind (the old message kinds included)', () => {
    expect(Object.keys(TASKS).sort()).toContain('send_viewing_notice');
    expect(Object.keys(TASKS).sort()).toContain('send_alert');
  });

  it('refuses, at compile time, a payload of the wrong shape', () => {
    expect(queued('send_message', { payload: { message_id: 1 } }).kind).toBe('send_message');
    expect(queued('match_lead', {}).kind).toBe('match_lead');
    // @ts-expect-error a send_message carries its message's id
    queued('send_message', { payload: { follow_up_id: 1 } });
    // @ts-expect-error a follow_up carries a payload
    queued('follow_up', {});
  });
});
